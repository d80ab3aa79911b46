"""The self-contained HTML report of a run directory.

:func:`render_report` reads ``summary.json`` (every number shown), ``config.json``, the
result rows (``results.parquet``, else ``results.jsonl``) and the traces of the episodes it
embeds, and writes ``report.html``: one file with its CSS, script, charts and data inlined.
Inputs are checked first (:mod:`evalkit.report.inputs`): a malformed file is one
:class:`~evalkit.errors.RunError` line naming it.

Safety (field case C23): the page is rendered by jinja2 with autoescaping on and no
``|safe`` on model or tool content, so text such as ``<script>`` or an ``onerror``
attribute is shown literally. The trace data is embedded as JSON inside
``<script type="application/json">`` by jinja2's ``tojson`` filter, which writes ``<``,
``>``, ``&`` and ``'`` as ``\\u003c``-style escapes so ``</script>`` cannot close the tag;
the viewer script puts every string into the page with ``textContent``, never as HTML.

Size: long fields are cut with a visible marker, galleries, embedded traces and the
per-pair grid are capped (:data:`evalkit.report.view.LIMITS`), so a report stays a few
megabytes whatever the run's size (``benchmarks/report_size.py`` measures it). Memory: the
result rows are held as columns (:mod:`evalkit.report.rows`), a few bytes per row; the rows
shown are read back whole.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evalkit.errors import RunError
from evalkit.harness.atomic import write_output
from evalkit.report import console as fmt, inputs, view
from evalkit.report.charts import failure_chart, paired_accuracy_chart, phase_chart
from evalkit.report.traces import condense, executed_commits, load_trace, truncate

_TEMPLATES = Path(__file__).resolve().parent / "templates"
ROW_COLUMNS = (
    "episode_id", "pair_id", "variant", "model", "condition", "gate", "epoch", "trigger", "phase", "domain", "split",
    "status", "error", "correct", "decision", "stated", "text_label", "expected_decision", "post_hoc", "lag",
    "timely", "critical_commits", "reason_codes", "unsupported_args_n", "unsupported_args", "final_text",
    "failure_kind", "commits", "injected_commits", "content_filter", "call_in_content", "parse_failures",
    "decided_by", "source_run", "source_episode", "act_then_refused", "classifier_label", "text_judge", "judge_votes",
    "judge_tie", "judge_disagrees", "asked", "recovered",
)


def _env():
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(_TEMPLATES)),
        autoescape=jinja2.select_autoescape(["html", "j2"], default_for_string=True, default=True),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.policies["json.dumps_kwargs"] = {"sort_keys": False, "ensure_ascii": False, "separators": (",", ":")}
    env.filters["num"] = fmt.fmt
    env.filters["signed"] = fmt.fmt_signed
    env.filters["pval"] = fmt.fmt_p
    env.filters["ci"] = fmt.fmt_ci
    env.filters["pct"] = lambda v: "n/a" if v is None else f"{100 * v:.1f}%"
    env.filters["colour"] = view.colour
    env.filters["money"] = lambda v: "n/a" if v is None else f"${v:,.4f}"
    env.filters["count"] = lambda v: "n/a" if v is None else f"{v:,.1f}" if isinstance(v, float) else f"{v:,}"
    return env


def _static(name: str) -> Any:
    from markupsafe import Markup

    # evalkit's own stylesheet and script, not model content
    return Markup((_TEMPLATES / name).read_text(encoding="utf-8"))


def trace_file(root: Path, row: dict[str, Any]) -> Path | None:
    """The trace file of a result row: ``root/traces/EPISODE_ID.jsonl``, or for a row of an
    ``evalkit compare`` output, its ``source_episode``'s in its ``source_run``."""
    source = row.get("source_run")
    if isinstance(source, str) and source:
        return inputs.trace_path(Path(source), row.get("source_episode"))
    return inputs.trace_path(root, row.get("episode_id"))


def report_context(root: Path) -> dict[str, Any]:
    """Everything the template needs (numbers from ``summary.json``, examples from the rows).

    Raises:
        RunError: when an input is missing, unreadable or malformed (:mod:`evalkit.report.inputs`).
    """
    summary = inputs.load_summary(root)
    config = inputs.load_manifest(root)
    rows = inputs.load_rows(root, ROW_COLUMNS)  # columnar: full rows are read only for the ones shown
    srows = summary.get("rows", [])
    columns = [(r["model"], r["condition"], r["gate"]) for r in srows]
    gates = len({r["gate"] for r in srows}) > 1
    max_lag = summary.get("settings", {}).get("max_lag", 1)
    sections = view.gallery(rows, max_lag=max_lag, gates=gates)
    chosen = view.trace_choice(rows, sections)
    traces = {}
    for r in chosen:
        path = trace_file(root, r)
        traces[r["episode_id"]] = condense(load_trace(path) if path is not None else [], r)
    for section in sections:
        for card in section["cards"]:
            trace = traces.get(card["row"]["episode_id"], {})
            card["user"] = truncate((trace.get("user") or [""])[0], 240)
            card["commits"] = executed_commits(trace) if card["row"].get("commits") else []
    grid = view.pair_grid(rows, columns, set(traces))
    lags = view.lag_columns(srows, max_lag)
    return {
        "summary": summary,
        "settings": summary.get("settings", {}),
        "config": config,
        "run": config.get("config", {}),
        "rows": srows,
        "provider": [p for p in summary.get("provider", []) if p.get("model_calls")],  # live models only
        "leaderboard": view.leaderboard(srows),
        "metric_columns": view.metric_columns(srows),
        "gates": gates,
        "gate_levels": list(dict.fromkeys(r["gate"] for r in srows)),
        "gate_side_by_side": view.gate_side_by_side(srows),
        "multi_epoch": any(r.get("epochs", 1) > 1 for r in srows),
        "columns": columns,
        "models": list(dict.fromkeys(r["model"] for r in srows)),
        "heatmap": view.heatmap(summary, columns),
        "breakdowns": summary.get("breakdowns", {}),
        "comparisons": view.comparison_groups(summary),
        "verdicts": fmt.verdict_lines(summary, kinds=("condition",)),  # the model and gate tests are in their tables
        "compare": summary.get("compare"),
        "chart": paired_accuracy_chart(srows) if srows else None,
        "phase_chart": phase_chart(summary.get("breakdowns", {}).get("phase", [])),
        "failure_chart": failure_chart(srows),
        "lags": lags,
        "pair_split": fmt.pair_split_line(summary),
        "gallery": sections,
        "traces": traces,
        "trace_index": [{"id": t["id"], "label": f"{t['head']['pair_id']} · {t['head']['variant']} · "
                                                  f"{t['head']['model']} · {t['head']['condition']}"
                                                  + (f" · gate {t['head']['gate']}" if gates else "")
                                                  + (f" · e{t['head']['epoch']}" if t['head']['epoch'] != 1 else ""),
                         "ok": bool(t["head"]["correct"]), "err": t["head"]["status"] == "error"}
                        for t in traces.values()],
        "n_rows": rows.n,
        "grid": grid,
        "limits": view.LIMITS,
        "run_dir": str(root),
        "css": _static("report.css"),
        "js": _static("report.js"),
    }


def render_report(run_dir: str | Path) -> Path:
    """Render ``run_dir/report.html``.

    Args:
        run_dir: A run directory written by :func:`evalkit.pipeline.run`.

    Returns:
        Path of the report.

    Raises:
        RunError: when the directory is missing, or an input is missing, unreadable or
            malformed: one line naming the file (a summary.json whose contents cannot be drawn
            is named as such).
    """
    import jinja2

    root = Path(run_dir)
    if not root.is_dir():
        raise RunError(f"{root}: no such run directory")
    try:
        html = _env().get_template("report.html.j2").render(**report_context(root))
    except (jinja2.TemplateError, LookupError, TypeError, ValueError, AttributeError, ArithmeticError) as exc:
        # the inputs passed their shape checks, so the summary's contents are off (--debug shows where)
        reason = " ".join(str(exc).split())[:200]
        raise RunError(f"{root / 'summary.json'}: cannot draw the report from it ({type(exc).__name__}: {reason}); "
                       "was it written by this evalkit version?") from exc
    out = root / "report.html"
    write_output(out, html)
    return out
