"""The autonomy gate: least autonomy between the controller and the executor (DESIGN §4, seed 003).

The controller answers "may this call run?" (registered, valid, permitted, in budget);
the gate answers "should it run now?". For every call the controller would execute, the
gate returns one of four decisions with a reason code, recorded as a
:class:`~evalkit.runtime.events.GateDecided` event before anything runs:

* ``gather`` — keep reducing uncertainty: a lookup or verify may run, a commit may not;
* ``act`` — evidence, authority and budget suffice: the commit may run;
* ``clarify`` — a gap the environment cannot fill: ask the user, then stop;
* ``abstain`` — infeasible, conflicting or beyond authority: refuse and say why.

A stopped call (``clarify``, ``abstain``, or ``gather`` on a commit) is denied by the
runtime with reason code ``gate_clarify`` / ``gate_abstain`` / ``gate_gather`` and the
gate's message goes back to the model as the call's observation.

Rules, checked in this order (the first that applies decides; sources in brackets):

1. **Stops are sticky.** After an ``abstain``, every later call is ``abstain`` with the
   same reason; after a ``clarify``, every later commit is ``clarify`` until the user
   has answered (seed 003: clarify and abstain end the attempt; they are never merged).
2. **Conflicts and missing targets are hard abstains** for commits: an unresolved
   ``conflict`` → ``abstain`` / ``conflicting_evidence``; an unresolved
   ``missing_target`` → ``abstain`` / ``missing_target`` (DESIGN §4). "Unresolved" is
   defined by :mod:`evalkit.runtime.view`: only the same call succeeding without the
   signal resolves it, so an eager substitute target never does.
3. **Stopping rules** (versioned data, :mod:`evalkit.rules`): the first matching rule
   decides its ``then`` (``abstain`` | ``clarify``) / ``stopping_rule``. A ``clarify``
   the user has answered since is satisfied.
4. For commits: an unresolved ``tool_error`` of a lookup or verify (a check the commit
   depends on failed) → ``abstain`` / ``tool_failure``; an unresolved
   ``unknown_side_effect`` (an earlier commit timed out) → ``clarify`` /
   ``unknown_side_effect`` until the user answers;
5. **Budgets are hard limits**: a commit when ``max_commit_steps`` commits have run, or a
   lookup/verify when ``max_gather_steps`` have run → ``abstain`` / ``budget_exceeded``.
6. **Acting needs positive evidence**: a commit after an unresolved ``state_changed``
   (concurrent modification) → ``gather`` / ``stale_state`` until a lookup re-reads the
   state; a commit whose tool declares ``verify_with`` and none of those verifies passed
   since the last state change → ``gather`` / ``needs_evidence``.
7. Otherwise a commit is ``act`` / ``evidence_ok`` and a lookup/verify is ``gather`` /
   ``gathering``.

The gate is pure: it reads the proposed call, the effective view and the rule set.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Protocol

from evalkit.runtime.tools import ToolSpec
from evalkit.runtime.view import View


@dataclass(frozen=True, slots=True)
class Situation:
    """What a stopping rule is matched against: the proposed call and what is known.

    Attributes:
        tool: Proposed tool name. ``kind``: its kind. ``arguments``: its arguments.
        domain: The episode's task domain.
        signals: Unresolved ``(signal, source tool, source kind, arguments key)``
            (:attr:`evalkit.runtime.view.View.open_signals`).
    """

    tool: str
    kind: str
    arguments: Mapping[str, Any]
    domain: str
    signals: tuple[tuple[str, str, str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class RuleHit:
    """A stopping rule that matched: its id, version-qualified set, decision and message."""

    rule_id: str
    then: str
    message: str


class StoppingRules(Protocol):
    """Anything that maps a :class:`Situation` to the first matching rule (see
    :class:`evalkit.rules.RuleSet`)."""

    def match(self, situation: Situation) -> RuleHit | None:
        """The first rule matching ``situation``, or ``None``."""
        ...


@dataclass(frozen=True, slots=True)
class GateVerdict:
    """One gate decision.

    Attributes:
        decision: ``gather``, ``act``, ``clarify`` or ``abstain``.
        reason: A :data:`evalkit.types.GateReason`.
        message: What the model is told when the call is stopped.
        allowed: Whether the call may run (``act``, or ``gather`` on a lookup/verify).
        rule_id: The stopping rule that decided, if any.
    """

    decision: str
    reason: str
    message: str = ""
    allowed: bool = True
    rule_id: str | None = None


def situation(spec: ToolSpec, arguments: Mapping[str, Any] | None, view: View) -> Situation:
    """The :class:`Situation` of a proposed call in ``view`` (used by the gate and by
    rule replay over recorded logs)."""
    return Situation(spec.name, spec.kind, arguments or {}, view.domain, view.open_signals)


def _stop(decision: str, reason: str, message: str, rule_id: str | None = None) -> GateVerdict:
    return GateVerdict(decision, reason, message, False, rule_id)


_GATHER = GateVerdict("gather", "gathering")
_ACT = GateVerdict("act", "evidence_ok")


class AutonomyGate:
    """The gate of one episode (see the module docstring for the rules).

    Args:
        rules: A stopping-rule set (:class:`evalkit.rules.RuleSet`), or ``None`` for the
            built-in rules only.
    """

    __slots__ = ("rules",)

    def __init__(self, rules: StoppingRules | None = None):
        self.rules = rules

    def decide(self, spec: ToolSpec, arguments: Mapping[str, Any] | None, view: View) -> GateVerdict:
        """Decide on a call the controller would execute. Pure: reads only its arguments.

        Args:
            spec: The proposed tool.
            arguments: Its validated arguments.
            view: The effective view before the call.

        Returns:
            The :class:`GateVerdict`.
        """
        commit = spec.kind == "commit"
        last = view.gate_last
        if last is not None:
            decision, reason, rule_id, answers_at = last
            if decision == "abstain":
                return _stop("abstain", reason, f"{spec.name} stopped: the autonomy gate already decided to "
                             f"abstain ({reason}) in this episode; explain to the user why you stop.", rule_id or None)
            if decision == "clarify" and commit and view.answers <= answers_at:
                return _stop("clarify", reason, f"{spec.name} stopped: the autonomy gate is waiting for the "
                             f"user's answer ({reason}); ask the user before changing anything.", rule_id or None)
        if commit:
            hit = view.open_signal("conflict")
            if hit is not None:
                return _stop("abstain", "conflicting_evidence",
                             f"{spec.name} stopped (abstain, conflicting_evidence): {hit[0]} returned conflicting "
                             "evidence that has not been reconciled; do not act on it, tell the user why.")
            hit = view.open_signal("missing_target")
            if hit is not None:
                return _stop("abstain", "missing_target",
                             f"{spec.name} stopped (abstain, missing_target): {hit[0]} found no such target; acting "
                             "on a substitute the user did not name is not allowed, tell the user why.")
        if self.rules is not None:
            rule = self.rules.match(situation(spec, arguments, view))
            if rule is not None and not (rule.then == "clarify" and _answered(view, rule.rule_id)):
                return _stop(rule.then, "stopping_rule",
                             f"{spec.name} stopped ({rule.then}, rule {rule.rule_id}): {rule.message}", rule.rule_id)
        if commit:
            hit = view.open_signal("tool_error", ("lookup", "verify"))
            if hit is not None:
                return _stop("abstain", "tool_failure",
                             f"{spec.name} stopped (abstain, tool_failure): {hit[0]} failed, so what this change "
                             "depends on is unknown; retry the check or tell the user why you stop.")
            hit = view.open_signal("unknown_side_effect")
            if hit is not None and not _answered(view, "unknown_side_effect"):
                return _stop("clarify", "unknown_side_effect",
                             f"{spec.name} stopped (clarify, unknown_side_effect): an earlier {hit[0]} timed out and "
                             "may or may not have taken effect; ask the user before changing anything again.")
            budget = view.limit("max_commit_steps")
            if budget is not None and view.commit_steps >= budget:
                return _stop("abstain", "budget_exceeded",
                             f"{spec.name} stopped (abstain, budget_exceeded): the commit budget of {budget} is spent.")
            hit = view.open_signal("state_changed")
            if hit is not None:
                return _stop("gather", "stale_state",
                             f"{spec.name} not run (gather, stale_state): the state changed underneath "
                             f"{hit[0]}; read it again before changing it.")
            if spec.verify_with and not any(v in view.verified for v in spec.verify_with):
                names = " or ".join(spec.verify_with)
                return _stop("gather", "needs_evidence",
                             f"{spec.name} not run (gather, needs_evidence): it needs a passing {names} since the "
                             "last change; verify first.")
            return _ACT
        budget = view.limit("max_gather_steps")
        if budget is not None and view.gather_steps >= budget:
            return _stop("abstain", "budget_exceeded",
                         f"{spec.name} stopped (abstain, budget_exceeded): the gather budget of {budget} lookups "
                         "and verifies is spent; decide with what you have or tell the user why you stop.")
        return _GATHER


def _answered(view: View, key: str) -> bool:
    """Whether the user answered after the last clarify stop with this rule id or reason."""
    last = view.gate_last
    if last is None or last[0] != "clarify" or key not in (last[1], last[2]):
        return False
    return view.answers > last[3]
