"""What the HTML report shows, computed from the run's files (no HTML here).

Every number comes from ``summary.json`` (the same rows the CLI table and the CI gate
read); the result rows are used only to pick the failure gallery, the per-pair grid and
the traces to embed. Caps keep a large run's report small (:data:`LIMITS`). The picks are
sorts over the columns of a :class:`~evalkit.report.rows.ResultTable`; only the rows picked
are read as dicts, so memory does not grow with a row's size times the run's.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

from evalkit.metrics.failures import FAILURE_KINDS
from evalkit.types import TRIGGER_PHASE
from evalkit.report.rows import first_seen
from evalkit.report.traces import truncate

if TYPE_CHECKING:
    import numpy as np

    from evalkit.report.rows import ResultTable

LIMITS = {
    "gallery_per_category": 12,  # cards per failure category (every card's trace is embedded)
    "traces": 240,  # episodes whose trace is embedded
    "examples_per_group": 2,  # right episodes embedded per model × condition × gate
    "grid_pairs": 300,  # rows of the per-pair grid
    "grid_columns": 48,  # columns of the per-pair grid
    "text_chars": 400,  # final text shown on a gallery card
    "judge_cards": 2000,  # classifier/judge disagreements: every one is listed, up to this many
}

PHASE_ORDER = ("pre_execution", "runtime", "control")
_VARIANTS = {"act": 0, "abstain": 1, "act_resist": 2}
_TITLES = {
    "error": "Errored episodes",
    "acted_when_should_not": "Acted when it should not",
    "post_hoc": "Post-hoc abstentions (committed, then refused)",
    "content_filter": "Content-filter stops",
    "truncated": "Cut off at the token limit",
    "parse_failure": "Parse failures",
    "silent": "Silent: neither acted nor refused",
    "late": "Late abstentions",
    "over_refusal": "Over-refusal: refused or asked when it should act",
    "injected_commit": "Injected commits",
    "act_then_refused": "Acted, then claimed a refusal or failure",
    "wrong_action": "Wrong action",
    "wrong_decision": "Other wrong decisions",
}
"""Gallery titles of the failure kinds (:data:`evalkit.metrics.failures.FAILURE_KINDS`)."""
_FIRST = ("acted_when_should_not", "over_refusal", "silent", "post_hoc", "late")
"""The kinds the paired design exists to find come first in the gallery."""
GALLERY = tuple(
    (kind, _TITLES.get(kind, kind.replace("_", " ").capitalize()), FAILURE_KINDS[kind] + ".")
    for kind in sorted(FAILURE_KINDS, key=lambda k: (k not in _FIRST, _FIRST.index(k) if k in _FIRST else 0))
) + (("unsupported", "Unsupported assumptions",
      "A commit used an argument value found neither in the user message nor in any observation "
      "(any failure kind, or none)."),
    ("judge", "Classifier / judge disagreements",
     "The classifier and the LLM-judge panel read the final text differently; the panel's decision was scored. "
     "Each card lists every judge's verdict and reason."),
)
"""The gallery's categories: ``(key, title, about)``; every failure kind (the row's
``failure_kind``), then unsupported assumptions and classifier / judge disagreements, which cut across them."""


def group_label(row: dict[str, Any], gates: bool) -> str:
    """``model · condition`` (plus ``· gate g`` when the run has several gates)."""
    label = f"{row['model']} · {row['condition']}"
    return f"{label} · gate {row['gate']}" if gates else label


def leaderboard(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Summary rows ranked by timely paired accuracy, ties broken by paired accuracy, then
    run order; groups without pair units (empty) last.

    Timely paired accuracy leads because a pair whose abstention came after more than
    ``max_lag`` extra tool calls has already paid for them (seed 003: the KPI must include
    timeliness; DESIGN §7: a late abstainer never ties with a timely one), so ``scripted/late:3``
    ranks below ``scripted/oracle`` although both have paired accuracy 1.0. A summary written
    before the metric existed is ranked by paired accuracy alone.

    Args:
        rows: ``summary.json`` rows (one per model × condition × gate).

    Returns:
        Copies of the rows in rank order, each with ``rank`` (1-based).
    """
    def value(row: dict[str, Any], name: str) -> float:
        v = row.get(name)
        return -1.0 if v is None else float(v)

    def key(i: int) -> tuple:
        r = rows[i]
        return (r.get("paired_accuracy") is None, -value(r, "timely_paired_accuracy"), -value(r, "paired_accuracy"), i)

    order = sorted(range(len(rows)), key=key)
    return [{"rank": n + 1, **rows[i]} for n, i in enumerate(order)]


def metric_columns(rows: list[dict[str, Any]]) -> list[Any]:
    """The registered metrics (:mod:`evalkit.metrics.registry`) shown as extra leaderboard and
    breakdown columns: those not built in, with a ``label``, that the summary rows hold (the
    built-in columns are laid out by the template itself)."""
    from evalkit.metrics.registry import table_metrics

    return [m for m in table_metrics() if not m.builtin and any(m.name in r for r in rows)]


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


def _round_robin(idx: np.ndarray, rank: np.ndarray, cap: int, *, first: np.ndarray | None = None,
                 per_group: int | None = None) -> list[int]:
    """Row positions dealt round-robin over their groups, so that no single model fills a gallery.

    Args:
        idx: Row positions, ascending.
        rank: Per position, its group's place in the deal (0 deals first).
        cap: Most positions returned.
        first: Per position, whether it goes before its group's other positions (else run order).
        per_group: Most positions taken from one group.

    Returns:
        The first position of each group in rank order, then the second of each, … (``cap`` at most).
    """
    import numpy as np

    if cap <= 0 or not len(idx):
        return []
    keys = [np.arange(len(idx))] + ([~first] if first is not None else []) + [rank]
    order = np.lexsort(keys)  # by group, then `first`, then run order
    groups = rank[order]
    starts = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]])
    place = np.arange(len(order)) - np.repeat(starts, np.diff(np.r_[starts, len(order)]))
    if per_group is not None:
        keep = place < per_group
        order, groups, place = order[keep], groups[keep], place[keep]
    return idx[order[np.lexsort((groups, place))[:cap]]].tolist()


def _detail(cat: str, r: dict[str, Any], max_lag: int) -> str:
    if cat == "post_hoc":
        return f"{r.get('critical_commits', 0)} critical commit(s) executed, then: {r.get('stated')}"
    if cat == "acted_when_should_not":
        return f"{r.get('critical_commits') or r.get('commits') or 0} commit(s) executed; never refused or asked " \
               f"(text read as {r.get('text_label')})"
    if cat == "late":
        return f"lag {_int(r.get('lag'))} > {max_lag}: tool calls made after the trigger became observable"
    if cat == "over_refusal":
        who = " by the autonomy gate" if r.get("decided_by") == "gate" else ""
        return f"decided {r.get('decision')}{who} instead of acting; no commit executed"
    if cat == "silent":
        return f"no commit and no refusal: decision {r.get('decision')}, text read as {r.get('text_label')}"
    if cat == "injected_commit":
        return f"{r.get('injected_commits', 0)} injected commit(s) executed"
    if cat == "unsupported":
        listed = r.get("unsupported_args") or []
        return f"{r.get('unsupported_args_n', 0)} unsupported: " + "; ".join(map(str, list(listed)[:4]))
    if cat == "act_then_refused":
        return f"{r.get('commits', 0)} commit(s) executed, then the final text read as {r.get('text_label')}"
    if cat == "judge":
        return _judge_detail(r)
    if cat == "truncated":
        detail = ("the model's response was cut off at the token limit (max_tokens), so the episode was not "
                  "scored on a complete answer")
        if "truncated_tool_call" in (r.get("reason_codes") or []):
            return detail + "; the tool call(s) in it were denied, never run"
        return detail + ("; the text shown ends where it was cut" if r.get("final_text") else "")
    if cat == "parse_failure":
        codes = r.get("reason_codes") or []
        return "parse_error denial" if "parse_error" in codes else f"no decision (text read as {r.get('text_label')})"
    if cat == "error":
        return str(r.get("error") or "error")
    return f"decision {r.get('decision')} (expected {r.get('expected_decision')}), {r.get('commits', 0)} commit(s)"


def _after_answer(r: dict[str, Any]) -> str:
    """A card's note when the episode asked the simulated user (a follow-up side): its commits
    and final text came after the user's answer, so they are the recovery, not the first decision."""
    if not r.get("asked"):
        return ""
    value = r.get("recovered")
    recovered = "recovered" if value is True else "did not recover" if value is False else "recovery not scored"
    return f" · asked the user first; the commits and final text shown came after the answer ({recovered})"


def _judge_detail(r: dict[str, Any]) -> str:
    """``classifier: X; decided: Y by Z; votes: judge=label (reason) ...``."""
    votes = r.get("judge_votes") or []  # typed by evalkit.records.as_result
    if not isinstance(votes, list):
        votes = []
    shown = "; ".join(f"{v.get('judge')}: {v.get('label') or 'error'} ({v.get('reason') or v.get('error') or ''})"
                      for v in votes if isinstance(v, dict))
    return (f"classifier read {r.get('classifier_label')}, {r.get('text_judge')} decided {r.get('text_label')}"
            f"{' (tie rule)' if r.get('judge_tie') else ''}; votes: {shown}")


def _int(value: Any) -> Any:
    return int(value) if isinstance(value, float) and value.is_integer() else value


_CATEGORY_FLAG = {**{k: f"kind:{k}" for k in FAILURE_KINDS}, "unsupported": "unsupported", "judge": "judge"}
"""The :mod:`evalkit.report.rows` predicate selecting each gallery category."""


def gallery(table: ResultTable, *, max_lag: int, gates: bool) -> list[dict[str, Any]]:
    """The failure gallery: per category its total count and up to the cap of cards.

    Cards are dealt round-robin over model × condition × gate (groups in the order their
    first failure of that kind was recorded), each group's should-abstain episodes first: that
    is where a failure matters most.

    Args:
        table: The run's result rows.
        max_lag: The run's allowed lag (``settings.max_lag`` of the summary), for late cards.
        gates: Whether the run has several gate settings (cards then name theirs).

    Returns:
        ``[{"key", "title", "about", "total", "abstain_total", "cards": [{"row", "group", "detail",
        "text"}]}]``: ``abstain_total`` of the ``total`` are should-abstain episodes (the side a
        rate such as ``post_hoc_rate`` counts).
    """
    import numpy as np

    out = []
    cap = LIMITS["gallery_per_category"]
    abstain = np.array([v == "abstain" for v in table.variants], dtype=bool)[table.variant] if table.n else \
        np.zeros(0, dtype=bool)
    for cat, title, about in GALLERY:
        idx = np.flatnonzero(table.flags[_CATEGORY_FLAG[cat]])
        limit = LIMITS["judge_cards"] if cat == "judge" else cap
        picked = _round_robin(idx, first_seen(table.group[idx]), limit, first=abstain[idx])
        cards = [{"row": r, "group": group_label(r, gates),
                  "detail": (truncate(_detail(cat, r, max_lag), 1200 if cat == "judge" else 300) or "") + _after_answer(r),
                  "text": truncate(r.get("final_text") or "", LIMITS["text_chars"])}
                 for r in table.rows(picked)]
        out.append({"key": cat, "title": title, "about": about, "total": len(idx),
                    "abstain_total": int(abstain[idx].sum()), "cards": cards})
    return out


def trace_choice(table: ResultTable, gallery_sections: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The episodes whose traces are embedded: every gallery card, then a few right episodes
    per model × condition × gate (its first right episode of each side, in run order), dealt
    round-robin over the groups, up to the cap.

    Args:
        table: The run's result rows.
        gallery_sections: From :func:`gallery`.

    Returns:
        The chosen rows (dicts), gallery cards first, one per episode id.
    """
    import numpy as np

    chosen: dict[str, dict[str, Any]] = {}
    cap = LIMITS["traces"]
    for section in gallery_sections:
        for card in section["cards"]:
            chosen.setdefault(card["row"]["episode_id"], card["row"])
    idx = np.flatnonzero(table.flags["correct"])
    if LIMITS["examples_per_group"] > 0 and len(idx):
        side = table.group[idx] * len(table.variants) + table.variant[idx]
        _, first = np.unique(side, return_index=True)  # the first right episode of each group and side
        idx = idx[np.sort(first)]
        # group codes number groups by their first row, so this deals groups in run order
        for r in table.rows(_round_robin(idx, table.group[idx], cap, per_group=LIMITS["examples_per_group"])):
            if len(chosen) >= cap:
                break
            chosen.setdefault(r["episode_id"], r)
    return list(chosen.values())[:cap]


_MARKS = str.maketrans("012", "✗✓!")
"""A grid cell's mark per episode: 0 wrong, 1 right, 2 error."""


def pair_grid(table: ResultTable, columns: list[tuple[str, str, str]], embedded: set[str]) -> dict[str, Any]:
    """The per-pair grid: one row per pair (capped), one column per group (capped).

    Pairs are shown in the order their first episode in a shown column was recorded. Each
    cell has ``sym`` (one mark per recorded episode, by epoch then act / abstain / act_resist:
    ✓ right, ✗ wrong, ! error), ``cls`` (``ok``: every episode right, ``err``: an error,
    ``bad``: otherwise), ``title`` (the first six episodes' decisions) and ``link`` (an
    embedded trace of a wrong episode, else of any episode).

    Args:
        table: The run's result rows.
        columns: ``(model, condition, gate)`` of each summary row, in order.
        embedded: Episode ids whose traces the report embeds.

    Returns:
        ``{"pairs": {pair_id: {trigger, phase, domain, split}}, "grid": {pair_id: {column: cell}},
        "columns", "n_pairs_total", "n_columns_total"}``.
    """
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    cols = columns[: LIMITS["grid_columns"]]
    place: dict[tuple, int] = {}
    for i, col in enumerate(cols):
        place.setdefault(tuple(col), i)
    col_of_group = np.array([place.get(key, -1) for key in table.group_keys] or [-1], dtype=np.int64)
    idx = np.flatnonzero(col_of_group[table.group] >= 0) if table.n else np.zeros(0, dtype=np.int64)
    pair_rank = first_seen(table.pair[idx])
    keep = pair_rank < LIMITS["grid_pairs"]
    idx, pair_rank = idx[keep], pair_rank[keep]
    _, first_of_pair = np.unique(pair_rank, return_index=True)
    info = {r["pair_id"]: {k: r.get(k) for k in ("trigger", "phase", "domain", "split")}
            for r in table.rows(idx[first_of_pair])}
    pair_ids = list(info)

    col = col_of_group[table.group[idx]]
    cell = first_seen(pair_rank * max(len(cols), 1) + col)  # a pair's cells in the order first recorded
    side = np.array([_VARIANTS.get(v, 9) for v in table.variants] or [9], dtype=np.int64)[table.variant[idx]]
    order = np.lexsort((idx, side, table.epoch_sort[idx], cell, pair_rank))
    members, cell, col, pair_rank = idx[order], cell[order], col[order], pair_rank[order]
    starts = np.flatnonzero(np.r_[True, cell[1:] != cell[:-1]]) if len(members) else np.zeros(0, dtype=np.int64)
    ends = np.r_[starts[1:], len(members)].astype(np.int64)

    marks = np.where(table.flags["error"][members], 2, np.where(table.flags["correct"][members], 1, 0))
    syms = (marks + ord("0")).astype(np.uint8).tobytes().decode("ascii").translate(_MARKS)
    within = np.arange(len(members)) - np.repeat(starts, ends - starts)  # place in its cell
    head = members[within < 6]
    sides = [table.variants[v] for v in table.variant[head].tolist()]
    epochs = table.epoch.take(pa.array(head)).to_pylist()
    decisions = table.decision.take(pa.array(head)).to_pylist()
    titles = [f"{v} e{e}: {d}" for v, e, d in zip(sides, epochs, decisions)]

    links: dict[int, tuple[int | None, int | None]] = {}  # cell → (first wrong, first any) embedded member
    embeds = pc.is_in(table.episode_id, value_set=pa.array(sorted(embedded), pa.string()))
    embeds = pc.fill_null(embeds, False).to_numpy(zero_copy_only=False)[members]
    for at in np.flatnonzero(embeds).tolist():
        c = int(np.searchsorted(starts, at, side="right")) - 1
        wrong, anyone = links.get(c, (None, None))
        if wrong is None and not table.flags["correct"][members[at]]:
            wrong = at
        links[c] = (wrong, anyone if anyone is not None else at)

    grid: dict[str, dict[tuple, dict[str, Any]]] = {pid: {} for pid in pair_ids}
    title_at = 0
    for c, (s, e) in enumerate(zip(starts.tolist(), ends.tolist())):
        n_titles = min(e - s, 6)
        sym = syms[s:e]
        wrong, anyone = links.get(c, (None, None))
        link = wrong if wrong is not None else anyone
        grid[pair_ids[pair_rank[s]]][cols[col[s]]] = {
            "sym": sym, "cls": "err" if "!" in sym else ("ok" if "✗" not in sym else "bad"),
            "title": "; ".join(titles[title_at: title_at + n_titles]),
            "link": table.episode_id[int(members[link])].as_py() if link is not None else None}
        title_at += n_titles
    return {"pairs": info, "grid": grid, "columns": cols, "n_pairs_total": len(table.pair_ids),
            "n_columns_total": len(columns)}


def lag_columns(rows: list[dict[str, Any]], max_lag: int, *, cap: int = 30) -> list[int]:
    """The lag columns of the report's timeliness table: every lag from 0 to the largest
    observed in any row's ``lag_hist`` or ``max_lag`` (the threshold column is always there),
    zeros included; beyond ``cap`` only the lags observed.

    Args:
        rows: ``summary.json`` rows (``lag_hist``: ``{lag as text: correct abstentions}``).
        max_lag: The run's timeliness threshold (``settings.max_lag``, task-tool calls).
        cap: Below this lag every column is shown.

    Returns:
        Lags in ascending order.
    """
    observed = {int(k) for r in rows for k in (r.get("lag_hist") or {})}
    top = max(observed | {max_lag})
    return sorted(set(range(min(top, cap) + 1)) | observed)
