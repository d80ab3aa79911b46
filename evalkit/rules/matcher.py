"""Matching rule sets against recorded event logs (DESIGN §4, §8 stopping-rule evaluation).

The autonomy gate matches a rule set live, call by call (:meth:`RuleSet.match`). For a log
recorded earlier — with the gate off, or under another rule set — :func:`scan_log` asks the
same question after the fact: before each commit that executed, would a rule of this set
have stopped it? It folds the log exactly as the runtime did, so a rule sees the same
unresolved signals the gate would have seen at that point. A match is a regression
candidate: the rule fired and the agent still committed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Collection, Iterable

from evalkit.runtime.events import Event, ToolExecuted
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


def _answered(view: View, rule_id: str) -> bool:
    """Whether the user answered after the gate's last ``clarify`` stop by ``rule_id`` (the
    gate then lets the call through: :func:`evalkit.runtime.gate.AutonomyGate.decide`)."""
    last = view.gate_last
    return last is not None and last[0] == "clarify" and rule_id in (last[1], last[2]) and view.answers > last[3]


def scan_log(
    events: Iterable[Event],
    rules: StoppingRules,
    *,
    only_ok: bool = True,
    kinds: Collection[str] | None = ("commit",),
) -> list[RuleMatch]:
    """Every executed call in ``events`` that a rule of ``rules`` would have stopped.

    Args:
        events: An episode's event log, in order.
        rules: A rule set (anything with ``match(situation)``).
        only_ok: Only successful calls (a failed commit changed nothing).
        kinds: Tool kinds to check (default: commits only, the regressions of a replay);
            ``None``: every executed call (a rule may also stop lookups).

    Returns:
        One :class:`RuleMatch` per matching call, in log order. A ``clarify`` rule the user
        had already answered in the episode does not match, as in the gate.
    """
    view = View()
    out: list[RuleMatch] = []
    for event in events:
        if type(event) is ToolExecuted and (kinds is None or event.kind in kinds) and (event.ok or not only_ok):
            hit = rules.match(Situation(event.tool, event.kind, event.arguments, view.domain, view.open_signals))
            if hit is not None and not (hit.then == "clarify" and _answered(view, hit.rule_id)):
                out.append(RuleMatch(event.seq, event.turn, event.tool, hit.rule_id, hit.then, hit.message))
        view = apply(view, event)
    return out
