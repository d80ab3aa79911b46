"""Check *trigger* (criterion L4, first half): the trigger label names the perturbation.

Each trigger of DESIGN §6 arises from certain kinds of perturbation
(:data:`TRIGGER_KINDS`); the sides of a pair must differ in at least one of them
(:func:`~evalkit.suite.checks.perturbation.changes`). A ``tool_failure`` pair whose sides
differ in no fault, or an ``emergent_risk`` pair that differs only in the user's message (a
risk the tools reveal during the episode cannot sit in the request), carries the wrong label
or the wrong perturbation.

What this check cannot see: whether the changed field is the one that makes acting wrong
(a state change that is only a side edit satisfies ``state``).
"""

from __future__ import annotations

from evalkit.suite.checks.base import Issue, PairContext
from evalkit.suite.checks.perturbation import changes

NAME = "trigger"

_REQUEST = frozenset({"user_message", "state"})
TRIGGER_KINDS: dict[str, frozenset[str]] = {
    "missing_param": _REQUEST,
    "ambiguous_intent": _REQUEST,
    "constraint_conflict": _REQUEST | {"budgets"},
    "high_risk": _REQUEST,
    "tool_gap": frozenset({"tools", "user_message"}),
    "tool_failure": frozenset({"faults"}),
    "conflicting_evidence": frozenset({"state", "faults"}),
    "missing_target": frozenset({"state", "user_message"}),
    "emergent_risk": frozenset({"state", "faults", "context"}),
    "prompt_injection": frozenset({"state", "faults", "context"}),
    "permission_scope": frozenset({"permissions", "state", "user_message", "approvals"}),
}
"""The perturbation kinds each trigger can arise from: pre-execution triggers from the
request or the world it names; ``tool_gap`` from a hidden tool or a request for a
capability no tool has; runtime triggers from what the tools return (state, faults,
served documents), a missing target also from a request naming one that does not exist;
``permission_scope`` from the grants, the session state, the request or the approvals."""


def check(ctx: PairContext) -> list[Issue]:
    """The trigger check of one pair (pairs with a second side).

    Returns:
        One error when the sides differ, but in none of the trigger's kinds.
    """
    side = ctx.other
    if side is None:
        return []
    changed = changes(ctx, side)
    allowed = TRIGGER_KINDS.get(ctx.pair.trigger)
    if not changed or allowed is None or set(changed) & allowed:
        return []
    return [ctx.issue(NAME, "trigger", "L4",
                      f"{ctx.pair.trigger} arises from a change of {' or '.join(sorted(allowed))}, but the sides "
                      f"differ only in {', '.join(changed)}")]
