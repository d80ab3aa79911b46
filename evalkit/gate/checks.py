"""Evaluating the gate's checks: one :class:`CheckResult` per check and selected group.

Statuses (the verdict rule in :mod:`evalkit.gate.verdict` turns them into an exit code):

* ``pass`` — the number meets its threshold, or the baseline comparison shows no drop larger
  than the tolerance that is also significant;
* ``fail`` — a threshold is violated, or the drop is larger than the tolerance **and** the
  exact McNemar p-value is below ``alpha`` (a regression);
* ``skip`` — the metric does not apply to the group: its plan holds none of the units the
  metric is taken over, so ``n = 0`` by construction (the control pairs, trigger ``none``,
  have no pair units for ``paired_accuracy``; :func:`evalkit.gate.catalogue.not_applicable`).
  A skipped group neither passes nor fails; a check that applies to **no** selected group
  is an ``error`` for each of them instead (a check that checks nothing is never a pass);
* ``error`` — the check cannot be decided: the group or metric is missing, its ``n`` is 0 or
  its value ``null`` although the group has planned units for it (their episodes have no
  result, or the behaviour the rate is conditioned on never happened; field case C21: an
  empty group is missing data, never a pass), a regression check on a group with planned
  episodes that have no result (in the run or the baseline), a behaviour rate over recorded episodes
  (``post_hoc_rate``, ``incorrect_tool_use_rate``, …) of a group where fewer than half the
  recorded episodes finished ok (:func:`evalkit.gate.catalogue.too_few_ok`), a token or money
  total that is only a lower bound (some episode's usage unknown:
  :func:`evalkit.gate.catalogue.lower_bound`) checked against a ceiling the bound does not already
  exceed, or a floor it does not meet, the run and the
  baseline differ in the compared pairs, or ``summary.json`` disagrees with the per-episode
  results.

Threshold values are read from ``summary.json`` as they are; regression checks compare the
per-unit outcomes of both runs (:class:`evalkit.gate.rundir.RunDir`, one byte per unit:
:mod:`evalkit.gate.units`), matched by pair id, variant, model (through
``regression.models``), condition, gate and epoch, with the counts of
:func:`evalkit.metrics.compare.compare_units` (:func:`evalkit.gate.units.compare_counts_of`)
and its statistics (:func:`evalkit.metrics.compare.compare_counts`: difference, seeded
paired-bootstrap 95% interval, exact McNemar p-value).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, replace
from typing import Any, Literal

from evalkit.gate.catalogue import (GROUP_KEYS, MetricKind, lower_bound, metric_kinds, n_field, not_applicable,
                                    too_few_ok, why_empty)
from evalkit.gate.config import RegressionCheck, Threshold
from evalkit.gate.rundir import Group, RunDir
from evalkit.gate.units import EMPTY, Units, compare_counts_of, only_in
from evalkit.metrics.compare import compare_counts
from evalkit.metrics.stats import DEFAULT_BOOTSTRAP_SAMPLES, DEFAULT_SEED
from evalkit.formatting import fmt, fmt_ci, fmt_p, fmt_rate, fmt_signed

Status = Literal["pass", "skip", "fail", "error"]

__all__ = ["CheckResult", "Status", "evaluate_regression", "evaluate_threshold", "group_label", "value_text"]


@dataclass(frozen=True, slots=True)
class CheckResult:
    """The outcome of one check on one group.

    Attributes:
        kind: ``threshold`` or ``regression``.
        name: The check's label (the config's ``name``, else metric and bound).
        field: The config entry it comes from (``thresholds.0``, ``regression.checks.1``).
        metric: The metric checked.
        group: Group key → value (``model``, ``condition``, ``gate`` [, the ``by`` attribute]);
            empty when no group could be selected.
        status: ``pass``, ``skip`` (not applicable to the group), ``fail`` or ``error``.
        message: One line saying why.
        value: The run's value (``summary.json``), or ``None``.
        k: Its numerator (rates), or ``None``.
        n: Its denominator (rates) or the count it is taken over, or ``None``.
        limit: The bound (``>= 0.75``) or, for a regression, the baseline's value as text.
        comparison: For a regression: :func:`~evalkit.metrics.compare.compare_units`'s
            fields (baseline = A, run = B) plus ``baseline_model``, ``baseline_value``,
            ``baseline_k``, ``baseline_n``, ``drop``, ``tolerance`` and ``alpha``.
    """

    kind: Literal["threshold", "regression"]
    name: str
    field: str
    metric: str
    group: dict[str, str]
    status: Status
    message: str
    value: float | None = None
    k: int | None = None
    n: int | None = None
    limit: str = ""
    comparison: dict[str, Any] = dataclasses.field(default_factory=dict)

    @property
    def title(self) -> str:
        """``name [group]``: the test-case name in the JUnit file."""
        label = group_label(self.group)
        return f"{self.name} [{label}]" if label else self.name


def group_label(group: dict[str, Any]) -> str:
    """``scripted/oracle · meta · off`` (``· trigger=missing_param`` for a breakdown row)."""
    parts = [str(group[k]) for k in GROUP_KEYS if k in group]
    parts += [f"{k}={v}" for k, v in group.items() if k not in GROUP_KEYS]
    return " · ".join(parts)


def value_text(result: CheckResult) -> str:
    """The run's value as the CLI table and the report show it: ``0.625 (5/8)`` for a rate,
    ``1.250 (n=8)`` for a mean, ``3`` for a count, ``n/a`` without data."""
    if result.value is None:
        return "n/a" if result.n is None else f"n/a (n={result.n})"
    if result.k is not None:
        return fmt_rate({result.metric: result.value, f"{result.metric}_k": result.k,
                         f"{result.metric}_n": result.n}, result.metric)
    if isinstance(result.value, int):
        return str(result.value)
    return fmt(result.value) + (f" (n={result.n})" if result.n is not None else "")


def _select(rows: list[dict[str, Any]], where: dict[str, tuple[str, ...]]) -> tuple[list[dict[str, Any]], list[str]]:
    """Rows matching ``where`` and the ``key=value`` conditions no row matched."""
    chosen = [r for r in rows if all(str(r.get(k)) in values for k, values in where.items())]
    unmatched = [f"{k}={v}" for k, values in where.items() for v in values
                 if not any(str(r.get(k)) == v for r in chosen)]
    return chosen, unmatched


def _group(row: dict[str, Any], by: str | None) -> dict[str, str]:
    keys = GROUP_KEYS + ((by,) if by else ())
    return {k: str(row.get(k)) for k in keys}


def _available(rows: list[dict[str, Any]], key: str) -> str:
    values = list(dict.fromkeys(str(r.get(key)) for r in rows))
    return ", ".join(values[:12]) + (", …" if len(values) > 12 else "") if values else "none"


def _selection_errors(base: dict[str, Any], rows: list[dict[str, Any]], chosen: list[dict[str, Any]],
                      unmatched: list[str], source: str) -> list[CheckResult]:
    """One ``error`` result per ``key=value`` that selected no row, or one when nothing was
    selected at all: an empty selection is missing data, never a pass."""
    out = []
    keys = list(dict.fromkeys(cond.split("=", 1)[0] for cond in unmatched))
    if not chosen and len(keys) > 1:  # nothing matches the conditions together: one error, not one per key
        there = list(dict.fromkeys(", ".join(f"{k}={r.get(k)}" for k in keys) for r in rows))
        shown = "; ".join(there[:8]) + ("; …" if len(there) > 8 else "") if there else "none"
        out.append(CheckResult(**base, group={k: "|".join(c.split("=", 1)[1] for c in unmatched
                                                       if c.startswith(f"{k}=")) for k in keys},
                               status="error", message=f"missing data: no group matches {', '.join(unmatched)} in "
                                                       f"{source} (there: {shown})"))
        return out
    for cond in unmatched:
        key, value = cond.split("=", 1)
        out.append(CheckResult(**base, group={key: value}, status="error",
                               message=f"missing data: no group with {cond} in {source} "
                                       f"(there: {_available(rows, key)})"))
    if not chosen and not unmatched:
        out.append(CheckResult(**base, group={}, status="error", message=f"missing data: {source} are empty"))
    return out


def evaluate_threshold(check: Threshold, index: int, run: RunDir) -> list[CheckResult]:
    """Apply one threshold to every row it selects in ``run``'s ``summary.json``.

    Args:
        check: The threshold.
        index: Its position in ``thresholds`` (names the config field).
        run: The run.

    Returns:
        One result per selected row (every one an ``error`` when the metric applies to none
        of them), plus one ``error`` result per ``where`` value that selects nothing (or one
        when the run has no rows at all for the check).
    """
    name = check.name or f"{check.metric} {check.bound_text()}"
    base: dict[str, Any] = dict(kind="threshold", name=name, field=f"thresholds.{index}", metric=check.metric,
                limit=check.bound_text())
    if check.by is None:
        rows = run.summary.get("rows", [])
        source = "summary.json rows"
    else:
        rows = run.summary.get("breakdowns", {}).get(check.by)
        source = f"summary.json breakdowns.{check.by}"
        if not isinstance(rows, list):
            return [CheckResult(**base, group={}, status="error",
                                message=f"missing data: {run.path}/summary.json has no `{check.by}` breakdown")]
    chosen, unmatched = _select(rows, check.where)
    out = _selection_errors(base, rows, chosen, unmatched, source)
    kind = metric_kinds(core=check.by is not None)[check.metric]
    rows_out = [_threshold_one(check, kind, row, base) for row in chosen]
    return out + _none_applies(rows_out, source)


def _none_applies(results: list[CheckResult], source: str) -> list[CheckResult]:
    """``results`` as they are, unless every selected group was skipped as not applicable:
    then the check would check nothing, which is never a pass, and each of those groups is an
    ``error`` instead of a ``skip`` (one row per group, never both)."""
    if not results or any(r.status != "skip" for r in results):
        return results
    return [replace(r, status="error",
                    message=f"missing data: {r.metric} applies to none of the {len(results)} selected group(s) of "
                            f"{source} ({r.message.removeprefix('not applicable: ')}); a check that checks nothing "
                            "is never a pass") for r in results]


def _threshold_one(check: Threshold, kind: MetricKind, row: dict[str, Any], base: dict[str, Any]) -> CheckResult:
    group = _group(row, check.by)
    if check.metric not in row:
        return CheckResult(**base, group=group, status="error",
                           message=f"missing data: {check.metric} is not in this summary row")
    value = row[check.metric]
    n = row.get(n_field(check.metric, kind))
    k = row.get(f"{check.metric}_k") if kind == "rate" else None
    if kind == "count":
        n = None
    if value is None or (kind != "count" and not n):
        why = not_applicable(check.metric, row) if not n else None
        if why is not None:
            return CheckResult(**base, group=group, status="skip", value=None, n=n,
                               message=f"not applicable: {why}, so {check.metric} has n = 0 by construction")
        return CheckResult(**base, group=group, status="error", value=None, n=n,
                           message=f"missing data: {check.metric} has no value (n = {n or 0})"
                                   f"{why_empty(check.metric, row)}; an empty group is never a pass")
    result = CheckResult(**base, group=group, status="pass", value=value, k=k, n=n, message="")
    shown = value_text(result)
    errored = too_few_ok(check.metric, row)
    if errored is not None:
        return replace(result, status="error", message=f"missing data: {shown}, but {errored}; never a pass")
    bound = lower_bound(check.metric, row)
    if bound is not None:  # the true value is >= value: decided only when every such value gives one answer
        if check.max is not None and value > check.max:
            return replace(result, status="fail", message=f"{shown} ({bound}) is above the ceiling {check.max:g}")
        if check.max is None and check.equals is None and check.holds(value):
            return replace(result, message=f"meets {check.bound_text()} ({bound})")
        return replace(result, status="error", message=f"missing data: {shown} is {bound}, so "
                                                       f"{check.bound_text()} cannot be decided; never a pass")
    if check.holds(value):
        return replace(result, message=f"meets {check.bound_text()}")
    if check.equals is not None:
        why = f"{shown} is not {check.equals:g}"
    elif check.min is not None and value < check.min:
        why = f"{shown} is below the floor {check.min:g} by {fmt(check.min - value)}"
    else:
        why = f"{shown} is above the ceiling {check.max:g} by {fmt(value - check.max)}"
    return replace(result, status="fail", message=why)


def evaluate_regression(
    check: RegressionCheck,
    index: int,
    run: RunDir,
    baseline: RunDir,
    models: dict[str, str],
) -> list[CheckResult]:
    """Compare one accuracy of every selected group of ``run`` with the baseline's group.

    Args:
        check: The regression check.
        index: Its position in ``regression.checks``.
        run: The run under test (B).
        baseline: The baseline run (A).
        models: Run model → baseline model (``regression.models``).

    Returns:
        One result per selected run row (and one ``error`` per ``where`` value that selects
        nothing).
    """
    name = check.name or f"{check.metric} drop vs baseline (tolerance {check.tolerance:g})"
    base = dict(kind="regression", name=name, field=f"regression.checks.{index}", metric=check.metric)
    rows = run.summary.get("rows", [])
    chosen, unmatched = _select(rows, check.where)
    out = _selection_errors(base, rows, chosen, unmatched, "summary.json rows")
    settings = run.summary.get("settings", {})
    samples = int(settings.get("bootstrap_samples") or DEFAULT_BOOTSTRAP_SAMPLES)
    seed = int(settings.get("bootstrap_seed") or DEFAULT_SEED)
    rows_out = [_regression_one(check, row, run, baseline, models, base, samples, seed) for row in chosen]
    return out + _none_applies(rows_out, "summary.json rows")


def _consistent(run: RunDir, row: dict[str, Any], units: Units, metric: str, what: str) -> str | None:
    k, n = units.k, len(units)
    if (row.get(f"{metric}_k"), row.get(f"{metric}_n")) != (k, n):
        return (f"{what}: summary.json gives {metric} {row.get(f'{metric}_k')}/{row.get(f'{metric}_n')} but its "
                f"per-episode results give {k}/{n} ({run.path}; edited or from different runs?)")
    return None


def _pair_differences(run: RunDir, baseline: RunDir, pairs: set[str]) -> list[str]:
    changed = []
    for pid in sorted(pairs):
        a, b = baseline.fingerprints.get(pid), run.fingerprints.get(pid)
        if a is None or b is None:
            continue
        if (a["sha256"] and b["sha256"] and a["sha256"] != b["sha256"]) or a["attrs"] != b["attrs"] \
                or a["expected"] != b["expected"]:
            changed.append(pid)
    return changed


def _sample(items: list[Any], limit: int = 3) -> str:
    shown = ", ".join("/".join(map(str, i)) if isinstance(i, tuple) else str(i) for i in items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def _models_hint(model: str, base_model: str, baseline: RunDir, models: dict[str, str]) -> str:
    """When the baseline has no group of ``base_model`` at all: its models, and how
    ``regression.models`` maps the run's model to one of them (``""`` otherwise)."""
    known = sorted({str(r.get("model")) for r in baseline.summary.get("rows", []) if isinstance(r, dict)})
    if base_model in known or not known:
        return ""
    mapped = f" (regression.models maps it to {base_model})" if model in models else ""
    example = json.dumps({model: known[0]}, ensure_ascii=False)
    return (f"; the baseline has no model {base_model}{mapped}, only {', '.join(known)}: to compare {model} with "
            f"one of them, map it under regression.models in the gate config, e.g. `models: {example}`")


def _regression_one(
    check: RegressionCheck,
    row: dict[str, Any],
    run: RunDir,
    baseline: RunDir,
    models: dict[str, str],
    base: dict[str, Any],
    samples: int,
    seed: int,
) -> CheckResult:
    metric = check.metric
    group = _group(row, None)
    bgroup: Group = (models.get(group["model"], group["model"]), group["condition"], group["gate"])
    value, k, n = row.get(metric), row.get(f"{metric}_k"), row.get(f"{metric}_n")
    current = dict(base, group=group, value=value, k=k, n=n)

    def error(message: str) -> CheckResult:
        return CheckResult(**current, status="error", message=message)

    brow = baseline.summary_row(bgroup)
    if brow is None:
        return error(f"missing data: the baseline {baseline.path} has no group {' · '.join(bgroup)}"
                     + _models_hint(group["model"], bgroup[0], baseline, models))
    limit = fmt_rate(brow, metric) if f"{metric}_n" in brow else "n/a"
    current["limit"] = f"baseline {limit}"
    if metric not in row or metric not in brow:
        return error(f"missing data: {metric} is not in {'the run' if metric not in row else 'the baseline'}'s summary")
    run_units = run.outcomes(metric).get((group["model"], group["condition"], group["gate"]), EMPTY)
    base_units = baseline.outcomes(metric).get(bgroup, EMPTY)
    for units, r, rd, what in ((run_units, row, run, "run"), (base_units, brow, baseline, "baseline")):
        problem = _consistent(rd, r, units, metric, what)
        if problem:
            return error(problem)
    if not run_units and not base_units:
        why = not_applicable(metric, row)
        if why is not None and not_applicable(metric, brow) is not None:
            return CheckResult(**current, status="skip",
                               message=f"not applicable: {why}, in the run as in the baseline, so {metric} has n = 0 "
                                       "by construction")
    if not run_units or not base_units:
        return error(f"missing data: {metric} has n = 0 in the {'run' if not run_units else 'baseline'}; "
                     "an empty group is never a pass")
    for r, rd, what in ((row, run, "run"), (brow, baseline, "baseline")):
        if r.get("missing"):
            return error(f"missing data: {r['missing']} of the {what}'s {r.get('n_episodes')} planned episodes of "
                         f"this group have no result (an interrupted run: `evalkit run --resume {rd.path}`); a "
                         "regression check compares complete groups only")
    only_base = only_in(base_units, run_units)
    only_run = only_in(run_units, base_units)
    if only_base or only_run:
        return error("the run and the baseline differ in the compared pairs: "
                     + "; ".join(part for part in (
                         f"only in the baseline: {_sample(only_base)}" if only_base else "",
                         f"only in the run: {_sample(only_run)}" if only_run else "") if part)
                     + " (run the same suite selection, epochs and conditions)")
    changed = _pair_differences(run, baseline, run_units.pair_ids())
    if changed:
        return error(f"the run and the baseline differ in the compared pairs: {_sample(changed)} changed "
                     "(pair content hash or attributes differ)")
    cmp = compare_counts(*compare_counts_of(base_units, run_units), samples=samples, seed=seed)
    drop = -cmp["diff"]
    comparison = dict(cmp, baseline_model=bgroup[0], baseline_value=brow.get(metric),
                      baseline_k=brow.get(f"{metric}_k"), baseline_n=brow.get(f"{metric}_n"), drop=drop,
                      tolerance=check.tolerance, alpha=check.alpha)
    p, ci = fmt_p(cmp["p_value"]), fmt_ci(cmp["ci"])
    diff = f"B − A {fmt_signed(cmp['diff'])} {ci} on {cmp['n']} units, McNemar p {p}"
    if drop <= check.tolerance:
        what = "no drop" if drop <= 0 else f"drop {fmt(drop)} within the tolerance {check.tolerance:g}"
        return CheckResult(**current, status="pass", comparison=comparison, message=f"{what} ({diff})")
    if cmp["p_value"] is None or cmp["p_value"] >= check.alpha:
        return CheckResult(**current, status="pass", comparison=comparison,
                           message=f"drop {fmt(drop)} exceeds the tolerance {check.tolerance:g} but is not "
                                   f"significant at alpha {check.alpha:g} ({diff})")
    return CheckResult(**current, status="fail", comparison=comparison,
                       message=f"regression: drop {fmt(drop)} exceeds the tolerance {check.tolerance:g} and is "
                               f"significant at alpha {check.alpha:g} ({diff})")

