"""Printing a :class:`~evalkit.suite.checks.CheckReport` (``evalkit suite validate``)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from evalkit.suite.checks import CHECKS
from evalkit.scenarios.schema import PerturbationKind
from evalkit.types import TRIGGERS

MAX_WARNINGS_LISTED = 20
"""Warnings printed one by one before the rest are only counted (all are in ``--json``)."""


def print_report(console: Any, report: Any, *, all_warnings: bool = False) -> None:
    """Print the perturbation-kind census, the per-check pass counts and the issues.

    Args:
        console: A :class:`rich.console.Console`.
        report: The :class:`~evalkit.suite.checks.CheckReport`.
        all_warnings: List every warning (default: the first :data:`MAX_WARNINGS_LISTED`).
    """
    from rich.markup import escape
    from rich.table import Table

    kinds = PerturbationKind.__args__  # type: ignore[attr-defined]
    table = Table(title="perturbation kinds: found between the sides (by trigger) and declared in perturbation.kinds")
    table.add_column("trigger")
    for kind in kinds:
        table.add_column(kind, justify="right")
    order = {t: i for i, t in enumerate(TRIGGERS)}
    for trigger in sorted(report.kinds_by_trigger, key=lambda t: order.get(t, 99)):
        table.add_row(trigger, *[str(report.kinds_by_trigger[trigger][k]) for k in kinds])
    table.add_row("all (found)", *[str(report.inferred_kinds[k]) for k in kinds])
    table.add_row("all (declared)", *[str(report.declared_kinds[k]) for k in kinds])
    console.print(table)
    table = Table(title="label checks (criteria: docs/labels.md)")
    for col in ("check", "criteria", "applicable", "passed", "errors", "warnings"):
        table.add_column(col, justify="left" if col in ("check", "criteria") else "right")
    for name, c in report.counts.items():
        table.add_row(name, ", ".join(CHECKS[name].criteria), str(c["applicable"]), str(c["passed"]),
                      str(c["errors"]), str(c["warnings"]))
    console.print(table)
    errors = report.errors
    warnings = [i for i in report.issues if i.severity == "warning"]
    for issue in errors:
        console.print(f"error: {escape(str(issue))}", soft_wrap=True, highlight=False)
    shown = warnings if all_warnings else warnings[:MAX_WARNINGS_LISTED]
    for issue in shown:
        console.print(f"warning: {escape(str(issue))}", soft_wrap=True, highlight=False)
    if len(shown) < len(warnings):
        by_field = Counter(i.field for i in warnings[len(shown):])
        rest = ", ".join(f"{field} {n}" for field, n in by_field.most_common())
        console.print(f"... and {len(warnings) - len(shown)} more warnings ({rest}); --all-warnings or --json FILE "
                      "lists them", highlight=False)
