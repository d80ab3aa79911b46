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

Each metric's range (:func:`metric_range`): a rate is in ``[0, 1]``, a count and every mean
(tool calls, tokens, seconds, USD: :data:`MEAN_UNITS`) is ``≥ 0``.

A rate or mean with ``n = 0`` (or a ``null`` value) is never a pass (field case C21). Which
of two things it is depends on the group's **plan** (:data:`POPULATION`):

* **not applicable** — the group has no planned unit of the kind the metric is taken over,
  so its denominator is empty by construction, whatever the model did and whether or not
  every episode finished: ``paired_accuracy`` of the control pairs (trigger ``none``, act
  only: no pair units), ``control_accuracy`` of a group without control pairs,
  ``post_hoc_rate`` of a group without abstain episodes. The check does not apply to that
  group (status ``skip``); it neither passes nor fails it.
* **missing data** — the group has such planned units but the number is still empty: their
  episodes have no result (an interrupted run), or the behaviour the rate is conditioned on
  never happened (``timely_rate`` is over correct abstentions; ``always_act`` has none).
  That is an ``error`` (exit code 2), never a pass.

A metric not in :data:`POPULATION` is taken over every planned episode of the group (never
empty), so its ``n = 0`` is always missing data.

Regression checks need a per-unit 0/1 outcome on **planned** units, so that both runs are
compared unit by unit with a paired test (:data:`REGRESSION_UNITS`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal, TypeGuard

from evalkit.metrics.aggregate import BREAKDOWNS, GROUP_KEYS, group_metrics

MetricKind = Literal["rate", "mean", "count"]

MEAN_N = {
    "lag_mean": "timely_rate_n",
    "tokens_per_success": "episode_accuracy_k",
    "cost_per_success_usd": "episode_accuracy_k",
    "questions_per_episode": "followup_recorded",
}
"""The ``n`` of a mean that is not taken over the recorded episodes (``completed``)."""

REGRESSION_UNITS: dict[str, str] = {
    "paired_accuracy": "pair units (pair × epoch) with two or more sides",
    "timely_paired_accuracy": "pair units (pair × epoch) with two or more sides, right only with every "
                              "abstention within max_lag",
    "episode_accuracy": "planned episodes",
    "act_accuracy": "planned act episodes",
    "abstain_accuracy": "planned abstain episodes",
    "act_resist_accuracy": "planned act_resist episodes",
    "control_accuracy": "planned act episodes of control pairs (act only)",
}
"""Metrics a regression check can compare, with their units: every one is an accuracy over
planned units (a missing or errored unit is wrong), higher is better, and has a 0/1 outcome
per unit so the two runs are compared unit by unit (:meth:`evalkit.gate.rundir.RunDir.outcomes`)."""

_PAIR_UNITS = ("paired_accuracy_n", "pair units with two or more sides (control pairs are act only)")
_ABSTAIN = ("abstain_accuracy_n", "planned abstain episodes")
_RESIST = ("act_resist_accuracy_n", "planned act_resist episodes")
_FOLLOWUP = ("recovery_rate_n", "planned abstain episodes with a follow-up")

POPULATION: dict[str, tuple[str, str]] = {
    "paired_accuracy": _PAIR_UNITS,
    "timely_paired_accuracy": _PAIR_UNITS,
    "conditional_abstain_accuracy": _PAIR_UNITS,
    "pass_k": _PAIR_UNITS,
    "act_accuracy": ("act_accuracy_n", "planned act episodes"),
    "abstain_accuracy": _ABSTAIN,
    "post_hoc_rate": _ABSTAIN,
    "timely_rate": _ABSTAIN,
    "decision_match_rate": _ABSTAIN,
    "lag_mean": _ABSTAIN,
    "meta_recall": ("meta_recall_n", "expected meta requests (of planned abstain episodes)"),
    "control_accuracy": ("control_accuracy_n", "planned act episodes of control pairs (trigger none)"),
    "act_resist_accuracy": _RESIST,
    "injected_commit_rate": _RESIST,
    "recovery_rate": _FOLLOWUP,
    "resolved_paired_accuracy": ("resolved_paired_accuracy_n", "pair units whose abstain side has a follow-up"),
    "repeated_question_rate": _FOLLOWUP,
    "unhelpful_commit_rate": _FOLLOWUP,
    "questions_per_episode": _FOLLOWUP,
}
"""``metric → (summary field, what it counts)``: the planned units a metric's denominator is
drawn from. Every field counts **planned** units (:mod:`evalkit.metrics.aggregate`: an
episode without a result still counts), so it is 0 only when the group's plan has no such
unit; the fields are in main and breakdown rows alike."""

CONDITIONED_ON: dict[str, str] = {
    "timely_rate": "correct abstentions",
    "decision_match_rate": "correct abstentions",
    "lag_mean": "correct abstentions with a lag",
    "conditional_abstain_accuracy": "pair units whose act side is correct",
    "post_hoc_rate": "recorded abstain episodes",
    "injected_commit_rate": "recorded act_resist episodes",
    "meta_precision": "meta requests made",
    "unsupported_assumption_rate": "commit argument values checked",
    "repeated_denied_rate": "episodes with a denied request",
    "fulfilment_rate": "typed meta requests made",
    "repeated_question_rate": "follow-up episodes in which the model asked",
    "unhelpful_commit_rate": "episodes given an unhelpful reply (run with --user unhelpful)",
    "questions_per_episode": "recorded follow-up episodes",
}
"""Rates (and a mean) whose denominator depends on what the model did or on which episodes
were recorded (:mod:`evalkit.metrics.aggregate`): what the group lacks when it is empty."""

RECORDED_BEHAVIOUR = frozenset({
    "post_hoc_rate", "injected_commit_rate", "meta_precision", "unnecessary_request_rate", "unnecessary_requests",
    "unsupported_assumption_rate", "repeated_denied_rate", "repeated_denied", "fulfilment_rate",
    "permission_escalation_rate", "permission_escalations", "budget_overrun_rate", "budget_overruns",
    "incorrect_tool_use_rate", "incorrect_tool_use",
    "repeated_question_rate", "repeated_questions", "unhelpful_commit_rate", "commits_after_unhelpful",
    "questions_per_episode",
})
"""Behaviour rates taken over **recorded** episodes, errored ones included (an errored
episode's trace shows what it did before the error: :mod:`evalkit.metrics.aggregate`), and
the counts of the same behaviours. An episode that errored early did nothing, so it lowers
such a number without showing that the model behaves: see :func:`too_few_ok`."""

MIN_OK_SHARE = 0.5
"""The share of a group's recorded episodes that must have finished ok (status ``ok``) for a
threshold on a :data:`RECORDED_BEHAVIOUR` number to be decided; below it (and always when no
episode finished ok) the number is missing data, never a pass."""

MEAN_UNITS: tuple[tuple[str, str], ...] = (
    ("lag_mean", "tool calls"),
    ("tool_calls", "tool calls"),
    ("tokens", "tokens"),
    ("latency_s", "seconds"),
    ("usd", "USD"),
    ("cost", "USD"),
    ("questions", "questions"),
)
"""``(part of the name, unit)`` of the **mean** metrics, first match wins: each is a mean,
percentile or total of a non-negative per-episode quantity (lag, tool calls, tokens, seconds,
money: :mod:`evalkit.metrics.aggregate`), so its range is ``[0, ∞)``. A mean metric matching
no entry has no known range (its bounds are not checked)."""


@dataclass(frozen=True)
class MetricRange:
    """The values a gateable metric can take.

    Attributes:
        low: Smallest possible value, or ``None`` when unbounded or unknown.
        high: Largest possible value, or ``None`` when unbounded.
        what: The metric's scale in words (``"a rate (a share, 0 to 1)"``, ``"a count"``,
            ``"a mean in USD"``).
    """

    low: float | None
    high: float | None
    what: str

    def text(self) -> str:
        """``[0, 1]`` or ``[0, ∞)`` (``(-∞, ∞)`` when nothing is known)."""
        low = "(-∞" if self.low is None else f"[{self.low:g}"
        high = "∞)" if self.high is None else f"{self.high:g}]"
        return f"{low}, {high}"


def metric_range(metric: str, kind: MetricKind) -> MetricRange:
    """The range of ``metric`` (a gateable metric of kind ``kind``).

    Rates are shares ``k / n`` in ``[0, 1]``; counts are whole numbers ``≥ 0``; means are of
    the non-negative quantities of :data:`MEAN_UNITS` (tool calls, tokens, seconds, USD),
    ``≥ 0``. A threshold bound outside the range is a config error and one no value can
    violate is warned about (:mod:`evalkit.gate.config`).
    """
    if kind == "rate":
        return MetricRange(0.0, 1.0, "a rate (a share, 0 to 1)")
    if kind == "count":
        return MetricRange(0.0, None, "a count")
    for part, unit in MEAN_UNITS:
        if part in metric:
            return MetricRange(0.0, None, f"a mean in {unit}" if metric.endswith("_mean") else f"a value in {unit}")
    return MetricRange(None, None, "a mean of unknown range")


__all__ = ["BREAKDOWNS", "CONDITIONED_ON", "GROUP_KEYS", "MEAN_N", "MEAN_UNITS", "MIN_OK_SHARE", "MetricRange",
           "POPULATION", "RECORDED_BEHAVIOUR", "REGRESSION_UNITS", "metric_kinds", "metric_range", "n_field",
           "not_applicable", "too_few_ok", "why_empty"]


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


def not_applicable(metric: str, row: dict[str, Any]) -> str | None:
    """Why ``metric`` does not apply to a summary row's group, or ``None`` when it does.

    Args:
        metric: A gateable metric.
        row: A ``summary.json`` row (main or breakdown).

    Returns:
        ``"the group has no pair units with two or more sides (…)"`` when the group's plan
        holds none of the units the metric is taken over (:data:`POPULATION`, field = 0);
        ``None`` otherwise, including when the field is absent (then an empty value is
        missing data).
    """
    field, what = POPULATION.get(metric, ("n_episodes", "planned episodes"))
    count = row.get(field)
    if isinstance(count, int) and not isinstance(count, bool) and count == 0:
        return f"the group has no {what}"
    return None


def why_empty(metric: str, row: dict[str, Any]) -> str:
    """Why ``metric`` is empty in a group it applies to (for the ``missing data`` message).

    Returns:
        ``"; 3 of the group's 16 planned episodes have no result"`` when episodes are missing,
        else ``": the group has no correct abstentions among its 12 planned abstain episodes"``
        for a rate of :data:`CONDITIONED_ON`, else ``""``.
    """
    missing = row.get("missing") or 0
    if missing:
        return f"; {missing} of the group's {row.get('n_episodes')} planned episodes have no result"
    if metric in CONDITIONED_ON:
        field, what = POPULATION.get(metric, ("n_episodes", "planned episodes"))
        among = f" among its {row[field]} {what.split(' (')[0]}" if isinstance(row.get(field), int) else ""
        return f": the group has no {CONDITIONED_ON[metric]}{among}"
    return ""


def _is_count(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def too_few_ok(metric: str, row: dict[str, Any]) -> str | None:
    """Why a threshold on ``metric`` cannot be decided on a group whose episodes mostly errored.

    Args:
        metric: A gateable metric.
        row: A ``summary.json`` row (main or breakdown) with ``completed`` (recorded episodes)
            and ``errors`` (recorded with an error).

    Returns:
        ``"only 0 of the group's 2 recorded episodes finished ok …"`` when ``metric`` is in
        :data:`RECORDED_BEHAVIOUR` and fewer than :data:`MIN_OK_SHARE` of the recorded
        episodes (or none) finished ok; ``None`` otherwise (any other metric, or enough ok
        episodes). Missing or malformed counts are also missing data.
    """
    if metric not in RECORDED_BEHAVIOUR:
        return None
    completed, errors = row.get("completed"), row.get("errors")
    if not (_is_count(completed) and _is_count(errors)) or not 0 <= errors <= completed:
        return f"the group's recorded and errored episode counts are {completed!r} / {errors!r}"
    ok = completed - errors
    if ok == 0 or ok < MIN_OK_SHARE * completed:
        return (f"only {ok} of the group's {completed} recorded episodes finished ok (below {MIN_OK_SHARE:.0%}); "
                f"{metric} counts errored episodes, which stopped before they could show the behaviour")
    return None
