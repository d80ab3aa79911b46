"""The gate's Markdown summary, written for a CI job summary (e.g. ``$GITHUB_STEP_SUMMARY``).

A heading with the verdict and exit code, one line with the inputs and counts, the config's
warnings (bounds that can never fail), a table of the
checks that failed or had no data (errors first), then the passed checks and the groups a
check does not apply to, each in a folded ``<details>`` table. Every cell from data (model names,
pair ids, messages) is HTML-escaped (:func:`html.escape`) and its ``|`` and line breaks are
neutralised, so a name cannot break the table or inject markup.
"""

from __future__ import annotations

import html
from pathlib import Path

from evalkit.gate.checks import CheckResult, group_label, value_text
from evalkit.gate.verdict import GateReport
from evalkit.harness.atomic import write_output

__all__ = ["markdown_summary", "write_markdown"]

_HEADER = ("| status | kind | check | group | value | limit / baseline | detail |",
           "| --- | --- | --- | --- | ---: | ---: | --- |")
MARK = {"pass": "✅ pass", "skip": "➖ n/a", "fail": "❌ fail", "error": "⚠️ error"}
HEADLINE = {"pass": "✅ PASS", "fail": "❌ FAIL", "error": "⚠️ ERROR (missing or inconsistent data)"}


def cell(text: str) -> str:
    """``text`` made safe for one Markdown table cell."""
    return html.escape(" ".join(str(text).split()), quote=False).replace("|", "\\|")


def _row(r: CheckResult) -> str:
    cells = [MARK[r.status], r.kind, r.name, group_label(r.group) or "—", value_text(r), r.limit or "—", r.message]
    return "| " + " | ".join(cell(c) for c in cells) + " |"


def markdown_summary(report: GateReport) -> str:
    """The Markdown text of a gate report."""
    counts = report.counts()
    inputs = f"run {cell(report.run)}"
    if report.baseline:
        inputs += f" · baseline {cell(report.baseline)}"
    inputs += f" · config {cell(report.config)}"
    lines = [
        f"## evalkit gate: {HEADLINE[report.verdict]} (exit {report.exit_code})",
        "",
        f"{inputs} · {len(report.results)} checks: {counts['pass']} passed, {counts['fail']} failed, "
        f"{counts['error']} without data" + (f", {counts['skip']} not applicable" if counts["skip"] else ""),
        "",
    ]
    if report.warnings:
        lines += ["Config warnings:", "", *(f"- {cell(w)}" for w in report.warnings), ""]
    problems = [r for r in report.ordered() if r.status in ("fail", "error")]
    if problems:
        lines += [*_HEADER, *(_row(r) for r in problems), ""]
    for status, title in (("pass", "passed checks"), ("skip", "not applicable (empty by construction)")):
        rows = [r for r in report.ordered() if r.status == status]
        if rows:  # folded, so the failures stay on the first screen
            lines += [f"<details><summary>{len(rows)} {title}</summary>", "", *_HEADER,
                      *(_row(r) for r in rows), "", "</details>", ""]
    lines += ["Exit codes: 0 pass, 1 a threshold or regression failed, 2 missing or inconsistent data "
              "(an empty group is never a pass).", ""]
    return "\n".join(lines)


def write_markdown(report: GateReport, path: str | Path) -> Path:
    """Write :func:`markdown_summary` to ``path`` atomically; returns the path."""
    p = Path(path)
    write_output(p, markdown_summary(report))
    return p
