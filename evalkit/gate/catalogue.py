"""Which ``summary.json`` numbers the CI gate can check, and how each one's ``n`` is read.

The catalogue is derived from the aggregator itself (:func:`evalkit.metrics.aggregate.group_metrics`
run on an empty group) and from the metric registry (:mod:`evalkit.metrics.registry`: each
metric's kind, range, population and whether it counts errored episodes), so a registered
metric can be gated at once and a name the summary does not hold is rejected when the gate
config is loaded. Three kinds:

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

from evalkit.metrics import registry as _registry
from evalkit.metrics.aggregate import BREAKDOWNS, GROUP_KEYS, group_metrics

MetricKind = Literal["rate", "mean", "count"]

_BUILTIN = _registry.builtin_metrics()

MEAN_N = {m.name: m.mean_n for m in _BUILTIN if m.mean_n}
"""The ``n`` of a mean that is not taken over the recorded episodes (``completed``), as the
metrics declare it (:attr:`evalkit.metrics.registry.Metric.mean_n`)."""

REGRESSION_UNITS: dict[str, str] = {m.name: m.regression_unit for m in _BUILTIN if m.regression_unit}
"""Metrics a regression check can compare, with their units: every one is an accuracy over
planned units (a missing or errored unit is wrong), higher is better, and has a 0/1 outcome
per unit so the two runs are compared unit by unit (:meth:`evalkit.gate.rundir.RunDir.outcomes`)."""

POPULATION: dict[str, tuple[str, str]] = {m.name: m.population for m in _BUILTIN if m.population}
"""``metric → (summary field, what it counts)``: the planned units a metric's denominator is
drawn from. Every field counts **planned** units (:mod:`evalkit.metrics.aggregate`: an
episode without a result still counts), so it is 0 only when the group's plan has no such
unit; the fields are in main and breakdown rows alike. evalkit's own metrics; a registered
metric declares its own (:func:`_declared`)."""

CONDITIONED_ON: dict[str, str] = {m.name: m.conditioned_on for m in _BUILTIN if m.conditioned_on}
"""Rates (and a mean) whose denominator depends on what the model did or on which episodes
were recorded (:mod:`evalkit.metrics.aggregate`): what the group lacks when it is empty."""

RECORDED_BEHAVIOUR = frozenset(m.name for m in _BUILTIN if m.recorded_behaviour)
"""Behaviour rates taken over **recorded** episodes, errored ones included (an errored
episode's trace shows what it did before the error: :mod:`evalkit.metrics.aggregate`), and
the counts of the same behaviours. An episode that errored early did nothing, so it lowers
such a number without showing that the model behaves: see :func:`too_few_ok`."""


def _declared(metric: str) -> Any:
    """The registered :class:`~evalkit.metrics.registry.Metric` named ``metric``, or ``None``."""
    return _registry.get_metric(metric)


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
    declared = _declared(metric)
    if declared is not None and declared.kind == kind:
        return MetricRange(*declared.scale())
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


def metric_kinds(core: bool = False) -> dict[str, MetricKind]:
    """Every gateable metric of a summary row: ``name → kind``.

    Args:
        core: The metrics of a breakdown row (``summary["breakdowns"][by]``) instead of a
            main row (``summary["rows"]``).

    Returns:
        Names in the aggregator's order (registered metrics after evalkit's own); the kind
        is the metric's declared one (:mod:`evalkit.metrics.registry`).
    """
    return dict(_kinds(core, _registry.generation()))


@lru_cache(maxsize=8)
def _kinds(core: bool, generation: int) -> tuple[tuple[str, MetricKind], ...]:
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
        declared = _declared(name)
        if declared is not None:
            kinds[name] = declared.kind
    return tuple(kinds.items())


def n_field(metric: str, kind: MetricKind) -> str:
    """The summary field holding the ``n`` of ``metric`` (see the module docstring)."""
    if kind == "rate":
        return f"{metric}_n"
    if kind == "mean":
        declared = _declared(metric)
        return declared.mean_n if declared is not None and declared.mean_n else MEAN_N.get(metric, "completed")
    return "n_episodes"  # counts: the planned episodes (not shown; a count is never empty)


def _population(metric: str) -> tuple[str, str]:
    declared = _declared(metric)
    if declared is not None and declared.population:
        return declared.population
    return POPULATION.get(metric, ("n_episodes", "planned episodes"))


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
    field, what = _population(metric)
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
    declared = _declared(metric)
    lacks = declared.conditioned_on if declared is not None else CONDITIONED_ON.get(metric)
    if lacks:
        field, what = _population(metric)
        among = f" among its {row[field]} {what.split(' (')[0]}" if isinstance(row.get(field), int) else ""
        return f": the group has no {lacks}{among}"
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
    declared = _declared(metric)
    if not (declared.recorded_behaviour if declared is not None else metric in RECORDED_BEHAVIOUR):
        return None
    completed, errors = row.get("completed"), row.get("errors")
    if not (_is_count(completed) and _is_count(errors)) or not 0 <= errors <= completed:
        return f"the group's recorded and errored episode counts are {completed!r} / {errors!r}"
    ok = completed - errors
    if ok == 0 or ok < MIN_OK_SHARE * completed:
        return (f"only {ok} of the group's {completed} recorded episodes finished ok (below {MIN_OK_SHARE:.0%}); "
                f"{metric} counts errored episodes, which stopped before they could show the behaviour")
    return None


LOWER_BOUND_FLAG: dict[str, str] = {
    **{name: "tokens_lower_bound" for name in ("input_tokens", "output_tokens", "cached_input_tokens",
                                               "cache_write_tokens", "reasoning_tokens", "retry_input_tokens",
                                               "retry_output_tokens")},
    **{name: "cost_lower_bound" for name in ("cost_usd", "retry_cost_usd", "replayed_cost_usd")},
}
"""Token and money totals that are only a lower bound when some recorded episode's usage is
unknown, with the summary flag that says so (:func:`evalkit.metrics.billing.group_cost`)."""


def lower_bound(metric: str, row: dict[str, Any]) -> str | None:
    """Why ``metric``'s value in a summary row is only a lower bound, or ``None`` when it is exact.

    Returns:
        ``"a lower bound: 2 recorded episodes have unknown usage"`` when the row's flag of
        :data:`LOWER_BOUND_FLAG` is set (then a ceiling is decided only when the bound is
        already above it, a floor only when the bound meets it).
    """
    flag = LOWER_BOUND_FLAG.get(metric)
    if flag is None or not row.get(flag):
        return None
    unknown = row.get("usage_unknown")
    return f"a lower bound: {unknown if _is_count(unknown) else 'some'} recorded episode(s) have unknown usage"

