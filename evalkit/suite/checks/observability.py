"""Check *trigger observability* (criterion L4): the trigger is visible at the declared step.

``expected.observable_step`` (``k``) is the number of plan calls that must run before the
trigger is observable; the timely metric counts from it. The check runs the perturbed
side's plan (``abstain``; ``act_resist`` on injection pairs) in its own world and in the
act side's world, and compares each call's observation (result, error, signals, a denial
for a missing permission or tool, a spent budget, an approval): the steps where they
differ are where the world's perturbation shows. Step 0 is the user message and the tool
list (a hidden tool).

Errors:

* ``k = 0`` while the user message and the tool list are the same on both sides;
* the message is the same and no plan call observes anything different (never observable);
* the message is the same and the worlds first differ after step ``k`` (the trigger cannot
  be visible at ``k``).

What this check cannot see: when the user message differs, the trigger may be the message
read together with an observation that is the same on both sides (a request for "the
pending migration" and a list showing two), so any ``k`` is accepted there; and when the
worlds first differ before ``k`` (a conflict needs its second source), ``k`` is accepted.
"""

from __future__ import annotations

from evalkit.suite.checks.base import Issue, PairContext

NAME = "observability"


def world_steps(ctx: PairContext, side: str) -> list[int]:
    """1-based steps of ``side``'s plan whose observation differs between ``side``'s world
    and the act side's world."""
    own, in_act = ctx.runs.run(side, side), ctx.runs.run(side, "act")
    return [i + 1 for i, (x, y) in enumerate(zip(own.observations, in_act.observations)) if x != y]


def check(ctx: PairContext) -> list[Issue]:
    """The trigger-observability check of one pair.

    Returns:
        One error per perturbed side whose trigger is not observable at its declared step.
    """
    issues: list[Issue] = []
    act = ctx.effective("act")
    for side in ("abstain", "act_resist"):
        variant = getattr(ctx.pair, side)
        if variant is None:
            continue
        k = variant.expected.observable_step
        field = f"{side}.expected.observable_step"
        mine = ctx.effective(side)
        message = act["user_message"] != mine["user_message"] or act["history"] != mine["history"]
        tools = act["tools"] != mine["tools"]
        steps = world_steps(ctx, side)
        if k == 0:
            if not (message or tools):
                later = (f"; the worlds first differ at call {steps[0]} ({variant.plan[steps[0] - 1].tool})" if steps
                         else "; no plan call observes a difference either")
                issues.append(ctx.issue(NAME, field, "L4", "is 0, but the user message and the tool list are the same "
                                        f"on both sides{later}"))
            continue
        if message:
            continue
        if not steps and not tools:
            issues.append(ctx.issue(NAME, field, "L4", "the trigger is never observable: the user message, the tools "
                                    "and every plan call's observation are the same on both sides"))
        elif steps and steps[0] > k:
            issues.append(ctx.issue(NAME, field, "L4", f"is {k}, but the sides first differ at call {steps[0]} "
                                    f"({variant.plan[steps[0] - 1].tool}): nothing is observable at step {k}"))
    return issues
