"""The results table of a run (``results.parquet``), written in batches.

:class:`ParquetBatches` takes result rows one at a time and keeps at most one batch in
memory, so the table of a 100k-episode run costs no more memory than that of a 1k one
(:meth:`evalkit.harness.store.RunStore.parquet_writer`; :func:`evalkit.pipeline.finish`).
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path
from typing import Any

from evalkit.harness.atomic import _naming
from evalkit.harness.store import ResultsWarning
from evalkit.records import table_row


ROW_GROUP_ROWS = 8192
"""Rows per Parquet row group of ``results.parquet``: the file's footer keeps metadata per row
group and column, so small groups would make the memory of writing it grow with the run."""


def _as_text(value: Any) -> str | None:
    """A value of a mixed-type column as text: strings as they are, others as JSON; a lone
    surrogate (not UTF-8, e.g. from a hand-edited ``\\ud800``) becomes U+FFFD."""
    if value is None:
        return None
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


_UNWRITABLE = (OverflowError, UnicodeEncodeError)
"""Values Arrow cannot take besides mixed types: an integer beyond 64 bits, a lone surrogate."""


class ParquetBatches:
    """Writes result rows to a Parquet file in batches, so memory does not grow with the run.

    Rows are buffered ``batch_rows`` at a time; each full batch becomes an Arrow table in a
    temporary part file next to the target. :meth:`close` unifies the parts' schemas (a
    column that is all null in one batch and text in another becomes text; int and float
    become float; a column missing from a batch is null there), writes one file with a
    ``pyarrow.parquet.ParquetWriter``, part by part, and renames it into place. Column order
    is the order fields were first seen. Use as a context manager: an exception discards the
    parts and leaves any earlier file unchanged.

    Args:
        path: The Parquet file to write.
        batch_rows: Rows per batch.

    Raises:
        OSError: naming ``path`` when a part or the file cannot be written.
    """

    def __init__(self, path: str | Path, *, batch_rows: int = 1024):
        self.path = Path(path)
        self.batch_rows = batch_rows
        self._rows: list[dict[str, Any]] = []
        self._parts: list[Path] = []
        self._names: dict[str, None] = {}
        self._as_text: set[str] = set()

    def __enter__(self) -> "ParquetBatches":
        return self

    def __exit__(self, kind: Any, exc: Any, tb: Any) -> None:
        if kind is None:
            self.close()
        else:
            self.discard()

    def add(self, row: dict[str, Any]) -> None:
        """Buffer one row (its nested fields as JSON text: :func:`evalkit.records.table_row`);
        writes a part when the batch is full."""
        self._rows.append(table_row(row))
        if len(self._rows) >= self.batch_rows:
            self._flush()

    def _flush(self) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        if not self._rows:
            return
        for row in self._rows:
            for name in row:
                if name not in self._names:
                    self._names[name] = None
        columns = {name: [r.get(name) for r in self._rows] for name in self._names}
        try:
            table = pa.Table.from_pydict(columns)
        except (pa.ArrowInvalid, pa.ArrowTypeError, *_UNWRITABLE):  # values of different JSON types, …
            table = pa.Table.from_pydict({name: self._column(name, values) for name, values in columns.items()})
        part = self.path.with_name(f".{self.path.name}.{os.getpid()}.part{len(self._parts)}.tmp")
        try:
            pq.write_table(table, part, compression="none")
        except OSError as exc:
            raise _naming(exc, self.path) from exc
        self._parts.append(part)
        self._rows = []

    def _column(self, name: str, values: list[Any]) -> Any:
        """``values`` as an Arrow array; values of mixed JSON types become JSON text (with a
        :class:`ResultsWarning`: the column is text in the whole file)."""
        import pyarrow as pa

        if name not in self._as_text:
            try:
                return pa.array(values)
            except (pa.ArrowInvalid, pa.ArrowTypeError, *_UNWRITABLE):
                self._as_text.add(name)
                warnings.warn(f"{self.path}: field {name} holds values of different types (or ones Arrow cannot "
                              "store); it is written as JSON text", ResultsWarning, stacklevel=4)
        return pa.array([_as_text(v) for v in values], pa.string())

    def close(self) -> None:
        """Write the file from the parts and remove them."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        self._flush()
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        try:
            schemas = [pq.read_schema(p) for p in self._parts]
            for name in self._names:  # a field whose types differ between parts becomes text
                fields = [sc.field(name) for sc in schemas if name in sc.names and name not in self._as_text]
                try:
                    pa.unify_schemas([pa.schema([f]) for f in fields], promote_options="permissive")
                except (pa.ArrowInvalid, pa.ArrowTypeError):
                    self._column(name, [[], ""])  # marks it (and warns)
            if schemas:
                unified = pa.unify_schemas([pa.schema([f for f in sc if f.name not in self._as_text])
                                            for sc in schemas], promote_options="permissive")
                schema = pa.schema([pa.field(name, pa.string()) if name in self._as_text else unified.field(name)
                                    for name in self._names])
            else:
                schema = pa.schema([])
            with pq.ParquetWriter(tmp, schema) as writer:
                group: list[Any] = []  # part tables of the next row group
                for part in self._parts:
                    with pq.ParquetFile(part) as source:  # (pq.read_table's dataset reader keeps memory per file)
                        table = source.read(use_threads=False)
                    columns = []
                    for f in schema:
                        if f.name not in table.column_names:
                            columns.append(pa.nulls(table.num_rows, f.type))
                        elif f.name in self._as_text and table.schema.field(f.name).type != pa.string():
                            columns.append(pa.array([_as_text(v) for v in table.column(f.name).to_pylist()],
                                                    pa.string()))
                        else:
                            columns.append(table.column(f.name).cast(f.type))
                    group.append(pa.Table.from_arrays(columns, schema=schema))
                    if sum(t.num_rows for t in group) >= ROW_GROUP_ROWS:
                        writer.write_table(pa.concat_tables(group), row_group_size=ROW_GROUP_ROWS)
                        group = []
                if group:
                    writer.write_table(pa.concat_tables(group), row_group_size=ROW_GROUP_ROWS)
            os.replace(tmp, self.path)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            raise _naming(exc, self.path) from exc
        finally:
            self.discard()

    def discard(self) -> None:
        """Remove the part files (the target file is left as it was)."""
        for part in self._parts:
            part.unlink(missing_ok=True)
        self._parts = []
        self._rows = []
