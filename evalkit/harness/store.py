"""The run directory: atomic files and an append-only results log.

Layout of ``DIR/``::

    config.json       the run manifest (config, evalkit version, suite hash, prompt hashes)
    traces/ID.jsonl   one event log per episode (JSON Lines)
    results.jsonl     one scored row per finished episode, appended and flushed per row
    results.parquet   the same rows as a table (written at the end of the run)
    summary.json      aggregate metrics (NaN is rejected: empty groups are null)
    report.html       the self-contained report

Whole files are written to a temporary file in the same folder and renamed into place,
so a reader never sees a half-written file.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any, Iterable

OWNED = ("config.json", "results.jsonl", "results.parquet", "summary.json", "report.html")


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
        """Append one result row and flush it to the OS."""
        self._results_fh.write(json.dumps(row, ensure_ascii=False, allow_nan=False) + "\n")
        self._results_fh.flush()

    def write_json(self, name: str, obj: Any) -> None:
        write_atomic(self.root / name, dump_json(obj))

    def read_results(self) -> list[dict[str, Any]]:
        """Rows of ``results.jsonl``; a half-written last line is skipped."""
        path = self.root / "results.jsonl"
        if not path.exists():
            return []
        rows = []
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError:
                continue
        return rows

    def write_parquet(self, rows: Iterable[dict[str, Any]]) -> None:
        """Write the results table as Parquet (atomically)."""
        import pandas as pd

        frame = pd.DataFrame(list(rows))
        tmp = self.root / ".results.parquet.tmp"
        frame.to_parquet(tmp, index=False)
        os.replace(tmp, self.root / "results.parquet")
