"""The summary as terminal tables (rich): the same numbers, formatted the same way, as
``summary.json`` and ``report.html``.

Formatting rules shared with the HTML report (:mod:`evalkit.report.html`) and the gate
(:mod:`evalkit.formatting`): a rate is shown with three decimals and its ``k/n``; an empty
group (``n = 0``) is ``n/a``; a difference is signed; a p-value has three decimals.
"""

from __future__ import annotations

import math
from typing import Any

from evalkit.formatting import fmt, fmt_ci, fmt_p, fmt_rate, fmt_signed  # noqa: F401 - re-exported
from evalkit.report.view import leaderboard

def main_columns(rows: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    """The metric columns of the main summary table: ``(name, label, kind)`` of every
    registered metric with a ``label`` (:func:`evalkit.metrics.registry.table_metrics`), in
    column order; a registered metric that no row holds (a summary written without it) is
    left out.

    Args:
        rows: ``summary.json`` rows.
    """
    from evalkit.metrics.registry import table_metrics

    return [(m.name, m.label or m.name, m.kind) for m in table_metrics()
            if m.builtin or any(m.name in r for r in rows)]


def fmt_metric(row: dict[str, Any], name: str, kind: str) -> str:
    """A rate as :func:`fmt_rate`, a mean with three decimals, a count as a whole number
    (``n/a`` when the row has no value)."""
    if kind == "rate":
        return fmt_rate(row, name)
    value = row.get(name)
    if kind == "count":
        return "n/a" if value is None else f"{value:,}"
    return fmt(value)


def verdict(c: dict[str, Any], *, unit: str = "pairs") -> str:
    """The one-line answer of a paired comparison: ``"meta vs nl: +0.120 [0.050, 0.190],
    McNemar p = 0.001, 262 pairs"``.

    ``B vs A`` and ``B − A`` (the comparison's ``b`` and ``a``: for conditions, the later one
    in run order against the earlier), its seeded paired-bootstrap 95% interval, the exact
    McNemar p-value and the number of pair units compared (:mod:`evalkit.metrics.compare`).

    Args:
        c: One ``summary.json`` comparison.
        unit: What ``n`` counts (``"pairs"``, or ``"pair units"`` with several epochs).
    """
    p = fmt_p(c.get("p_value"))
    p = f"p < {p[1:]}" if p.startswith("<") else f"p = {p}"
    return (f"{c['b']} vs {c['a']}: {fmt_signed(c.get('diff'))} {fmt_ci(c.get('ci'))}, McNemar {p}, "
            f"{c.get('n', 0)} {unit}")


def verdict_lines(summary: dict[str, Any]) -> list[str]:
    """:func:`verdict` of every comparison of ``summary.json``, each prefixed by what is held
    fixed (``scripted/oracle · gate off: meta vs nl: …``) and followed, when the summary has
    it, by the same test of timely paired accuracy (``; timely: -1.000 [-1.000, -1.000],
    McNemar p < 0.001``)."""
    multi = any(r.get("epochs", 1) > 1 for r in summary.get("rows", []))
    unit = "pair units" if multi else "pairs"
    timely = {_ident(c): c for c in summary.get("timely_comparisons", [])}
    out = []
    for c in summary.get("comparisons", []):
        if c["kind"] == "condition":
            fixed = f"{c['model']} · gate {c['gate']}"
        elif c["kind"] == "model":
            fixed = f"condition {c['condition']} · gate {c['gate']}"
        else:
            fixed = f"{c['model']} · {c['condition']}"
        line = f"{fixed}: {verdict(c, unit=unit)}"
        t = timely.get(_ident(c))
        if t is not None:
            p = fmt_p(t.get("p_value"))
            line += f"; timely: {fmt_signed(t.get('diff'))} {fmt_ci(t.get('ci'))}, McNemar " + \
                (f"p < {p[1:]}" if p.startswith("<") else f"p = {p}")
        out.append(line)
    return out


def _ident(c: dict[str, Any]) -> tuple:
    return (c.get("kind"), c.get("model"), c.get("condition"), c.get("gate"), c.get("a"), c.get("b"))


def summary_tables(summary: dict[str, Any], *, compact: bool = False) -> list[Any]:
    """Rich tables for a summary: results by model × condition × gate, then the condition
    (and gate) comparisons of paired accuracy.

    Args:
        summary: The dict written to ``summary.json``.
        compact: Put each rate's k/n under its value (``1.000`` over ``(27/27)``) so the table
            fits about 160 columns; otherwise one line per row.

    Returns:
        ``rich.table.Table`` objects, in print order.
    """
    from rich.table import Table

    rows = ranked_rows(summary)
    multi_epoch = any(r.get("epochs", 1) > 1 for r in rows)
    main = Table(title="evalkit summary, ranked by timely paired accuracy (rates with k/n; n/a = empty group)",
                 title_justify="left")
    # a narrow terminal wraps a cell (at its space: "1.000" over "(262/262)"), never cuts it
    for col in ("model", "condition", "gate"):
        main.add_column(col, overflow="fold")
    columns = main_columns(rows)
    for _, label, _ in columns:
        main.add_column(label, justify="right", overflow="fold")
    main.add_column("95% CI (paired)", justify="right", overflow="fold")
    if multi_epoch:
        main.add_column("pass^k", justify="right", overflow="fold")
    main.add_column("err/miss", justify="right", overflow="fold")
    for r in rows:
        cells = [str(r["model"]), str(r["condition"]), str(r["gate"])]
        cells += [fmt_metric(r, name, kind) for name, _, kind in columns]
        cells.append(fmt_ci(r.get("paired_accuracy_ci")))
        if multi_epoch:
            cells.append(fmt_rate(r, "pass_k"))
        if compact:
            cells = cells[:3] + [c.replace(" (", "\n(", 1).replace(", ", ",\n", 1) for c in cells[3:]]
        cells.append(f"{r['errors']}/{r['missing']}")
        main.add_row(*cells)
    tables = [main]
    comps = [c for c in summary.get("comparisons", []) if c["kind"] in ("condition", "gate")]
    if comps:
        comp = Table(title="paired accuracy, B − A on the same pairs (bootstrap 95% CI, exact McNemar p)",
                     title_justify="left")
        for col in ("model", "fixed", "B vs A", "A", "B", "B − A", "95% CI", "p"):
            comp.add_column(col, justify="left" if col in ("model", "fixed", "B vs A") else "right", overflow="fold")
        for c in comps:
            fixed = f"gate {c['gate']}" if c["kind"] == "condition" else f"condition {c['condition']}"
            comp.add_row(str(c["model"]), fixed, f"{c['b']} vs {c['a']}",  # as the verdict lines say it
                         f"{fmt(c['a_rate'])} ({c['a_k']}/{c['n']})", f"{fmt(c['b_rate'])} ({c['b_k']}/{c['n']})",
                         fmt_signed(c["diff"]), fmt_ci(c["ci"]), fmt_p(c["p_value"]))
        tables.append(comp)
    return tables


def ranked_rows(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """The summary rows in leaderboard order (:func:`evalkit.report.view.leaderboard`)."""
    return leaderboard(summary.get("rows", []))


LEGEND = ("columns: timely paired / paired acc = pairs right on every side (timely: each abstention within max_lag "
          "task-tool calls of the trigger); act, abstain = accuracy per side; recovery = follow-up sides that acted "
          "right after the user's answer; post-hoc = committed, then refused; meta P/R = meta-request precision / "
          "recall; unsupp. = commit arguments grounded in nothing the model saw (over commit arguments); unjudged = "
          "final texts the classifier could not read; err/miss = errored / never-recorded episodes. README: Metrics.")
"""One line under the main summary table naming what its abbreviated columns measure."""


def print_summary(summary: dict[str, Any]) -> None:
    """Print :func:`summary_tables` to stdout: at the terminal's width (cells wrap, never cut),
    or 320 columns wide when not a terminal (a CI log: one line per row, greppable)."""
    from rich.console import Console

    console = Console()
    if not console.is_terminal:
        console = Console(width=320)
    tables = summary_tables(summary, compact=console.width < 220)
    for i, table in enumerate(tables):
        console.print(table)
        if i == 0:
            console.print(LEGEND, markup=False, highlight=False, soft_wrap=True)
    lines = verdict_lines(summary)
    if lines:
        console.print("B vs A: paired accuracy B − A [bootstrap 95% CI], exact McNemar p, pairs compared; "
                      "timely: the same for timely paired accuracy",
                      markup=False, highlight=False)
        for line in lines:
            console.print(line, markup=False, highlight=False)


def _tokens(value: int | None, bound: bool) -> str:
    return "n/a" if value is None else f"{'≥ ' if bound else ''}{value:,}"


def provider_lines(summary: dict[str, Any]) -> list[str]:
    """One line per live model (a model that made provider calls): calls, cache hits,
    retries, output faults, then tokens and money over its groups. Unknown usage is shown as
    such, never as 0: ``n/a`` when no episode's usage is known, ``≥`` before a total that
    leaves out episodes whose usage was not reported, with their count; the money of calls
    replayed from the call cache is shown apart. Tokens billed on failed attempts follow when
    there are any or their usage is unknown (``≥`` when some episodes' are unknown, ``n/a``
    when none is known), then the calls answered by another model than the one requested.

    Args:
        summary: The dict written to ``summary.json`` (``provider`` and ``rows``).
    """
    totals: dict[str, dict[str, int]] = {}
    answers: dict[str, dict[str, int]] = {}
    for row in summary.get("provider", []):
        if row["model_calls"]:
            t = totals.setdefault(row["model"], {})
            for name in ("model_calls", "cache_hits", "retries", "parse_failures", "content_filter", "refusal",
                         "truncated_calls", "usage_missing", "unknown_content_blocks", "model_mismatch",
                         "retry_usage_unknown"):
                t[name] = t.get(name, 0) + int(row.get(name) or 0)
            for name in ("retry_input_tokens", "retry_output_tokens"):
                if row.get(name) is not None:
                    t[name] = t.get(name, 0) + int(row[name])
            answered = answers.setdefault(row["model"], {})
            for name, n in (row.get("answered_models") or {}).items():
                answered[name] = answered.get(name, 0) + int(n)
    lines = []
    for model, t in totals.items():
        groups = [r for r in summary.get("rows", []) if r.get("model") == model]
        episodes = sum(int(r.get("completed") or 0) for r in groups)
        unknown = sum(int(r.get("usage_unknown") or 0) for r in groups)
        known = [r for r in groups if r.get("input_tokens") is not None]
        tin = sum(r["input_tokens"] for r in known) if known else None
        tout = sum(r.get("output_tokens") or 0 for r in known) if known else None
        costs = [r.get("cost_usd") for r in known]  # a group with no known usage has no money to add
        money = None if not known or any(c is None for c in costs) else math.fsum(costs)
        replayed = math.fsum(r.get("replayed_cost_usd") or 0.0 for r in known)
        bound = bool(unknown) and bool(known)
        line = (f"{model}: {t['model_calls']} model calls, {t['cache_hits']} cache hits, {t['retries']} retries, "
                f"{t['parse_failures']} parse failures, {t['content_filter']} content-filter stops "
                f"({t['refusal']} refusals), {t['truncated_calls']} truncated tool calls; "
                f"tokens {_tokens(tin, bound)} in / {_tokens(tout, bound)} out, "
                f"money {'n/a' if money is None else ('≥ ' if bound else '') + f'${money:,.6f}'}")
        if money is not None and replayed:
            line += f" (${replayed:,.6f} of it replayed from the cache, not spent by this run)"
        if unknown:
            line += f" (usage not reported in {unknown} of {episodes} episodes)"
        if t.get("retry_input_tokens") or t.get("retry_output_tokens") or t["retry_usage_unknown"]:
            retry_bound = bool(t["retry_usage_unknown"]) and "retry_input_tokens" in t
            line += (f"; on failed attempts tokens {_tokens(t.get('retry_input_tokens'), retry_bound)} in / "
                     f"{_tokens(t.get('retry_output_tokens'), retry_bound)} out")
            if t["retry_usage_unknown"]:
                line += f" (usage not readable in {t['retry_usage_unknown']} episodes)"
        if t["model_mismatch"]:
            names = ", ".join(f"{name}: {n} episodes" for name, n in sorted(answers.get(model, {}).items()))
            line += (f"; {t['model_mismatch']} calls answered by another model than the one requested ({names}), "
                     f"billed at the answering model's price where known")
        if t["unknown_content_blocks"]:
            line += f"; {t['unknown_content_blocks']} response content blocks of an unknown type (kept in the traces)"
        lines.append(line)
    return lines
