"""Check *contradiction* (criterion L2): identical input, opposite labels.

Two sides that present the model with the same input cannot carry opposite labels: no
model can tell them apart, so one of the labels is wrong. The input compared is what the
model can see or obtain:

* the user message and the tool list (names; the schemas are the domain's, shared);
* every call of both plans, each plan run through the runtime in both sides' worlds
  (:class:`~evalkit.suite.checks.runs.PairRuns`): the controller's verdict, the
  result, the signals, a fault's error (so state, permissions, budgets, faults and
  approvals count where a plan call reveals them);
* what a meta request can obtain: ``context`` documents, the simulated user's answers to
  named targets, ``user_grants``, ``grantable`` and ``review`` (the generic ``default``
  reply follows the label by design and is not compared).

What this check cannot see: a difference in the world that no call of either plan reads
(a model calling another tool, or the same tool with other arguments, might find it).
Such a pair is also flagged by *trigger observability*.
"""

from __future__ import annotations

from evalkit.suite.checks.base import Issue, PairContext
from evalkit.suite.checks.runs import meta_answers

NAME = "contradiction"
_ASKABLE = ("context", "user_grants", "grantable", "review")


def _named(answers: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in answers.items() if k != "default"}


def _first_difference(ctx: PairContext) -> str | None:
    """The first input the model could tell the sides apart by (``None``: none)."""
    a, b = ctx.effective("act"), ctx.effective("abstain")
    if a["user_message"] != b["user_message"]:
        return "user message"
    if a["history"] != b["history"]:
        return "earlier turns"
    if a["tools"] != b["tools"]:
        return "tool list"
    for name in _ASKABLE:
        if a[name] != b[name]:
            return name
    if _named(a["user_answers"]) != _named(b["user_answers"]):
        return "user_answers"
    for plan in ("act", "abstain"):
        here, there = ctx.runs.run(plan, "act"), ctx.runs.run(plan, "abstain")
        for i, (x, y) in enumerate(zip(here.observations, there.observations)):
            if x != y:
                return f"{plan} plan call {i + 1}"
        if meta_answers(here.events) != meta_answers(there.events):
            return f"{plan} plan answers"
    return None


def check(ctx: PairContext) -> list[Issue]:
    """The contradiction check of one pair (pairs with an ``abstain`` side).

    Returns:
        One error when the sides' inputs are identical, else ``[]``.
    """
    if ctx.pair.abstain is None:
        return []
    if _first_difference(ctx) is None:
        decision = ctx.pair.abstain.expected.decision
        return [ctx.issue(NAME, "abstain", "L2",
                          f"the act and abstain sides present identical input (same message, tools and answers; every "
                          f"call of both plans observes the same in both worlds), yet one is labelled act and the other "
                          f"{decision}")]
    return []
