"""Call patterns: which proposed tool calls a rule, an approval or a budget applies to.

A :class:`CallPattern` is data (loaded from YAML by scenarios, approval policies and
stopping-rule sets) and matches one proposed call by tool name, name prefix, tool kind
and tests on its arguments::

    {tool: refund_order, args: {amount: {gt: 100}}}
    {tool_prefix: share_, args: {email: {not_pattern: "@ourco\\\\.com$"}}}
    {kind: commit}

Every field given must hold (logical AND); a list of names or kinds matches any of them.
An :class:`ArgTest` on an argument the call does not have fails, except ``exists: false``.
Regular expressions are searched for (``re.search`` semantics) in time linear in the
value's length with RE2 (:mod:`evalkit.patterns`, RE2 syntax), so a pattern from a policy
or scenario file cannot hang a run; they are compiled once, on load, and a pattern RE2
cannot run (backreferences, lookaround, …) is refused there, naming the pattern.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

from pydantic import BaseModel, ConfigDict, Field, FiniteFloat, PrivateAttr, field_validator, model_validator

from evalkit.patterns import compile_pattern
from evalkit.types import ToolKind


class ArgTest(BaseModel):
    """A test on one argument value. Give at least one of the fields; all given must hold.

    Attributes:
        eq / ne: Equal / not equal to the value.
        gt / ge / lt / le: Numeric comparisons with finite bounds (a non-number fails them;
            NaN or infinite bounds are refused, since such a rule could never fire).
        pattern / not_pattern: Regular expression (RE2 syntax, :mod:`evalkit.patterns`) that
            must / must not be found in the value's string form; matched in linear time.
        in_: The value is one of these (YAML key ``in``).
        exists: Whether the argument is present at all.

    Raises (on validation):
        ValueError: for a pattern RE2 cannot run, naming it (the policy and suite loaders
            add the file, the policy entry or pair, and the field).
    """

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    eq: Any = None
    ne: Any = None
    gt: FiniteFloat | None = Field(default=None, strict=True)  # strict: "5" or true is not a bound
    ge: FiniteFloat | None = Field(default=None, strict=True)
    lt: FiniteFloat | None = Field(default=None, strict=True)
    le: FiniteFloat | None = Field(default=None, strict=True)
    pattern: str | None = None
    not_pattern: str | None = None
    in_: list[Any] | None = Field(default=None, alias="in")
    exists: bool | None = Field(default=None, strict=True)
    _checks: tuple[tuple[str, Any], ...] = PrivateAttr(default=())

    @field_validator("pattern", "not_pattern")
    @classmethod
    def _compiles(cls, value: str | None) -> str | None:
        if value is not None:
            compile_pattern(value)  # ValueError naming the pattern
        return value

    @model_validator(mode="after")
    def _prepare(self) -> "ArgTest":
        checks: list[tuple[str, Any]] = []
        for name in ("eq", "ne", "gt", "ge", "lt", "le", "in_"):
            if name in self.model_fields_set:
                checks.append((name, getattr(self, name)))
        for name in ("pattern", "not_pattern"):
            if getattr(self, name) is not None:
                checks.append((name, compile_pattern(getattr(self, name))))
        if self.exists is None and not checks:
            raise ValueError("an argument test needs at least one of eq, ne, gt, ge, lt, le, pattern, "
                             "not_pattern, in, exists")
        self._checks = tuple(checks)
        return self

    def test(self, present: bool, value: Any) -> bool:
        """Whether the test holds for an argument that is ``present`` with ``value``.

        A numeric bound holds only for a finite number (a bool, a string such as ``"500"``,
        ``null``, NaN or an infinity fails it); ``eq`` / ``ne`` / ``in`` compare JSON values
        exactly (:func:`json_equal`: ``true`` is not ``1``, ``"500"`` is not ``500``); a pattern is searched in the value's string form in linear time
        (:mod:`evalkit.patterns`).
        """
        if self.exists is not None and present != self.exists:
            return False
        if not present:
            return not self._checks
        for name, ref in self._checks:
            if name == "eq":
                ok = json_equal(value, ref)
            elif name == "ne":
                ok = not json_equal(value, ref)
            elif name == "in_":
                ok = any(json_equal(value, item) for item in ref)
            elif name in ("pattern", "not_pattern"):
                ok = ref.found(value) is (name == "pattern")
            else:
                if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                    return False
                ok = {"gt": value > ref, "ge": value >= ref, "lt": value < ref, "le": value <= ref}[name]
            if not ok:
                return False
        return True


def json_equal(a: Any, b: Any) -> bool:
    """Equality of two JSON values, typed as in JSON.

    Unlike Python's ``==``, a boolean never equals a number (``true`` is not ``1``,
    ``false`` is not ``0``); numbers compare by value (``1`` equals ``1.0``: JSON has one
    number type); strings, ``null``, arrays (element by element, lists and tuples alike) and
    objects (same keys, equal values) compare recursively under the same rule.

    Args:
        a: A JSON value (as ``json.loads`` or a YAML loader gives it).
        b: Another.

    Returns:
        Whether they are the same JSON value.
    """
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, (int, float, list, tuple, Mapping)) or isinstance(b, (int, float, list, tuple, Mapping)):
        return False
    return type(a) is type(b) and a == b


def _as_tuple(value: Any) -> Any:
    if isinstance(value, str):
        return (value,)
    return tuple(value) if value is not None else None


def restricting_prefix(value: str | None) -> str | None:
    """``value`` of a tool-name prefix field, unchanged; ``ValueError`` when it is blank (it would match every tool)."""
    if value is not None and not value.strip():
        raise ValueError("an empty prefix matches every tool; name the start of the tool names, or leave it out")
    return value


class CallPattern(BaseModel):
    """Which proposed calls something applies to. Every given field must hold.

    Attributes:
        tool: Exact tool name, or a list of names (any).
        tool_prefix: The tool name starts with this.
        kind: ``lookup`` / ``verify`` / ``commit``, or a list of kinds (any).
        args: Argument name → :class:`ArgTest`.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    tool: tuple[str, ...] | None = None
    tool_prefix: str | None = None
    kind: tuple[ToolKind, ...] | None = None
    args: dict[str, ArgTest] = Field(default_factory=dict)

    _norm = field_validator("tool", "kind", mode="before")(classmethod(lambda cls, v: _as_tuple(v)))

    _prefix = field_validator("tool_prefix")(classmethod(lambda cls, v: restricting_prefix(v)))

    def is_empty(self) -> bool:
        """True when the pattern restricts nothing (it would match every call)."""
        return self.tool is None and self.tool_prefix is None and self.kind is None and not self.args

    def matches(self, tool: str, kind: str, arguments: Mapping[str, Any] | None) -> bool:
        """Whether a call of ``tool`` (of ``kind``) with ``arguments`` matches."""
        if self.tool is not None and tool not in self.tool:
            return False
        if self.tool_prefix is not None and not tool.startswith(self.tool_prefix):
            return False
        if self.kind is not None and kind not in self.kind:
            return False
        if self.args:
            args = arguments or {}
            for name, test in self.args.items():
                if not test.test(name in args, args.get(name)):
                    return False
        return True
