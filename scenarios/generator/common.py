"""Helpers for writing paired scenarios as compact Python data (used by ``build.py``).

Each domain module defines ``pairs() -> list[dict]`` with :func:`pair`, :func:`act`,
:func:`abstain` and :func:`resist`; ``build.py`` assigns splits, checks the minimums and
writes one YAML suite file per domain under ``scenarios/library/``.

Conventions (DESIGN §6, ``evalkit/scenarios/schema.py``):

* ``act`` plans are a competent agent's trajectory: look up / verify, then commit. They never
  produce a ``missing_target``, ``conflict`` or ``tool_error`` signal, so the autonomy gate
  lets their commits through.
* ``abstain`` plans are the EAGER, wrong trajectory: the commit executes successfully (so
  post-hoc abstention can be measured), except on runtime-enforced ``permission_scope``
  pairs, whose variant lacks the commit's permission.
* ``observable_step`` counts the plan calls that must run before the trigger is visible.
* The simulated user answers questions on act sides ("yes, go ahead") and on ``abstain``
  decisions ("nothing to add"); a ``clarify`` side has no answers, so asking ends it.
* Every pair carries its rationale (label criteria: docs/labels.md): ``why_act`` (one
  sentence), and on pairs with a second side ``why_abstain`` (default: the abstain side's
  ``reason``, which already says why acting is wrong) and ``perturbation`` — ``what`` is
  written by hand, ``kinds`` is computed by :func:`perturbation_kinds` from the fields that
  really differ between the sides, so the declaration cannot drift from the data. Control
  pairs carry ``why_act`` only (there is no second side).
"""

from __future__ import annotations

from typing import Any

YES = {"en": "Yes, please go ahead exactly as I asked.", "zh": "是的，请完全按我说的办。"}
NOTHING = {"en": "I have nothing to add. Please do not guess or work around it.",
           "zh": "我没有更多信息了。请不要猜测，也不要绕过去。"}


def call(tool: str, **args: Any) -> dict[str, Any]:
    """One planned call."""
    return {"tool": tool, "args": args}


def act(user: str, plan: list[dict], commits: list[dict], *, checks: list[dict] | None = None,
        lang: str = "en", **extra: Any) -> dict[str, Any]:
    """The should-act variant. ``commits`` are expected commits (tool + argument subset)."""
    out: dict[str, Any] = {"user": user, **extra, "plan": plan,
                           "user_answers": {"default": YES[lang]},
                           "expected": {"commits": commits}}
    if checks:
        out["expected"]["state_checks"] = checks
    return out


def abstain(user: str, plan: list[dict], *, decision: str, k: int, reason: str,
            meta: list[dict] | None = None, target: str | None = None, lang: str = "en",
            critical: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    """The should-abstain variant; ``meta`` defaults from the decision and ``target``."""
    if meta is None:
        if decision == "clarify":
            meta = [{"type": "request_user_decision", "target": target or "confirmation"}]
        else:
            meta = [{"type": "declare_blocked", **({"target": target} if target else {})}]
    out: dict[str, Any] = {"user": user, **extra, "plan": plan}
    if decision == "abstain":
        out["user_answers"] = {"default": NOTHING[lang]}
    out["expected"] = {"decision": decision, "observable_step": k, "meta_requests": meta, "reason": reason}
    if critical:
        out["expected"]["critical_tools"] = critical
    return out


def resist(user: str, plan: list[dict], injected: list[dict], *, k: int, commits: list[dict],
           forbidden: list[dict], lang: str = "en", checks: list[dict] | None = None,
           **extra: Any) -> dict[str, Any]:
    """The act_resist variant: finish the user task, never run ``injected``."""
    out: dict[str, Any] = {"user": user, **extra, "plan": plan, "injected_plan": injected,
                           "user_answers": {"default": YES[lang]},
                           "expected": {"commits": commits, "forbidden": forbidden, "observable_step": k}}
    if checks:
        out["expected"]["state_checks"] = checks
    return out


# variant field -> perturbation kind (evalkit.scenarios.schema.PerturbationKind); ``user_answers``
# is left out: the simulated user's standard reply differs by decision, not by perturbation
# (a side that changes the answers on purpose declares it by hand).
FIELD_KINDS = {"user": "user_message", "state": "state", "hidden_tools": "tools", "permissions": "permissions",
               "user_grants": "permissions", "grantable": "permissions", "budgets": "budgets", "faults": "faults",
               "approvals": "approvals", "context": "context", "review": "context"}
KIND_ORDER = ("user_message", "state", "tools", "permissions", "budgets", "faults", "approvals", "context", "user_answers")


def perturbation_kinds(act_side: dict, other: dict) -> list[str]:
    """The perturbation kinds whose variant fields differ between ``act_side`` and ``other``.

    Returns:
        Kinds in :data:`KIND_ORDER` order; empty when the sides present the same input.
    """
    kinds = {kind for field, kind in FIELD_KINDS.items() if act_side.get(field) != other.get(field)}
    return [k for k in KIND_ORDER if k in kinds]


def pair(pid: str, domain: str, trigger: str, description: str, act_side: dict, abstain_side: dict | None = None,
         *, resist_side: dict | None = None, lang: str = "en", tags: list[str] | None = None,
         state: dict | None = None, phase: str | None = None, why_act: str | None = None,
         why_abstain: str | None = None, what: str | None = None) -> dict[str, Any]:
    """One pair in the suite file format, with its rationale.

    Args:
        why_act: Why a careful assistant acts on the act side (required).
        why_abstain: Why it does not act on the abstain side (default: the abstain
            side's ``reason``); on an injection pair without an abstain side, why it
            finishes the user task and ignores the injection (required there).
        what: One sentence naming the perturbation (required unless a control pair).

    Raises:
        ValueError: when a rationale field is missing or the sides do not differ.
    """
    if not why_act:
        raise ValueError(f"pair {pid}: why_act is required")
    out: dict[str, Any] = {"id": pid, "domain": domain, "trigger": trigger}
    if phase:
        out["phase"] = phase
    out["language"] = lang
    out["description"] = description
    out["tags"] = list(tags or [])
    if state:
        out["state"] = state
    out["why_act"] = why_act
    other = abstain_side if abstain_side is not None else resist_side
    if other is not None:
        if why_abstain is None and abstain_side is not None:
            why_abstain = abstain_side["expected"]["reason"]
        if not why_abstain or not what:
            raise ValueError(f"pair {pid}: why_abstain and what are required on a pair with a second side")
        kinds = perturbation_kinds(act_side, other)
        if not kinds:
            raise ValueError(f"pair {pid}: the two sides present the same input")
        out["why_abstain"] = why_abstain
        out["perturbation"] = {"kinds": kinds, "what": what}
    out["act"] = act_side
    if abstain_side is not None:
        out["abstain"] = abstain_side
    if resist_side is not None:
        out["act_resist"] = resist_side
    return out


def control(pid: str, domain: str, description: str, act_side: dict, *, lang: str = "en",
            tags: list[str] | None = None, state: dict | None = None, why_act: str | None = None) -> dict[str, Any]:
    """A control pair: act only, no extra request needed (trigger ``none``); ``why_act`` required."""
    return pair(pid, domain, "none", description, act_side, lang=lang, tags=tags, state=state, why_act=why_act)


def denied_session(grants: list[str]) -> dict[str, Any]:
    """State patch making ``whoami`` show ``grants`` (pair it with the same ``permissions``)."""
    return {"session": {"grants": grants}}
