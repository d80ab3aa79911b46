"""The one reader of a run directory: manifest, summary, result rows and traces.

The store (:mod:`evalkit.harness.store`) writes a run directory; everything that reads one
back goes through :class:`RunReader`: resuming and finishing a run, the report
(:mod:`evalkit.report.inputs`, :mod:`evalkit.report.rundata` and so :func:`evalkit.load_run`),
the gate (:mod:`evalkit.gate.results`, :mod:`evalkit.gate.rundir`) and the rules commands
(:mod:`evalkit.rules.evaluate`, :mod:`evalkit.rules.distill`). The layout is described in
:mod:`evalkit.harness.store`.

* ``config.json`` and ``summary.json``: :meth:`RunReader.read_json` (one clear
  :class:`~evalkit.errors.RunError` naming the file for a missing, unreadable, non-UTF-8 or
  non-JSON file, or one that is not an object; NaN and Infinity are not JSON);
  :meth:`RunReader.manifest` for the lenient read (``None`` when there is none).
* result rows, dicts of the :class:`~evalkit.records.EpisodeResult` schema
  (:func:`~evalkit.records.as_result`: nested fields typed, whether the file holds them as JSON values or, from earlier runs, as
  JSON text): :meth:`RunReader.records` streams the usable lines of ``results.jsonl`` with
  their places (a half-written last line, a line that is not a JSON object or a row with a bad
  field is skipped with a :class:`ResultsWarning`: :func:`~evalkit.metrics.summary.row_problem`),
  :meth:`RunReader.fetch` reads records again by place, :meth:`RunReader.latest` keeps the
  last record of each episode key (field case C27) and :meth:`RunReader.rows` gives them from
  ``results.jsonl``, else ``results.parquet`` (or the other way round).
* traces: :meth:`RunReader.trace_path` (only plain file names under ``traces/``).
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from evalkit.errors import RunError
from evalkit.harness.run_dir import read_manifest
from evalkit.metrics.summary import MAX_COUNT, row_problem
from evalkit.records import EpisodeKey, as_result

__all__ = ["IGNORED_LINES_SHOWN", "ResultsWarning", "RunReader", "decode_line", "latest_by_key"]

IGNORED_LINES_SHOWN = 5
"""Ignored lines of ``results.jsonl`` warned about one by one; the rest are counted in one warning."""


class ResultsWarning(UserWarning):
    """Something in ``results.jsonl`` was ignored or superseded (a half-written line, a
    duplicate record)."""


def decode_line(raw: bytes, offset: int) -> str:
    """A ``results.jsonl`` line as text: UTF-8 (bad bytes replaced), with a byte-order mark
    skipped on the file's first line (``offset`` 0), as an editor may have saved it."""
    return raw.decode("utf-8-sig" if offset == 0 else "utf-8", errors="replace")


def latest_by_key(rows: Iterable[dict[str, Any]], *, source: str = "results") -> dict[EpisodeKey, dict[str, Any]]:
    """One row per episode key: the last one (field case C27).

    A later row replacing an errored one is a retry and is silent; a later row replacing an
    ``ok`` one means a finished episode ran again: the later row is kept and a
    :class:`ResultsWarning` names the episode.

    Args:
        rows: Result rows in the order they were written.
        source: Name used in warnings.

    Returns:
        ``key → row``, in the order keys were first seen.
    """
    out: dict[EpisodeKey, dict[str, Any]] = {}
    rerun = 0
    example = None
    for row in rows:
        key = EpisodeKey.of(row)
        before = out.get(key)
        if before is not None and before.get("status") == "ok":
            rerun += 1
            example = example or key
        out[key] = row
    if rerun:
        warnings.warn(
            f"{source}: {rerun} finished episode(s) were recorded again (e.g. {'/'.join(map(str, example or ()))}); "
            "keeping one record each, the last",
            ResultsWarning,
            stacklevel=2,
        )
    return out


def _keyed(row: dict[str, Any]) -> bool:
    """Whether ``row`` has a usable episode key (every key field, each hashable, ``epoch`` a
    plausible integer, as :func:`~evalkit.metrics.summary.row_problem` checks it)."""
    try:
        key = EpisodeKey.of(row)
        hash(key)
    except (KeyError, TypeError):
        return False
    return type(row["epoch"]) is int and 0 < row["epoch"] <= MAX_COUNT


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not a JSON number")


class RunReader:
    """Reads the files of one run directory (nothing is cached: each call reads the file).

    Args:
        root: The run directory.

    Attributes:
        root: The run directory. ``jsonl``, ``parquet``: its results files; ``traces``: its
            trace folder.
    """

    def __init__(self, root: str | Path):
        self.root = Path(root)
        self.jsonl = self.root / "results.jsonl"
        self.parquet = self.root / "results.parquet"
        self.traces = self.root / "traces"

    def __repr__(self) -> str:
        return f"RunReader({str(self.root)!r})"

    # -- config.json, summary.json -------------------------------------------------------

    def read_json(self, name: str, *, missing: str | None = None) -> dict[str, Any]:
        """The JSON object in ``root/name``.

        Args:
            name: The file name (``summary.json``, ``config.json``).
            missing: What to say after the path when the file is missing; default: that the
                run did not finish (for ``summary.json`` of a run directory) or a question
                whether this is a run directory.

        Raises:
            RunError: naming the file: missing or unreadable, not UTF-8, not JSON (NaN and
                Infinity included), or not an object.
        """
        path = self.root / name
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            if missing is not None:
                raise RunError(f"{path}: missing; {missing}") from None
            if name == "summary.json" and (self.root / "config.json").is_file():
                raise RunError(f"{self.root}: no summary.json: the run did not finish; continue it with "
                               f"`evalkit run --resume {self.root}`") from None
            raise RunError(f"{self.root}: no {name} (is this a run directory written by `evalkit run`?)") from None
        except OSError as exc:
            raise RunError(f"{path}: cannot read ({exc.strerror})") from None
        try:
            obj = json.loads(data.decode("utf-8-sig"), parse_constant=_reject_constant)
        except UnicodeDecodeError as exc:
            raise RunError(f"{path}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})") from None
        except json.JSONDecodeError as exc:
            raise RunError(f"{path}: not valid JSON ({exc.msg}, line {exc.lineno})") from None
        except ValueError as exc:  # NaN, Infinity
            raise RunError(f"{path}: not valid JSON ({exc})") from None
        except RecursionError:
            raise RunError(f"{path}: not valid JSON (nested too deeply)") from None
        if not isinstance(obj, dict):
            raise RunError(f"{path}: expected a JSON object, found {type(obj).__name__ if obj is not None else 'null'}")
        return obj

    def manifest(self) -> dict[str, Any] | None:
        """``config.json`` (the run manifest), or ``None`` when there is none (missing,
        unreadable, or not an object with ``evalkit_version`` and ``config``:
        :func:`~evalkit.harness.run_dir.read_manifest`)."""
        return read_manifest(self.root)

    def config(self) -> dict[str, Any]:
        """The run's options as the manifest records them (its ``config``), ``{}`` without one."""
        manifest = self.manifest()
        return manifest["config"] if manifest is not None else {}

    # -- result rows ---------------------------------------------------------------------

    def records(self) -> Iterator[tuple[int, int, dict[str, Any]]]:
        """``(byte offset, length, row)`` of every usable line of ``results.jsonl``, in file
        order (nothing when there is no such file).

        A half-written last line (a run killed mid-write: no newline at its end) is skipped
        with a :class:`ResultsWarning`; so is any other line that is not a JSON object, or a
        row with a bad field (:func:`~evalkit.metrics.summary.row_problem`): the first
        :data:`IGNORED_LINES_SHOWN` one by one, the rest in one warning. The file is read
        line by line, never whole.
        """
        for start, length, row, problem in self.entries():
            if problem is None:
                yield start, length, row

    def entries(self, *, keep_checked: bool = False) -> Iterator[tuple[int, int, dict[str, Any], str | None]]:
        """``(byte offset, length, row, problem)`` of every result row of ``results.jsonl``,
        in file order: ``problem`` is what :func:`~evalkit.metrics.summary.row_problem` finds
        wrong with it, or ``None``.

        Args:
            keep_checked: Also yield a well-formed row (a JSON object with its episode key)
                that fails a field check, with its ``problem`` (the run's end keeps such a row
                in ``results.jsonl`` and counts it as missing); otherwise it is skipped.
                Either way it is warned about as :meth:`records` says. A line that is not a
                JSON object, or a row without a usable episode key, is always skipped.
        """
        path = self.jsonl
        if not path.exists():
            return
        offset = 0
        ignored = [0, 0, 0]  # lines ignored; first and last line number past the ones warned about

        def ignore(lineno: int, message: str) -> None:
            ignored[0] += 1
            if ignored[0] <= IGNORED_LINES_SHOWN:
                warnings.warn(message, ResultsWarning, stacklevel=5)
            else:
                ignored[1] = ignored[1] or lineno
                ignored[2] = lineno

        with open(path, "rb") as fh:
            for lineno, raw in enumerate(fh, 1):
                start, offset = offset, offset + len(raw)
                if not raw.strip():
                    continue
                try:
                    row = json.loads(decode_line(raw, start))
                    if not isinstance(row, dict):
                        raise ValueError("not a result row")
                except (ValueError, RecursionError):
                    what = ("a half-written last line" if not raw.endswith(b"\n")
                            else f"line {lineno}, which is not a result row (a JSON object)")
                    text = raw.decode("utf-8", errors="replace").rstrip("\n")
                    ignore(lineno, f"{path}: ignored {what} ({len(text)} characters)")
                    continue
                problem = row_problem(row)
                if problem is not None:
                    if keep_checked and _keyed(row):
                        ignore(lineno, f"{path}:{lineno}: a result row not counted: {problem} (kept in the file; "
                                       "its episode runs again on resume)")
                        yield start, len(raw), as_result(row), problem
                    else:
                        ignore(lineno, f"{path}:{lineno}: ignored a result row: {problem} (its episode runs again "
                                       "on resume)")
                    continue
                yield start, len(raw), as_result(row), None
        if ignored[0] > IGNORED_LINES_SHOWN:
            warnings.warn(f"{path}: ignored {ignored[0] - IGNORED_LINES_SHOWN} more line(s) like those (lines "
                          f"{ignored[1]} to {ignored[2]})", ResultsWarning, stacklevel=4)

    @staticmethod
    def parse(raw: bytes, offset: int) -> dict[str, Any]:
        """One record of ``results.jsonl`` (its bytes, found at ``offset``) as a row.

        Raises:
            ValueError: when the bytes are not a JSON object (the file changed since its
                records were found).
        """
        row = json.loads(decode_line(raw, offset))
        if not isinstance(row, dict):
            raise ValueError("not a result row")
        return as_result(row)

    def fetch(self, offsets: Iterable[int]) -> Iterator[dict[str, Any] | None]:
        """The record of ``results.jsonl`` at each byte offset (from :meth:`records`), in
        that order; ``None`` for a negative offset (no record).

        Raises:
            RunError: when a record is no longer where it was found (the file changed).
            OSError: when the file cannot be read.
        """
        with open(self.jsonl, "rb") as fh:
            for offset in offsets:
                if offset < 0:
                    yield None
                    continue
                fh.seek(offset)
                try:
                    row = self.parse(fh.readline(), offset)
                except (ValueError, RecursionError):
                    raise RunError(f"{self.jsonl}: changed while it was read; read the run again") from None
                yield row

    def latest(self) -> dict[EpisodeKey, dict[str, Any]]:
        """One row of ``results.jsonl`` per episode key, the last written (:func:`latest_by_key`),
        in the order keys were first seen; ``{}`` without the file."""
        return latest_by_key((row for _, _, row in self.records()), source=str(self.jsonl))

    def parquet_rows(self) -> list[dict[str, Any]]:
        """Every row of ``results.parquet``, in order.

        Raises:
            RunError: naming the file when it is not a readable Parquet file.
        """
        import pyarrow.parquet as pq

        try:
            rows = pq.read_table(self.parquet).to_pylist()
        except Exception as exc:  # noqa: BLE001 - pyarrow raises ArrowInvalid, OSError ... for a damaged file
            raise RunError(f"{self.parquet}: not a readable Parquet file ({' '.join(str(exc).split())[:200]})") \
                from None
        return [as_result(r) for r in rows]

    def rows(self, *, prefer: str = "jsonl") -> list[dict[str, Any]]:
        """The run's result rows, one per episode key: the last records of ``results.jsonl``
        (:meth:`latest`) or the rows of ``results.parquet`` (one per key as the run wrote it),
        whichever of the two ``prefer`` names exists, else the other.

        Args:
            prefer: ``"jsonl"`` or ``"parquet"``.

        Raises:
            RunError: when the run has neither file, or it cannot be read.
        """
        order = (self.parquet, self.jsonl) if prefer == "parquet" else (self.jsonl, self.parquet)
        for path in order:
            if not path.is_file():
                continue
            if path == self.parquet:
                return self.parquet_rows()
            try:
                return list(self.latest().values())
            except OSError as exc:
                raise RunError(f"{path}: cannot read ({exc.strerror})") from None
        raise RunError(f"{self.root}: no results.jsonl or results.parquet (is this a run directory written by "
                       "`evalkit run`?)")

    # -- traces --------------------------------------------------------------------------

    def trace_path(self, episode_id: Any) -> Path | None:
        """``root/traces/EPISODE_ID.jsonl`` when ``episode_id`` is a plain file name, else
        ``None`` (a row cannot point a reader at a file outside ``traces/``)."""
        if not isinstance(episode_id, str) or not episode_id or episode_id.startswith(".") or \
                any(c in episode_id for c in "/\\\0"):
            return None
        return self.traces / f"{episode_id}.jsonl"
