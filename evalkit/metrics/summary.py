"""The run summary written to ``summary.json``: the one source of every reported number.

The CLI table, the HTML report and the CI gate all read these rows, so they show the same
numbers (field case C20). JSON is written with NaN rejected (field case C21).
"""

from __future__ import annotations

from typing import Any, Iterable

import evalkit
from evalkit.metrics.aggregate import BREAKDOWNS, GROUP_KEYS, Key, row_key, summarize
from evalkit.metrics.compare import comparisons
from evalkit.metrics.stats import DEFAULT_BOOTSTRAP_SAMPLES, DEFAULT_SEED


def build_summary(
    plan: Iterable[Key],
    rows: Iterable[dict[str, Any]],
    *,
    pairs: dict[str, dict[str, Any]] | None = None,
    max_lag: int = 1,
    bootstrap_samples: int = DEFAULT_BOOTSTRAP_SAMPLES,
    seed: int = DEFAULT_SEED,
) -> dict[str, Any]:
    """Everything ``summary.json`` holds.

    Args:
        plan: Planned episode keys in run order.
        rows: Result rows (the last row of a key counts; rows outside the plan are ignored).
        pairs: Pair attributes by id (:func:`evalkit.metrics.aggregate.pair_attributes`).
        max_lag: The run's timely threshold (recorded for readers).
        bootstrap_samples: Bootstrap samples per comparison.
        seed: Bootstrap seed.

    Returns:
        ``{"evalkit_version", "n_episodes_planned", "n_episodes_completed", "n_errors",
        "n_missing", "settings", "rows", "breakdowns", "comparisons"}``: ``rows`` has one
        row per model × condition × gate (:func:`~evalkit.metrics.aggregate.summarize`),
        ``breakdowns`` maps each of trigger, phase, domain, split and language to rows per
        model × condition × gate × that attribute (core metrics only), ``comparisons``
        holds the paired tests (:func:`~evalkit.metrics.compare.comparisons`).
    """
    plan = list(plan)
    planned = set(plan)
    latest = {}
    for r in rows:
        latest[row_key(r)] = r
    index = {k: r for k, r in latest.items() if k in planned}
    kept = list(index.values())
    return {
        "evalkit_version": evalkit.__version__,
        "n_episodes_planned": len(plan),
        "n_episodes_completed": len(kept),
        "n_errors": sum(1 for r in kept if r["status"] != "ok"),
        "n_missing": len(plan) - len(kept),
        "settings": {"max_lag": max_lag, "confidence": 0.95, "interval": "wilson",
                     "bootstrap_samples": bootstrap_samples, "bootstrap_seed": seed,
                     "test": "exact McNemar (two-sided)"},
        "rows": summarize(plan, index, pairs=pairs),
        "breakdowns": {
            name: summarize(plan, index, pairs=pairs, by=(*GROUP_KEYS, name), core=True) for name in BREAKDOWNS
        },
        "comparisons": comparisons(plan, kept, samples=bootstrap_samples, seed=seed),
    }
