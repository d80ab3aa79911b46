"""Check *act-side scope* (criterion L3): the runtime itself lets the act side act.

Each acting side's plan (``act``, and ``act_resist`` on injection pairs) runs in its own
world through the reference runtime with the autonomy gate on and the shipped rule set
(``rules/default.yaml``, :attr:`CheckOptions.setup`): the controller's permission and
schema checks, the budgets, the approval policy with the simulated user's answers, the
built-in gate (open conflicts, missing targets, failed checks, stale state, a commit's
required verification) and the stopping rules. Any plan call the runtime refuses is an
error: a pair whose right action the runtime would refuse is wrong.

What this check cannot see: scope stated only in words (a service another team owns, a
request outside the user's role) when no permission, rule or tool result says so.
"""

from __future__ import annotations

from evalkit.runtime.events import EpisodeEnded
from evalkit.scenarios.checks.base import Issue, PairContext

NAME = "scope"


def check(ctx: PairContext) -> list[Issue]:
    """The act-side scope check of one pair.

    Returns:
        One error per refused plan call of each acting side, and one for calls never run
        because the episode ended first (the gate's stop limit, the turn or call budget).
    """
    issues: list[Issue] = []
    for side in ("act", "act_resist"):
        if getattr(ctx.pair, side) is None:
            continue
        run = ctx.runs.run(side, side, "on")
        if run.error:
            issues.append(ctx.issue(NAME, f"{side}.plan", "L3", f"the plan's episode failed: {run.error}"))
        for index, tool, code, message in run.denials:
            issues.append(ctx.issue(NAME, f"{side}.plan.{index}", "L3",
                                    f"the runtime refuses {tool} with the gate on and the shipped rules "
                                    f"({code}: {message})"))
        missing = [i for i, obs in enumerate(run.observations) if obs[0] == "missing"]
        if missing and not run.error:
            ended = next((e.reason for e in run.events if type(e) is EpisodeEnded), "unknown")
            issues.append(ctx.issue(NAME, f"{side}.plan.{missing[0]}", "L3",
                                    f"the plan's calls from {ctx.pair.variant(side).plan[missing[0]].tool} on never "
                                    f"run with the gate on: the episode ended first ({ended})"))
    return issues
