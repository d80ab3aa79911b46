"""A run directory as the gate reads it: ``summary.json``, the manifest and the result rows.

The gate's thresholds read ``summary.json`` and nothing else, so they see the very numbers the
CLI table and the HTML report show (field case C20). Everything else is read from the result
rows (``results.jsonl``, else ``results.parquet``) one row at a time, never as a list of them
(issue 8, target 3: a gate's memory must not grow with the episodes' rows):

1. one pass over the rows (:meth:`RunDir.plan`) finds, for each pair's variant, where the last
   record of each of its episodes is (8 bytes per episode), and the pair's recorded
   attributes; the run plan is rebuilt from the manifest's models, conditions, gates and
   epochs × those pairs and variants, with the rows outside the plan set aside and reported
   in one ``ResultsWarning`` line (:mod:`evalkit.gate.plan`);
2. a second pass reads each planned episode's row in plan order and feeds it to the streaming
   summary the harness itself wrote ``summary.json`` with
   (:class:`evalkit.metrics.summary.SummaryBuilder`), which :func:`verify_summary` compares
   with ``summary.json``, and keeps one outcome byte per planned episode;
3. a regression check's per-unit outcomes (:meth:`RunDir.outcomes`) are laid out from those
   bytes, one byte per unit and group (:mod:`evalkit.gate.units`), so a missing or errored
   side still counts as wrong, and the gate checks that the per-group ``k / n`` they give
   equals the one in ``summary.json`` before comparing anything.

Definitions of a unit's outcome are those of :mod:`evalkit.metrics.aggregate`: an episode is
right when it is recorded, ok and correct; a pair unit (pair × epoch, two or more sides) when
every side is right (:func:`evalkit.metrics.compare.unit_outcomes`).
"""

from __future__ import annotations

import math
import warnings
from array import array
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, cast

from evalkit.errors import RunError
from evalkit.gate.plan import Combo, GatePlan, choose_pairs
from evalkit.gate.results import JsonlRows, ParquetRows
from evalkit.gate.units import UnitLayout, Units
from evalkit.harness.run_dir import unfinished
from evalkit.harness.run_reader import ResultsWarning, RunReader
from evalkit.records import EpisodeKey
from evalkit.metrics.aggregate import BREAKDOWNS, GROUP_KEYS
from evalkit.metrics.summary import SummaryBuilder

Group = tuple[str, str, str]  # model, condition, gate
Unit = tuple  # (pair_id, epoch) for pair units, (pair_id, variant, epoch) for episodes

__all__ = ["Group", "RunDir", "Unit", "load_run", "verify_summary"]


class _Side:
    """What the rows say about one pair's variant (``(pair_id, variant)``): where the last
    record of each of its episodes is, by :meth:`~evalkit.gate.plan.GatePlan.slot` (``2 ×
    ref + ok``, ``-1`` for none: 8 bytes per episode), and the pair's recorded attributes."""

    __slots__ = ("refs", "recorded", "sha256", "attrs", "breakdowns", "expected", "example")

    def __init__(self, cell: int, key: tuple):
        self.refs: array | None = array("q", [-1]) * cell
        self.recorded = 0
        self.sha256: Any = None
        self.attrs: tuple | None = None
        self.breakdowns: dict[str, Any] = {}
        self.expected: Any = None
        self.example = key

    def take(self, row: dict[str, Any]) -> None:
        if self.attrs is None:
            self.sha256 = row.get("pair_sha256")
            self.attrs = tuple(row.get(k) for k in ("domain", "trigger", "phase", "split", "language"))
        if len(self.breakdowns) < len(BREAKDOWNS):
            for name in BREAKDOWNS:
                if name not in self.breakdowns and row.get(name) is not None:
                    self.breakdowns[name] = row[name]
        self.expected = row.get("expected_decision")


@dataclass
class _Scan:
    """The first pass over a run's rows: each pair's variant (:class:`_Side`), in the order
    first seen, and the keys outside the manifest's models, conditions, gates and epochs."""

    sides: dict[Combo, _Side]
    strays: dict[tuple, None]


@dataclass
class RunDir:
    """One run directory.

    Attributes:
        path: The directory.
        summary: ``summary.json`` (NaN and Infinity rejected).
    """

    path: Path
    summary: dict[str, Any]
    _outcomes: dict[str, dict[Group, Units]] = field(default_factory=dict, repr=False)
    _timely: bytearray = field(default_factory=bytearray, repr=False)  # per planned episode, set by _replay

    @cached_property
    def manifest(self) -> dict[str, Any]:
        """``config.json`` (the run manifest).

        Raises:
            RunError: when it is missing or not a manifest.
        """
        data = RunReader(self.path).read_json("config.json", missing="a baseline comparison needs the run manifest")
        if not isinstance(data.get("config"), dict):
            raise RunError(f"{self.path / 'config.json'}: not a run manifest")
        return data

    @cached_property
    def _rows(self) -> JsonlRows | ParquetRows:
        """The result rows: ``results.jsonl``, else ``results.parquet``.

        Raises:
            RunError: when the run has neither file.
        """
        if (self.path / "results.jsonl").is_file():
            return JsonlRows(self.path)
        parquet = self.path / "results.parquet"
        if parquet.is_file():
            return ParquetRows(parquet)
        raise RunError(f"{self.path}: no results.jsonl or results.parquet; a baseline comparison needs the "
                       "per-episode results")

    @cached_property
    def _axes(self) -> GatePlan:
        """The manifest's epochs, models, conditions and gates (a plan without pairs)."""
        config = self.manifest["config"]
        return GatePlan((), int(config.get("epochs") or 1), tuple(config.get("models") or ()),
                        tuple(config.get("conditions") or ()), tuple(config.get("gates") or ["off"]))

    @cached_property
    def _scan(self) -> _Scan:
        """The first pass over the rows (see the module docstring); a key recorded again
        after it had finished ok is warned about as the harness does
        (:func:`~evalkit.harness.store.latest_by_key`), the last record counting."""
        axes, source = self._axes, self._rows
        cell = axes.cell
        sides: dict[Combo, _Side] = {}
        strays: dict[tuple, bool] = {}
        rerun = 0
        example: tuple[Any, ...] = ()
        for ref, row in source.scan():
            key = EpisodeKey.of(row)
            ok = row.get("status") == "ok"
            slot = axes.slot(key)
            if slot is None:
                before = strays.get(key)
                strays[key] = ok
            else:
                side = sides.get(key[:2])
                if side is None:
                    side = sides[key[:2]] = _Side(cell, key)
                refs = side.refs
                assert refs is not None  # dropped only once the rows are read
                old = refs[slot]
                before = None if old < 0 else bool(old & 1)
                side.recorded += old < 0
                refs[slot] = 2 * ref + ok
                side.take(row)
            if before:
                rerun += 1
                example = example or key
        if rerun:
            warnings.warn(f"{source.path}: {rerun} finished episode(s) were recorded again (e.g. "
                          f"{'/'.join(map(str, example or ()))}); keeping one record each, the last", ResultsWarning,
                          stacklevel=3)
        return _Scan(sides, dict.fromkeys(strays))

    @cached_property
    def plan(self) -> GatePlan:
        """The run's planned episode keys, rebuilt (see :mod:`evalkit.gate.plan`); rows outside
        it are reported in one ``ResultsWarning`` line and ignored.

        Raises:
            RunError: when the rebuilt plan does not have ``summary.json``'s number of
                planned episodes (a pair with no recorded episode, or files from two runs).
        """
        axes, scan = self._axes, self._scan
        excluded = {e["pair_id"] for e in self.summary.get("excluded_pairs") or []
                    if isinstance(e, dict) and isinstance(e.get("pair_id"), str)}
        triggers: dict[str, Any] = {}
        for (pair_id, _), side in scan.sides.items():
            triggers.setdefault(pair_id, side.breakdowns.get("trigger"))
        planned = self.summary.get("n_episodes_planned")
        recorded = self.summary.get("planned_pairs")
        listed = _planned_pairs(recorded)
        if recorded is not None and listed is None:
            warnings.warn(f"{self.path / 'summary.json'}: planned_pairs is not a list of [pair id, [variant, ...]] "
                          "with distinct pair ids (edited?); the plan is rebuilt from the results instead",
                          ResultsWarning, stacklevel=2)
        if listed is not None:  # written by the run: the plan exactly
            sides = {(pair_id, variant) for pair_id, variants in listed for variant in variants}
            unseen = next((c for c in sides if c not in scan.sides), None)
            if unseen is not None:  # its breakdown attributes are known from its rows only
                raise RunError(f"{self.path}: cannot check the run: planned pair {unseen[0]} has no recorded "
                               f"{unseen[1]} episode (resume the run first, or files from different runs)")
            pairs, aside = listed, [c for c in scan.sides if c not in sides]
        else:  # a run directory from before evalkit recorded it: rebuilt from the rows
            pairs, aside = choose_pairs({c: s.recorded for c, s in scan.sides.items()}, triggers, cell=axes.cell,
                                        planned=planned, missing=self.summary.get("n_missing"), excluded=excluded)
        plan = GatePlan(pairs, axes.epochs, axes.models, axes.conditions, axes.gates)
        outside = len(scan.strays) + sum(scan.sides[c].recorded for c in aside)
        if planned != len(plan):
            why = ("rows outside the plan that cannot be told from planned ones, e.g. a whole pair copied under "
                   "another id" if isinstance(planned, int) and len(plan) > planned
                   else "a pair with no recorded episode")
            raise RunError(f"{self.path}: cannot rebuild the run plan: the manifest and results give {len(plan)} "
                           f"planned episodes, summary.json {planned} ({why}, or files from different runs)")
        if outside:
            examples = [*scan.strays, *(scan.sides[c].example for c in aside)]
            warnings.warn(f"{self._rows.path}: {outside} row(s) are not in the run's plan (e.g. "
                          f"{'/'.join(map(str, min(examples, key=str)))}); the gate ignores them, as the summary "
                          "does", ResultsWarning, stacklevel=2)
        for combo in aside:
            scan.sides[combo].refs = None
        return plan

    @cached_property
    def _replay(self) -> tuple[dict[str, Any], bytearray]:
        """The second pass: ``(summary, outcomes)``: the summary the planned episodes' rows
        give (:class:`~evalkit.metrics.summary.SummaryBuilder`, fed in plan order) and one
        byte per planned episode, 1 when it is recorded, ok and correct.

        Raises:
            RunError: when the results file changed since the first pass.
        """
        plan, sides = self.plan, self._scan.sides
        builder = SummaryBuilder(self.pair_attributes)
        good, timely = bytearray(len(plan)), bytearray(len(plan))
        for position, (key, row) in enumerate(self.planned_rows()):
            builder.add(key, row)
            good[position] = row is not None and row["status"] == "ok" and bool(row["correct"])
            timely[position] = good[position] and (key[1] != "abstain"
                                                   or (row is not None and row.get("timely") is True))
        for side in sides.values():
            side.refs = None  # the rows are read: their places are no longer needed
        self._timely = timely
        return builder.result(), good

    def planned_rows(self) -> Iterator[tuple[EpisodeKey, dict[str, Any] | None]]:
        """Every planned episode in plan order (pair by pair, epoch by epoch): ``(key, its
        last result row or None)``, read one at a time (the second pass of the module
        docstring; :class:`~evalkit.metrics.summary.SummaryBuilder` takes them in this order).

        Raises:
            RunError: when the results file changed since the first pass, or was read already
                (the places of the rows are dropped once the gate has read them).
        """
        plan, sides = self.plan, self._scan.sides
        if any(sides[(pair_id, v)].refs is None for pair_id, variants in plan.pairs for v in variants):
            raise RunError(f"{self.path}: the results were read already; open the run again")
        # every side's refs are set (checked above)
        refs = (-1 if (r := cast(array, sides[key[:2]].refs)[slot]) < 0 else r >> 1 for key, slot in plan.walk())
        for key, row in zip(plan, self._rows.fetch(refs)):
            if row is not None and EpisodeKey.of(row) != key:
                raise RunError(f"{self._rows.path}: changed while the gate read it; run the gate again")
            yield key, row

    @property
    def recomputed(self) -> dict[str, Any]:
        """The summary the run's result rows give over the rebuilt plan (what ``summary.json``
        holds when it was written from them), as :class:`~evalkit.metrics.summary.SummaryBuilder`
        returns it: ``rows``, ``breakdowns``, the counts and ``comparisons``.

        Raises:
            RunError: when the plan cannot be rebuilt or the results cannot be read.
        """
        return self._replay[0]

    def outcomes(self, metric: str) -> dict[Group, Units]:
        """``(model, condition, gate) → {unit: 0/1}`` (a :class:`~evalkit.gate.units.Units`)
        for a metric of :data:`evalkit.gate.catalogue.REGRESSION_UNITS`, over the planned units."""
        if metric not in self._outcomes:
            self._outcomes[metric] = self._compute(metric)
        return self._outcomes[metric]

    def _compute(self, metric: str) -> dict[Group, Units]:
        plan, good = self.plan, self._replay[1]
        if metric == "timely_paired_accuracy":  # right, and every abstention within max_lag
            good = self._timely
        groups, epochs = plan.groups, plan.epochs
        slots: list[tuple[str, str | None]] = []
        mine: list[list[tuple[int, int | None]]] = []  # per pair: (slot, variant index; None: all sides)
        for pair_id, variants in plan.pairs:
            taken: list[tuple[int, int | None]] = []
            chosen: list[tuple[int | None, str | None]]
            if metric in ("paired_accuracy", "timely_paired_accuracy"):
                chosen = [(None, None)] if len(variants) >= 2 else []
            elif metric == "control_accuracy":
                chosen = [(0, "act")] if variants == ("act",) else []
            else:
                chosen = [(i, v) for i, v in enumerate(variants)
                          if metric == "episode_accuracy" or v == metric.removesuffix("_accuracy")]
            for i, v in chosen:
                taken.append((len(slots), i))
                slots.append((pair_id, v))
            mine.append(taken)
        data = [bytearray(len(slots) * epochs) for _ in groups]
        for p, (taken, (_, variants)) in enumerate(zip(mine, plan.pairs)):
            if not taken:
                continue
            n, start = len(variants), plan.offset(p)
            for e in range(epochs):
                for g, outcomes in enumerate(data):
                    position = start + (e * len(groups) + g) * n
                    for slot, i in taken:
                        outcomes[slot * epochs + e] = all(good[position:position + n]) if i is None \
                            else good[position + i]
        layout = UnitLayout(tuple(slots), epochs)
        return {group: Units(layout, outcomes) for group, outcomes in zip(groups, data)}

    def _planned_sides(self) -> Iterator[tuple[str, str, _Side]]:
        for pair_id, variants in self.plan.pairs:
            for variant in variants:
                yield pair_id, variant, self._scan.sides[(pair_id, variant)]

    @cached_property
    def fingerprints(self) -> dict[str, dict[str, Any]]:
        """``pair_id → {"sha256", "attrs", "expected"}`` of every planned pair: its content
        hash as recorded in its rows (``pair_sha256``, ``None`` for runs that predate it),
        its recorded attributes (domain, trigger, phase, split, language) and each variant's
        expected decision."""
        out: dict[str, dict[str, Any]] = {}
        for pair_id, variant, side in self._planned_sides():
            entry = out.setdefault(pair_id, {"sha256": side.sha256, "attrs": side.attrs, "expected": {}})
            entry["expected"][variant] = side.expected
        return out

    @cached_property
    def pair_attributes(self) -> dict[str, dict[str, Any]]:
        """``pair_id → {trigger, phase, domain, split, language}`` as recorded in the pair's
        result rows, so that an episode without a result still lands in its breakdown group
        (every pair of a rebuildable plan has at least one recorded episode)."""
        out: dict[str, dict[str, Any]] = {}
        for pair_id, _, side in self._planned_sides():
            entry = out.setdefault(pair_id, {})
            for name, value in side.breakdowns.items():
                entry.setdefault(name, value)
        return out

    def summary_row(self, group: Group) -> dict[str, Any] | None:
        """The ``summary.json`` row of a model × condition × gate group, or ``None``."""
        for row in self.summary.get("rows", []):
            if (row.get("model"), row.get("condition"), row.get("gate")) == group:
                return row
        return None


def load_run(path: str | Path, *, then: str = "gate it") -> RunDir:
    """Open a run directory written by ``evalkit run``.

    Args:
        path: The run directory.
        then: What the caller does with it, for the unfinished-run message (``continue it
            with `evalkit run --resume DIR`, then gate it``).

    Returns:
        A :class:`RunDir` with ``summary.json`` read; the manifest and results are read when
        a check first needs them.

    Raises:
        RunError: when the directory or its ``summary.json`` is missing (an unfinished run:
            naming the ``evalkit run --resume`` command), not JSON, holds NaN or Infinity, or
            has no ``rows``.
    """
    p = Path(path)
    if not p.is_dir():
        raise RunError(f"{p}: " + ("a file, not a run directory" if p.exists() else "no such run directory"))
    why = unfinished(p)
    if why is not None:
        raise RunError(f"{why}, then {then}")
    summary = RunReader(p).read_json("summary.json", missing="is this a run directory written by `evalkit run`?")
    if not isinstance(summary.get("rows"), list):
        raise RunError(f"{p / 'summary.json'}: not a run summary (no `rows`)")
    return RunDir(p, summary)


_VERIFIED_RATES = frozenset({
    "paired_accuracy", "timely_paired_accuracy", "act_accuracy", "abstain_accuracy", "conditional_abstain_accuracy",
    "post_hoc_rate", "timely_rate", "episode_accuracy", "coverage", "act_resist_accuracy", "control_accuracy",
})
_COUNTS = ("n_pairs", "n_episodes", "completed", "errors", "missing", "incomplete_pairs")


def verify_summary(run: RunDir, by: list[str] | tuple[str, ...] = ()) -> None:
    """Check that ``summary.json`` holds the numbers its per-episode results give.

    The gate reads ``summary.json``; this recomputes every group's counts and the numerator
    and denominator of each outcome rate (``_VERIFIED_RATES``: the ones that need nothing but
    the result rows and the plan) from the result rows over the rebuilt plan, streamed through
    the same builder that wrote the summary (:class:`evalkit.metrics.summary.SummaryBuilder`;
    the rows outside the plan are ignored, as there), and that every rate's value (the number
    a threshold reads) is its own ``k / n`` (``null`` iff ``n == 0``:
    :func:`_rate_disagrees`), so an edited summary or files from different runs are missing
    data (exit 2), never a pass. An episode without a result (an interrupted run) is placed
    in its breakdown group by its pair's recorded attributes (:attr:`RunDir.pair_attributes`),
    as the harness placed it.

    Args:
        run: The run directory.
        by: Breakdown attributes the config's thresholds read (``trigger``, ``phase``, …).

    Raises:
        RunError: naming the file, the group and the first number that differs.
    """
    fresh_summary = run.recomputed
    targets: list[tuple[str, list[Any], list[Any], tuple[str, ...]]] = [
        ("rows", run.summary.get("rows", []), fresh_summary["rows"], GROUP_KEYS)]
    for name in by:
        targets.append((f"breakdowns.{name}", run.summary.get("breakdowns", {}).get(name) or [],
                        fresh_summary["breakdowns"].get(name, []), (*GROUP_KEYS, name)))
    for label, written, recomputed, keys in targets:
        want = {tuple(r.get(k) for k in keys): r for r in recomputed}
        have = {tuple(r.get(k) for k in keys): r for r in written if isinstance(r, dict)}
        if set(want) != set(have):
            raise RunError(f"{run.path / 'summary.json'}: {label} lists other groups than its per-episode "
                           "results give (edited, or files from different runs?)")
        for group, fresh in want.items():
            old = have[group]
            for key, value in fresh.items():
                if key in _COUNTS or (key.endswith(("_k", "_n")) and key[:-2] in _VERIFIED_RATES
                                        and key[:-2] in old):  # a rate the file lacks is missing data
                    if old.get(key) != value:
                        raise RunError(f"{run.path / 'summary.json'}: {label} {'/'.join(map(str, group))}: "
                                       f"{key} is {old.get(key)!r} but its per-episode results give "
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
    if not (isinstance(k, int) and not isinstance(k, bool) and isinstance(n, int) and not isinstance(n, bool)) \
            or n < 0 or not 0 <= k <= n:
        return f"{name}_k / {name}_n is {k!r}/{n!r}, not counts"
    if n == 0:
        return None if value is None else f"{name} is {value!r} but {name}_n is 0 (an empty rate is null)"
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isclose(
            value, k / n, rel_tol=1e-9, abs_tol=1e-12):
        return f"{name} is {value!r} but {name}_k / {name}_n is {k}/{n}"
    return None


def _planned_pairs(value: Any) -> tuple[tuple[str, tuple[str, ...]], ...] | None:
    """``summary.json``'s ``planned_pairs`` (``[[pair_id, [variant, ...]], ...]`` in plan order) as
    :class:`~evalkit.gate.plan.GatePlan` pairs, or ``None`` when absent or not of that shape (a
    pair id or a pair's variant given twice included)."""
    if not isinstance(value, list):
        return None
    out = []
    for item in value:
        if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], str) and isinstance(item[1], list)
                and item[1] and all(isinstance(v, str) for v in item[1]) and len(set(item[1])) == len(item[1])):
            return None
        out.append((item[0], tuple(item[1])))
    if len({pair_id for pair_id, _ in out}) != len(out):
        return None  # a pair id twice
    return tuple(out)
