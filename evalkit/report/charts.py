"""Charts for the HTML report, drawn with matplotlib (Agg) and inlined as PNG data URIs.

Every chart reads summary rows only, so it shows the numbers of ``summary.json``. Error
bars are the rows' 95% Wilson intervals; an empty group (``n = 0``) draws no bar and is
marked ``n/a``.
"""

from __future__ import annotations

import base64
import io
from typing import Any

from evalkit.metrics.failures import ABSTAIN_SIDE_KINDS, ACT_SIDE_KINDS

PALETTE = ("#3b6fb6", "#e08a2c", "#3f9e6e", "#b5475b", "#7d62b3", "#8a8d93", "#2aa3b8", "#c7a12d")
MAX_MODELS = 12


def _png(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _figure(width: float, height: float) -> Any:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height))
    fig.patch.set_facecolor("white")
    return fig


def _style(ax: Any) -> None:
    ax.set_ylim(0, 1.08)
    ax.grid(axis="y", alpha=0.25)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.tick_params(labelsize=8)


def _series(rows: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return list(dict.fromkeys((r["condition"], r["gate"]) for r in rows))


def _series_label(cond: str, gate: str, gates: bool) -> str:
    return f"{cond} (gate {gate})" if gates else cond


LABEL_MAX_CHARS = 44
"""A row label longer than this is shortened in the middle on a chart (the tables give it whole), so
the labels leave the panels room."""


def _elide(label: str, limit: int = LABEL_MAX_CHARS) -> str:
    """``label`` cut in the middle with an ellipsis to at most ``limit`` characters (its start and
    its end, the condition and gate, kept)."""
    if len(label) <= limit:
        return label
    head = (limit - 1) // 2
    return label[:head] + "…" + label[len(label) - (limit - 1 - head):]


def _bars(ax: Any, rows: list[dict[str, Any]], groups: list[str], key: str, metric: str) -> None:
    """Grouped bars of ``metric``: x = ``groups`` (values of ``key``), one bar per
    (condition, gate) series, with Wilson error bars."""
    series = _series(rows)
    gates = len({g for _, g in series}) > 1
    width = 0.8 / max(len(series), 1)
    by = {(r[key], r["condition"], r["gate"]): r for r in rows}
    for si, (cond, gate) in enumerate(series):
        xs, ys, lo, hi = [], [], [], []
        for gi, group in enumerate(groups):
            r = by.get((group, cond, gate))
            x = gi + (si - (len(series) - 1) / 2) * width
            if r is None or r.get(metric) is None:
                if r is not None:
                    ax.text(x, 0.02, "n/a", ha="center", va="bottom", fontsize=6, color="#777", rotation=90)
                continue
            v = r[metric]
            low, high = r[f"{metric}_ci"]
            xs.append(x)
            ys.append(v)
            lo.append(max(0.0, v - low))
            hi.append(max(0.0, high - v))
        ax.bar(xs, ys, width=width * 0.92, label=_series_label(cond, gate, gates),
               color=PALETTE[si % len(PALETTE)], yerr=[lo, hi], capsize=2, error_kw={"elinewidth": 0.8})
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(groups, rotation=20 if len(groups) > 3 else 0, ha="right" if len(groups) > 3 else "center",
                       fontsize=8)


def paired_accuracy_chart(rows: list[dict[str, Any]]) -> str:
    """Grouped bars of paired accuracy: one group per model, one bar per condition (× gate).

    Args:
        rows: Summary rows (``model``, ``condition``, ``gate``, ``paired_accuracy``, ``_ci``).

    Returns:
        A ``data:image/png;base64,…`` URI.
    """
    models = list(dict.fromkeys(r["model"] for r in rows))[:MAX_MODELS]
    fig = _figure(max(6.5, 1.1 * len(models) + 2.5), 3.4)
    ax = fig.add_subplot()
    _bars(ax, [r for r in rows if r["model"] in models], models, "model", "paired_accuracy")
    _style(ax)
    ax.set_ylabel("paired accuracy", fontsize=9)
    ax.legend(title="condition", fontsize=7, title_fontsize=8, frameon=False, loc="upper left",
              bbox_to_anchor=(1.0, 1.0))
    return _png(fig)


def phase_chart(phase_rows: list[dict[str, Any]]) -> str | None:
    """Small multiples of paired accuracy by phase: one panel per model, bars per condition.

    Args:
        phase_rows: ``breakdowns["phase"]`` rows of the summary.

    Returns:
        A PNG data URI, or ``None`` when there is nothing to draw.
    """
    rows = [r for r in phase_rows if r.get("phase") != "control"]
    if not rows:
        return None
    order = ("pre_execution", "runtime")
    phases = [p for p in order if any(r["phase"] == p for r in rows)]
    phases += sorted({str(r["phase"]) for r in rows} - set(phases))
    models = list(dict.fromkeys(r["model"] for r in rows))[:MAX_MODELS]
    ncols = min(3, len(models))
    nrows = -(-len(models) // ncols)
    fig = _figure(3.3 * ncols + 1.6, 2.5 * nrows)
    for i, model in enumerate(models):
        ax = fig.add_subplot(nrows, ncols, i + 1)
        _bars(ax, [r for r in rows if r["model"] == model], phases, "phase", "paired_accuracy")
        _style(ax)
        ax.set_title(model, fontsize=9)
        if i % ncols == 0:
            ax.set_ylabel("paired accuracy", fontsize=8)
    handles, labels = fig.axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, title="condition", fontsize=7, title_fontsize=8, frameon=False,
               loc="upper left", bbox_to_anchor=(1.0, 0.95))
    fig.tight_layout()
    return _png(fig)


def failure_chart(rows: list[dict[str, Any]]) -> str | None:
    """How each model × condition × gate failed, side by side (AgentAbstain's breakdown).

    Left panel: of the planned should-abstain episodes (``abstain_accuracy_n``), the share
    that acted without refusing (``acted_when_should_not``), committed before refusing
    (``post_hoc``) or did neither (``silent``), stacked. Right panel: of the planned
    should-act episodes (``act_accuracy_n``), the share that refused or asked instead
    (``over_refusal``). Counts come from the rows' ``failure_kinds``
    (:mod:`evalkit.metrics.failures`); a row without them, or with ``n = 0``, is ``n/a``.

    Args:
        rows: Summary rows.

    Returns:
        A PNG data URI, or ``None`` when no row has failure counts.
    """
    rows = [r for r in rows if isinstance(r.get("failure_kinds"), dict)][: MAX_MODELS * 3]
    if not rows:
        return None
    gates = len({r["gate"] for r in rows}) > 1
    labels = [_elide(f"{r['model']} · {r['condition']}" + (f" · {r['gate']}" if gates else "")) for r in rows]
    fig = _figure(10, 0.42 * len(rows) + 1.4)
    left, right = fig.add_subplot(1, 2, 1), fig.add_subplot(1, 2, 2)
    ys = list(range(len(rows)))
    colours = {"acted_when_should_not": PALETTE[3], "post_hoc": PALETTE[1], "silent": PALETTE[5],
               "over_refusal": PALETTE[0]}
    for ax, kinds, denominator, title in (
            (left, ABSTAIN_SIDE_KINDS, "abstain_accuracy_n", "should-abstain side: how it failed"),
            (right, ACT_SIDE_KINDS, "act_accuracy_n", "should-act side: over-refusal")):
        start = [0.0] * len(rows)
        for kind in kinds:
            widths = []
            for i, r in enumerate(rows):
                n = r.get(denominator) or 0
                widths.append(r["failure_kinds"].get(kind, 0) / n if n else 0.0)
            ax.barh(ys, widths, left=start, color=colours[kind], label=kind.replace("_", " "), height=0.7)
            start = [s + w for s, w in zip(start, widths)]
        for i, r in enumerate(rows):
            n = r.get(denominator) or 0
            note = "n/a" if not n else f"{sum(r['failure_kinds'].get(k, 0) for k in kinds)}/{n}"
            ax.text(min(start[i], 1.0) + 0.01, i, note, va="center", fontsize=7, color="#555")
        ax.set_xlim(0, 1.15)
        ax.set_yticks(ys)
        ax.set_yticklabels(labels if ax is left else [], fontsize=8)
        ax.invert_yaxis()
        ax.set_title(title, fontsize=9, pad=22)
        ax.set_xlabel("share of planned episodes", fontsize=8)
        ax.grid(axis="x", alpha=0.25)
        ax.tick_params(labelsize=8)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        ax.legend(fontsize=7, frameon=False, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3)
    fig.tight_layout()
    return _png(fig)
