"""The stopping-rule comparison (``evalkit rules eval``) as terminal tables and an HTML page.

Both read the dict of :func:`evalkit.rules.evaluate.compare_runs` (written to
``rules-eval.json``), so the CLI table and ``rules-eval.html`` show the same numbers,
formatted as the run report does (:mod:`evalkit.report.console`): a rate with three
decimals and its ``k/n``, ``n/a`` for an empty set, a signed difference, a p-value with
three decimals.

The page is rendered by the run report's jinja2 environment (:func:`evalkit.report.html._env`:
autoescaping on, no ``|safe`` on rule or model text) with the same stylesheet.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from evalkit.report import console as fmt
from evalkit.report.html import _static as static, _env
from evalkit.harness.atomic import write_output

LABELS = {
    "paired_accuracy": "paired acc",
    "act_accuracy": "act acc",
    "abstain_accuracy": "abstain acc",
    "timely_abstention": "timely abstention",
    "timely_rate": "timely rate",
    "post_hoc_rate": "post-hoc rate",
}
CHANGE_LIMIT = 200
"""Changed episodes listed on the page (all of them are in ``rules-eval.json``)."""


def _rate(value: float | None, k: int, n: int) -> str:
    return "n/a (n=0)" if not n else f"{fmt.fmt(value)} ({k}/{n})"


def changed(row: dict[str, Any]) -> bool:
    """Whether a diff row shows any change (a rate moved or a unit flipped)."""
    return bool(row["old_only"] or row["new_only"] or (row["diff"] not in (None, 0)) or
                (row["old_n"] != row["new_n"]))


def _mark(row: dict[str, Any]) -> str:
    """The change column: the direction (and significance) of the tested units; where the runs'
    unit sets differ, which units the direction is of."""
    on = f" on the {row['n_paired']} units in both" if row.get("units_differ") else ""
    if row["direction"] is None:
        return "units differ, none in both" if row.get("units_differ") and row["diff"] is not None else ""
    if row["direction"] == "same":
        return f"same{on}" if on and changed(row) else ""
    word = row["direction"]
    return f"{word}{on} (p<{row.get('alpha', 0.05)})" if row["significant"] else f"{word}{on}"


def console_tables(result: dict[str, Any], *, show_all: bool = False) -> list[Any]:
    """Rich tables: the metric diff per model × condition × trigger, then the rule firings.

    Args:
        result: The comparison (:func:`evalkit.rules.evaluate.compare_runs`).
        show_all: Also show per-trigger rows where nothing changed (the all-trigger rows
            are always shown).

    Returns:
        ``rich.table.Table`` objects, in print order.
    """
    from rich.table import Table

    old, new = result["old"]["label"], result["new"]["label"]
    table = Table(title=f"stopping rules {new} (NEW) vs {old} (OLD), gate on: NEW − OLD per trigger "
                        "(exact McNemar p on the units in both runs)", title_justify="left")
    for col in ("model · condition", "trigger", "metric", "OLD", "NEW", "NEW − OLD", "OLD/NEW only", "p", "change"):
        table.add_column(col, justify="left" if col in ("model · condition", "trigger", "metric", "change")
                         else "right", no_wrap=True)
    hidden = 0
    for r in result["rows"]:
        if r["trigger"] != "all" and not show_all and not changed(r):
            hidden += 1
            continue
        mark = _mark({**r, "alpha": result.get("alpha", 0.05)})
        style = ("bold red" if r["significant"] else "red") if r["direction"] == "worse" else (
            ("bold green" if r["significant"] else "green") if r["direction"] == "better" else None)
        table.add_row(f"{r['model']} · {r['condition']}", r["trigger"], LABELS.get(r["metric"], r["metric"]),
                      _rate(r["old"], r["old_k"], r["old_n"]), _rate(r["new"], r["new_k"], r["new_n"]),
                      fmt.fmt_signed(r["diff"]), f"{r['old_only']}/{r['new_only']}", fmt.fmt_p(r["p_value"]),
                      mark, style=style)
    if hidden:
        table.caption = f"{hidden} per-trigger rows without any change not shown (--all shows them)"
    tables = [table]
    if result.get("firings"):
        fire = Table(title="episodes each rule stopped a call in, by side (act side: a should-act episode)",
                     title_justify="left")
        for col in ("rule", "status", "OLD act", "OLD abstain", "NEW act", "NEW abstain"):
            fire.add_column(col, justify="left" if col in ("rule", "status") else "right", no_wrap=True)
        for f in result["firings"]:
            fire.add_row(f["rule_id"], f["status"], str(f["old_act"]), str(f["old_abstain"]), str(f["new_act"]),
                         str(f["new_abstain"]), style="red" if f["new_act"] > f["old_act"] else None)
        tables.append(fire)
    return tables


def page_context(result: dict[str, Any]) -> dict[str, Any]:
    """What ``rules-eval.html.j2`` needs: the result plus its rows grouped for display.

    Per model · condition: ``headline`` (metric → its all-trigger row), ``main`` (the
    all-trigger rows and every per-trigger row with a change), ``same`` (per-trigger rows
    without any change, shown folded) and ``any_change``.
    """
    groups: dict[str, dict[str, Any]] = {}
    for r in result["rows"]:
        g = groups.setdefault(f"{r['model']} · {r['condition']}", {"main": [], "same": [], "headline": {},
                                                                   "any_change": False})
        if r["trigger"] == "all":
            g["headline"][r["metric"]] = r
        if r["trigger"] == "all" or changed(r):
            g["main"].append(r)
        else:
            g["same"].append(r)
        g["any_change"] = g["any_change"] or changed(r)
    counts: dict[str, int] = defaultdict(int)
    for c in result.get("changed", []):
        counts[c["change"]] += 1
    return {
        "r": result,
        "groups": dict(groups),
        "labels": LABELS,
        "change_counts": dict(counts),
        "changed": result.get("changed", [])[:CHANGE_LIMIT],
        "change_limit": CHANGE_LIMIT,
        "css": _static("report.css"),
    }


def _static(name: str) -> Any:
    return static(name)


def render_rules_eval(result: dict[str, Any], path: str | Path) -> Path:
    """Write the comparison as a self-contained HTML page.

    Args:
        result: The comparison (:func:`evalkit.rules.evaluate.compare_runs`).
        path: The page to write (``OUT/rules-eval.html``).

    Returns:
        ``path``.
    """
    env = _env()
    env.filters["changed"] = changed
    html = env.get_template("rules-eval.html.j2").render(**page_context(result))
    out = Path(path)
    write_output(out, html)
    return out
