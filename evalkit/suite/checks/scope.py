"""Check *act-side scope* (criterion L3): the runtime itself lets the act side act.

Each acting side's plan (``act``, and ``act_resist`` on injection pairs) runs in its own
world through the reference runtime with the autonomy gate on and the shipped rule set
(``rules/default.yaml``, :attr:`CheckOptions.setup`): the controller's permission and
schema checks, the budgets, the approval policy with the simulated user's answers, the
built-in gate (open conflicts, missing targets, failed checks, stale state, a commit's
required verification) and the stopping rules. Any plan call the runtime refuses is an
error: a pair whose right action the runtime would refuse is wrong. So is a plan call whose
tool fails in the side's own world (gate off) and that no later plan call retries with
success (a transient fault retried is fine): the act side must be doable with the visible
tools, and a tool that raises, returns a result that is not JSON, reports a failure or
carries a lasting fault there is a broken domain tool or a wrong pair (the message names the
tool's error, e.g. ``ValueError: …``).

What this check cannot see: scope stated only in words (a service another team owns, a
request outside the user's role) when no permission, rule or tool result says so.
"""

from __future__ import annotations

import json
from typing import Any

from evalkit.suite.checks.base import Issue, PairContext

NAME = "scope"


def check(ctx: PairContext) -> list[Issue]:
    """The act-side scope check of one pair.

    Returns:
        Per acting side: the episode's error, if any; the first refused plan call, then one
        line counting the later calls refused or never run (a first refusal usually makes
        the gate stop the rest, and its stop limit ends the episode).
    """
    issues: list[Issue] = []
    for side in ("act", "act_resist"):
        if getattr(ctx.pair, side) is None:
            continue
        variant = getattr(ctx.pair, side)
        plain = ctx.runs.run(side, side, "off")
        for i, obs in enumerate(plain.observations):
            call = variant.plan[i]
            if obs[3] is False and not _retried(variant.plan, plain.observations, i):
                fault = variant.faults.get(call.tool)
                why = f"its declared {fault.mode} fault" if fault is not None else "no declared fault"
                issues.append(ctx.issue(NAME, f"{side}.plan.{i}", "L3",
                                        f"{call.tool} fails in the {side} side's own world ({why}: "
                                        f"{_failure(obs[4])}) and no later plan call retries it: the {side} "
                                        "side must be doable with its tools"))
                break
        run = ctx.runs.run(side, side, "on")
        if run.error:
            issues.append(ctx.issue(NAME, f"{side}.plan", "L3", f"the plan's episode failed: {run.error}"))
        missing = [i for i, obs in enumerate(run.observations) if obs[0] == "missing"]
        if run.denials:
            index, tool, code, message = run.denials[0]
            issues.append(ctx.issue(NAME, f"{side}.plan.{index}", "L3",
                                    f"the runtime refuses {tool} with the gate on and the shipped rules "
                                    f"({code}: {message})"))
            later = len(run.denials) - 1 + len(missing)
            if later:
                codes = sorted({c for _, _, c, _ in run.denials[1:]} | ({"not run"} if missing else set()))
                issues.append(ctx.issue(NAME, f"{side}.plan.{index + 1}", "L3",
                                        f"and {later} later plan call{'s' if later > 1 else ''} refused or not run "
                                        f"({', '.join(codes)})"))
    return issues


def _retried(plan: Any, observations: Any, index: int) -> bool:
    """Whether a later call of ``plan`` repeats call ``index`` (same tool and arguments) and
    succeeds (a transient fault retried)."""
    call = plan[index]
    return any(later.tool == call.tool and later.args == call.args and observations[j][3] is True
               for j, later in enumerate(plan[index + 1:], index + 1))


def _failure(result: Any) -> str:
    """The tool's error message from an observation's canonical JSON result."""
    try:
        data = json.loads(result) if isinstance(result, str) else result
    except ValueError:
        data = result
    message = data.get("message") if isinstance(data, dict) else None
    text = str(message if message is not None else data)
    return text if len(text) <= 200 else text[:199] + "…"
