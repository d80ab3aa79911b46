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

Argument tests (:class:`RuleArgTest`) are the runtime's
(:class:`~evalkit.runtime.matching.ArgTest`), which a replay report needs to explain:

* ``pattern`` / ``not_pattern`` are compiled and matched in linear time
  (:mod:`evalkit.patterns`, RE2 syntax), so no pattern can hang the gate or a replay;
  one RE2 cannot run is refused on load.
* Comparisons are typed, as in JSON: ``gt`` / ``ge`` / ``lt`` / ``le`` hold only for a
  number (never a bool or a string: the string ``"500"`` is not above 100), and ``eq`` /
  ``ne`` / ``in`` compare values exactly (``"500"`` is not ``500``, ``true`` is not ``1``,
  inside arrays and objects too: :func:`~evalkit.runtime.matching.json_equal`). A test that fails on the
  argument's type alone is a non-match *with a reason*: :meth:`RuleSet.type_mismatches`
  names the rule, the field and why, and ``evalkit rules replay`` lists every such commit
  (:func:`evalkit.rules.matcher.scan`). In a live run the controller validates arguments
  against the tool's JSON Schema before the gate is asked, so a string where the schema
  wants a number is denied (``schema_mismatch``) before any rule is matched.
"""

from __future__ import annotations

import datetime as _dt
import math
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from evalkit.runtime.gate import RuleHit, Situation
from evalkit.runtime.matching import ArgTest, CallPattern, json_equal, restricting_prefix
from evalkit.types import Trigger

_ID = r"^[A-Za-z0-9_.:-]+$"
_OPS = {"eq": "=", "ne": "not", "gt": ">", "ge": ">=", "lt": "<", "le": "<=", "pattern": "matching",
        "not_pattern": "not matching", "in": "one of", "exists": "present:"}


def _text(value: object) -> object:
    return str(value) if isinstance(value, (int, float)) else value


def _tuple(value: object) -> object:
    if isinstance(value, str):
        return (value,)
    return tuple(value) if isinstance(value, (list, tuple)) else value


_BOUNDS = ("gt", "ge", "lt", "le")


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if _is_number(value):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array" if isinstance(value, (list, tuple)) else "an object" if isinstance(value, dict) else "a value"


def _as_number(value: Any) -> float | None:
    """The number a value is or spells (``500``, ``"500"``, ``" 5e2 "``), else ``None``."""
    if _is_number(value):
        return float(value)
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return None
        return number if math.isfinite(number) else None
    return None


def _spelled_number(value: Any) -> float | None:
    """The number a value spells, a boolean read as 1 / 0 (``true`` and ``1`` look alike to
    Python, not to JSON), else :func:`_as_number`."""
    return float(value) if isinstance(value, bool) else _as_number(value)


def _shown(value: Any, limit: int = 60) -> str:
    text = ("true" if value else "false") if isinstance(value, bool) else repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


class RuleArgTest(ArgTest):
    """A stopping rule's test on one argument: :class:`~evalkit.runtime.matching.ArgTest`
    (linear-time patterns, typed comparisons) plus :meth:`type_mismatch`, which says why a
    comparison failed on the argument's JSON type alone (see the module docstring).

    Raises (on validation):
        ValueError: for a pattern RE2 cannot run (backreferences, lookaround, …), naming it;
            the loader turns it into one line naming the file, the rule and the field.
    """

    def type_mismatch(self, present: bool, value: Any) -> str | None:
        """Why a comparison of this test could not be made on ``value``'s JSON type, or ``None``.

        Reported: a numeric bound on a value that is not a finite number, and an ``eq`` /
        ``in`` whose reference and value spell the same number as different types (``"500"``
        and ``500``, ``true`` and ``1``). Such a comparison does not hold; this says why, for the replay report.

        Args:
            present: Whether the call has the argument.
            value: Its value.

        Returns:
            One clause (``is a string '500', not a number: bound gt 100 not applied …``).
        """
        if not present:
            return None
        for name, ref in self._checks:
            if name in _BOUNDS and not (_is_number(value) and math.isfinite(value)):
                what = f"{_json_kind(value)} {_shown(value)}" if value is not None else "null"
                return (f"is {what}, not a finite number: bound {name} {ref:g} not applied (numeric bounds "
                        "hold only for JSON numbers)")
            if name in ("eq", "in_"):
                refs = list(ref) if name == "in_" else [ref]
                number = _spelled_number(value)
                if not any(json_equal(value, r) for r in refs) and number is not None and any(
                        _json_kind(r) != _json_kind(value) and _spelled_number(r) == number for r in refs):
                    label = "in" if name == "in_" else "eq"
                    return (f"is {_json_kind(value)} {_shown(value)}, the rule's {label} {_shown(ref)} a different "
                            f"JSON type: not equal ({label} compares JSON values exactly)")
        return None


@dataclass(frozen=True, slots=True)
class TypeMismatch:
    """A rule that did not match because an argument had the wrong JSON type for one of its tests.

    Attributes:
        rule_id: The rule. ``field``: ``args.NAME``. ``value``: the argument's value.
        reason: One line: the value, its type and the comparison not made.
    """

    rule_id: str
    field: str
    value: Any
    reason: str


class When(CallPattern):
    """The situation a rule applies to. Every given field must hold.

    Attributes:
        signal: An unresolved signal observed in the episode (a list: any of them).
        source_prefix: The signal (or, without ``signal``, any unresolved signal) came
            from a tool whose name starts with this.
        domain: The episode's task domain (a list: any of them).
        tool / tool_prefix / kind: The proposed call (see ``CallPattern``).
        args: Argument name → :class:`RuleArgTest` (linear-time patterns, typed comparisons).
    """

    # narrowed to the rule test (pydantic validates the subclass); mypy sees a mutable-field override
    args: dict[str, RuleArgTest] = Field(default_factory=dict)  # type: ignore[assignment]
    signal: tuple[str, ...] | None = None
    source_prefix: str | None = None
    domain: tuple[str, ...] | None = None

    _norm_when = field_validator("signal", "domain", mode="before")(classmethod(lambda cls, v: _tuple(v)))

    _source_prefix = field_validator("source_prefix")(classmethod(lambda cls, v: restricting_prefix(v)))

    @model_validator(mode="after")
    def _restricts(self) -> "When":
        if self.is_empty() and self.signal is None and self.source_prefix is None and self.domain is None:
            raise ValueError("`when` must restrict something (signal, source_prefix, tool, tool_prefix, kind, "
                             "args or domain); an empty `when` would stop every call")
        return self

    def _context_holds(self, situation: Situation) -> bool:
        """Every condition but the argument tests."""
        if self.domain is not None and situation.domain not in self.domain:
            return False
        if self.signal is not None or self.source_prefix is not None:
            prefix = self.source_prefix
            if not any((self.signal is None or s[0] in self.signal) and (prefix is None or s[1].startswith(prefix))
                       for s in situation.signals):
                return False
        tool = situation.tool
        return ((self.tool is None or tool in self.tool) and (self.kind is None or situation.kind in self.kind)
                and (self.tool_prefix is None or tool.startswith(self.tool_prefix)))

    def holds(self, situation: Situation) -> bool:
        """Whether the rule's conditions hold in ``situation``."""
        return self._context_holds(situation) and self.matches(situation.tool, situation.kind, situation.arguments)

    def type_mismatches(self, situation: Situation) -> list[tuple[str, Any, str]]:
        """The argument tests that fail in ``situation`` on the argument's JSON type alone.

        Returns:
            ``(field, value, reason)`` per such test (``field`` is ``args.NAME``), when every
            other condition of the rule holds and every other argument test passes (so the
            types alone decided the non-match); otherwise ``[]``.
        """
        if not self.args or not self._context_holds(situation):
            return []
        arguments = situation.arguments or {}
        out: list[tuple[str, Any, str]] = []
        for name, test in self.args.items():
            present, value = name in arguments, arguments.get(name)
            if test.test(present, value):
                continue
            reason = test.type_mismatch(present, value)
            if reason is None:
                return []  # fails for another reason: the types did not decide
            out.append((f"args.{name}", value, f"args.{name} {reason}"))
        return out

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
        trigger: The DESIGN §6 trigger the rule covers (documentation, reports): one of
            :data:`evalkit.types.TRIGGERS`.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1, pattern=_ID)
    when: When
    then: Literal["abstain", "clarify"]
    message: str = Field(min_length=1)
    trigger: Trigger | None = None


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

    def type_mismatches(self, situation: Situation) -> list[TypeMismatch]:
        """The rules that :meth:`match` tried before its answer and that did not match only
        because an argument had another JSON type than the test needs (``"500"`` for
        ``gt: 100``): the explicit record of a non-match that would otherwise be silent.

        Returns:
            One :class:`TypeMismatch` per such test, in rule order.
        """
        out: list[TypeMismatch] = []
        for rule in self.rules:
            if rule.when.holds(situation):
                break
            out.extend(TypeMismatch(rule.id, f, v, why) for f, v, why in rule.when.type_mismatches(situation))
        return out

    def render(self) -> str:
        """The rules as text for the model's context (``--rules-in-context``)."""
        lines = [f"Stopping rules ({self.label}); the runtime enforces them, so follow them yourself:"]
        for rule in self.rules:
            lines.append(f"- [{rule.id}] when {rule.when.describe()}: {rule.then}. {rule.message}")
        return "\n".join(lines)
