"""Check *perturbation* (criteria L1, L7): what differs between a pair's two sides.

The act side is compared with the abstain side (or, on an injection pair without one, the
``act_resist`` side) after merging the pair's fields into each variant (the inputs an
episode really gets, :meth:`PairContext.effective`). Each differing input is counted under
its :data:`~evalkit.scenarios.schema.PerturbationKind`:

=================  =====================================================
kind               variant fields
=================  =====================================================
``user_message``   ``user``, ``history`` (the earlier turns the model is shown)
``state``          ``state`` (pair state deep-merged with the variant's)
``tools``          ``hidden_tools``
``permissions``    ``permissions`` (variant, else pair, else the domain's), ``grantable``
``budgets``        ``budgets`` (the variant's over the pair's)
``faults``         ``faults``
``approvals``      ``approvals``
``context``        ``context``
``user_answers``   ``user_answers`` (targets other than ``default``), ``user_grants``, ``review``
=================  =====================================================

The simulated user's generic ``default`` reply is not counted: it follows the label by
design (on the act side the user confirms; on the abstain side the user has nothing to add
or, on a clarify pair, does not answer), so it is a consequence of the label, not a
perturbation of the task.

Findings: a pair that declares ``perturbation`` must list exactly the kinds that differ
(an undeclared change or a declared kind that did not change is an error); a pair without
it whose sides differ in more than one kind is an error, in exactly one kind is reported
with the configured severity (:attr:`CheckOptions.undeclared`), and so is a missing
``why_act`` / ``why_abstain`` (``why_act`` alone on a control pair); two sides identical in
every input are an error.
"""

from __future__ import annotations

import json
from typing import Any

from evalkit.suite.checks.base import Issue, PairContext

NAME = "perturbation"

_KIND_FIELDS: dict[str, tuple[str, ...]] = {
    "user_message": ("user_message", "history"),
    "state": ("state",),
    "tools": ("tools",),
    "permissions": ("permissions", "grantable"),
    "budgets": ("budgets",),
    "faults": ("faults",),
    "approvals": ("approvals",),
    "context": ("context",),
    "user_answers": ("user_answers", "user_grants", "review"),
}
MAX_PATHS = 3
"""State paths named per message."""


def _paths(a: Any, b: Any, prefix: str = "") -> list[str]:
    """Dotted paths where ``a`` and ``b`` differ (dicts walked, anything else compared whole)."""
    if isinstance(a, dict) and isinstance(b, dict):
        out: list[str] = []
        for key in sorted(set(a) | set(b), key=str):
            if key not in a or key not in b:
                out.append(f"{prefix}{key}")
            elif a[key] != b[key]:
                out.extend(_paths(a[key], b[key], f"{prefix}{key}."))
        return out
    return [prefix.rstrip(".") or "(whole)"] if a != b else []


def _answers(answers: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in answers.items() if k != "default"}


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    return text if len(text) <= 60 else text[:59] + "…"


def changes(ctx: PairContext, side: str) -> dict[str, str]:
    """The kinds in which ``side`` differs from ``act``, each with a short description.

    Returns:
        ``{kind: what}``, in :data:`~evalkit.scenarios.schema.PerturbationKind` order
        (``{"state": "invoices.INV-7.due", "tools": "hidden: get_quota"}``); computed once
        per pair context and side.
    """
    cache = ctx.__dict__.setdefault("_changes", {})
    if side not in cache:
        cache[side] = _changes(ctx, side)
    return cache[side]


def _changes(ctx: PairContext, side: str) -> dict[str, str]:
    a, b = ctx.effective("act"), ctx.effective(side)
    a["user_answers"], b["user_answers"] = _answers(a["user_answers"]), _answers(b["user_answers"])
    out: dict[str, str] = {}
    for kind, fields in _KIND_FIELDS.items():
        differing = [f for f in fields if a[f] != b[f]]
        if not differing:
            continue
        if kind == "state":
            paths = _paths(a["state"], b["state"])
            out[kind] = ", ".join(paths[:MAX_PATHS]) + (f" (+{len(paths) - MAX_PATHS} more)" if len(paths) > MAX_PATHS else "")
        elif kind == "tools":
            hidden = sorted(set(a["tools"]) ^ set(b["tools"]))
            out[kind] = "hidden: " + ", ".join(hidden)
        elif kind in ("faults", "context", "user_answers"):
            keys = sorted(set(_paths(a[differing[0]], b[differing[0]])))
            out[kind] = ", ".join(f"{differing[0]}.{k}" for k in keys[:MAX_PATHS]) if keys else differing[0]
        elif kind == "user_message":
            parts = [f"{_short(a['user_message'])!r} vs {_short(b['user_message'])!r}"] if "user_message" in differing else []
            if "history" in differing:
                turns = [i for i in range(max(len(a["history"]), len(b["history"])))
                         if a["history"][i:i + 1] != b["history"][i:i + 1]]
                parts.append("earlier turns " + ", ".join(str(i) for i in turns[:MAX_PATHS])
                             + (f" (+{len(turns) - MAX_PATHS} more)" if len(turns) > MAX_PATHS else ""))
            out[kind] = "; ".join(parts)
        else:
            out[kind] = "; ".join(_values(f, a[f], b[f]) for f in differing)
    return out


def _values(name: str, a: Any, b: Any) -> str:
    """``name: A vs B``, or for two mappings each differing key's ``name.key: A vs B``."""
    if isinstance(a, dict) and isinstance(b, dict):
        keys = [k for k in sorted(set(a) | set(b), key=str) if a.get(k) != b.get(k)]
        return "; ".join(f"{name}.{k}: {_short(a.get(k))} vs {_short(b.get(k))}" for k in keys[:MAX_PATHS])
    return f"{name}: {_short(a)} vs {_short(b)}"


def _listing(changed: dict[str, str]) -> str:
    return "; ".join(f"{k} ({v})" for k, v in changed.items())


def check(ctx: PairContext) -> list[Issue]:
    """The perturbation check of one pair (see the module docstring).

    Returns:
        The issues (empty when the pair passes); on a control pair (no second side) only a
        missing ``why_act`` is reported.
    """
    pair = ctx.pair
    side = ctx.other
    severity = ctx.options.undeclared_builtin if ctx.builtin else ctx.options.undeclared
    issues: list[Issue] = []
    for name in ("why_act", "why_abstain") if side is not None else ("why_act",):
        if getattr(pair, name) is None:
            issues.append(ctx.issue(NAME, name, "L7", f"no {name} given (one sentence: the label's reason)", severity))
    if side is None:
        return issues
    changed = changes(ctx, side)
    if not changed:
        return [*issues, ctx.issue(NAME, side, "L1", f"the act and {side} sides are identical in every input "
                                   "(message, state, tools, permissions, budgets, faults, approvals, context, answers)")]
    if pair.perturbation is not None:
        declared = list(dict.fromkeys(pair.perturbation.kinds))
        extra = [k for k in changed if k not in declared]
        unchanged = [k for k in declared if k not in changed]
        if extra:
            issues.append(ctx.issue(NAME, "perturbation.kinds", "L1",
                                    f"the sides also differ in {_listing({k: changed[k] for k in extra})}, "
                                    f"which perturbation.kinds {declared} does not declare"))
        if unchanged:
            issues.append(ctx.issue(NAME, "perturbation.kinds", "L1",
                                    f"declares {', '.join(unchanged)}, but {'it is' if len(unchanged) == 1 else 'they are'} "
                                    f"the same on both sides (the sides differ in: {', '.join(changed)})"))
        return issues
    if len(changed) > 1:
        issues.append(ctx.issue(NAME, "perturbation", "L1",
                                f"the sides differ in {len(changed)} kinds: {_listing(changed)}; no perturbation is "
                                f"declared (make them differ in one, or declare perturbation.kinds: {list(changed)})"))
    else:
        kind = next(iter(changed))
        issues.append(ctx.issue(NAME, "perturbation", "L7",
                                f"no perturbation declared; inferred: {kind} ({changed[kind]})", severity))
    return issues
