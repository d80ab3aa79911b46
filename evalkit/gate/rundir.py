"""A run directory as the gate reads it: ``summary.json``, the manifest and the result rows.

The gate's thresholds read ``summary.json`` and nothing else, so they see the very numbers the
CLI table and the HTML report show (field case C20). Regression checks also need each
episode's outcome: :meth:`RunDir.outcomes` rebuilds the run plan (the manifest's models,
conditions, gate settings and epochs × the pairs and variants recorded in the results) so a
missing or errored side still counts as wrong, and the gate checks that the per-group
``k / n`` it derives equals the one in ``summary.json`` before comparing anything.

Definitions of a unit's outcome are those of :mod:`evalkit.metrics.aggregate`: an episode is
right when it is recorded, ok and correct; a pair unit (pair × epoch, two or more sides) when
every side is right (:func:`evalkit.metrics.compare.unit_outcomes`).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from evalkit.errors import RunError
from evalkit.harness.store import RunStore, latest_by_key
from evalkit.metrics.aggregate import Key
from evalkit.metrics.compare import unit_outcomes as pair_unit_outcomes

Group = tuple[str, str, str]  # model, condition, gate
Unit = tuple  # (pair_id, epoch) for pair units, (pair_id, variant, epoch) for episodes

__all__ = ["Group", "RunDir", "Unit", "load_run"]


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number")


def _read_json(path: Path, what: str) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RunError(f"{path}: missing; {what}") from None
    except OSError as exc:
        raise RunError(f"{path}: unreadable ({exc.__class__.__name__})") from None
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except ValueError as exc:
        raise RunError(f"{path}: not valid JSON ({exc})") from None


def _good(row: dict[str, Any] | None) -> int:
    return int(row is not None and row.get("status") == "ok" and bool(row.get("correct")))


@dataclass
class RunDir:
    """One run directory.

    Attributes:
        path: The directory.
        summary: ``summary.json`` (NaN and Infinity rejected).
    """

    path: Path
    summary: dict[str, Any]
    _outcomes: dict[str, dict[Group, dict[Unit, int]]] = field(default_factory=dict, repr=False)

    @cached_property
    def manifest(self) -> dict[str, Any]:
        """``config.json`` (the run manifest).

        Raises:
            RunError: when it is missing or not a manifest.
        """
        data = _read_json(self.path / "config.json", "a baseline comparison needs the run manifest")
        if not isinstance(data, dict) or not isinstance(data.get("config"), dict):
            raise RunError(f"{self.path / 'config.json'}: not a run manifest")
        return data

    @cached_property
    def rows(self) -> dict[tuple, dict[str, Any]]:
        """One result row per episode key, the last written (``results.jsonl``, else
        ``results.parquet``).

        Raises:
            RunError: when the run has neither file.
        """
        if (self.path / "results.jsonl").is_file():
            return RunStore(self.path).latest_results()
        parquet = self.path / "results.parquet"
        if parquet.is_file():
            import pyarrow.parquet as pq

            return latest_by_key(pq.read_table(parquet).to_pylist(), source=str(parquet))
        raise RunError(f"{self.path}: no results.jsonl or results.parquet; a baseline comparison needs the "
                       "per-episode results")

    @cached_property
    def plan(self) -> list[Key]:
        """The run's planned episode keys, rebuilt (see the module docstring).

        Raises:
            RunError: when the rebuilt plan does not have ``summary.json``'s number of
                planned episodes (a pair with no recorded episode, or files from two runs).
        """
        config = self.manifest["config"]
        models = list(config.get("models") or [])
        conditions = list(config.get("conditions") or [])
        gates = list(config.get("gates") or ["off"])
        epochs = range(1, int(config.get("epochs") or 1) + 1)
        variants: dict[str, list[str]] = {}
        for key in self.rows:
            seen = variants.setdefault(key[0], [])
            if key[1] not in seen:
                seen.append(key[1])
        plan = [(p, v, m, c, g, e) for p, vs in variants.items() for e in epochs for m in models
                for c in conditions for g in gates for v in vs]
        planned = self.summary.get("n_episodes_planned")
        if planned != len(plan):
            raise RunError(f"{self.path}: cannot rebuild the run plan: the manifest and results give {len(plan)} "
                           f"planned episodes, summary.json {planned} (a pair with no recorded episode, or files "
                           "from different runs)")
        return plan

    def outcomes(self, metric: str) -> dict[Group, dict[Unit, int]]:
        """``(model, condition, gate) → {unit: 0/1}`` for a metric of
        :data:`evalkit.gate.catalogue.REGRESSION_UNITS`, over the planned units."""
        if metric not in self._outcomes:
            self._outcomes[metric] = self._compute(metric)
        return self._outcomes[metric]

    def _compute(self, metric: str) -> dict[Group, dict[Unit, int]]:
        plan = self.plan
        if metric == "paired_accuracy":
            return pair_unit_outcomes(plan, self.rows.values())
        sides: dict[tuple, set[str]] = {}
        for key in plan:
            sides.setdefault((key[0], key[2], key[3], key[4], key[5]), set()).add(key[1])
        out: dict[Group, dict[Unit, int]] = {}
        for key in plan:
            pair, variant, model, condition, gate, epoch = key
            if metric == "control_accuracy":
                keep = variant == "act" and sides[(pair, model, condition, gate, epoch)] == {"act"}
            elif metric == "episode_accuracy":
                keep = True
            else:
                keep = variant == metric.removesuffix("_accuracy")
            group = out.setdefault((model, condition, gate), {})
            if keep:
                group[(pair, variant, epoch)] = _good(self.rows.get(key))
        return out

    @cached_property
    def fingerprints(self) -> dict[str, dict[str, Any]]:
        """``pair_id → {"sha256", "attrs"}``: the pair's content hash as recorded in its rows
        (``pair_sha256``, ``None`` for runs that predate it) and its recorded attributes
        (domain, trigger, phase, split, language and each variant's expected decision)."""
        out: dict[str, dict[str, Any]] = {}
        for row in self.rows.values():
            entry = out.setdefault(row["pair_id"], {
                "sha256": row.get("pair_sha256"),
                "attrs": tuple(row.get(k) for k in ("domain", "trigger", "phase", "split", "language")),
                "expected": {},
            })
            entry["expected"][row["variant"]] = row.get("expected_decision")
        return out

    @cached_property
    def pair_attributes(self) -> dict[str, dict[str, Any]]:
        """``pair_id → {trigger, phase, domain, split, language}`` as recorded in the pair's
        result rows, so that an episode without a result still lands in its breakdown group
        (every pair of a rebuildable plan has at least one recorded episode)."""
        from evalkit.metrics.aggregate import BREAKDOWNS

        out: dict[str, dict[str, Any]] = {}
        for row in self.rows.values():
            entry = out.setdefault(row["pair_id"], {})
            for name in BREAKDOWNS:
                if name not in entry and row.get(name) is not None:
                    entry[name] = row[name]
        return out

    def summary_row(self, group: Group) -> dict[str, Any] | None:
        """The ``summary.json`` row of a model × condition × gate group, or ``None``."""
        for row in self.summary.get("rows", []):
            if (row.get("model"), row.get("condition"), row.get("gate")) == group:
                return row
        return None


def load_run(path: str | Path) -> RunDir:
    """Open a run directory written by ``evalkit run``.

    Args:
        path: The run directory.

    Returns:
        A :class:`RunDir` with ``summary.json`` read; the manifest and results are read when
        a regression check first needs them.

    Raises:
        RunError: when the directory or its ``summary.json`` is missing, not JSON, holds NaN
            or Infinity, or has no ``rows``.
    """
    p = Path(path)
    if not p.is_dir():
        raise RunError(f"{p}: no such run directory")
    summary = _read_json(p / "summary.json", "is this a run directory written by `evalkit run`?")
    if not isinstance(summary, dict) or not isinstance(summary.get("rows"), list):
        raise RunError(f"{p / 'summary.json'}: not a run summary (no `rows`)")
    return RunDir(p, summary)



_VERIFIED_RATES = frozenset({
    "paired_accuracy", "act_accuracy", "abstain_accuracy", "conditional_abstain_accuracy", "post_hoc_rate",
    "timely_rate", "episode_accuracy", "coverage", "act_resist_accuracy", "control_accuracy",
})
_COUNTS = ("n_pairs", "n_episodes", "completed", "errors", "missing", "incomplete_pairs")


def verify_summary(run: RunDir, by: list[str] | tuple[str, ...] = ()) -> None:
    """Check that ``summary.json`` holds the numbers its per-episode results give.

    The gate reads ``summary.json``; this recomputes every group's counts and the numerator
    and denominator of each outcome rate (``_VERIFIED_RATES``: the ones that need nothing but
    the result rows and the plan) from
    ``results.jsonl`` over the rebuilt plan, with the same
    aggregator that wrote the summary (:func:`evalkit.metrics.aggregate.summarize`), and that
    every rate's value (the number a threshold reads) is its own ``k / n`` (``null`` iff
    ``n == 0``: :func:`_rate_disagrees`), so an edited summary or files from different runs are missing data (exit 2), never a pass. An
    episode without a result (an interrupted run) is placed in its breakdown group by its
    pair's recorded attributes (:attr:`RunDir.pair_attributes`), as the harness placed it.

    Args:
        run: The run directory.
        by: Breakdown attributes the config's thresholds read (``trigger``, ``phase``, …).

    Raises:
        RunError: naming the file, the group and the first number that differs.
    """
    from evalkit.metrics.aggregate import GROUP_KEYS, summarize

    rows = run.rows
    targets: list[tuple[str, list[Any], tuple[str, ...]]] = [("rows", run.summary.get("rows", []), GROUP_KEYS)]
    for name in by:
        targets.append((f"breakdowns.{name}", run.summary.get("breakdowns", {}).get(name) or [], (*GROUP_KEYS, name)))
    for label, written, keys in targets:
        recomputed = summarize(run.plan, rows, pairs=run.pair_attributes, by=keys, core=label != "rows")
        want = {tuple(r.get(k) for k in keys): r for r in recomputed}
        have = {tuple(r.get(k) for k in keys): r for r in written if isinstance(r, dict)}
        if set(want) != set(have):
            raise RunError(f"{run.path / 'summary.json'}: {label} lists other groups than its per-episode "
                           "results give (edited, or files from different runs?)")
        for group, fresh in want.items():
            old = have[group]
            for field, value in fresh.items():
                if field in _COUNTS or (field.endswith(("_k", "_n")) and field[:-2] in _VERIFIED_RATES):
                    if old.get(field) != value:
                        raise RunError(f"{run.path / 'summary.json'}: {label} {'/'.join(map(str, group))}: "
                                       f"{field} is {old.get(field)!r} but its per-episode results give "
                                       f"{value!r} (edited, or files from different runs?)")
            for name in fresh:
                if f"{name}_k" in fresh and f"{name}_n" in fresh:
                    problem = _rate_disagrees(old, name)
                    if problem:
                        raise RunError(f"{run.path / 'summary.json'}: {label} {'/'.join(map(str, group))}: {problem} "
                                       "(edited, or files from different runs?)")


def _rate_disagrees(row: dict[str, Any], name: str) -> str | None:
    """Why a summary row's rate ``name`` is not its own ``name_k / name_n``, or ``None``.

    The value a threshold reads must be the fraction its counts give (within float
    rounding, ``rel_tol`` 1e-9), and ``null`` exactly when ``n == 0`` (field case C21).
    """
    value, k, n = row.get(name), row.get(f"{name}_k"), row.get(f"{name}_n")
    if name not in row:
        return None  # no value to read: a check on it is missing data (evalkit.gate.checks)
    if not all(isinstance(x, int) and not isinstance(x, bool) for x in (k, n)) or n < 0 or not 0 <= k <= n:
        return f"{name}_k / {name}_n is {k!r}/{n!r}, not counts"
    if n == 0:
        return None if value is None else f"{name} is {value!r} but {name}_n is 0 (an empty rate is null)"
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isclose(
            value, k / n, rel_tol=1e-9, abs_tol=1e-12):
        return f"{name} is {value!r} but {name}_k / {name}_n is {k}/{n}"
    return None
