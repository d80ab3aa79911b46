"""What the HTML report shows, computed from the run's files (no HTML here).

Every number comes from ``summary.json`` (the same rows the CLI table and the CI gate
read); the result rows are used only to pick the failure gallery, the per-pair grid and
the traces to embed. Caps keep a large run's report small (:data:`LIMITS`).
"""

from __future__ import annotations

from collections import defaultdict
from itertools import zip_longest
from typing import Any

from evalkit.types import TRIGGER_PHASE

LIMITS = {
    "gallery_per_category": 24,  # cards per failure category
    "traces": 200,  # episodes whose trace is embedded
    "examples_per_group": 2,  # right episodes embedded per model × condition × gate
    "grid_pairs": 300,  # rows of the per-pair grid
    "grid_columns": 48,  # columns of the per-pair grid
    "text_chars": 400,  # final text shown on a gallery card
}

PHASE_ORDER = ("pre_execution", "runtime", "control")
_VARIANTS = {"act": 0, "abstain": 1, "act_resist": 2}
GALLERY = (
    ("post_hoc", "Post-hoc abstentions",
     "A commit executed, then the agent refused or asked in text; the post-hoc rate counts the abstain side, "
     "where it must be 0 for a passing CI gate."),
    ("late", "Late abstentions",
     "Right decision, but more than the allowed number of tool calls after the trigger became observable."),
    ("unsupported", "Unsupported assumptions",
     "A commit used an argument value found neither in the user message nor in any observation."),
    ("parse", "Parse failures and non-decisions",
     "Tool-call arguments that did not parse, or a final output with no classifiable decision."),
    ("errors", "Errored episodes",
     "The episode ended on an error (provider, runtime); it counts as wrong and is reported, never dropped."),
)


def group_label(row: dict[str, Any], gates: bool) -> str:
    """``model · condition`` (plus ``· gate g`` when the run has several gates)."""
    label = f"{row['model']} · {row['condition']}"
    return f"{label} · gate {row['gate']}" if gates else label


def leaderboard(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Summary rows ranked by paired accuracy (empty groups last), ties in run order."""
    order = sorted(range(len(rows)), key=lambda i: (rows[i]["paired_accuracy"] is None,
                                                     -(rows[i]["paired_accuracy"] or 0.0), i))
    return [{"rank": n + 1, **rows[i]} for n, i in enumerate(order)]


def heatmap(summary: dict[str, Any], columns: list[tuple[str, str, str]]) -> dict[str, Any]:
    """Trigger × (model, condition, gate) cells of paired accuracy (act accuracy for control).

    Returns:
        ``{"triggers": [(trigger, phase)], "cells": {trigger: {column: cell}}}``; a cell holds
        ``value``, ``k``, ``n``, ``ci`` and ``metric``.
    """
    cells: dict[str, dict[tuple[str, str, str], dict[str, Any]]] = defaultdict(dict)
    phases: dict[str, str] = {}
    for r in summary.get("breakdowns", {}).get("trigger", []):
        trig = str(r["trigger"])
        metric = "paired_accuracy" if r.get("paired_accuracy_n") else "act_accuracy"
        cells[trig][(r["model"], r["condition"], r["gate"])] = {
            "value": r.get(metric), "k": r.get(f"{metric}_k", 0), "n": r.get(f"{metric}_n", 0),
            "ci": r.get(f"{metric}_ci"), "metric": metric}
        phases[trig] = TRIGGER_PHASE.get(trig, "control")
    triggers = sorted(cells, key=lambda t: (PHASE_ORDER.index(phases[t]) if phases[t] in PHASE_ORDER else 9, t))
    return {"triggers": [(t, phases[t]) for t in triggers], "cells": cells, "columns": columns}


def colour(value: float | None) -> str:
    """Background colour of a heatmap cell: red (0) through amber to green (1)."""
    if value is None:
        return "#f1f2f5"
    hue = round(120 * value)
    return f"hsl({hue}, 62%, {88 - 10 * (1 - abs(value - 0.5) * 2):.0f}%)"


def gate_side_by_side(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per model × condition, its summary row under each gate setting (``off`` first)."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for r in rows:
        entry = out.setdefault((r["model"], r["condition"]), {"model": r["model"], "condition": r["condition"],
                                                               "gates": {}})
        entry["gates"][r["gate"]] = r
    for entry in out.values():
        entry["gates"] = dict(sorted(entry["gates"].items(), key=lambda kv: (kv[0] != "off", kv[0])))
    return [e for e in out.values() if len(e["gates"]) > 1]


def comparison_groups(summary: dict[str, Any]) -> dict[str, Any]:
    """Comparisons grouped for display: by kind, then by the fixed factors."""
    out: dict[str, dict[str, list[dict[str, Any]]]] = {"condition": {}, "model": {}, "gate": {}}
    for c in summary.get("comparisons", []):
        if c["kind"] == "condition":
            title = f"{c['model']} · gate {c['gate']}"
        elif c["kind"] == "model":
            title = f"condition {c['condition']} · gate {c['gate']}"
        else:
            title = f"{c['model']} · {c['condition']}"
        out.setdefault(c["kind"], {}).setdefault(title, []).append(c)
    return out


def _interleave(groups: dict[tuple, list[dict[str, Any]]], cap: int) -> list[dict[str, Any]]:
    """Round-robin over groups so that no single model fills a gallery."""
    picked: list[dict[str, Any]] = []
    for batch in zip_longest(*groups.values()):
        for r in batch:
            if r is not None:
                picked.append(r)
                if len(picked) >= cap:
                    return picked
    return picked


def _detail(cat: str, r: dict[str, Any], max_lag: int) -> str:
    if cat == "post_hoc":
        return f"{r.get('critical_commits', 0)} critical commit(s) executed, then: {r.get('stated')}"
    if cat == "late":
        return f"lag {_int(r.get('lag'))} > {max_lag}: tool calls made after the trigger became observable"
    if cat == "unsupported":
        listed = r.get("unsupported_args") or []
        return f"{r.get('unsupported_args_n', 0)} unsupported: " + "; ".join(map(str, list(listed)[:4]))
    if cat == "parse":
        codes = r.get("reason_codes") or []
        return "parse_error denial" if "parse_error" in codes else f"no decision (text read as {r.get('text_label')})"
    return str(r.get("error") or "error")


def _int(value: Any) -> Any:
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _in_category(cat: str, r: dict[str, Any]) -> bool:
    if cat == "post_hoc":
        return bool(r.get("post_hoc"))
    if cat == "late":
        return r.get("timely") is False
    if cat == "unsupported":
        return bool(r.get("unsupported_args_n"))
    if cat == "parse":
        return r.get("status") == "ok" and ("parse_error" in (r.get("reason_codes") or []) or r.get("decision") == "none")
    return r.get("status") == "error"


def gallery(rows: list[dict[str, Any]], *, max_lag: int, gates: bool) -> list[dict[str, Any]]:
    """The failure gallery: per category its total count and up to the cap of cards.

    Returns:
        ``[{"key", "title", "about", "total", "cards": [{"row", "group", "detail", "text"}]}]``.
    """
    from evalkit.report.traces import truncate

    out = []
    cap = LIMITS["gallery_per_category"]
    for cat, title, about in GALLERY:
        members: dict[tuple, list[dict[str, Any]]] = defaultdict(list)
        total = 0
        for r in rows:
            if _in_category(cat, r):
                total += 1
                members[(r["model"], r["condition"], r["gate"])].append(r)
        for group in members.values():  # the should-abstain side first: that is where it matters most
            group.sort(key=lambda r: r["variant"] != "abstain")
        cards = [{"row": r, "group": group_label(r, gates), "detail": truncate(_detail(cat, r, max_lag), 300),
                  "text": truncate(r.get("final_text") or "", LIMITS["text_chars"])}
                 for r in _interleave(members, cap)]
        out.append({"key": cat, "title": title, "about": about, "total": total, "cards": cards})
    return out


def trace_choice(rows: list[dict[str, Any]], gallery_sections: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The episodes whose traces are embedded: every gallery card, then a few right episodes
    per model × condition × gate (act and abstain sides), up to the cap."""
    chosen: dict[str, dict[str, Any]] = {}
    cap = LIMITS["traces"]
    for section in gallery_sections:
        for card in section["cards"]:
            chosen.setdefault(card["row"]["episode_id"], card["row"])
    examples: dict[tuple, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        group = examples[(r["model"], r["condition"], r["gate"])]
        if len(group) < LIMITS["examples_per_group"] and r.get("correct") and \
                all(g["variant"] != r["variant"] for g in group):
            group.append(r)
    for r in _interleave(examples, cap):
        if len(chosen) >= cap:
            break
        chosen.setdefault(r["episode_id"], r)
    return list(chosen.values())[:cap]


def pair_grid(rows: list[dict[str, Any]], columns: list[tuple[str, str, str]],
              embedded: set[str]) -> dict[str, Any]:
    """The per-pair grid: one row per pair (capped), one column per group (capped).

    Each cell has ``sym`` (one mark per recorded episode, by epoch then act / abstain /
    act_resist: ✓ right, ✗ wrong, ! error), ``cls`` (``ok``: every episode right, ``err``:
    an error, ``bad``: otherwise), ``title`` and ``link`` (an embedded trace of a wrong
    episode, else of any episode).
    """
    cols = columns[: LIMITS["grid_columns"]]
    colset = set(cols)
    cells: dict[str, dict[tuple, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    info: dict[str, dict[str, Any]] = {}
    for r in rows:
        col = (r["model"], r["condition"], r["gate"])
        if col not in colset:
            continue
        if r["pair_id"] not in info:
            if len(info) >= LIMITS["grid_pairs"]:
                continue
            info[r["pair_id"]] = {k: r.get(k) for k in ("trigger", "phase", "domain", "split")}
        cells[r["pair_id"]][col].append(r)
    grid: dict[str, dict[tuple, dict[str, Any]]] = {}
    for pid, by_col in cells.items():
        grid[pid] = {}
        for col, members in by_col.items():
            members.sort(key=lambda r: (r["epoch"], _VARIANTS.get(r["variant"], 9)))
            sym = "".join("!" if m["status"] == "error" else ("✓" if m["correct"] else "✗") for m in members)
            cls = "err" if "!" in sym else ("ok" if "✗" not in sym else "bad")
            wrong = [m for m in members if not m["correct"] and m["episode_id"] in embedded]
            anyone = [m for m in members if m["episode_id"] in embedded]
            link = (wrong or anyone or [None])[0]
            title = "; ".join(f"{m['variant']} e{m['epoch']}: {m.get('decision')}" for m in members[:6])
            grid[pid][col] = {"sym": sym, "cls": cls, "title": title, "link": link["episode_id"] if link else None}
    return {"pairs": info, "grid": grid, "columns": cols, "n_pairs_total": len({r["pair_id"] for r in rows}),
            "n_columns_total": len(columns)}
