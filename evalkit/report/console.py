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


def verdict_lines(summary: dict[str, Any], kinds: tuple[str, ...] | None = None) -> list[str]:
    """:func:`verdict` of every comparison of ``summary.json`` (of the given ``kinds`` --
    ``condition``, ``model``, ``gate`` -- when given), each prefixed by what is held fixed
    (``scripted/oracle · gate off: meta vs nl: …``) and followed, when the summary has it, by the
    same test of timely paired accuracy (``; timely: -1.000 [-1.000, -1.000], McNemar p < 0.001``)."""
    multi = any(r.get("epochs", 1) > 1 for r in summary.get("rows", []))
    unit = "pair units" if multi else "pairs"
    timely = {_ident(c): c for c in summary.get("timely_comparisons", [])}
    out = []
    for c in summary.get("comparisons", []):
        if kinds is not None and c["kind"] not in kinds:
            continue
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


#: Columns of the main table left out, first to last, when it does not fit the terminal (after
#: the k/n counts): registered plugin metrics, then these. The group (model, condition, gate),
#: timely paired and paired accuracy and err/miss are always shown.
DROP_ORDER = ("unjudged_rate", "unsupported_assumption_rate", "recovery_rate", "pass_k", "timely_rate",
              "post_hoc_rate", "paired_accuracy_ci", "meta_recall", "meta_precision", "act_accuracy",
              "abstain_accuracy")


def _main_table(summary: dict[str, Any], *, counts: bool = True, drop: frozenset[str] = frozenset(),
                fold_names: bool = False) -> Any:
    """The main table: every column but those named in ``drop`` (metric names, ``pass_k``,
    ``paired_accuracy_ci``), each rate with its k/n when ``counts``. Numbers never wrap; the
    model and condition names fold only when ``fold_names`` (the narrowest table left)."""
    from rich.table import Table
    from rich.text import Text

    rows = ranked_rows(summary)
    multi_epoch = any(r.get("epochs", 1) > 1 for r in rows)
    title = ("evalkit summary, ranked by timely paired accuracy (rates" + (" with k/n" if counts else "")
             + "; n/a = empty group)")
    main = Table(title=title, title_justify="left")

    def header(label: str) -> Any:  # a narrow table stacks a header's words instead of widening its column
        return label if counts else Text(label.replace(" ", "\n"))

    for col in ("model", "condition", "gate"):
        main.add_column(col, no_wrap=not fold_names, overflow="fold")
    columns = [c for c in main_columns(rows) if c[0] not in drop]
    for _, label, _ in columns:
        main.add_column(header(label), justify="right", no_wrap=True)
    show_ci = "paired_accuracy_ci" not in drop
    show_pass_k = multi_epoch and "pass_k" not in drop
    if show_ci:
        main.add_column(header("95% CI (paired)"), justify="right", no_wrap=True)
    if show_pass_k:
        main.add_column("pass^k", justify="right", no_wrap=True)
    main.add_column("err/miss", justify="right", no_wrap=True)

    def rate(r: dict[str, Any], name: str, kind: str) -> str:
        text = fmt_metric(r, name, kind)
        return text if counts or kind != "rate" else text.split(" (", 1)[0]

    for r in rows:
        cells = [str(r["model"]), str(r["condition"]), str(r["gate"])]
        cells += [rate(r, name, kind) for name, _, kind in columns]
        if show_ci:
            cells.append(fmt_ci(r.get("paired_accuracy_ci")))
        if show_pass_k:
            cells.append(rate(r, "pass_k", "rate"))
        cells.append(f"{r['errors']}/{r['missing']}")
        main.add_row(*cells)
    return main


def _droppable(summary: dict[str, Any]) -> list[tuple[str, str]]:
    """``(key, label)`` of the main table's columns in the order they are left out."""
    from evalkit.metrics.registry import table_metrics

    rows = summary.get("rows", [])
    present = {name: label for name, label, _ in main_columns(rows)}
    plugin = [m.name for m in table_metrics() if not m.builtin and m.name in present]
    labels = dict(present, pass_k="pass^k", paired_accuracy_ci="95% CI")
    multi_epoch = any(r.get("epochs", 1) > 1 for r in rows)
    keys = list(reversed(plugin)) + [k for k in DROP_ORDER if k in present or k == "paired_accuracy_ci"
                                     or (k == "pass_k" and multi_epoch)]
    return [(k, labels[k]) for k in keys]


def _natural_width(table: Any) -> int:
    """The width of ``table`` with every cell on one line (rich's measurement, unbounded)."""
    from rich.console import Console
    from rich.measure import Measurement

    console = Console(width=100_000)
    return Measurement.get(console, console.options, table).maximum


def fit_summary_table(summary: dict[str, Any], width: int | None) -> tuple[Any, list[str]]:
    """The main table at most ``width`` columns wide, one line per row, and what it leaves out.

    The full table (every column, each rate with its k/n) when it fits or ``width`` is
    ``None``; else the rates without k/n and with stacked headers, leaving out columns in
    :data:`DROP_ORDER` (plugin metrics first) until the table's natural width (rich's
    measurement) fits. Numbers never wrap; if even the narrowest table is too wide, only the
    model and condition names fold.

    Args:
        summary: The dict written to ``summary.json``.
        width: Columns available (the terminal's width), or ``None`` for the full table.

    Returns:
        ``(rich.table.Table, left_out)``: ``left_out`` names what is not shown (``"k/n
        counts"`` and column labels), empty for the full table.
    """
    full = _main_table(summary)
    if width is None:
        return full, []
    natural = _natural_width
    if natural(full) <= width:
        return full, []
    drop: list[tuple[str, str]] = []
    candidates = _droppable(summary)
    while True:
        table = _main_table(summary, counts=False, drop=frozenset(k for k, _ in drop))
        if natural(table) <= width or len(drop) == len(candidates):
            break
        drop.append(candidates[len(drop)])
    if natural(table) > width:
        table = _main_table(summary, counts=False, drop=frozenset(k for k, _ in drop), fold_names=True)
    return table, ["k/n counts"] + [label for _, label in drop]


def summary_tables(summary: dict[str, Any]) -> list[Any]:
    """The full main table (results by model × condition × gate, every column, each rate with
    its k/n) as a one-element list of ``rich.table.Table``; the paired comparisons are printed
    as :func:`verdict_lines`."""
    return [_main_table(summary)]


def pair_split(summary: dict[str, Any]) -> dict[str, int] | None:
    """How the planned pairs split (``summary.json`` ``planned_pairs``): ``total``, ``paired``
    (a should-act side and a should-abstain or act_resist side: the pairs of paired accuracy)
    and ``control`` (act only: no part in paired accuracy), as counted by
    :mod:`evalkit.metrics.aggregate` (a pair whose planned variants are only ``act`` is a
    control pair). ``None`` when the summary has no ``planned_pairs`` (written before the field).
    """
    planned = summary.get("planned_pairs")
    if not isinstance(planned, list):
        return None
    variants = [set(p[1]) for p in planned if isinstance(p, list) and len(p) == 2 and isinstance(p[1], list)]
    control = sum(v == {"act"} for v in variants)
    return {"total": len(variants), "paired": len(variants) - control, "control": control}


def pair_split_line(summary: dict[str, Any]) -> str | None:
    """:func:`pair_split` as one line: ``"354 pairs: 302 paired (should-act + should-abstain),
    52 control (act only, not in paired accuracy)"``; ``None`` without ``planned_pairs``."""
    split = pair_split(summary)
    if split is None:
        return None
    return (f"{split['total']:,} pairs: {split['paired']:,} paired (should-act + should-abstain), "
            f"{split['control']:,} control (act only, not in paired accuracy)")


def ranked_rows(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """The summary rows in leaderboard order (:func:`evalkit.report.view.leaderboard`)."""
    return leaderboard(summary.get("rows", []))


LEGEND = ("columns: timely paired / paired acc = pairs right on every side (timely: each abstention within max_lag "
          "task-tool calls of the trigger); act, abstain = accuracy per side; recovery = follow-up sides that acted "
          "right after the user's answer; post-hoc = committed, then refused; meta P/R = meta-request precision / "
          "recall; unsupp. = commit arguments grounded in nothing the model saw (over commit arguments); unjudged = "
          "final texts the classifier could not read; err/miss = errored / never-recorded episodes. README: Metrics.")
"""One line under the main summary table naming what its abbreviated columns measure."""


def print_summary(summary: dict[str, Any], *, wide: bool = False) -> None:
    """Print the main table (:func:`fit_summary_table`), what it leaves out, how the pairs split
    (:func:`pair_split_line`), the column legend, then each paired comparison once
    (:func:`verdict_lines`).

    On a terminal the table fits its width; not on a terminal (a CI log) and without
    ``COLUMNS`` in the environment, or with ``wide``, the full table is printed one line per
    row at its natural width (greppable).

    Args:
        summary: The dict written to ``summary.json``.
        wide: Print every column and k/n whatever the terminal's width.
    """
    import os

    from rich.console import Console

    console = Console()
    full = wide or (not console.is_terminal and not os.environ.get("COLUMNS", "").isdigit())
    table, left_out = fit_summary_table(summary, None if full else console.width)
    if full:
        console = Console(width=max(_natural_width(table), 80))
    console.print(table)
    if left_out:
        console.print(f"not shown at {console.width} columns: {', '.join(left_out)} "
                      "(`--wide` or a wider terminal shows them; summary.json and report.html have every column)",
                      markup=False, highlight=False)
    split = pair_split_line(summary)
    if split:
        console.print(split, markup=False, highlight=False)
    console.print(LEGEND, markup=False, highlight=False, soft_wrap=True)
    lines = verdict_lines(summary)
    if lines:
        console.print("comparisons, B vs A: paired accuracy B − A [bootstrap 95% CI], exact McNemar p, pairs "
                      "compared; timely: the same for timely paired accuracy",
                      markup=False, highlight=False)
        for line in lines:
            console.print(line, markup=False, highlight=False, soft_wrap=True)


def _tokens(value: int | None, bound: bool) -> str:
    return "n/a" if value is None else f"{'≥ ' if bound else ''}{value:,}"


def provider_lines(summary: dict[str, Any]) -> list[str]:
    """One line per live model (a model that made provider calls): calls, cache hits,
    retries, output faults, then tokens and money over its groups. Unknown usage is shown as
    such, never as 0: ``n/a`` when no episode's usage is known, ``≥`` before a total that
    leaves out episodes whose usage was not reported, with their count; the money of calls
    replayed from the call cache is shown apart. Tokens billed on failed attempts follow when
    there are any or their usage is unknown (``≥`` when some episodes' are unknown, ``n/a``
    when none is known), then the calls answered by another model than the one requested and
    the responses whose ``model`` field was not a string (``model_invalid``: which model
    answered them is unknown) and those whose text holds U+FFFD (``undecodable_text``: bytes that
    were not valid UTF-8, kept as received).

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
                         "model_invalid", "undecodable_text", "retry_usage_unknown"):
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
        if t["model_invalid"]:
            line += (f"; {t['model_invalid']} responses whose model field was not a string "
                     f"(the answering model unknown, not checked against the one requested)")
        if t["undecodable_text"]:
            line += f"; {t['undecodable_text']} responses with undecodable text (U+FFFD; kept as received)"
        if t["unknown_content_blocks"]:
            line += f"; {t['unknown_content_blocks']} response content blocks of an unknown type (kept in the traces)"
        lines.append(line)
    return lines
