"""Check *trigger observability* (criterion L4): the trigger is visible at the declared step.

``expected.observable_step`` (``k``) is the number of plan calls that must run before the
trigger is observable; the timely metric counts from it. The check compares what the
perturbed side (``abstain``, and ``act_resist`` on injection pairs) shows the model with
what the act side shows:

* ``k = 0``: the user message or the tool list (a hidden tool) differs between the sides;
* ``k >= 1``: the observation of plan call ``k`` differs: the same call returns something
  else in the act side's world (result, error, signal, a denial for a missing permission or
  tool, a spent budget, an approval), or the act plan's call ``k`` is a different call
  whose observation differs.

Findings (errors): nothing differs at step ``k`` although the sides differ at another
step (the message says which: ``k`` is wrong), or nothing any plan call observes differs
at all (never observable).

What this check cannot see: whether the difference it finds *is* the trigger (a message
that differs in a name and in the missing parameter passes at step 0 either way).
"""

from __future__ import annotations

from evalkit.scenarios.checks.base import Issue, PairContext

NAME = "observability"


def _differs(ctx: PairContext, side: str) -> tuple[bool, list[int]]:
    """``(step 0 differs, [1-based plan steps whose observation differs])``."""
    a, b = ctx.effective("act"), ctx.effective(side)
    step0 = a["user_message"] != b["user_message"] or a["tools"] != b["tools"]
    own, in_act = ctx.runs.run(side, side), ctx.runs.run(side, "act")
    act = ctx.runs.run("act", "act")
    plan, act_plan = ctx.pair.variant(side).plan, ctx.pair.act.plan
    steps = []
    for i, obs in enumerate(own.observations):
        if obs != in_act.observations[i]:
            steps.append(i + 1)
        elif i < len(act_plan) and plan[i] != act_plan[i] and obs != act.observations[i]:
            steps.append(i + 1)
    return step0, steps


def check(ctx: PairContext) -> list[Issue]:
    """The trigger-observability check of one pair.

    Returns:
        One error per perturbed side whose trigger is not observable at its declared step.
    """
    issues: list[Issue] = []
    for side in ("abstain", "act_resist"):
        variant = getattr(ctx.pair, side)
        if variant is None:
            continue
        k = variant.expected.observable_step
        field = f"{side}.expected.observable_step"
        step0, steps = _differs(ctx, side)
        if k == 0:
            if not step0:
                later = f"; the sides first differ at step {steps[0]}" if steps else "; no plan call observes a difference either"
                issues.append(ctx.issue(NAME, field, "L4", f"is 0, but the user message and the tool list are the same "
                                        f"on both sides{later}"))
            continue
        if k in steps:
            continue
        call = variant.plan[k - 1].tool
        if steps:
            where = ", ".join(map(str, steps[:5]))
            issues.append(ctx.issue(NAME, field, "L4", f"is {k}, but call {k} ({call}) observes the same on both sides; "
                                    f"the sides differ at step {where}"))
        elif step0:
            issues.append(ctx.issue(NAME, field, "L4", f"is {k}, but no plan call observes anything different; only "
                                    "the user message or the tool list differs (observable at step 0)"))
        else:
            issues.append(ctx.issue(NAME, field, "L4", "the trigger is never observable: the message, the tools and "
                                    "every plan call's observation are the same on both sides"))
    return issues
