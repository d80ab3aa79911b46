"""The run directory: atomic files and an append-only results log.

Layout of ``DIR/``::

    config.json       the run manifest (config, evalkit version, suite hash, prompt hashes)
    traces/ID.jsonl   one event log per episode (JSON Lines)
    superseded/ID.N.jsonl
                      the event log of an episode that a resumed run ran again (it had errored, or
                      finished with its trace missing or cut; N = 1, 2, ...
                      in the order superseded; kept outside ``traces/`` so that a replay of the run
                      reads each episode once)
    results.jsonl     one scored row per finished episode, appended and flushed per row
    results.parquet   the same rows as a table (written at the end of the run)
    summary.json      aggregate metrics (NaN is rejected: empty groups are null)
    selfcheck.json    pairs the oracle self-check excluded, with reasons
    report.html       the self-contained report

``ID`` is the episode id (:attr:`evalkit.harness.episode.EpisodeSpec.episode_id`): a readable
slug of the episode key plus a hash of the whole key, so two keys never share a trace file.

A new run goes only into a missing or empty folder or replaces an earlier run
(:func:`~evalkit.harness.run_dir.check_out_dir`); replacing removes only the files listed above.

Whole files are written to a temporary file in the same folder and renamed into place
(:func:`~evalkit.harness.atomic.write_atomic`), so a reader never sees a half-written
file. ``results.jsonl`` is the one file appended to: each row is written with one ``write``
and flushed, so a killed run leaves at most one half-written last line, which readers ignore
with a :class:`ResultsWarning`.

Resuming (field case C27): one record counts per episode key (pair, variant, model,
condition, gate, epoch), the last one written; an errored record is superseded by a later
retry without a warning (its event log moves to ``superseded/`` when the retry's is written, so nothing
the errored run logged is lost), a second record for an episode that had finished ok is kept once
with a warning. :meth:`RunStore.compact` rewrites the file with one line per key before a
resumed run appends to it.

This module holds :class:`RunStore`, which writes a run directory; reading one back is
:class:`evalkit.harness.run_reader.RunReader` (whose :func:`latest_by_key`, :func:`decode_line`
and :class:`ResultsWarning` are re-exported here). The atomic writes and JSON text are in
:mod:`evalkit.harness.atomic`, the run-directory checks in :mod:`evalkit.harness.run_dir`
and the writer thread in :mod:`evalkit.harness.writer`. :func:`write_atomic`,
:func:`dump_json` and :func:`check_out_dir` are re-exported here.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
import threading
import warnings
from pathlib import Path
from collections.abc import Mapping
from typing import Any, Callable, Iterable, Iterator

from evalkit.harness.atomic import _TEMP_SEQ, _naming, _umask, dump_json, write_atomic  # noqa: F401 - re-exported
from evalkit.harness.results_index import RecordRef, ResultIndex  # noqa: F401 - re-exported
from evalkit.harness.run_dir import check_out_dir  # noqa: F401 - re-exported
from evalkit.harness.writer import _BackgroundWriter
from evalkit.errors import RunError
from evalkit.harness.plan import key_positions
from evalkit.harness.run_reader import (  # noqa: F401 - re-exported
    IGNORED_LINES_SHOWN, ResultsWarning, RunReader, decode_line, latest_by_key)
from evalkit.records import EpisodeKey

OWNED = ("config.json", "results.jsonl", "results.parquet", "summary.json", "report.html", "selfcheck.json",
         "gate-junit.xml", "gate-summary.md")
"""The files evalkit writes at the top of a run directory (all it ever removes there, with
``traces/*.jsonl`` and ``superseded/*.jsonl``)."""
SUPERSEDED = "superseded"
"""The folder of a run directory that keeps the event logs of episodes a resumed run ran again."""


class RunStore:
    """Files of one run directory.

    Args:
        root: The run directory (created if missing).
    """

    def __init__(self, root: str | Path):
        self.root = Path(root)
        self.traces = self.root / "traces"
        self.superseded_traces = self.root / SUPERSEDED
        self._results_fh: Any = None
        self._writer: _BackgroundWriter | None = None
        self._lock = threading.Lock()
        self.rerun_on_purpose: set[tuple] = set()
        self.superseded: dict[tuple, dict[str, Any]] = {}
        """Episode key → the billing of its errored row that a resumed run runs again
        (:func:`carry_spend`: added to the new row when it is written)."""
        """Keys whose finished record a resume runs again on purpose (its trace was not whole):
        their new record is expected, not reported as a finished episode recorded again."""

    def lock(self) -> Any:
        """Take the run directory for this process (``DIR/.evalkit.lock``, an advisory
        ``flock``); held while the returned file is open (close it, or the process ends).

        Raises:
            RunError: when another evalkit process holds it (two runs or resumes of one
                folder at once would interleave their records).
        """
        fh = open(self.root / ".evalkit.lock", "a+")
        try:
            import fcntl
        except ImportError:  # no flock on this platform: no protection, as before
            return fh
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.close()
            raise RunError(f"{self.root}: another evalkit process is running or resuming this run; wait for it to "
                           "end (or stop it) first") from None
        self._remove_stale_temporaries()
        return fh

    def _remove_stale_temporaries(self) -> None:
        """Remove the hidden temporary files a killed evalkit process left here (``.results.parquet.PID.partN.tmp``
        and the like: they are only ever renamed into place by the process that wrote them, which held the lock)."""
        for name in OWNED:
            if not name.startswith("gate-"):  # the gate writes its files without the run's lock
                for path in self.root.glob(f".{name}.*.tmp"):
                    path.unlink(missing_ok=True)
        if self.traces.is_dir():
            for path in self.traces.glob(".*.jsonl.*.tmp"):
                path.unlink(missing_ok=True)

    def reset(self) -> None:
        """Remove the files a previous run left here (only evalkit's own files)."""
        for name in OWNED:
            (self.root / name).unlink(missing_ok=True)
        if self.traces.is_dir():
            for f in self.traces.glob("*.jsonl"):
                f.unlink()
        if self.superseded_traces.is_dir():
            for f in self.superseded_traces.glob("*.jsonl"):
                f.unlink()
            try:
                self.superseded_traces.rmdir()
            except OSError:
                pass  # a file evalkit did not write stays, with its folder

    def open(self, *, background: bool = False) -> None:
        """Open ``results.jsonl`` for appending.

        Args:
            background: Do the file writes of :meth:`record` on a writer thread (see there).
        """
        self.traces.mkdir(parents=True, exist_ok=True)
        self._results_fh = open(self.root / "results.jsonl", "a", encoding="utf-8")
        if background:
            self._writer = _BackgroundWriter(self)

    def drain(self) -> None:
        """Wait until every episode handed to :meth:`record` is written.

        Raises:
            OSError: the first error of the writer thread (naming the file), if any; the
                episodes after it were not written (a resumed run re-runs them).
        """
        writer, self._writer = self._writer, None
        if writer is not None:
            error = writer.stop()
            if error is not None:
                raise error

    def close(self) -> None:
        """Wait for the writer thread (quietly: :meth:`drain` reports its error), close the file."""
        writer, self._writer = self._writer, None
        if writer is not None:
            writer.stop()
        if self._results_fh is not None:
            fh, self._results_fh = self._results_fh, None
            try:
                fh.close()  # flushes what is buffered
            except OSError as exc:
                raise _naming(exc, self.root / "results.jsonl") from exc

    def record(self, episode_id: str, trace: str, row: dict[str, Any]) -> dict[str, Any]:
        """Write an episode's trace, then append its result row; return the row written.

        A row that supersedes an earlier one of a resumed run (:attr:`superseded`: errored, or
        finished without a whole trace) carries that row's spend (:func:`carry_spend`): the row
        returned and written holds it; the earlier run's event log is first moved to ``superseded/EPISODE_ID.N.jsonl``
        (:meth:`keep_superseded_trace`).

        The row is serialised here, in the caller's thread (a row that is not valid JSON, e.g.
        holding NaN, raises ``ValueError`` here). With ``open(background=True)`` the two file
        writes are queued (at most :data:`~evalkit.harness.writer.WRITE_QUEUE` episodes) to one
        writer thread, which keeps their order, trace before row, so the disk's latency
        overlaps the next episode; a killed run loses at most the queued episodes, which a
        resumed run re-runs.

        Raises:
            OSError: naming the file (at once, or for the writer thread, at a later call or
                at :meth:`drain`).
            ValueError: for a row that is not valid JSON.
        """
        if self.superseded:
            with self._lock:
                old = self.superseded.pop(tuple(EpisodeKey.of(row)), None)
            if old is not None:
                self.keep_superseded_trace(episode_id)
                row = carry_spend(row, old)
        line = json.dumps(row, ensure_ascii=False, allow_nan=False) + "\n"
        writer = self._writer
        if writer is not None:
            writer.put((episode_id, trace, line))
        else:
            self.write_trace(episode_id, trace)
            self._append_line(line)
        return row

    def keep_superseded_trace(self, episode_id: str) -> Path | None:
        """Move ``traces/EPISODE_ID.jsonl`` (an errored run's event log, about to be replaced by the
        run that supersedes it) to ``superseded/EPISODE_ID.N.jsonl``, N one more than the logs of that
        episode already kept there (the highest N kept, plus one: a log is never overwritten). A rename
        in the same file system: the log is never half-moved.

        Returns:
            The new path, or ``None`` when the episode has no event log to keep.

        Raises:
            OSError: naming the trace file.
        """
        src = self.traces / f"{episode_id}.jsonl"
        if not src.is_file():
            return None
        try:
            self.superseded_traces.mkdir(exist_ok=True)
            kept = (f.name[len(episode_id) + 1:-len(".jsonl")]
                    for f in self.superseded_traces.glob(f"{episode_id}.*.jsonl"))
            n = 1 + max((int(k) for k in kept if k.isdigit()), default=0)
            dest = self.superseded_traces / f"{episode_id}.{n}.jsonl"
            os.replace(src, dest)
        except OSError as exc:
            raise _naming(exc, src) from exc
        return dest

    def write_trace(self, episode_id: str, jsonl: str) -> None:
        """Write ``traces/EPISODE_ID.jsonl`` atomically (:func:`~evalkit.harness.atomic.write_atomic`).

        Raises:
            OSError: naming the trace file.
        """
        write_atomic(f"{self.traces}{os.sep}{episode_id}.jsonl", jsonl)

    def append_result(self, row: dict[str, Any]) -> None:
        """Append one result row with a single write and flush it to the OS.

        Safe to call from several threads; rows may arrive in any order.

        Raises:
            OSError: naming ``results.jsonl`` (e.g. a full disk).
        """
        self._append_line(json.dumps(row, ensure_ascii=False, allow_nan=False) + "\n")

    def _append_line(self, line: str) -> None:
        with self._lock:
            try:
                self._results_fh.write(line)
                self._results_fh.flush()
            except OSError as exc:
                raise _naming(exc, self.root / "results.jsonl") from exc

    def write_json(self, name: str, obj: Any) -> None:
        write_atomic(self.root / name, dump_json(obj))

    def _records(self) -> Iterator[tuple[int, int, dict[str, Any]]]:
        """``(byte offset, length, row)`` of every usable line of ``results.jsonl``
        (:meth:`evalkit.harness.run_reader.RunReader.records`: broken lines are skipped with a
        :class:`ResultsWarning`)."""
        return RunReader(self.root).records()

    def read_results(self) -> list[dict[str, Any]]:
        """Every row of ``results.jsonl``, in the order written (duplicates included).

        A half-written last line (a run killed mid-write) is ignored with a
        :class:`ResultsWarning`; so is any other line that is not a JSON object.
        """
        return [row for _, _, row in self._records()]

    def latest_results(self) -> dict[EpisodeKey, dict[str, Any]]:
        """One row per episode key, the last written (see :func:`latest_by_key`)."""
        return latest_by_key(self.read_results(), source=str(self.root / "results.jsonl"))

    def completed_keys(self) -> set[tuple]:
        """Keys of the episodes whose last record finished without error.

        A resumed run skips these; errored and missing episodes run again.
        """
        return {k for k, ref in self.scan_results(keep_checked=True).items() if ref.ok}

    def scan_results(self, plan_keys: Iterable[tuple] | None = None, *, keep_checked: bool = False) -> "ResultIndex":
        """Where the last record of each episode key is in ``results.jsonl`` (field case C27).

        The streaming counterpart of :meth:`latest_results`: rows are parsed one at a time
        and only where each key's last record is, and whether it is ``ok``, is kept, with the
        same warnings (:func:`latest_by_key`). A row that fails a field check
        (:func:`~evalkit.metrics.summary.row_problem`) is skipped, as every reader skips it,
        unless ``keep_checked``.

        Args:
            plan_keys: The run plan's keys in plan order (a
                :class:`~evalkit.harness.plan.PlanKeys` view, whose positions are computed; a
                list also works, indexed by a dict). With them the index is compact: three
                arrays by plan position (about 17 bytes per planned episode) plus a dict for
                the keys outside the plan. ``None``: every key goes into that dict.
            keep_checked: Index a row that fails a field check but has its episode key too, as
                not ``ok``: the end of a run and resume pass it, so that
                :meth:`rewrite_results` keeps the row in the file and its episode runs again; a
                line that is not a JSON object with an episode key is left out either way.

        Returns:
            A :class:`ResultIndex` (a mapping ``key → RecordRef``: plan keys in plan order,
            then the other keys in the order first seen).
        """
        index = ResultIndex(None if plan_keys is None else key_positions(plan_keys), source=plan_keys)
        rerun = 0
        example: tuple[Any, ...] = ()
        for start, length, row, problem in RunReader(self.root).entries(keep_checked=keep_checked):
            # a row failing a field check stays in the file (never dropped by the rewrite), not ok: it runs again
            key = EpisodeKey.of(row)
            if index.put(key, start, length, problem is None and row.get("status") == "ok") and key not in self.rerun_on_purpose:
                rerun += 1
                example = example or key
        if rerun:
            warnings.warn(
                f"{self.root / 'results.jsonl'}: {rerun} finished episode(s) were recorded again "
                f"(e.g. {'/'.join(map(str, example or ()))}); keeping one record each, the last",
                ResultsWarning,
                stacklevel=2,
            )
        return index

    def compact(self, rows: Iterable[dict[str, Any]]) -> None:
        """Atomically rewrite ``results.jsonl`` with exactly ``rows`` (one line each)."""
        self.close()
        text = "".join(json.dumps(r, ensure_ascii=False, allow_nan=False) + "\n" for r in rows)
        write_atomic(self.root / "results.jsonl", text)

    def rewrite_results(
        self,
        refs: Mapping[tuple, "RecordRef"],
        order: Iterable[tuple] | None = None,
        take: Callable[[dict[str, Any]], None] | None = None,
    ) -> int:
        """Leave ``results.jsonl`` with one line per key of ``refs`` and hand each row to ``take``.

        Rows come in the order of ``order`` (the run plan), then the keys of ``refs`` not in
        it, in first-seen order. Each row is copied byte for byte from the record ``refs``
        points at; the file is rewritten atomically only when it is not already exactly
        that (a finished fresh run usually is, and is then only read). Memory stays at one
        row at a time; with a :class:`ResultIndex` of the same plan keys as ``order`` (or no
        ``order``) nothing per key is built: the index is walked by plan position.

        Args:
            refs: From :meth:`scan_results` of this file (unchanged since), or any mapping
                ``key → RecordRef``.
            order: Episode keys in the wanted order (keys absent from ``refs`` are skipped);
                ``None`` or empty: the order of ``refs`` itself (for a :class:`ResultIndex`
                of a plan: plan order, then the keys outside it as first seen).
            take: Called with each row (parsed) in the final order; ``None``: rows are not parsed.

        Returns:
            The number of rows.

        Raises:
            OSError: naming ``results.jsonl`` (e.g. a full disk); the file is unchanged.
        """
        self.close()
        path = self.root / "results.jsonl"
        own = order is None or (isinstance(order, (list, tuple)) and not order) \
            or (isinstance(refs, ResultIndex) and order is refs.source)

        def sequence() -> Iterator[tuple[int, int]]:
            """``(offset, length)`` of each record to keep, in the final order."""
            if own:
                if isinstance(refs, ResultIndex):
                    yield from refs.spans()
                else:
                    yield from ((ref.offset, ref.length) for ref in refs.values())
                return
            placed: set[tuple] = set()
            for key in order or ():  # not own: order is given
                ref = refs.get(key)
                if ref is not None and key not in placed:
                    placed.add(key)
                    yield ref.offset, ref.length
            yield from ((ref.offset, ref.length) for key, ref in refs.items() if key not in placed)

        if not path.exists() and next(sequence(), None) is None:
            return 0
        try:
            with open(path, "rb") as src:
                # already exactly these lines in this order, nothing else (no blank, broken or
                # superseded line, a newline at the end): read it, leave it
                size = os.fstat(src.fileno()).st_size
                end, count, in_place = 0, 0, True
                for offset, length in sequence():
                    if offset != end:
                        in_place = False
                        break
                    end, count = offset + length, count + 1
                in_place = in_place and count > 0 and end == size
                if in_place:
                    src.seek(size - 1)
                    in_place = src.read(1) == b"\n"
                if in_place:
                    if take is not None:
                        src.seek(0)
                        for offset, length in sequence():  # contiguous: read straight through
                            take(RunReader.parse(src.read(length), offset))
                    return count
                fd, tmp = tempfile.mkstemp(prefix=".results.jsonl.", suffix=".tmp", dir=self.root)
                count = 0
                try:
                    with os.fdopen(fd, "wb") as out:
                        for offset, length in sequence():
                            src.seek(offset)
                            raw = src.read(length)
                            if offset == 0 and raw.startswith(_BOM):
                                raw = raw[len(_BOM):]  # a byte-order mark belongs at the file's start only
                            out.write(raw if raw.endswith(b"\n") else raw + b"\n")
                            count += 1
                            if take is not None:
                                take(RunReader.parse(raw, 1))
                    os.chmod(tmp, 0o666 & ~_umask())
                    os.replace(tmp, path)
                except BaseException:
                    Path(tmp).unlink(missing_ok=True)
                    raise
        except OSError as exc:
            raise _naming(exc, path) from exc
        return count

    def parquet_writer(self, batch_rows: int = 1024) -> Any:
        """A :class:`~evalkit.harness.table.ParquetBatches` that writes ``results.parquet`` of this run."""
        from evalkit.harness.table import ParquetBatches

        return ParquetBatches(self.root / "results.parquet", batch_rows=batch_rows)

    def write_parquet(self, rows: Iterable[dict[str, Any]]) -> None:
        """Write the results table as Parquet (atomically, in batches)."""
        with self.parquet_writer() as writer:
            for row in rows:
                writer.add(row)


_BOM = b"\xef\xbb\xbf"


SPENT_SUMS = ("input_tokens", "output_tokens", "cost_usd", "replayed_cost_usd")
"""Totals an errored episode spent that its re-run adds to its own (``None``, unknown, stays unknown)."""
SPENT_PARTS = ("cached_input_tokens", "cache_write_tokens", "reasoning_tokens")
"""Parts summed where reported (``None`` only when neither row reported them)."""
SPENT_COUNTS = ("usage_missing", "model_calls", "retries")
"""Counts added up (``usage_inconsistent`` and ``model_mismatch`` too: :data:`SPENT_FLAG_COUNTS`)."""
SPENT_FLAG_COUNTS = ("usage_inconsistent", "model_mismatch", "unknown_stop_reason", "model_invalid")
"""Counts of calls whose billing is flagged, added up like :data:`SPENT_COUNTS`. Counts of what
the episode's scoring read (``unknown_content_blocks``, ``undecodable_text``) are not spend: they
stay the new row's own, the counts of the responses in its own trace."""
SPENT_LISTS = ("cost_flags", "answered_models")
"""Lists merged (each entry once, the new row's first)."""


def carry_spend(row: dict[str, Any], old: dict[str, Any]) -> dict[str, Any]:
    """``row`` with the spend of the errored row ``old`` of the same episode that it supersedes on
    resume: the old tokens and money are added to the totals (``input_tokens``, ``output_tokens``,
    ``cost_usd``, ``replayed_cost_usd``) and to the failed-attempt share (``retry_input_tokens``,
    ``retry_output_tokens``, ``retry_cost_usd``: the errored run was a failed attempt of this
    episode), its ``usage_missing``, ``model_calls``, ``retries`` and flagged-call counts to the
    counts, its ``cost_flags`` and ``answered_models`` to the lists; money is rounded to 10
    decimals. An unknown amount -- ``None``, a field the old row lacks, or a value that is no
    amount (a string, a bool, a negative or non-finite number: a row edited by hand) -- makes the
    sum unknown, never 0; an unknown token count also counts once in ``usage_missing`` when the old row did
    not count it (a null cost with known tokens, a model with no price, does not: usage was reported).
    ``resumed_over_error`` counts the errored rows so carried.
    """
    def amount(value: Any) -> Any:
        ok = type(value) in (int, float) and math.isfinite(value) and value >= 0
        return value if ok else None

    def add(a: Any, b: Any, money: bool) -> Any:
        if a is None or b is None:
            return None
        return round(a + b, 10) if money else a + b

    def tally(value: Any) -> int:
        return value if type(value) is int and value >= 0 else 0

    out = dict(row)
    # usage is unknown when a token count is; a null cost with known tokens is a model with no price (the sum's
    # cost is then null, as the new row's is), not usage missing
    old_unknown = any(amount(old.get(name)) is None for name in ("input_tokens", "output_tokens"))
    for name in SPENT_SUMS:
        out[name] = add(row.get(name), amount(old.get(name)), name.endswith("_usd"))
    for mine, theirs in (("retry_input_tokens", "input_tokens"), ("retry_output_tokens", "output_tokens"),
                         ("retry_cost_usd", "cost_usd")):
        out[mine] = add(row.get(mine), amount(old.get(theirs)), mine.endswith("_usd"))
    for name in SPENT_PARTS:
        a, b = row.get(name), amount(old.get(name))
        out[name] = a if b is None else b if a is None else a + b
    for name in (*SPENT_COUNTS, *SPENT_FLAG_COUNTS):
        out[name] = tally(row.get(name)) + tally(old.get(name))
    if old_unknown and tally(old.get("usage_missing")) == 0:
        out["usage_missing"] += 1  # an amount the old row did not give (or gave wrong) is unknown and counted
    for name in SPENT_LISTS:
        earlier: list[Any] = old[name] if isinstance(old.get(name), list) else []
        out[name] = list(dict.fromkeys([*(row.get(name) or []), *(x for x in earlier if isinstance(x, str))]))
    out["resumed_over_error"] = tally(row.get("resumed_over_error")) + 1 + tally(old.get("resumed_over_error"))
    return out
