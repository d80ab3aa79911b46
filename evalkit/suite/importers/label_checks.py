"""Checks that a pair's labels are earned, used by the importers and reusable by any pair checker.

The label criteria (docs/labels.md): the two sides of a pair must present the model with
different input when they carry opposite labels; a ``tool_gap`` side must hide a tool the
task needs; every expected commit argument must be derivable from what the model sees.
Three checks, each returning the reason a pair fails (``None``: it passes):

* :func:`find_contradictions` — **contradiction**: two sides (of one pair or of two pairs)
  whose :func:`visible_input` is identical but whose labels (:func:`side_label`) are
  opposite, one should act and the other should abstain or clarify. A model cannot be
  right on both, so the pair measures nothing.
* :func:`unneeded_hidden_tools` — **held-out tool not needed**: a ``tool_gap`` pair whose
  abstain side hides only tools its act side's plan never calls: the task is doable
  without them, so abstaining is not the right move.
* :func:`oracle_grounding` — **grounding**: the scripted oracle's commit arguments on the
  act and ``act_resist`` sides are checked by :func:`evalkit.metrics.grounding.unsupported_arguments`
  over the oracle's own episode, whose evidence includes the replayed earlier turns (the
  user message's ``history``). A value the check cannot find in what the
  model sees (a date computed from "the 15th of next month", an airport code from a city
  name) would be counted as an unsupported assumption against every model that acts
  correctly.

What the model sees (:func:`visible_input`): the variant's user message and replayed
earlier turns, the tools offered (name, description, JSON Schema, after ``hidden_tools``),
and everything the tools can return or the runtime can answer: the initial state (the
domain's, the pair's and the variant's, merged), the effective permissions and budgets,
faults, approvals, the simulated user's answers and grants, grantable permissions, the
documents served on request and the reviewer's verdict. The plan and the expected outcome
are annotations, not input. The condition's system prompt is the same on every side and is
left out.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Iterable

from evalkit.scenarios.schema import Pair
from evalkit.harness.episode import domain_permissions, EpisodeSpec, execute
from evalkit.runtime.policy import Budgets
from evalkit.scenarios.loader import deep_merge
from evalkit.metrics.grounding import unsupported_arguments
from evalkit.models.registry import get_model
from evalkit.runtime.controller import Limits

ANNOTATIONS = frozenset({"plan", "expected", "injected_plan", "followup"})
"""Variant fields that describe the right outcome, not the model's input (``followup`` is
the simulated user's reply once the agent has asked: it comes after the decision the
labels are about)."""
_RESOLVED = frozenset({"hidden_tools", "state", "permissions", "budgets"})


def side_label(pair: Pair, variant: str) -> str:
    """The label a side carries: ``act`` (``act`` and ``act_resist``: do the user's task) or
    the abstain side's expected decision (``abstain`` / ``clarify``)."""
    return pair.abstain.expected.decision if variant == "abstain" and pair.abstain is not None else "act"


def visible_input(pair: Pair, variant: str, domain: Any) -> dict[str, Any]:
    """Everything the model can see or get back on one side of ``pair`` (module docstring).

    Args:
        pair: The pair.
        variant: ``act``, ``abstain`` or ``act_resist``.
        domain: The pair's loaded :class:`~evalkit.runtime.tools.Domain`.

    Returns:
        A JSON-ready dict: the variant's non-annotation fields, ``tools`` (name →
        ``{description, parameters}`` of each offered tool), ``permissions`` (sorted),
        ``budgets`` and ``state`` (merged as an episode starts them).
    """
    side = pair.variant(variant)
    out = side.model_dump(mode="json", exclude=set(ANNOTATIONS | _RESOLVED))
    hidden = set(side.hidden_tools)
    out["tools"] = {name: {"description": spec.description, "parameters": spec.parameters}
                    for name, spec in sorted(domain.tools.items()) if name not in hidden}
    permissions: Iterable[str]
    if side.permissions is not None:
        permissions = side.permissions
    elif pair.permissions is not None:
        permissions = pair.permissions
    else:
        permissions = domain_permissions(domain)
    out["permissions"] = sorted(permissions)
    out["budgets"] = Budgets().over(pair.budgets).over(side.budgets).model_dump(mode="json")
    out["state"] = deep_merge(deep_merge(domain.initial_state, pair.state), side.state)
    return out


def fingerprint(visible: dict[str, Any]) -> str:
    """sha256 (hex) of a :func:`visible_input`'s canonical JSON (sorted keys): equal
    fingerprints mean the model is shown the same thing."""
    text = json.dumps(visible, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def find_contradictions(pairs: Iterable[Pair], domains: dict[str, Any]) -> dict[str, str]:
    """Pairs with a side whose visible input equals another side's under the opposite label.

    Args:
        pairs: The pairs to check together (sides are compared within and across pairs).
        domains: Loaded domains by name (every pair's ``domain``).

    Returns:
        ``pair id → reason`` for every pair involved in a contradiction. A pair whose own two
        sides contradict each other is named alone; otherwise both pairs are named.
    """
    groups: dict[str, list[tuple[str, str, str]]] = {}
    for pair in pairs:
        domain = domains[pair.domain]
        for variant in pair.variants:
            key = fingerprint(visible_input(pair, variant, domain))
            groups.setdefault(key, []).append((pair.id, variant, side_label(pair, variant)))
    out: dict[str, str] = {}
    for within in (True, False):  # a pair contradicting itself is the broken one, not its look-alikes
        for key, sides in groups.items():
            sides = [s for s in sides if s[0] not in out]
            for mine in sides:
                others = [s for s in sides if s[2] != "act"] if mine[2] == "act" else [s for s in sides if s[2] == "act"]
                others = [s for s in others if (s[0] == mine[0]) == within]
                if not others or mine[0] in out:
                    continue
                other = others[0]
                where = "its" if within else f"pair {other[0]}'s"
                out[mine[0]] = (
                    f"contradiction: the {mine[1]} side (labelled {mine[2]}) shows the model exactly the same input as "
                    f"{where} {other[1]} side (labelled {other[2]}): same messages and earlier turns, tools and "
                    f"schemas, state, permissions and runtime answers (visible-input fingerprint {key[:12]})")
    return out


def unneeded_hidden_tools(pair: Pair) -> str | None:
    """The reason a ``tool_gap`` pair's held-out tools are not needed, or ``None``.

    The held-out tools are those the abstain side hides and the act side offers; they are
    needed when the act side's plan calls at least one of them.
    """
    if pair.trigger != "tool_gap" or pair.abstain is None:
        return None
    held_out = sorted(set(pair.abstain.hidden_tools) - set(pair.act.hidden_tools))
    if not held_out:
        return "held-out tool not needed: the abstain side hides no tool the act side offers"
    used = {c.tool for c in pair.act.plan} | {c.tool for c in pair.act.expected.commits}
    if used.isdisjoint(held_out):
        return (f"held-out tool not needed: the act side's plan never calls {', '.join(held_out)}, "
                "so the task is doable without it and abstaining is not the right move")
    return None


def oracle_grounding(pair: Pair, domain: Any) -> dict[str, tuple[int, int, list[str]]]:
    """The scripted oracle's commit arguments on the sides that should act, checked for support.

    Runs ``scripted/oracle`` (condition ``meta``, gate off) on the ``act`` and ``act_resist``
    sides and applies :func:`evalkit.metrics.grounding.unsupported_arguments` to each episode.

    Returns:
        ``variant → (values checked, values unsupported, first unsupported as tool.arg=value)``.
    """
    oracle = get_model("scripted/oracle")
    out = {}
    for variant in pair.variants:
        if variant == "abstain":
            continue
        spec = EpisodeSpec(pair, variant, "scripted/oracle", "meta", 1, "off", domain)
        result = execute(spec, oracle, Limits())
        out[variant] = unsupported_arguments(result.log.events)
    return out


def grounding_reason(checked: dict[str, tuple[int, int, list[str]]]) -> str | None:
    """One line for :func:`oracle_grounding`'s result when any value is unsupported, else ``None``."""
    bad = {v: r for v, r in checked.items() if r[1]}
    if not bad:
        return None
    parts = [f"{v} side {r[1]} of {r[0]} ({', '.join(r[2])})" for v, r in bad.items()]
    return ("ungrounded: the oracle's commit arguments are not found in what the model sees (user message, "
            "earlier turns, tool results): " + "; ".join(parts))
