"""Charts for the HTML report, rendered with matplotlib (Agg) and inlined as PNG data URIs."""

from __future__ import annotations

import base64
import io
from typing import Any


def _png(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def paired_accuracy_chart(rows: list[dict[str, Any]]) -> str:
    """Grouped bars of paired accuracy: one group per model, one bar per condition.

    Args:
        rows: Summary rows (``model``, ``condition``, ``paired_accuracy``, ``_ci``).

    Returns:
        A ``data:image/png;base64,…`` URI.
    """
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    models = list(dict.fromkeys(r["model"] for r in rows))
    conditions = list(dict.fromkeys(r["condition"] for r in rows))
    width = 0.8 / max(len(conditions), 1)
    fig = Figure(figsize=(max(6.0, 1.2 * len(models) + 2), 3.6))
    ax = fig.add_subplot()
    by = {(r["model"], r["condition"]): r for r in rows}
    for ci, cond in enumerate(conditions):
        xs, ys, lo, hi = [], [], [], []
        for mi, model in enumerate(models):
            r = by.get((model, cond))
            if r is None or r["paired_accuracy"] is None:
                continue
            v = r["paired_accuracy"]
            low, high = r["paired_accuracy_ci"]
            xs.append(mi + (ci - (len(conditions) - 1) / 2) * width)
            ys.append(v)
            lo.append(max(0.0, v - low))
            hi.append(max(0.0, high - v))
        ax.bar(xs, ys, width=width * 0.95, label=cond, yerr=[lo, hi], capsize=2)
    ax.set_xticks(range(len(models)))
    ax.set_xticklabels(models, rotation=20, ha="right", fontsize=8)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("paired accuracy")
    ax.set_title("Paired accuracy by model and condition (95% Wilson interval)", fontsize=9)
    ax.legend(title="condition", fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    return _png(fig)
