"""Which ``summary.json`` numbers the CI gate can check, and how each one's ``n`` is read.

The catalogue is derived from the aggregator itself (:func:`evalkit.metrics.aggregate.group_metrics`
run on an empty group), so a metric added there can be gated at once and a name the summary
does not hold is rejected when the gate config is loaded. Three kinds:

* **rate** — a metric ``m`` with ``m_k``, ``m_n`` and ``m_ci`` (every rate of the table in
  :mod:`evalkit.metrics.aggregate`); its ``n`` is ``m_n``. Breakdown rows (``by: trigger``
  and so on) hold the aggregator's core set only (``group_metrics(..., core=True)``: the
  counts, :data:`evalkit.metrics.aggregate.CORE_RATES`, ``episode_accuracy``, ``coverage``,
  ``error_rate`` and the other accuracies).
* **mean** — a mean or total that may be ``null``: ``lag_mean``, ``tokens_per_episode``,
  ``latency_s_p95``, ``cost_usd`` (``null`` when an episode has no price), …; its ``n`` is
  the count it is taken over (:data:`MEAN_N`, else the recorded episodes ``completed``).
* **count** — ``errors``, ``missing``, ``incomplete_pairs``, ``permission_escalations``, …;
  always defined for a group (it has planned episodes), so it has no ``n``.

A rate or mean with ``n = 0`` (or a ``null`` value) has no data: the gate reports it as
missing data, never as a pass (field case C21).

Regression checks need a per-unit 0/1 outcome on **planned** units, so that both runs are
compared unit by unit with a paired test (:data:`REGRESSION_UNITS`).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

from evalkit.metrics.aggregate import BREAKDOWNS, GROUP_KEYS, group_metrics

MetricKind = Literal["rate", "mean", "count"]

MEAN_N = {
    "lag_mean": "timely_rate_n",
    "tokens_per_success": "episode_accuracy_k",
    "cost_per_success_usd": "episode_accuracy_k",
}
"""The ``n`` of a mean that is not taken over the recorded episodes (``completed``)."""

REGRESSION_UNITS: dict[str, str] = {
    "paired_accuracy": "pair units (pair × epoch) with two or more sides",
    "episode_accuracy": "planned episodes",
    "act_accuracy": "planned act episodes",
    "abstain_accuracy": "planned abstain episodes",
    "act_resist_accuracy": "planned act_resist episodes",
    "control_accuracy": "planned act episodes of control pairs (act only)",
}
"""Metrics a regression check can compare, with their units: every one is an accuracy over
planned units (a missing or errored unit is wrong), higher is better, and has a 0/1 outcome
per unit so the two runs are compared unit by unit (:func:`evalkit.gate.rundir.unit_outcomes`)."""

__all__ = ["BREAKDOWNS", "GROUP_KEYS", "MEAN_N", "REGRESSION_UNITS", "metric_kinds", "n_field"]


@lru_cache(maxsize=2)
def metric_kinds(core: bool = False) -> dict[str, MetricKind]:
    """Every gateable metric of a summary row: ``name → kind``.

    Args:
        core: The metrics of a breakdown row (``summary["breakdowns"][by]``) instead of a
            main row (``summary["rows"]``).

    Returns:
        Names in the aggregator's order.
    """
    template = group_metrics([], {}, core=core)
    kinds: dict[str, MetricKind] = {}
    for name, value in template.items():
        if name.endswith(("_k", "_n", "_ci")) and name.rsplit("_", 1)[0] in template:
            continue
        if f"{name}_n" in template:
            kinds[name] = "rate"
        elif isinstance(value, int) and not isinstance(value, bool):
            kinds[name] = "count"
        elif value is None:
            kinds[name] = "mean"
    return kinds


def n_field(metric: str, kind: MetricKind) -> str:
    """The summary field holding the ``n`` of ``metric`` (see the module docstring)."""
    if kind == "rate":
        return f"{metric}_n"
    if kind == "mean":
        return MEAN_N.get(metric, "completed")
    return "n_episodes"  # counts: the planned episodes (not shown; a count is never empty)
