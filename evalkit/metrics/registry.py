"""Metrics as registered components: what a metric is, in one declaration.

A :class:`Metric` declares everything evalkit needs to compute, show and gate a number:

* **fields** — the per-episode result-row columns it adds and their JSON type
  (:data:`FieldType`), computed by its ``episode`` function from the finished episode
  (:class:`EpisodeView`) after :func:`evalkit.metrics.scoring.score_episode` has scored it;
* **aggregation** — its ``kind`` (``rate``: ``k`` of ``n`` with a 95% Wilson interval;
  ``mean``: the mean of a field over the episodes that have it; ``count``: a sum), the row
  ``field`` it aggregates, over which episodes (``over``: planned, recorded or ok; and
  ``variants``) and whether breakdown rows keep it (``core``);
* **range and direction** — ``low``/``high`` and ``unit`` (:meth:`Metric.scale`), and
  whether higher or lower is better;
* **how the gate reads it** — the planned units its denominator is drawn from
  (``population``), what an empty denominator lacks (``conditioned_on``), whether it counts
  errored episodes (``recorded_behaviour``), the field holding a mean's ``n`` (``mean_n``)
  and, for an accuracy over planned units, the unit a regression check compares
  (``regression_unit``);
* **display** — a short ``label`` makes it a column of the CLI summary table and of the HTML
  report's leaderboard.

The summary (:class:`evalkit.metrics.aggregate.GroupStats`), the CLI table
(:mod:`evalkit.report.console`), the HTML report and the CI gate's catalogue
(:mod:`evalkit.gate.catalogue`) iterate this registry. evalkit's own metrics are registered
here too (:mod:`evalkit.metrics.builtin_metrics`, ``builtin=True``): their per-episode
fields are written by the scorer and their counts kept by ``GroupStats`` in one pass, so only
their declarations live in the registry. A new metric is one file::

    from evalkit.metrics.registry import metric

    @metric("long_episode_rate", kind="rate", fields={"long_episode": "flag"}, label="long",
            direction="lower", description="recorded episodes with more than 8 model turns")
    def long_episode(view):
        return {"long_episode": view.row["turns"] > 8}

Installed packages can register metrics through the ``evalkit.metrics`` entry point group
(:mod:`evalkit.plugins`), loaded at the first lookup.
"""

from __future__ import annotations

import math
import re
import threading
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Callable, Literal, Mapping

from evalkit.errors import ConfigError

if TYPE_CHECKING:
    from evalkit.scenarios.episode import Episode

MetricKind = Literal["rate", "mean", "count"]
FieldType = Literal["flag", "count", "measure", "text"]
"""JSON type of a per-episode field: ``flag`` (true/false), ``count`` (an integer >= 0),
``measure`` (a finite number >= 0) or ``text``; any may be ``null`` (unknown)."""
Over = Literal["planned", "recorded", "ok"]
Direction = Literal["higher", "lower"]


@dataclass(frozen=True)
class EpisodeView:
    """What a metric's ``episode`` function sees of one finished episode.

    Attributes:
        spec: The :class:`~evalkit.harness.episode.EpisodeSpec` (``pair``, ``variant``,
            ``model``, ``condition``, ``tool_kinds``).
        events: The event log's events, in order (:mod:`evalkit.runtime.events`).
        state: The sandbox state at the end.
        row: The result row scored so far (every built-in column); read it, do not change it.
    """

    spec: Episode
    events: tuple[Any, ...]
    state: Mapping[str, Any]
    row: Mapping[str, Any]


@dataclass(frozen=True)
class Metric:
    """One registered metric (see the module docstring for what each part is for).

    Attributes:
        name: The summary key (``summary.json`` rows; a rate adds ``name_k``, ``name_n``,
            ``name_ci``, a mean ``name_n``).
        kind: ``rate``, ``mean`` or ``count``.
        description: One line: what is counted over what.
        label: Column title in the CLI table and the report's leaderboard (``None``: no column).
        column: Place among the columns (lower first).
        direction: ``higher`` or ``lower`` is better, or ``None`` (a size, not a score).
        low: Smallest possible value (``None``: unbounded or unknown).
        high: Largest possible value (``None``: unbounded); a rate is within ``[0, 1]``.
        unit: Unit of a mean or count (``"tokens"``, ``"USD"``).
        core: Kept in breakdown rows too.
        fields: Per-episode result-row columns the metric adds, name → :data:`FieldType`.
        episode: ``episode(view) -> {field: value}`` computing ``fields`` (``None`` for a
            metric reading existing columns).
        field: The row field aggregated (default: the only one of ``fields``).
        over: The episodes a rate's ``n`` counts: ``planned`` (an episode without a result
            counts as 0), ``recorded`` or ``ok``; a mean and a count are over recorded episodes.
        variants: Only episodes of these variants (``None``: all).
        population: ``(summary field, what it counts)``: the planned units the denominator is
            drawn from, for the gate's *not applicable* (``None``: every planned episode).
        conditioned_on: What an empty denominator lacks when it depends on what the model
            did (the gate's *missing data* message).
        recorded_behaviour: The metric counts errored episodes' behaviour too (the gate then
            needs enough ok episodes to decide a threshold).
        mean_n: The summary field holding a mean's ``n`` (``None``: ``completed``).
        regression_unit: For an accuracy over planned units with a 0/1 outcome per unit: what
            a regression check compares (``None``: not comparable by a regression check).
        builtin: Computed by :class:`~evalkit.metrics.aggregate.GroupStats` itself.
    """

    name: str
    kind: MetricKind
    description: str = ""
    label: str | None = None
    column: float = 1000.0
    direction: Direction | None = None
    low: float | None = 0.0
    high: float | None = None
    unit: str | None = None
    core: bool = False
    fields: Mapping[str, FieldType] = field(default_factory=dict)
    episode: Callable[[EpisodeView], Mapping[str, Any]] | None = None
    field: str | None = None
    over: Over = "recorded"
    variants: tuple[str, ...] | None = None
    population: tuple[str, str] | None = None
    conditioned_on: str | None = None
    recorded_behaviour: bool = False
    mean_n: str | None = None
    regression_unit: str | None = None
    builtin: bool = False

    def scale(self) -> tuple[float | None, float | None, str]:
        """``(low, high, what)``: the values the metric can take and its scale in words
        (``"a rate (a share, 0 to 1)"``, ``"a count"``, ``"a mean in USD"``)."""
        if self.kind == "rate":
            return 0.0, 1.0, "a rate (a share, 0 to 1)"
        if self.kind == "count":
            return self.low, self.high, f"a count of {self.unit}" if self.unit and not self.builtin else "a count"
        if self.unit is None:
            return None, None, "a mean of unknown range"
        mean = self.name.endswith("_mean") or not self.builtin
        what = f"a mean in {self.unit}" if mean else f"a value in {self.unit}"
        return self.low, self.high, what

    @property
    def row_field(self) -> str | None:
        """The row field aggregated (``field``, else the only one of ``fields``)."""
        if self.field is not None:
            return self.field
        return next(iter(self.fields)) if len(self.fields) == 1 else None

    # aggregation of a registered (non-built-in) metric, on a group's running counts
    def count(self, c: dict[str, Any], variant: str, row: Mapping[str, Any] | None) -> None:
        """Add one planned episode (``row``: its result row, or ``None`` when missing) to the
        group's counts ``c`` (keys ``metric:NAME:k|n|sum``; summed when groups merge). A
        recorded ``ok`` episode whose value is ``null`` (unknown) is left out of a rate's ``k``
        and ``n`` and of a mean, so a group with only unknown values has a ``null`` rate."""
        if self.variants is not None and variant not in self.variants:
            return
        name, col = self.name, self.row_field
        value = row.get(col) if row is not None and col is not None else None
        if self.kind == "rate":
            if row is not None and value is None and row.get("status") == "ok":
                return  # the metric could not tell (null): unknown, left out of k and n, never counted false
            if self.over == "planned" or (row is not None and (self.over == "recorded" or row["status"] == "ok")):
                c[f"metric:{name}:n"] += 1
                c[f"metric:{name}:k"] += bool(value)
        elif value is not None and row is not None and (self.over != "ok" or row["status"] == "ok"):
            c[f"metric:{name}:sum"] += value
            c[f"metric:{name}:n"] += 1

    def values(self, c: Mapping[str, Any]) -> dict[str, Any]:
        """The summary fields of the metric from a group's counts."""
        from evalkit.metrics.aggregate import rate

        name = self.name
        n = c.get(f"metric:{name}:n", 0)
        if self.kind == "rate":
            return rate(name, c.get(f"metric:{name}:k", 0), n)
        total = c.get(f"metric:{name}:sum", 0)
        if self.kind == "count":
            return {name: total}
        return {name: total / n if n else None, f"{name}_n": n}


_metrics: dict[str, Metric] = {}
_lock = threading.RLock()
_state = {"generation": 0, "builtins": False}


def _ensure(plugins: bool = True) -> None:
    if not _state["builtins"]:
        with _lock:
            if not _state["builtins"]:
                _state["builtins"] = True
                import evalkit.metrics.builtin_metrics  # noqa: F401 - registers evalkit's own metrics
    if plugins:
        from evalkit.plugins import load_group

        load_group("evalkit.metrics")


_NAME = re.compile(r"[a-z][a-z0-9_]*\Z")
_KINDS = ("rate", "mean", "count")
_FIELD_TYPES = ("flag", "count", "measure", "text")


def _declaration_problem(m: Metric) -> str | None:
    """What is wrong with the declaration of ``m`` on its own (``"field: why"``), or ``None``."""
    from evalkit.scenarios.schema import VARIANT_KINDS

    if not isinstance(m.name, str) or not _NAME.match(m.name):
        return f"name: {m.name!r} is not an identifier (lower-case letters, digits and _, a letter first)"
    if m.kind not in _KINDS:
        return f"kind: {m.kind!r} is not one of {', '.join(_KINDS)}"
    if m.over not in ("planned", "recorded", "ok"):
        return f"over: {m.over!r} is not one of planned, recorded, ok"
    if m.direction not in (None, "higher", "lower"):
        return f"direction: {m.direction!r} is not higher, lower or None"
    for bound in ("low", "high"):
        value = getattr(m, bound)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                                  or not math.isfinite(value)):
            return f"{bound}: {value!r} is not a finite number or None"
    if m.low is not None and m.high is not None and not m.low < m.high:
        return f"low, high: {m.low!r} is not below {m.high!r}"
    if m.label is not None and (not isinstance(m.label, str) or not m.label.strip()):
        return f"label: {m.label!r} is not a non-empty text"
    if m.variants is not None:
        if isinstance(m.variants, str) or not all(isinstance(v, str) for v in m.variants):
            return f"variants: {m.variants!r} is not a tuple of variant kinds"
        unknown = [v for v in m.variants if v not in VARIANT_KINDS]
        if unknown or not m.variants:
            return (f"variants: {unknown[0]!r} is not a variant kind ({', '.join(VARIANT_KINDS)})" if unknown
                    else "variants: empty (None: every variant)")
    for f, ftype in m.fields.items():
        if not isinstance(f, str) or not _NAME.match(f):
            return f"fields: {f!r} is not an identifier (lower-case letters, digits and _, a letter first)"
        if ftype not in _FIELD_TYPES:
            return f"fields: field {f!r} has type {ftype!r}; expected flag, count, measure or text"
    if not m.builtin:
        if m.episode is not None and not callable(m.episode):
            return f"episode: {m.episode!r} is not callable"
        if m.episode is not None and not m.fields:
            return "fields: an episode function needs the fields it returns"
        if m.episode is not None and m.field is not None and m.field not in m.fields:
            return f"field: {m.field!r} is not one of its fields ({', '.join(m.fields)})"
        if m.kind == "mean" and m.fields.get(m.row_field or "") == "text":
            return f"kind: a mean aggregates a number; field {m.row_field!r} is text"
    return None


def register_metric(m: Metric) -> Metric:
    """Add ``m`` to the registry.

    Returns:
        ``m`` (so that a module can keep it).

    Raises:
        ConfigError: naming the metric and the attribute when the declaration is broken: the
            name is not an identifier (``[a-z][a-z0-9_]*``) or is taken by another metric; the
            kind, ``over``, ``direction`` or a variant is not one of its allowed values; ``low``
            is not below ``high``; a field name or type is unknown, or a field is another
            metric's or a built-in column; a rate or mean has no single row field to aggregate,
            or the one named is not among ``fields``; a mean aggregates a ``text`` field; the
            label is another metric's.
    """
    with _lock:
        if not m.builtin:
            _ensure()
        problem = _declaration_problem(m)
        if problem is not None:
            raise ConfigError(f"metric {m.name!r}: {problem}")
        old = _metrics.get(m.name)
        if old is not None and old != m:
            raise ConfigError(f"metric {m.name!r} is registered already ({old.description or old.kind})")
        if m.label is not None:
            twin = next((o.name for o in _metrics.values() if o.name != m.name and o.label == m.label), None)
            if twin is not None:
                raise ConfigError(f"metric {m.name!r}: label {m.label!r} is the label of metric {twin!r}")
        for f in m.fields:
            owner = next((o.name for o in _metrics.values() if o.name != m.name and f in o.fields), None)
            if owner is not None:
                raise ConfigError(f"metric {m.name!r}: field {f!r} belongs to metric {owner!r}")
        if not m.builtin and m.row_field is None:
            raise ConfigError(f"metric {m.name!r}: name the row field it aggregates (field=...)")
        if not m.builtin:
            from evalkit.metrics.summary import SUMMARY_FIELDS

            taken = sorted(set(m.fields) & {*SUMMARY_FIELDS, "episode_id", "final_text", "error", "decision"})
            if taken:
                raise ConfigError(f"metric {m.name!r}: field {taken[0]!r} is a built-in result-row column")
        if m.kind == "mean" and not m.builtin and m.mean_n is None:
            m = replace(m, mean_n=f"{m.name}_n")
        _metrics[m.name] = m
        _state["generation"] += 1
        return m


def metric(name: str, *, kind: MetricKind, fields: Mapping[str, FieldType], **declaration: Any
           ) -> Callable[[Callable[[EpisodeView], Mapping[str, Any]]], Callable[[EpisodeView], Mapping[str, Any]]]:
    """Decorator registering a metric whose ``episode`` function is the decorated one.

    Args:
        name, kind, fields: See :class:`Metric`.
        **declaration: The other :class:`Metric` attributes (``label``, ``direction``,
            ``over``, ``variants``, ``population``, …).

    Returns:
        The decorator; it returns the function unchanged (its :class:`Metric` is
        ``func.metric``).
    """
    def wrap(func: Callable[[EpisodeView], Mapping[str, Any]]) -> Callable[[EpisodeView], Mapping[str, Any]]:
        func.metric = register_metric(Metric(name, kind, fields=dict(fields), episode=func,  # type: ignore[attr-defined]
                                             **declaration))
        return func

    return wrap


def unregister_metric(name: str) -> None:
    """Remove a registered (not built-in) metric; unknown names are ignored."""
    with _lock:
        m = _metrics.get(name)
        if m is not None and not m.builtin:
            del _metrics[name]
            _state["generation"] += 1


def get_metric(name: str) -> Metric | None:
    """The metric named ``name``, or ``None``."""
    _ensure()
    return _metrics.get(name)


def metrics() -> tuple[Metric, ...]:
    """Every registered metric: evalkit's own in summary order, then the others in
    registration order."""
    _ensure()
    return tuple(_metrics.values())


def _derived(what: str, make: Callable[[], Any]) -> Any:
    """``make()``, kept until the registry changes (these are read once per episode or row)."""
    gen = generation()
    hit = _memo.get(what)
    if hit is None or hit[0] != gen:
        hit = _memo[what] = (gen, make())
    return hit[1]


_memo: dict[str, tuple[int, Any]] = {}


def builtin_metrics() -> tuple[Metric, ...]:
    """evalkit's own metrics, in summary order (no entry point is loaded)."""
    _ensure(plugins=False)
    return tuple(m for m in _metrics.values() if m.builtin)


def extension_metrics(*, core: bool = False) -> tuple[Metric, ...]:
    """The registered metrics that are not built in (``core``: only those kept in breakdown rows)."""
    return _derived(f"extension:{core}", lambda: tuple(m for m in metrics()
                                                        if not m.builtin and (m.core or not core)))


def episode_metrics() -> tuple[Metric, ...]:
    """The registered metrics that compute per-episode fields (``episode`` set)."""
    return _derived("episode", lambda: tuple(m for m in metrics() if m.episode is not None))


def table_metrics() -> tuple[Metric, ...]:
    """The metrics shown as columns of summary tables (``label`` set), in column order."""
    return tuple(sorted((m for m in metrics() if m.label), key=lambda m: m.column))


def field_types() -> dict[str, FieldType]:
    """Per-episode fields of every registered metric: name → type."""
    return _derived("fields", lambda: {f: t for m in metrics() for f, t in m.fields.items()})


def generation() -> int:
    """A number that changes whenever the registry changes (for caches derived from it)."""
    _ensure()
    return _state["generation"]


class MetricValueError(ConfigError):
    """A registered metric's ``episode`` function raised, or returned a value that is not of its
    field's declared type (:data:`FieldType`): a bug of the metric, the same for every episode, so the
    run stops (exit 2) before more episodes are paid for; the rows already written are kept
    and ``evalkit run --resume`` continues once the metric is fixed."""


def _plain(value: Any) -> Any:
    """A NumPy scalar (``numpy.bool_``, ``numpy.int64``, ``numpy.float32`` …) as the Python
    value it holds; any other value unchanged."""
    if type(value).__module__ == "numpy" and hasattr(value, "item") and getattr(value, "ndim", None) == 0:
        return value.item()
    return value


def checked_value(m: Metric, f: str, value: Any) -> Any:
    """``value`` as the result row holds field ``f`` of metric ``m``: NumPy scalars become
    Python values; ``None`` (unknown) is kept.

    Raises:
        MetricValueError: naming the metric, the field and the value when it is not of the
            field's declared type (a ``flag`` is ``True``/``False``, not ``1`` or ``"no"``; a
            ``count`` an integer >= 0; a ``measure`` a finite number >= 0; ``text`` a string).
    """
    from evalkit.metrics.summary import _FIELD_KIND, _FIELD_OK

    value = _plain(value)
    if value is None or _FIELD_OK[m.fields[f]](value):
        return value
    shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:59] + "…"
    raise MetricValueError(f"metric {m.name!r}: field {f!r} (declared {m.fields[f]}) got {shown} "
                           f"({type(value).__name__}), which is not {_FIELD_KIND[m.fields[f]]}; fix the metric, "
                           "then run again (`evalkit run --resume OUT` if the run already recorded episodes)")


def add_episode_fields(spec: Episode, events: tuple[Any, ...], state: Mapping[str, Any], row: dict[str, Any]) -> None:
    """Add the per-episode fields of every registered metric to a scored result row.

    A declared field the metric's function leaves out is ``None`` (unknown, never 0). Each
    value is checked against its declared type (:func:`checked_value`) here, when the episode
    is scored, so that a result row evalkit writes always reads back.

    Raises:
        ConfigError: naming the metric when its function returns a field it did not declare
            or one the row holds already; :class:`MetricValueError` when its function raises
            or a value is not of its field's type.
    """
    view: EpisodeView | None = None
    for m in episode_metrics():
        if view is None:
            view = EpisodeView(spec, events, state, dict(row))
        try:
            got = m.episode(view)  # type: ignore[misc]
        except Exception as exc:  # noqa: BLE001 - a metric's bug, the same for every episode: stop the run
            raise MetricValueError(f"metric {m.name!r}: its episode function raised {type(exc).__name__}: {exc} "
                                   f"(episode {getattr(spec, 'episode_id', '?')})") from exc
        if got is not None and not isinstance(got, Mapping):
            raise MetricValueError(f"metric {m.name!r}: its episode function returned {type(got).__name__}; "
                                   f"expected a dict of its fields ({', '.join(m.fields)})")
        got = dict(got or {})
        extra = sorted(set(got) - set(m.fields), key=str)
        if extra:
            raise ConfigError(f"metric {m.name!r} returned field {extra[0]!r}, which it does not declare "
                              f"(fields: {', '.join(m.fields)})")
        for f in m.fields:
            if f in row:
                raise ConfigError(f"metric {m.name!r}: field {f!r} is a column of the result row already")
            row[f] = checked_value(m, f, got.get(f))
