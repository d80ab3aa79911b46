"""A run directory for analysis: episodes, summary rows and pair units as pandas DataFrames,
every trace on demand, and the suite's pairs (for the viewer and the notebook API).

One reader serves the notebook API (:func:`evalkit.load_run`), ``evalkit view`` and ``evalkit
compare``'s report: ``summary.json`` and ``config.json`` are read and checked by
:mod:`evalkit.report.inputs`, traces by :func:`evalkit.report.traces.load_trace`, the result
rows from ``results.parquet`` (else ``results.jsonl``, one row per episode key, the last:
:meth:`evalkit.harness.run_reader.RunReader.rows`), and the suite from the manifest's own
suite files (:func:`evalkit.harness.config.load_config`, relative paths resolved against the
folder the run started in). pandas is imported only when a DataFrame is asked for.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Literal

from evalkit.errors import RunError
from evalkit.harness.run_reader import RunReader
from evalkit.report import inputs
from evalkit.report.traces import load_trace

if TYPE_CHECKING:
    import pandas as pd

CATEGORIES = ("pair_id", "variant", "model", "condition", "gate", "domain", "trigger", "phase", "split", "language",
              "status", "decision", "decided_by", "stated", "text_label", "expected_decision", "end_reason",
              "failure_kind", "error_code")
"""Episode columns typed as pandas ``category``."""
FLAGS = ("correct", "decision_match", "post_hoc", "first_pass", "claimed_action_without_call", "call_in_content",
         "content_filter")
"""Episode columns typed as ``bool`` (always set in a scored row)."""
NULLABLE: dict[str, Literal["boolean", "Int64", "Float64"]] = {"timely": "boolean", "lag": "Int64", "cost_usd": "Float64"}
"""Episode columns that are ``null`` where undefined, with their nullable pandas type."""
_VARIANTS = ("act", "abstain", "act_resist")


class RunData:
    """One run directory, read on demand.

    Attributes:
        path: The run directory.

    Args:
        path: A run directory written by ``evalkit run``.

    Raises:
        RunError: when ``path`` is not a folder.
    """

    def __init__(self, path: str | Path):
        self.path = Path(path)
        if not self.path.is_dir():
            raise RunError(f"{self.path}: no such run directory")

    def __repr__(self) -> str:
        return f"RunData({str(self.path)!r})"

    @cached_property
    def summary_json(self) -> dict[str, Any]:
        """``summary.json`` as written (checked by :func:`evalkit.report.inputs.load_summary`)."""
        return inputs.load_summary(self.path)

    @cached_property
    def manifest(self) -> dict[str, Any]:
        """``config.json`` (the run manifest), ``{}`` when there is none."""
        return inputs.load_manifest(self.path)

    def rows(self) -> list[dict[str, Any]]:
        """Every result row (one per episode key, the last written), in file order, each with
        ``failure_kind`` (computed by :func:`evalkit.metrics.failures.failure_kind` for a run
        written before the field). Read once; the same list is returned again (do not change it).

        Raises:
            RunError: when the run has no results file, or it cannot be read.
        """
        return self._rows

    @cached_property
    def _rows(self) -> list[dict[str, Any]]:
        from evalkit.metrics.failures import failure_kind

        rows = RunReader(self.path).rows(prefer="parquet")
        for r in rows:
            if "failure_kind" not in r:
                r["failure_kind"] = failure_kind(r)
        return rows

    @cached_property
    def episodes(self) -> pd.DataFrame:
        """One typed row per episode: the result row's every field (:func:`evalkit.metrics.scoring.score_episode`);
        :data:`CATEGORIES` as ``category``, :data:`FLAGS` as ``bool``, ``timely`` / ``lag`` /
        ``cost_usd`` nullable (``<NA>`` where undefined, never 0), ``epoch`` ``int64``."""
        import pandas as pd

        df = pd.DataFrame(self.rows())
        for col in CATEGORIES:
            if col in df:
                df[col] = df[col].astype("category")
        for col in FLAGS:
            if col in df:
                df[col] = df[col].astype("boolean").fillna(False).astype(bool)
        for col, kind in NULLABLE.items():
            if col in df:
                df[col] = df[col].astype(kind)
        if "epoch" in df:
            df["epoch"] = df["epoch"].astype("int64")
        return df

    @cached_property
    def summary(self) -> pd.DataFrame:
        """The ``summary.json`` rows (one per model × condition × gate), as a DataFrame: every
        metric with its ``_k``, ``_n`` and ``_ci``."""
        import pandas as pd

        return pd.DataFrame(self.summary_json.get("rows", []))

    def breakdown(self, by: str) -> pd.DataFrame:
        """``summary.json``'s breakdown rows by ``by`` (trigger, phase, domain, split, language).

        Raises:
            KeyError: when the summary has no such breakdown.
        """
        import pandas as pd

        rows = self.summary_json.get("breakdowns", {})
        if by not in rows:
            raise KeyError(f"no breakdown by {by!r}; the summary has {', '.join(rows) or 'none'}")
        return pd.DataFrame(rows[by])

    @cached_property
    def pairs(self) -> pd.DataFrame:
        """One row per pair unit (pair × model × condition × gate × epoch) with two or more
        recorded sides: the pair's attributes, per side ``<variant>_correct``,
        ``<variant>_kind`` (failure kind) and ``<variant>_episode`` (episode id), and
        ``right`` (every planned side recorded, ok and correct: the unit of paired accuracy; a
        missing side makes it wrong) and ``timely_right`` (also every abstention timely: the
        unit of timely paired accuracy). Control pairs (act only) are left out, as in paired
        accuracy."""
        import pandas as pd

        eps = self.episodes
        keys = ["pair_id", "model", "condition", "gate", "epoch"]
        attrs = [c for c in ("trigger", "phase", "domain", "split", "language") if c in eps]
        if eps.empty:
            return pd.DataFrame(columns=keys + attrs + ["right", "timely_right"])
        out: dict[tuple, dict[str, Any]] = {}
        cols = keys + attrs + ["variant", "status", "correct", "timely", "failure_kind", "episode_id"]
        for rec in eps[[c for c in cols if c in eps]].to_dict("records"):
            unit = tuple(rec[k] for k in keys)
            entry = out.setdefault(unit, {**{k: rec[k] for k in keys + attrs}, "_sides": []})
            v = rec["variant"]
            good = rec["status"] == "ok" and bool(rec["correct"])
            entry[f"{v}_correct"] = good
            entry[f"{v}_kind"] = rec.get("failure_kind")
            entry[f"{v}_episode"] = rec.get("episode_id")
            entry["_sides"].append((v, good, rec.get("timely")))
        planned = self._planned_variants()
        units = []
        for entry in out.values():
            sides = entry.pop("_sides")
            n_sides = len(planned.get(entry["pair_id"], ())) or len(sides)
            if n_sides < 2:
                continue
            entry["right"] = len(sides) >= n_sides and all(g for _, g, _ in sides)
            entry["timely_right"] = entry["right"] and all(t is True for v, _, t in sides if v == "abstain")
            units.append(entry)
        df = pd.DataFrame(units)
        for col in keys[:4] + attrs:
            if col in df:
                df[col] = df[col].astype("category")
        return df

    def _planned_variants(self) -> dict[str, list[str]]:
        """``pair_id → planned variants`` from ``summary.json`` (``planned_pairs``), ``{}`` when
        the run has no summary (interrupted) or predates the field."""
        try:
            listed = self.summary_json.get("planned_pairs") or []
        except RunError:
            return {}
        return {p[0]: list(p[1]) for p in listed if isinstance(p, list) and len(p) == 2 and isinstance(p[1], list)}

    def trace(self, episode_id: str) -> list[dict[str, Any]]:
        """The event log of one episode: ``traces/EPISODE_ID.jsonl`` as a list of event dicts
        (an unreadable line is skipped); for an ``evalkit compare`` output, whose rows point at
        their source run (``source_run``, ``source_episode``), the source run's trace.

        Raises:
            KeyError: when the run has no trace of that episode.
        """
        path = inputs.trace_path(self.path, episode_id)
        if path is None or not path.is_file():
            row = self._sources.get(episode_id)
            if row is not None:
                path = inputs.trace_path(Path(row[0]), row[1])
        if path is None or not path.is_file():
            raise KeyError(f"{self.path}: no trace of episode {episode_id!r}")
        return load_trace(path)

    @cached_property
    def _sources(self) -> dict[str, tuple[str, Any]]:
        """``episode_id → (source_run, source_episode)`` of the rows that name a source run."""
        try:
            rows = self.rows()
        except RunError:
            return {}
        return {r["episode_id"]: (r["source_run"], r.get("source_episode")) for r in rows
                if isinstance(r.get("source_run"), str) and r["source_run"] and isinstance(r.get("episode_id"), str)}

    @cached_property
    def suite_pairs(self) -> dict[str, Any]:
        """``pair_id → Pair`` of the run's suite, loaded from the manifest's suite files; a
        pair whose content changed since the run (its ``pair_sha256`` differs from the
        results') is left out. ``{}`` when the suite cannot be loaded (moved, edited to
        invalid): the pairs' rationale is then unknown, never made up."""
        from evalkit.errors import EvalkitError
        from evalkit.harness.config import load_config
        from evalkit.metrics.scoring import pair_sha256
        from evalkit.scenarios.loader import load_suite

        try:
            config = load_config(self.path)
            suite = load_suite(config.suites, tasks_dir=Path(config.tasks_dir) if config.tasks_dir else None)
        except (EvalkitError, OSError, ValueError):
            return {}
        recorded = {r.get("pair_id"): r.get("pair_sha256") for r in self._pair_hashes()}
        return {p.id: p for p in suite.pairs if p.id in recorded and recorded[p.id] in (None, pair_sha256(p))}

    def _pair_hashes(self) -> Iterable[dict[str, Any]]:
        seen: dict[str | None, dict[str, Any]] = {}
        for r in self.rows():
            seen.setdefault(r.get("pair_id"), {"pair_id": r.get("pair_id"), "pair_sha256": r.get("pair_sha256")})
        return seen.values()


def load_run(path: str | Path) -> RunData:
    """Open a run directory for analysis (``r.episodes``, ``r.summary``, ``r.pairs``,
    ``r.trace(id)``); files are read when first used.

    Args:
        path: A run directory written by ``evalkit run``.

    Raises:
        RunError: when ``path`` is not a folder.
    """
    return RunData(path)


def load_runs(paths: Iterable[str | Path]) -> RunSet:
    """Several run directories as one: their DataFrames concatenated with a ``run`` column
    (the directory as given).

    Raises:
        RunError: when a path is not a folder, or names a run already given (its episodes
            would be counted twice).
        TypeError: when ``paths`` is one path (a string) rather than a list of them.
    """
    if isinstance(paths, (str, Path)):
        raise TypeError(f"load_runs takes a list of run directories, got the single path {str(paths)!r}: "
                        f"use load_runs([{str(paths)!r}]) or load_run({str(paths)!r})")
    runs: list[RunData] = []
    seen: dict[Path, Path] = {}
    for p in paths:
        run = RunData(p)
        key = run.path.resolve()
        if key in seen:
            raise RunError(f"{run.path}: given twice (as {seen[key]}); its episodes would be counted twice")
        seen[key] = run.path
        runs.append(run)
    return RunSet(runs)


class RunSet:
    """Several runs (:func:`load_runs`): ``episodes``, ``summary`` and ``pairs`` concatenated,
    each row with its ``run``; ``trace(episode_id, run=None)`` searches every run (or one).

    Args:
        runs: The runs, in order.
    """

    def __init__(self, runs: list[RunData]):
        self.runs = runs

    def __repr__(self) -> str:
        return f"RunSet({[str(r.path) for r in self.runs]!r})"

    def _concat(self, name: str) -> pd.DataFrame:
        import pandas as pd

        frames = []
        for r in self.runs:
            df = getattr(r, name).copy()
            df.insert(0, "run", str(r.path))
            frames.append(df)
        out = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
        if "run" in out:
            out["run"] = out["run"].astype("category")
        return out

    @cached_property
    def episodes(self) -> pd.DataFrame:
        """Every run's :attr:`RunData.episodes`, with ``run``."""
        return self._concat("episodes")

    @cached_property
    def summary(self) -> pd.DataFrame:
        """Every run's :attr:`RunData.summary`, with ``run``."""
        return self._concat("summary")

    @cached_property
    def pairs(self) -> pd.DataFrame:
        """Every run's :attr:`RunData.pairs`, with ``run``."""
        return self._concat("pairs")

    def trace(self, episode_id: str, run: str | Path | None = None) -> list[dict[str, Any]]:
        """The event log of ``episode_id`` from ``run``, else from the first run that has it.

        Raises:
            KeyError: when no run (or not ``run``) has that trace.
        """
        for r in self.runs:
            if run is not None and Path(run) != r.path:
                continue
            try:
                return r.trace(episode_id)
            except KeyError:
                continue
        raise KeyError(f"no trace of episode {episode_id!r} in {', '.join(str(r.path) for r in self.runs)}")
