"""How evalkit shows a number, everywhere: the CLI summary (:mod:`evalkit.report.console`), the
HTML report (:mod:`evalkit.report.html`), the rules comparison page and the gate's table
(:mod:`evalkit.gate.checks`).

A rate or mean has three decimals and an empty group (``n = 0``) is ``n/a``; a rate is shown
with its ``k/n``; a difference is signed; a p-value has three decimals (``<0.001`` below).
"""

from __future__ import annotations

from typing import Any


def fmt(value: float | None) -> str:
    """A rate or mean with three decimals, ``n/a`` for ``None``."""
    return "n/a" if value is None else f"{value:.3f}"


def fmt_signed(value: float | None) -> str:
    """A difference with its sign, ``n/a`` for ``None``."""
    return "n/a" if value is None else f"{value:+.3f}"


def fmt_p(value: float | None) -> str:
    """A p-value with three decimals (``<0.001`` below that)."""
    if value is None:
        return "n/a"
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def fmt_ci(ci: list[float | None] | None) -> str:
    """``[low, high]`` with three decimals, ``n/a`` when undefined."""
    if not ci or ci[0] is None:
        return "n/a"
    return f"[{ci[0]:.3f}, {ci[1]:.3f}]"


def fmt_rate(row: dict[str, Any], name: str) -> str:
    """``0.625 (5/8)``, or ``n/a (n=0)`` for an empty group."""
    n = row.get(f"{name}_n", 0)
    if not n:
        return "n/a (n=0)"
    return f"{fmt(row[name])} ({row[f'{name}_k']}/{n})"
