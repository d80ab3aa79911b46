"""Matching rule sets against recorded event logs (DESIGN §4, §8 stopping-rule evaluation).

The autonomy gate matches a rule set live, call by call (:meth:`RuleSet.match`). For a log
recorded earlier — with the gate off, or under another rule set — :func:`scan_log` asks the
same question after the fact: before each commit that executed, would a rule of this set
have stopped it? It folds the log exactly as the runtime did, so a rule sees the same
unresolved signals the gate would have seen at that point. A match is a regression
candidate: the rule fired and the agent still committed.

:func:`scan` also records the rules that did not fire on a call only because an argument had
another JSON type than their test needs (the string ``"500"`` against ``gt: 100``; see
:meth:`evalkit.rules.schema.RuleSet.type_mismatches`), so such a non-match is explicit in a
replay report instead of silent.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Collection, Iterable

from evalkit.runtime.events import Event, ToolExecuted, event_from_dict
from evalkit.runtime.gate import Situation, StoppingRules
from evalkit.runtime.view import View, apply


@dataclass(frozen=True, slots=True)
class RuleMatch:
    """A rule that matched an executed call (by default a commit).

    Attributes:
        seq: ``seq`` of the call's :class:`ToolExecuted` event.
        turn: Its turn. ``tool``: the call's tool.
        rule_id: The rule. ``then``: its decision. ``message``: its message.
    """

    seq: int
    turn: int
    tool: str
    rule_id: str
    then: str
    message: str


@dataclass(frozen=True, slots=True)
class TypeMismatchAt:
    """A rule that did not match an executed call only because of an argument's JSON type.

    Attributes:
        seq: ``seq`` of the call's :class:`ToolExecuted` event. ``turn``: its turn.
        tool: The call's tool. ``rule_id``: the rule.
        field: ``args.NAME``. ``value``: the argument's value. ``reason``: one line saying why.
    """

    seq: int
    turn: int
    tool: str
    rule_id: str
    field: str
    value: Any
    reason: str


@dataclass(frozen=True, slots=True)
class LogScan:
    """What :func:`scan` found in one event log.

    Attributes:
        matches: Calls a rule would have stopped (:class:`RuleMatch`), in log order.
        type_mismatches: Calls where a rule tried before the answer failed on an argument's
            type alone (:class:`TypeMismatchAt`), in log order.
    """

    matches: list[RuleMatch] = field(default_factory=list)
    type_mismatches: list[TypeMismatchAt] = field(default_factory=list)


def _answered(view: View, rule_id: str) -> bool:
    """Whether the user answered after the gate's last ``clarify`` stop by ``rule_id`` (the
    gate then lets the call through: :func:`evalkit.runtime.gate.AutonomyGate.decide`)."""
    last = view.gate_last
    return last is not None and last[0] == "clarify" and rule_id in (last[1], last[2]) and view.answers > last[3]


def scan(
    events: Iterable[Event],
    rules: StoppingRules,
    *,
    only_ok: bool = True,
    kinds: Collection[str] | None = ("commit",),
    explain: bool = True,
) -> LogScan:
    """Every executed call in ``events`` that a rule of ``rules`` would have stopped, and every
    one where a rule did not fire only because of an argument's JSON type.

    Args:
        events: An episode's event log, in order: events, or their dict form (the lines of
            a trace file parsed with ``json.loads``).
        rules: A rule set (anything with ``match(situation)``; type mismatches are read when
            it also has ``type_mismatches(situation)``, as :class:`~evalkit.rules.RuleSet`).
        only_ok: Only successful calls (a failed commit changed nothing).
        kinds: Tool kinds to check (default: commits only, the regressions of a replay);
            ``None``: every executed call (a rule may also stop lookups).
        explain: Also collect the type mismatches.

    Returns:
        A :class:`LogScan`. A ``clarify`` rule the user had already answered in the episode
        does not match, as in the gate.
    """
    view = View()
    out = LogScan()
    mismatches = getattr(rules, "type_mismatches", None) if explain else None
    for event in events:
        if isinstance(event, dict):  # a trace line as parsed from JSON
            event = event_from_dict(event)
        if type(event) is ToolExecuted and (kinds is None or event.kind in kinds) and (event.ok or not only_ok):
            situation = Situation(event.tool, event.kind, event.arguments, view.domain, view.open_signals)
            hit = rules.match(situation)
            if hit is not None and not (hit.then == "clarify" and _answered(view, hit.rule_id)):
                out.matches.append(RuleMatch(event.seq, event.turn, event.tool, hit.rule_id, hit.then, hit.message))
            if mismatches is not None:
                out.type_mismatches.extend(TypeMismatchAt(event.seq, event.turn, event.tool, m.rule_id, m.field,
                                                          m.value, m.reason) for m in mismatches(situation))
        view = apply(view, event)
    return out


def scan_log(
    events: Iterable[Event],
    rules: StoppingRules,
    *,
    only_ok: bool = True,
    kinds: Collection[str] | None = ("commit",),
) -> list[RuleMatch]:
    """Every executed call in ``events`` that a rule of ``rules`` would have stopped.

    Args:
        events: An episode's event log, in order: events, or their dict form (the lines of
            a trace file parsed with ``json.loads``).
        rules: A rule set (anything with ``match(situation)``).
        only_ok: Only successful calls (a failed commit changed nothing).
        kinds: Tool kinds to check (default: commits only, the regressions of a replay);
            ``None``: every executed call (a rule may also stop lookups).

    Returns:
        One :class:`RuleMatch` per matching call, in log order (:func:`scan`'s ``matches``,
        without looking for type mismatches).
    """
    return scan(events, rules, only_ok=only_ok, kinds=kinds, explain=False).matches
