"""The result rows of a run directory as the gate reads them: one at a time, and again by place.

:class:`JsonlRows` reads ``results.jsonl`` through the run directory's reader
(:class:`evalkit.harness.run_reader.RunReader`: a half-written last line, a line that is not a
result row or a row with a bad field is skipped with a ``ResultsWarning``) and finds a record
again by its byte offset; :class:`ParquetRows` does the same for ``results.parquet`` (a run
directory without ``results.jsonl``) by row number. Neither holds the rows: a caller keeps the
places it needs (:class:`evalkit.gate.rundir.RunDir`).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from evalkit.harness.run_reader import ResultsWarning, RunReader
from evalkit.metrics.summary import row_problem
from evalkit.records import as_result

__all__ = ["JsonlRows", "ParquetRows"]

FETCH_CHUNK = 1024
"""Rows of ``results.parquet`` taken from its table at a time (:meth:`ParquetRows.fetch`)."""


class JsonlRows:
    """``results.jsonl`` read one record at a time; a record is found again by its byte offset.

    Args:
        root: The run directory.
    """

    def __init__(self, root: Path):
        self.reader = RunReader(root)
        self.path = self.reader.jsonl

    def scan(self) -> Iterator[tuple[int, dict[str, Any]]]:
        """``(byte offset, row)`` of every usable record, in file order; broken lines are
        skipped with a ``ResultsWarning`` (:meth:`~evalkit.harness.run_reader.RunReader.records`)."""
        for offset, _, row in self.reader.records():
            yield offset, row

    def fetch(self, refs: Iterable[int]) -> Iterator[dict[str, Any] | None]:
        """The row at each byte offset of ``refs`` (``None`` for ``-1``), in that order.

        Raises:
            RunError: when a record is no longer where :meth:`scan` found it (the file
                changed while the gate read it).
        """
        yield from self.reader.fetch(refs)


class ParquetRows:
    """``results.parquet`` (a run directory without ``results.jsonl``), held as its Arrow
    table (columnar) and read as rows a batch at a time; a record is found by its row number.

    Args:
        path: The Parquet file.
    """

    def __init__(self, path: Path):
        import pyarrow.parquet as pq

        self.path = path
        self.table = pq.read_table(path)

    def scan(self) -> Iterator[tuple[int, dict[str, Any]]]:
        """``(row number, row)`` of every usable row, in file order; a row that is not a
        result row (:func:`~evalkit.metrics.summary.row_problem`) is skipped with a warning."""
        number = 0
        for batch in self.table.to_batches():
            for row in batch.to_pylist():
                problem = row_problem(row)
                if problem is None:
                    yield number, as_result(row)
                else:
                    warnings.warn(f"{self.path}: row {number + 1}: ignored a result row: {problem}", ResultsWarning,
                                  stacklevel=2)
                number += 1

    def fetch(self, refs: Iterable[int]) -> Iterator[dict[str, Any] | None]:
        """The row at each row number of ``refs`` (``None`` for ``-1``), in that order."""
        chunk: list[int] = []

        def flush() -> Iterator[dict[str, Any] | None]:
            wanted = [ref for ref in chunk if ref >= 0]
            rows = iter(self.table.take(wanted).to_pylist() if wanted else [])
            for ref in chunk:
                yield as_result(next(rows)) if ref >= 0 else None
            chunk.clear()

        for ref in refs:
            chunk.append(ref)
            if len(chunk) >= FETCH_CHUNK:
                yield from flush()
        yield from flush()
