"""The run directory: atomic files and an append-only results log.

Layout of ``DIR/``::

    config.json       the run manifest (config, evalkit version, suite hash, prompt hashes)
    traces/ID.jsonl   one event log per episode (JSON Lines)
    results.jsonl     one scored row per finished episode, appended and flushed per row
    results.parquet   the same rows as a table (written at the end of the run)
    summary.json      aggregate metrics (NaN is rejected: empty groups are null)
    selfcheck.json    pairs the oracle self-check excluded, with reasons
    report.html       the self-contained report

``ID`` is the episode id (:attr:`evalkit.harness.episode.EpisodeSpec.episode_id`): a readable
slug of the episode key plus a hash of the whole key, so two keys never share a trace file.

A new run goes only into a missing or empty folder or replaces an earlier run
(:func:`check_out_dir`); replacing removes only the files listed above.

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

OWNED = ("config.json", "results.jsonl", "results.parquet", "summary.json", "report.html", "selfcheck.json",
         "gate-junit.xml", "gate-summary.md")
"""The files evalkit writes at the top of a run directory (all it ever removes there, with
``traces/*.jsonl``)."""
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
    """Write ``data`` to ``path`` atomically (temp file in the same folder, then rename).

    Raises:
        OSError: naming ``path`` (a full disk, a read-only folder ...); ``path`` is unchanged.
    """
    p = Path(path)
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    except OSError as exc:
        raise _naming(exc, p) from exc
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, p)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        if isinstance(exc, OSError):
            raise _naming(exc, p) from exc
        raise


def _naming(exc: OSError, path: Path) -> OSError:
    """``exc`` with ``path`` as its file name (a failed ``write`` names no file)."""
    if exc.filename is not None and not str(exc.filename).endswith(".tmp"):
        return exc
    return type(exc)(exc.errno, exc.strerror or str(exc), str(path))


def looks_like_run_dir(path: str | Path) -> bool:
    """Whether ``path`` is laid out like a run directory: ``config.json`` plus
    ``results.jsonl`` or ``traces/`` (cheap: no file is read)."""
    p = Path(path)
    return (p / "config.json").is_file() and ((p / "results.jsonl").is_file() or (p / "traces").is_dir())


def read_manifest(path: str | Path) -> dict[str, Any] | None:
    """The run manifest in ``path/config.json``, or ``None`` when there is none (missing,
    unreadable, or not an object with ``evalkit_version`` and ``config``)."""
    try:
        data = json.loads((Path(path) / "config.json").read_bytes().decode("utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    if isinstance(data, dict) and "evalkit_version" in data and isinstance(data.get("config"), dict):
        return data
    return None


def check_out_dir(path: str | Path) -> dict[str, Any] | None:
    """Check that a new run may be written to ``path`` before any work starts.

    A new run goes into a missing or empty folder (entries whose names start with ``.`` do
    not count) or replaces the earlier run in a run directory; evalkit never writes into, or
    removes anything from, a folder that holds other files.

    Returns:
        The earlier run's manifest when ``path`` is a run directory (the caller warns that it
        is replaced), else ``None``.

    Raises:
        RunError: ``path`` is empty, a file, under a file, not writable, or a non-empty
            folder that is not a run directory.
    """
    from evalkit.errors import RunError

    if str(path) == "":
        raise RunError("--out is empty; give the run directory's path")
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise RunError(f"{p}: is a file, not a folder; choose another --out")
    ancestor = p
    while not ancestor.exists():
        if ancestor.parent == ancestor:
            break
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise RunError(f"{ancestor}: is a file, so {p} cannot be created; choose another --out")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise RunError(f"{ancestor}: not writable (permission denied); choose another --out")
    if not p.exists():
        return None
    manifest = read_manifest(p)
    if manifest is not None:
        return manifest
    try:
        others = sorted(e.name for e in p.iterdir() if not e.name.startswith("."))
    except OSError as exc:
        raise RunError(f"{p}: cannot list the folder ({exc.strerror})") from None
    if others:
        shown = ", ".join(others[:3]) + (", ..." if len(others) > 3 else "")
        raise RunError(f"{p}: not empty ({shown}) and not an evalkit run directory; "
                       "choose a new or empty folder for --out")
    return None


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

        Raises:
            OSError: naming ``results.jsonl`` (e.g. a full disk).
        """
        line = json.dumps(row, ensure_ascii=False, allow_nan=False) + "\n"
        with self._lock:
            try:
                self._results_fh.write(line)
                self._results_fh.flush()
            except OSError as exc:
                raise _naming(exc, self.root / "results.jsonl") from exc

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
        try:
            frame.to_parquet(tmp, index=False)
            os.replace(tmp, self.root / "results.parquet")
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            raise _naming(exc, self.root / "results.parquet") from exc
