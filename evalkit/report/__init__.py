"""evalkit.report: the self-contained HTML report and the terminal summary tables."""

from __future__ import annotations

__all__ = ["render_report", "print_summary"]


def __getattr__(name: str):  # lazy: jinja2 and matplotlib load only when a report is drawn
    if name == "render_report":
        from evalkit.report.html import render_report

        return render_report
    if name == "print_summary":
        from evalkit.report.console import print_summary

        return print_summary
    raise AttributeError(f"module 'evalkit.report' has no attribute {name!r}")
