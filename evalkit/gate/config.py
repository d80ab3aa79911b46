"""The gate config file (``gate.yaml``): thresholds and regression checks, validated on load.

A config holds ``thresholds`` (absolute limits on ``summary.json`` numbers) and/or a
``regression`` section (drops against a baseline run, DESIGN §8)::

    thresholds:
      - metric: paired_accuracy          # any rate, mean or count of a summary row
        min: 0.75                        # or max, or both; or equals
        where: {model: scripted/oracle}  # optional: only these groups (values may be lists)
      - metric: post_hoc_rate
        equals: 0
      - metric: paired_accuracy          # per-trigger floors, from summary.json's breakdowns
        by: trigger                      # trigger | phase | domain | split | language
        min: 0.5
        where: {trigger: [missing_target, tool_failure]}
    regression:
      baseline: ../reports/baseline      # relative to this file; `--baseline RUN` overrides it
      models: {openai/new-model: openai/old-model}   # optional: run model → baseline model
      checks:
        - metric: paired_accuracy        # an accuracy over planned units (REGRESSION_UNITS)
          tolerance: 0.05                # fail only when the drop is larger than this ...
          alpha: 0.05                    # ... and the exact McNemar p-value is below this

Each check applies to every summary row its ``where`` selects (every model × condition ×
gate row when there is no ``where``; a ``by`` breakdown's rows for ``by``), one check result
per row. ``where`` keys are the group keys ``model``, ``condition`` and ``gate`` plus the
``by`` attribute. A bare ``off`` / ``on`` is the string written (YAML is read with the scalar
rules of :mod:`evalkit.documents`); a boolean given for ``gate`` (JSON ``false``)
is read as ``"off"`` / ``"on"``.

Every problem is one :class:`GateConfigError` line naming the file and the field::

    gate.yaml: field thresholds.1.metric: unknown metric 'paired_acc' for a summary row; it is not one of
        evalkit's own metrics: if a plugin provides it, name the plugin's module in EVALKIT_PLUGINS (…)
    g.yaml: field thresholds.0.max: max = 5 on post_hoc_rate is outside the metric's range [0, 1]: …

A bound outside the metric's range (:func:`evalkit.gate.catalogue.metric_range`: a rate in
``[0, 1]``, a count or a mean of tokens, seconds or USD ``≥ 0``) is such an error: it could
never fail (``max: 5`` on a rate), or never pass. A bound no value can violate (``min: 0`` on
a rate or a count, ``max: 1`` on a rate) is kept but reported by :attr:`GateConfig.warnings`.
``max: 0`` and ``equals: 0`` are bounds like any other.
"""

from __future__ import annotations

import difflib
import json
import math
import os
from pathlib import Path
from collections.abc import Mapping
from typing import Any

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from evalkit.errors import ConfigError
from evalkit.gate.catalogue import BREAKDOWNS, GROUP_KEYS, REGRESSION_UNITS, MetricRange, metric_kinds, metric_range
from evalkit.documents import DocumentError, load_json, load_yaml
from evalkit.plugins import ENV, env_modules

__all__ = ["GateConfig", "GateConfigError", "Regression", "RegressionCheck", "Threshold", "load_gate_config"]


class BoundError(ValueError):
    """A threshold bound outside its metric's range (``bound``: ``min``, ``max`` or ``equals``)."""

    def __init__(self, bound: str, message: str):
        super().__init__(message)
        self.bound = bound


class GateConfigError(ConfigError):
    """A gate config file is malformed (exit code 2).

    Args:
        file: The config file.
        field: Dotted path of the offending field (``thresholds.1.where``), or ``None``.
        message: What is wrong.
    """

    def __init__(self, file: str | Path, field: str | None, message: str):
        self.file = str(file)
        self.field = field
        self.message = message
        super().__init__(f"{self.file}: " + (f"field {field}: " if field else "") + message)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


def _where(value: Any, allowed: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    """Normalise a ``where`` mapping to ``key → tuple of accepted values``."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError("expected a mapping of group key → value or list of values")
    out: dict[str, tuple[str, ...]] = {}
    for key, raw in value.items():
        if key not in allowed:
            raise ValueError(f"unknown group key {key!r} (expected one of {', '.join(allowed)})")
        values = raw if isinstance(raw, list) else [raw]
        if not values:
            raise ValueError(f"{key}: an empty list selects no group")
        norm = []
        for v in values:
            if isinstance(v, bool):  # JSON false/true, or YAML's explicit true/false
                if key != "gate":
                    raise ValueError(f"{key}: expected a string, got {str(v).lower()}")
                v = "on" if v else "off"
            if not isinstance(v, (str, int, float)):
                raise ValueError(f"{key}: expected a string or a list of strings")
            norm.append(str(v))
        out[str(key)] = tuple(dict.fromkeys(norm))
    return out


NEAR = 0.8
"""Smallest :class:`difflib.SequenceMatcher` ratio at which an unknown metric name is taken for a misspelling of a
known one (``paired_acuracy`` -> ``paired_accuracy``)."""


def _plugin_hint() -> str:
    """The hint for a metric that is neither evalkit's own nor registered by a loaded plugin: how
    a plugin's metric is loaded, and which ``EVALKIT_PLUGINS`` modules (if any) were loaded."""
    named = env_modules()
    loaded = (f"{ENV}={','.join(named)} is set, but none of its modules registers it" if named
              else f"{ENV} is set but names no module" if os.environ.get(ENV, "").strip() else f"{ENV} is not set")
    return (f"; it is not one of evalkit's own metrics: if a plugin provides it, name the plugin's module in {ENV} "
            f"(importable from PYTHONPATH) or install the plugin with an entry point in the group "
            f"evalkit.metrics ({loaded})")


class Threshold(_Strict):
    """An absolute limit on one summary metric, for every row ``where`` selects.

    Attributes:
        by: A breakdown of ``summary.json`` (``trigger``, ``phase``, ``domain``, ``split``,
            ``language``); ``None``: the main rows (model × condition × gate).
        metric: A rate, mean or count of those rows (:mod:`evalkit.gate.catalogue`).
        min: The value must be ``>=`` this.
        max: The value must be ``<=`` this.
        equals: The value must be ``==`` this (not with ``min``/``max``).
        where: Group key → accepted values; every listed value must match a row.
        name: Label of the check in the outputs (default: metric, bound and group).
    """

    by: str | None = None
    metric: str
    min: float | None = Field(default=None, strict=True)
    max: float | None = Field(default=None, strict=True)
    equals: float | None = Field(default=None, strict=True)
    where: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    name: str | None = None

    @field_validator("by")
    @classmethod
    def _known_breakdown(cls, value: str | None) -> str | None:
        if value is not None and value not in BREAKDOWNS:
            raise ValueError(f"unknown breakdown {value!r} (expected one of {', '.join(BREAKDOWNS)})")
        return value

    @field_validator("metric")
    @classmethod
    def _known_metric(cls, value: str, info: ValidationInfo) -> str:
        by = info.data.get("by")
        kinds = metric_kinds(core=by is not None)
        if value not in kinds:
            where = f"the {by} breakdown" if by else "a summary row"
            near = difflib.get_close_matches(value, list(kinds), n=1, cutoff=NEAR)
            hint = ("; breakdown rows keep only the core metrics" if value in metric_kinds()
                    else f"; did you mean {near[0]!r}?" if near else _plugin_hint())
            raise ValueError(f"unknown metric {value!r} for {where}{hint} (known: {', '.join(kinds)})")
        return value

    @field_validator("where", mode="before")
    @classmethod
    def _group_keys(cls, value: Any, info: ValidationInfo) -> dict[str, tuple[str, ...]]:
        by = info.data.get("by")
        return _where(value, GROUP_KEYS + ((by,) if by else ()))

    @model_validator(mode="after")
    def _one_bound(self) -> "Threshold":
        if self.min is None and self.max is None and self.equals is None:
            raise ValueError("a threshold needs min, max or equals")
        if self.equals is not None and (self.min is not None or self.max is not None):
            raise ValueError("equals cannot be combined with min or max")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"min {self.min} is above max {self.max}")
        scale = self.scale()
        for bound in ("min", "max", "equals"):
            value = getattr(self, bound)
            if value is None:
                continue
            if (scale.low is not None and value < scale.low) or (scale.high is not None and value > scale.high):
                hint = f"; write {value:g} % as {value / 100:g}" if scale.high == 1 and 1 < value <= 100 else ""
                raise BoundError(bound, f"{bound} = {value:g} on {self.metric} is outside the metric's range "
                                        f"{scale.text()}: {self.metric} is {scale.what}{hint}")
        return self

    def scale(self) -> MetricRange:
        """The range of the threshold's metric (:func:`evalkit.gate.catalogue.metric_range`)."""
        return metric_range(self.metric, metric_kinds(core=self.by is not None)[self.metric])

    def vacuous(self) -> list[tuple[str, str]]:
        """The bounds no value of the metric can violate, each as ``(bound, why)``: a ``min``
        at or below the range's low end (``min: 0`` on a rate or a count) or a ``max`` at or
        above its high end (``max: 1`` on a rate)."""
        scale = self.scale()
        out = []
        if self.min is not None and scale.low is not None and self.min <= scale.low:
            out.append(("min", f"never below {scale.low:g}"))
        if self.max is not None and scale.high is not None and self.max >= scale.high:
            out.append(("max", f"never above {scale.high:g}"))
        return out

    def bound_text(self) -> str:
        """``>= 0.75``, ``<= 0``, ``== 0`` or ``in [0.5, 0.9]``."""
        if self.equals is not None:
            return f"== {self.equals:g}"
        if self.min is not None and self.max is not None:
            return f"in [{self.min:g}, {self.max:g}]"
        return f">= {self.min:g}" if self.min is not None else f"<= {self.max:g}"

    def holds(self, value: float) -> bool:
        """Whether ``value`` meets the bound (exact comparison; rates are exact ``k / n``)."""
        if self.equals is not None:
            return value == self.equals
        return (self.min is None or value >= self.min) and (self.max is None or value <= self.max)


class RegressionCheck(_Strict):
    """A drop of one accuracy against the baseline run, for every row ``where`` selects.

    A check fails when the run's value is below the baseline's by **more than**
    ``tolerance`` **and** the exact McNemar test on the discordant units gives ``p < alpha``
    (:func:`evalkit.metrics.compare.compare_units`), so a drop within noise does not fail CI.

    Attributes:
        metric: One of :data:`evalkit.gate.catalogue.REGRESSION_UNITS`.
        tolerance: Largest drop accepted whatever its significance (rate units, 0–1).
        alpha: Significance level of the paired test.
        where: Group key (``model``, ``condition``, ``gate``) → accepted values of the run's rows.
        name: Label of the check in the outputs.
    """

    metric: str
    tolerance: float = Field(default=0.0, ge=0, le=1, strict=True)
    alpha: float = Field(default=0.05, gt=0, lt=1, strict=True)
    where: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    name: str | None = None

    @field_validator("metric")
    @classmethod
    def _comparable(cls, value: str) -> str:
        if value not in REGRESSION_UNITS:
            known = metric_kinds()
            why = f"{value!r} is not an accuracy over planned units" if value in known else f"unknown metric {value!r}"
            near = difflib.get_close_matches(value, list(REGRESSION_UNITS), n=1, cutoff=NEAR)
            if near:
                why += f" (did you mean {near[0]!r}?)"
            raise ValueError(f"{why}; a regression check compares one of {', '.join(REGRESSION_UNITS)}")
        return value

    @field_validator("where", mode="before")
    @classmethod
    def _group_keys(cls, value: Any) -> dict[str, tuple[str, ...]]:
        return _where(value, GROUP_KEYS)


class Regression(_Strict):
    """Regression checks against a baseline run.

    Attributes:
        baseline: The baseline run directory (relative paths: to the config file's folder);
            ``evalkit gate --baseline RUN`` overrides it.
        models: Run model spec → baseline model spec, for groups whose model is named
            differently in the baseline (default: the same name).
        checks: The checks, at least one.
    """

    baseline: str | None = None
    models: dict[str, str] = Field(default_factory=dict)
    checks: list[RegressionCheck] = Field(min_length=1)


class GateConfig(_Strict):
    """A whole gate config (see the module docstring).

    Attributes:
        thresholds: Absolute limits.
        regression: Checks against a baseline run, or ``None``.
        source: The file it was read from (set by :func:`load_gate_config`; read-only).
    """

    thresholds: list[Threshold] = Field(default_factory=list)
    regression: Regression | None = None
    _source: str = PrivateAttr(default="<config>")

    @property
    def source(self) -> str:
        """The file the config was read from."""
        return self._source

    @property
    def warnings(self) -> list[str]:
        """One line per threshold bound that can never fail (:meth:`Threshold.vacuous`):
        ``thresholds.1.min = 0 on abstain_accuracy can never fail: …``."""
        out = []
        for i, threshold in enumerate(self.thresholds):
            for bound, why in threshold.vacuous():
                value = getattr(threshold, bound)
                out.append(f"thresholds.{i}.{bound} = {value:g} on {threshold.metric} can never fail: "
                           f"{threshold.metric} is {threshold.scale().what}, {why}; tighten or remove it")
        return out

    @model_validator(mode="after")
    def _some_check(self) -> "GateConfig":
        if not self.thresholds and self.regression is None:
            raise ValueError("no checks: add `thresholds` and/or `regression.checks` (an empty gate never passes)")
        return self

    def baseline_path(self, override: str | Path | None = None) -> Path | None:
        """The baseline run directory: ``override`` as given, else ``regression.baseline``
        relative to the config file's folder; ``None`` when neither is set."""
        if override is not None:
            return Path(override)
        if self.regression is None or self.regression.baseline is None:
            return None
        path = Path(self.regression.baseline)
        return path if path.is_absolute() else Path(self.source).parent / path


def _field(err: Mapping[str, Any]) -> str:
    """The dotted path of a validation error (``thresholds.0.max``): a bound outside its
    metric's range names the bound."""
    path = [str(part) for part in err["loc"]]
    cause = (err.get("ctx") or {}).get("error")
    if isinstance(cause, BoundError):
        path.append(cause.bound)
    return ".".join(path)


def _message(err: Mapping[str, Any]) -> str:
    if err["type"] == "extra_forbidden":
        return "unknown field"
    if err["type"] == "missing":
        return "required field is missing"
    msg = err["msg"].removeprefix("Value error, ")
    value = err.get("input")
    if err["type"] == "finite_number" or (isinstance(value, float) and math.isnan(value)):
        return "expected a finite number"
    if err["type"] == "float_type":
        if isinstance(value, int) and not isinstance(value, bool):
            return "expected a finite number (this integer is too large)"
        got = f"the string {value!r} (write the number unquoted)" if isinstance(value, str) else \
            f"{str(value).lower()}" if isinstance(value, bool) else f"a {type(value).__name__}"
        return f"expected a number, got {got}"
    return msg


def load_gate_config(path: str | Path) -> GateConfig:
    """Read and validate a gate config file (YAML or JSON).

    Args:
        path: The file.

    Returns:
        The validated :class:`GateConfig` (its ``source`` is ``path``).

    Raises:
        GateConfigError: for a missing or unreadable file, malformed YAML, or an invalid field
            (unknown metric, unknown group key, a threshold without a bound, …); the message is
            one line naming the file and the field.
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise GateConfigError(p, None, "no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise GateConfigError(p, None, f"unreadable ({exc.__class__.__name__})") from None
    try:
        raw = load_json(text) if p.suffix == ".json" else load_yaml(text)  # JSON's NaN/Infinity are numbers
    except DocumentError as exc:
        raise GateConfigError(p, None, exc.describe()) from None
    except json.JSONDecodeError as exc:
        raise GateConfigError(p, None, f"line {exc.lineno}, column {exc.colno}: malformed JSON ({exc.msg})") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise GateConfigError(p, None, f"{where}malformed YAML ({problem})") from None
    if not isinstance(raw, dict):
        raise GateConfigError(p, None, "expected a mapping with `thresholds` and/or `regression`")
    try:
        config = GateConfig.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        raise GateConfigError(p, _field(err) or None, _message(err)) from None
    config._source = str(p)
    return config
