"""The gate's table on stdout (rich): one row per check result, then the verdict line.

Values are formatted as in the CLI summary table and the report (:mod:`evalkit.formatting`):
a rate with three decimals and its ``k/n``, ``n/a`` for an empty group; a group the check
does not apply to is listed last, as ``SKIP`` with the reason.
"""

from __future__ import annotations

from typing import Any

from evalkit.gate.checks import group_label, value_text
from evalkit.gate.verdict import GateReport

__all__ = ["gate_table", "print_gate", "verdict_line"]

_STYLE = {"pass": "green", "skip": "dim", "fail": "bold red", "error": "bold yellow"}


def gate_table(report: GateReport) -> Any:
    """A ``rich.table.Table`` of the report's results (errors, failures, passes, then skips)."""
    from rich.console import JustifyMethod
    from rich.table import Table
    from rich.text import Text

    table = Table(title=f"evalkit gate: {report.run}" + (f" vs baseline {report.baseline}" if report.baseline else ""),
                  title_justify="left")
    columns: tuple[tuple[str, JustifyMethod], ...] = (
        ("status", "left"), ("kind", "left"), ("check", "left"), ("group", "left"),
        ("value", "right"), ("limit / baseline", "right"), ("detail", "left"))
    for col, justify in columns:
        table.add_column(col, justify=justify, overflow="fold")
    for r in report.ordered():
        table.add_row(Text(r.status.upper(), style=_STYLE[r.status]), r.kind, Text(r.name), Text(group_label(r.group)),
                      value_text(r), r.limit, Text(r.message))
    return table


def verdict_line(report: GateReport) -> str:
    """``gate FAIL: 2 of 14 checks failed, 0 without data (exit 1)`` (``…, 3 not applicable``
    before the exit code when some groups were skipped)."""
    c = report.counts()
    skipped = f", {c['skip']} not applicable" if c["skip"] else ""
    return (f"gate {report.verdict.upper()}: {c['fail']} of {len(report.results)} checks failed, "
            f"{c['error']} without data{skipped} (exit {report.exit_code})")


def print_gate(report: GateReport) -> None:
    """Print :func:`gate_table` and :func:`verdict_line` to stdout (200 columns when not a terminal)."""
    from rich.console import Console

    console = Console()
    if not console.is_terminal:
        console = Console(width=200)
    console.print(gate_table(report))
    console.print(verdict_line(report), style=_STYLE[report.verdict], markup=False, highlight=False)
