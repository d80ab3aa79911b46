"""The run directory: atomic files and an append-only results log.

Layout of ``DIR/``::

    config.json       the run manifest (config, evalkit version, suite hash, prompt hashes)
    traces/ID.jsonl   one event log per episode (JSON Lines)
    results.jsonl     one scored row per finished episode, appended and flushed per row
    results.parquet   the same rows as a table (written at the end of the run)
    summary.json      aggregate metrics (NaN is rejected: empty groups are null)
    report.html       the self-contained report

Whole files are written to a temporary file in the same folder and renamed into place,
so a reader never sees a half-written file. ``results.jsonl`` is the one file appended to:
each row is written with one ``write`` and flushed, so a killed run leaves at most one
half-written last line, which readers ignore with a :class:`ResultsWarning`.

Resuming (field case C27): one record counts per episode key (pair, variant, model,
condition, gate, epoch), the last one written; an errored record is superseded by a later
retry without a warning, a second record for an episode that had finished ok is kept once
with a warning. :meth:`RunStore.compact` rewrites the file with one line per key before a
resumed run appends to it.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
import warnings
from pathlib import Path
from typing import Any, Iterable

OWNED = ("config.json", "results.jsonl", "results.parquet", "summary.json", "report.html")
KEY_FIELDS = ("pair_id", "variant", "model", "condition", "gate", "epoch")
"""Fields of a result row that identify its episode in the run plan."""


class ResultsWarning(UserWarning):
    """Something in ``results.jsonl`` was ignored or superseded (a half-written line, a
    duplicate record)."""


def result_key(row: dict[str, Any]) -> tuple:
    """The episode key of a result row: ``(pair_id, variant, model, condition, gate, epoch)``."""
    return tuple(row[f] for f in KEY_FIELDS)


def latest_by_key(rows: Iterable[dict[str, Any]], *, source: str = "results") -> dict[tuple, dict[str, Any]]:
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
    out: dict[tuple, dict[str, Any]] = {}
    rerun = 0
    example = None
    for row in rows:
        key = result_key(row)
        before = out.get(key)
        if before is not None and before.get("status") == "ok":
            rerun += 1
            example = example or key
        out[key] = row
    if rerun:
        warnings.warn(
            f"{source}: {rerun} finished episode(s) were recorded again (e.g. {'/'.join(map(str, example))}); "
            "keeping one record each, the last",
            ResultsWarning,
            stacklevel=2,
        )
    return out


def write_atomic(path: str | Path, data: str | bytes) -> None:
    """Write ``data`` to ``path`` atomically (temp file in the same folder, then rename)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, p)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def dump_json(obj: Any) -> str:
    """JSON text with NaN and Infinity rejected (``ValueError``), non-ASCII kept."""
    return json.dumps(obj, indent=2, ensure_ascii=False, allow_nan=False, sort_keys=False) + "\n"


class RunStore:
    """Files of one run directory.

    Args:
        root: The run directory (created if missing).
    """

    def __init__(self, root: str | Path):
        self.root = Path(root)
        self.traces = self.root / "traces"
        self._results_fh: Any = None
        self._lock = threading.Lock()

    def reset(self) -> None:
        """Remove the files a previous run left here (only evalkit's own files)."""
        for name in OWNED:
            (self.root / name).unlink(missing_ok=True)
        if self.traces.is_dir():
            for f in self.traces.glob("*.jsonl"):
                f.unlink()

    def open(self) -> None:
        self.traces.mkdir(parents=True, exist_ok=True)
        self._results_fh = open(self.root / "results.jsonl", "a", encoding="utf-8")

    def close(self) -> None:
        if self._results_fh is not None:
            self._results_fh.close()
            self._results_fh = None

    def write_trace(self, episode_id: str, jsonl: str) -> None:
        write_atomic(self.traces / f"{episode_id}.jsonl", jsonl)

    def append_result(self, row: dict[str, Any]) -> None:
        """Append one result row with a single write and flush it to the OS.

        Safe to call from several threads; rows may arrive in any order.
        """
        line = json.dumps(row, ensure_ascii=False, allow_nan=False) + "\n"
        with self._lock:
            self._results_fh.write(line)
            self._results_fh.flush()

    def write_json(self, name: str, obj: Any) -> None:
        write_atomic(self.root / name, dump_json(obj))

    def read_results(self) -> list[dict[str, Any]]:
        """Every row of ``results.jsonl``, in the order written (duplicates included).

        A half-written last line (a run killed mid-write) is ignored with a
        :class:`ResultsWarning`; so is any other line that is not a JSON object.
        """
        path = self.root / "results.jsonl"
        if not path.exists():
            return []
        text = path.read_text(encoding="utf-8", errors="replace")
        lines = text.split("\n")
        rows = []
        for lineno, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                if not isinstance(row, dict) or any(f not in row for f in KEY_FIELDS):
                    raise ValueError("not a result row")
            except ValueError:
                last = lineno == len(lines)
                what = "a half-written last line" if last else f"line {lineno}, which is not a result row"
                warnings.warn(f"{path}: ignored {what} ({len(line)} characters)", ResultsWarning, stacklevel=2)
                continue
            rows.append(row)
        return rows

    def latest_results(self) -> dict[tuple, dict[str, Any]]:
        """One row per episode key, the last written (see :func:`latest_by_key`)."""
        return latest_by_key(self.read_results(), source=str(self.root / "results.jsonl"))

    def completed_keys(self) -> set[tuple]:
        """Keys of the episodes whose last record finished without error.

        A resumed run skips these; errored and missing episodes run again.
        """
        return {k for k, r in self.latest_results().items() if r.get("status") == "ok"}

    def compact(self, rows: Iterable[dict[str, Any]]) -> None:
        """Atomically rewrite ``results.jsonl`` with exactly ``rows`` (one line each)."""
        self.close()
        text = "".join(json.dumps(r, ensure_ascii=False, allow_nan=False) + "\n" for r in rows)
        write_atomic(self.root / "results.jsonl", text)

    def write_parquet(self, rows: Iterable[dict[str, Any]]) -> None:
        """Write the results table as Parquet (atomically)."""
        import pandas as pd

        frame = pd.DataFrame(list(rows))
        tmp = self.root / ".results.parquet.tmp"
        frame.to_parquet(tmp, index=False)
        os.replace(tmp, self.root / "results.parquet")
