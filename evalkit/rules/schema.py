"""The stopping-rule set format: versioned data the autonomy gate enforces (DESIGN §4, seed 003).

A rule set is a YAML file, kept in git and diffed like code::

    id: evalkit-default
    version: "2"
    description: Stopping rules distilled from misaction traces.
    changelog:                       # newest first; the first entry is `version`
      - {version: "2", date: 2025-01-20, changes: [added bulk-order-confirm]}
      - {version: "1", date: 2025-01-06, changes: [first rule set]}
    rules:
      - id: sku-empty-v1
        trigger: missing_target      # documentation: the trigger the rule covers
        when:                        # every given condition must hold
          signal: missing_target     # an unresolved signal (or a list: any of them)
          source_prefix: search_     # ... reported by a tool whose name starts with this
          tool_prefix: search_       # the proposed call's tool (also: tool, kind, args)
          domain: shop               # the episode's domain (or a list)
        then: abstain                # or clarify
        message: The catalog has no such item; stop searching and do not order a substitute.

``when`` takes the proposed-call fields of :class:`~evalkit.runtime.matching.CallPattern`
(``tool``, ``tool_prefix``, ``kind``, ``args``) plus ``signal``, ``source_prefix`` and
``domain``; it must restrict something (an empty ``when`` would stop every call). Rule ids
are unique within a set; the first matching rule wins. Validation errors name the file,
the rule and the field (:func:`evalkit.rules.loader.load_rule_set`).
"""

from __future__ import annotations

import datetime as _dt
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from evalkit.runtime.gate import RuleHit, Situation
from evalkit.runtime.matching import CallPattern

_ID = r"^[A-Za-z0-9_.:-]+$"
_OPS = {"eq": "=", "ne": "not", "gt": ">", "ge": ">=", "lt": "<", "le": "<=", "pattern": "matching",
        "not_pattern": "not matching", "in": "one of", "exists": "present:"}


def _text(value: object) -> object:
    return str(value) if isinstance(value, (int, float)) else value


def _tuple(value: object) -> object:
    if isinstance(value, str):
        return (value,)
    return tuple(value) if isinstance(value, (list, tuple)) else value


class When(CallPattern):
    """The situation a rule applies to. Every given field must hold.

    Attributes:
        signal: An unresolved signal observed in the episode (a list: any of them).
        source_prefix: The signal (or, without ``signal``, any unresolved signal) came
            from a tool whose name starts with this.
        domain: The episode's task domain (a list: any of them).
        tool / tool_prefix / kind / args: The proposed call (see ``CallPattern``).
    """

    signal: tuple[str, ...] | None = None
    source_prefix: str | None = None
    domain: tuple[str, ...] | None = None

    _norm_when = field_validator("signal", "domain", mode="before")(classmethod(lambda cls, v: _tuple(v)))

    @model_validator(mode="after")
    def _restricts(self) -> "When":
        if self.is_empty() and self.signal is None and self.source_prefix is None and self.domain is None:
            raise ValueError("`when` must restrict something (signal, source_prefix, tool, tool_prefix, kind, "
                             "args or domain); an empty `when` would stop every call")
        return self

    def holds(self, situation: Situation) -> bool:
        """Whether the rule's conditions hold in ``situation``."""
        if self.domain is not None and situation.domain not in self.domain:
            return False
        if self.signal is not None or self.source_prefix is not None:
            prefix = self.source_prefix
            if not any((self.signal is None or s[0] in self.signal) and (prefix is None or s[1].startswith(prefix))
                       for s in situation.signals):
                return False
        return self.matches(situation.tool, situation.kind, situation.arguments)

    def describe(self) -> str:
        """The conditions in words, for rendering a rule into the model's context."""
        parts: list[str] = []
        if self.signal is not None:
            src = f" reported by a {self.source_prefix}* tool" if self.source_prefix else ""
            parts.append(f"a tool result signalled {' or '.join(self.signal)}{src}")
        elif self.source_prefix is not None:
            parts.append(f"a {self.source_prefix}* tool reported a problem")
        if self.tool is not None:
            parts.append(f"you call {' or '.join(self.tool)}")
        if self.tool_prefix is not None:
            parts.append(f"you call a {self.tool_prefix}* tool")
        if self.kind is not None:
            parts.append(f"the call is a {' or '.join(self.kind)}")
        for name, test in self.args.items():
            shown = " and ".join(f"{_OPS.get(k, k)} {v!r}"
                                 for k, v in test.model_dump(exclude_none=True, by_alias=True).items())
            parts.append(f"its {name} is {shown}")
        if self.domain is not None:
            parts.append(f"in the {' or '.join(self.domain)} domain")
        return " and ".join(parts)


class Rule(BaseModel):
    """One stopping rule: ``when`` → ``then`` with a message.

    Attributes:
        id: Unique within the set (by convention ends in ``-vN``).
        when: The :class:`When` conditions.
        then: ``abstain`` or ``clarify``.
        message: Shown to the model when the rule stops a call (and in the context).
        trigger: The DESIGN §6 trigger the rule covers (documentation, reports).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1, pattern=_ID)
    when: When
    then: Literal["abstain", "clarify"]
    message: str = Field(min_length=1)
    trigger: str | None = None


class ChangelogEntry(BaseModel):
    """One version's entry in a rule set's changelog."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    version: str = Field(min_length=1)
    date: _dt.date | None = None
    changes: tuple[str, ...] = Field(min_length=1)

    _norm_changes = field_validator("changes", mode="before")(classmethod(lambda cls, v: _tuple(v)))
    _norm_version = field_validator("version", mode="before")(classmethod(lambda cls, v: _text(v)))


class RuleSet(BaseModel):
    """A versioned set of stopping rules; implements :class:`evalkit.runtime.gate.StoppingRules`.

    Attributes:
        id: The set's name. ``version``: its version (numbers are read as text).
        description: What the set is for.
        changelog: Newest first; the first entry's version is ``version``.
        rules: In match order.
        sha256: Hash of the file's bytes (set by the loader; identifies the exact content).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1, pattern=_ID)
    version: str = Field(min_length=1)
    description: str = ""
    changelog: tuple[ChangelogEntry, ...] = Field(min_length=1)
    rules: tuple[Rule, ...] = ()
    sha256: str = ""

    _norm_version = field_validator("version", mode="before")(classmethod(lambda cls, v: _text(v)))

    @model_validator(mode="after")
    def _consistent(self) -> "RuleSet":
        if self.changelog[0].version != self.version:
            raise ValueError(f"the newest changelog entry is version {self.changelog[0].version!r} but the set is "
                             f"version {self.version!r}; add a changelog entry for this version first")
        seen: set[str] = set()
        for rule in self.rules:
            if rule.id in seen:
                raise ValueError(f"duplicate rule id {rule.id!r}")
            seen.add(rule.id)
        return self

    @property
    def label(self) -> str:
        """``id@version``, as shown in reports and traces."""
        return f"{self.id}@{self.version}"

    def identity(self) -> dict[str, str]:
        """What identifies the set in a run manifest and an episode's first event."""
        return {"id": self.id, "version": self.version, "sha256": self.sha256}

    def match(self, situation: Situation) -> RuleHit | None:
        """The first rule whose conditions hold in ``situation``, or ``None``."""
        for rule in self.rules:
            if rule.when.holds(situation):
                return RuleHit(rule.id, rule.then, rule.message)
        return None

    def render(self) -> str:
        """The rules as text for the model's context (``--rules-in-context``)."""
        lines = [f"Stopping rules ({self.label}); the runtime enforces them, so follow them yourself:"]
        for rule in self.rules:
            lines.append(f"- [{rule.id}] when {rule.when.describe()}: {rule.then}. {rule.message}")
        return "\n".join(lines)
