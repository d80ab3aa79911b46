"""How a model signals its decisions under a condition (DESIGN §5).

A condition decides which channel a model has for each decision: acting is always calling the
task tools; abstaining (``declare_blocked``), clarifying (``request_user_decision``) and the
other meta requests (``request_context``, ``request_tool``, …: :data:`evalkit.types.META_TYPES`)
are each either a tool call — one typed tool with a ``type`` field, or a tool of their own —
or written in the final text, which the text classifier reads
(:func:`evalkit.conditions.classifier.classify_text`).

A :class:`DecisionSignals` declares that channel per meta type. The condition's handler
reads a meta call through it (:meth:`DecisionSignals.read`, into the meta type and the
request's canonical arguments, the typed ``meta_request`` tool's names), so the episode's
typed decision and its meta requests (what the scorer counts) come from the declaration;
scripted models write their stops and requests through it (:meth:`DecisionSignals.write`).
Conditions register theirs under their name (:func:`register_signals`, done by
:func:`evalkit.conditions.registry.register_condition`), and a model finds them by the
episode's condition (:func:`signals_for`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from evalkit.runtime.model_io import ToolCall
from evalkit.types import META_TYPES

ABSTAIN = "declare_blocked"
"""The meta type whose call means *abstain* (it ends the episode, typed decision ``abstain``)."""
CLARIFY = "request_user_decision"
"""The meta type whose call means *clarify* (unanswered, it ends the episode as ``clarify``)."""


@dataclass(frozen=True)
class Signal:
    """One meta type's channel: a call of ``tool``.

    Attributes:
        tool: The tool the model calls.
        fixed: Arguments that select this meta type on a shared tool (``{"type":
            "declare_blocked"}`` on ``meta_request``).
        rename: Canonical argument name (the typed ``meta_request`` tool's: ``reason``,
            ``target``, ``question``, ``capability``, …) → this tool's own name for it.
    """

    tool: str
    fixed: Mapping[str, Any] = field(default_factory=dict)
    rename: Mapping[str, str] = field(default_factory=dict)

    def matches(self, call: ToolCall) -> bool:
        """Whether ``call`` is this signal (its tool, with every fixed argument)."""
        if call.name != self.tool:
            return False
        args = call.arguments or {}
        return all(args.get(k) == v for k, v in self.fixed.items())

    def arguments(self, canonical: Mapping[str, Any]) -> dict[str, Any]:
        """The call arguments for a request given by its canonical arguments (fixed ones first)."""
        return {**self.fixed, **{self.rename.get(k, k): v for k, v in canonical.items()}}


@dataclass(frozen=True)
class DecisionSignals:
    """How a model signals abstain, clarify and each meta request under one condition.

    Attributes:
        requests: Meta type → its :class:`Signal`; a type without one has no tool channel
            (the model can only write it in its final text).
        text: The final text is read for a decision (abstain / clarify / act) and the meta
            requests it implies (the text classifier, or a judge panel).
    """

    requests: Mapping[str, Signal] = field(default_factory=dict)
    text: bool = True

    @property
    def abstain(self) -> Signal | None:
        """The channel of *abstain* (``None``: written in text)."""
        return self.requests.get(ABSTAIN)

    @property
    def clarify(self) -> Signal | None:
        """The channel of *clarify* (``None``: written in text)."""
        return self.requests.get(CLARIFY)

    def tools(self) -> frozenset[str]:
        """The tools that carry a decision or a meta request."""
        return frozenset(s.tool for s in self.requests.values())

    def write(self, mtype: str, canonical: Mapping[str, Any], offered: tuple[str, ...] | frozenset[str] = ()
              ) -> tuple[str, dict[str, Any]] | None:
        """``(tool, arguments)`` of a call making the request ``mtype``, or ``None`` when the
        condition gives it no tool (or, with ``offered``, its tool is not offered): then it is
        written in text.

        Args:
            mtype: A meta type (``declare_blocked``, ``request_context``, …).
            canonical: Its arguments under canonical names (``reason``, ``target``, …).
            offered: The tools offered this turn (empty: not checked).
        """
        signal = self.requests.get(mtype)
        if signal is None or (offered and signal.tool not in offered):
            return None
        return signal.tool, signal.arguments(canonical)

    def read(self, call: ToolCall) -> tuple[str, dict[str, Any]] | None:
        """``(meta type, canonical arguments)`` of a meta call, or ``None`` when ``call`` is no
        declared signal. Fixed arguments are dropped; a renamed argument is also given under
        its canonical name (when that name is not used already)."""
        for mtype, signal in self.requests.items():
            if signal.matches(call):
                args = {k: v for k, v in (call.arguments or {}).items() if k not in signal.fixed}
                for canonical, own in signal.rename.items():
                    if own in args and canonical not in args:
                        args[canonical] = args[own]
                return mtype, args
        return None


_PLAIN_NAMES = {  # canonical argument → the plain tool's own name (evalkit.conditions.meta_tools)
    "request_model_escalation": {"capability": "requested_capability"},
    "request_independent_review": {"target": "scope"},
    "propose_skill": {"target": "name"},
}

TEXT_SIGNALS = DecisionSignals()
"""Every decision and request written in the final text (the ``nl`` condition)."""
PLAIN_SIGNALS = DecisionSignals({t: Signal(t, rename=_PLAIN_NAMES.get(t, {})) for t in META_TYPES})
"""Each meta type a plain tool of its name (the ``tool`` condition)."""
TYPED_SIGNALS = DecisionSignals({t: Signal("meta_request", fixed={"type": t}) for t in META_TYPES})
"""Each meta type the typed ``meta_request`` tool with that ``type`` (the ``meta`` condition)."""

_SIGNALS: dict[str, DecisionSignals] = {}


def register_signals(condition: str, signals: DecisionSignals) -> None:
    """Record how a model signals its decisions under ``condition``."""
    _SIGNALS[condition] = signals


def unregister_signals(condition: str) -> None:
    """Forget ``condition``'s signals (unknown names are ignored)."""
    _SIGNALS.pop(condition, None)


def signals_for(condition: str | None, offered: tuple[str, ...] | frozenset[str] = ()) -> DecisionSignals:
    """The signals of ``condition``.

    Args:
        condition: The episode's condition, or ``None`` when not known (a model that sees
            only the tools, such as an agent over MCP).
        offered: The tools offered, for an unknown condition: then the first registered
            declaration (then :data:`TYPED_SIGNALS`, :data:`PLAIN_SIGNALS`) whose tools are all
            offered, else :data:`TEXT_SIGNALS`.
    """
    known = _SIGNALS.get(condition) if condition is not None else None
    if known is not None:
        return known
    names = frozenset(offered)
    for signals in (*_SIGNALS.values(), TYPED_SIGNALS, PLAIN_SIGNALS):
        tools = signals.tools()
        if tools and tools <= names:
            return signals
    return TEXT_SIGNALS
