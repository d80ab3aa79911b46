"""The runtime policy: budgets, approvals and meta-request authority, from a file or a scenario.

A policy file (``evalkit run --policy FILE``, YAML or JSON) sets what the runtime allows
in every episode of a run; a scenario variant can add its own budgets, approvals and
grantable permissions (the scenario's are applied over the file's)::

    budgets: {tool_calls: 20, tokens: 50000, money: 0.50, gather_steps: 8, commit_steps: 2}
    approvals:
      require: [{tool: refund_order, args: {amount: {gt: 100}}}]
      grant: [{tool: refund_order, args: {amount: {le: 20}}}]    # pre-approved by policy
    meta:
      max_per_turn: 3
      max_escalations: 1
      grantable: [ws.share]

Every key is validated on load; an unknown key or a wrong type is a
:class:`~evalkit.errors.ConfigError` naming the file and the field. An argument test's
``pattern`` / ``not_pattern`` is matched with RE2 in time linear in the argument's length
(:mod:`evalkit.patterns`), and one RE2 cannot run is refused here, on one line naming the
file, the entry and the field (``policy.yaml: field approvals.require.0.args.q.pattern:
regular expression `(\\w)\\1` is not supported by the linear-time pattern engine …``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from evalkit.errors import ConfigError
from evalkit.runtime.approvals import ApprovalPolicy
from evalkit.runtime.meta import MetaPolicy
from evalkit.documents import DocumentError, load_json, load_yaml


class Budgets(BaseModel):
    """Hard per-episode budgets (issue item 4); ``None`` leaves the run's limit in force.

    Attributes:
        tool_calls: Tool calls decided (task and meta).
        tokens: Input plus output tokens.
        money: Model and meta-request cost, in the price table's currency.
        gather_steps: Lookups and verifies executed.
        commit_steps: Commits executed (successful or not).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    tool_calls: int | None = Field(default=None, ge=0, strict=True)  # strict: `true` or "5" is not a budget
    tokens: int | None = Field(default=None, ge=0, strict=True)
    money: float | None = Field(default=None, ge=0, strict=True)
    gather_steps: int | None = Field(default=None, ge=0, strict=True)
    commit_steps: int | None = Field(default=None, ge=0, strict=True)

    def over(self, other: "Budgets | None") -> "Budgets":
        """These budgets with ``other``'s set entries applied on top."""
        if other is None:
            return self
        return Budgets(**{**self.model_dump(), **other.model_dump(exclude_none=True)})


class RuntimePolicy(BaseModel):
    """A run's runtime policy (see the module docstring)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    budgets: Budgets = Field(default_factory=Budgets)
    approvals: ApprovalPolicy = Field(default_factory=ApprovalPolicy)
    meta: MetaPolicy = Field(default_factory=MetaPolicy)


def load_policy(path: str | Path) -> RuntimePolicy:
    """Load and validate a policy file.

    Args:
        path: A JSON (``.json``) or YAML (any other name) policy file (see the module docstring); ``{}`` is
            the default policy.

    Returns:
        The validated :class:`RuntimePolicy`, argument patterns compiled for linear-time matching.

    Raises:
        ConfigError: one line naming the file and the first offending field (its dotted
            path, e.g. ``approvals.require.0.args.q.pattern``: the entry, then the field); a file
            that is not valid YAML / JSON (naming the line and the problem), or holds no policy at all
            (empty, only comments, ``null``).
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{p}: cannot read the policy file: {exc.strerror}") from None
    kind = "JSON" if p.suffix == ".json" else "YAML"
    try:
        raw: Any = load_json(text) if kind == "JSON" else load_yaml(text)
    except DocumentError as exc:
        raise ConfigError(f"{p}: {exc.describe()}") from None
    except (yaml.YAMLError, json.JSONDecodeError) as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" (line {mark.line + 1})" if mark is not None else \
            f" (line {exc.lineno})" if isinstance(exc, json.JSONDecodeError) else ""
        problem = getattr(exc, "problem", None) or getattr(exc, "msg", None)
        raise ConfigError(f"{p}: not valid {kind}{line}" + (f": {problem}" if problem else "")) from None
    if raw is None:
        raise ConfigError(f"{p}: holds no policy (empty, only comments or null); leave out --policy for the "
                          "default policy, or write {} to name it")
    try:
        return RuntimePolicy.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(part) for part in err["loc"]) or "(top level)"
        message = err["msg"].removeprefix("Value error, ")
        raise ConfigError(f"{p}: field {where}: {message}") from None
