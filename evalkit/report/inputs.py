"""Reading a run directory for the report, refusing malformed files with one clear line.

The report reads ``summary.json`` (every number shown), ``config.json`` (the run manifest,
optional), the result rows (``results.parquet``, else ``results.jsonl``) and some traces, all
through the run directory's reader (:class:`evalkit.harness.run_reader.RunReader`). Each
input is checked here before anything is drawn: a file that cannot be read, is not UTF-8 or
JSON, or has the wrong shape is a :class:`~evalkit.errors.RunError` naming the file (and the
row and field where it helps). Shapes are pydantic models of the fields the report indexes;
other fields pass through untouched. Traces are read leniently (:mod:`evalkit.report.traces`):
a bad trace line is skipped, never fatal.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, get_type_hints

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError, create_model

from evalkit.errors import RunError
from evalkit.harness.run_reader import RunReader
from evalkit.records import KEY_FIELDS, EpisodeResult, as_result
from evalkit.report.rows import INDEX_COLUMNS, KIND_INPUTS, ResultTable, is_list, is_text


class _Loose(BaseModel):
    model_config = ConfigDict(extra="allow")


class SummaryRow(_Loose):
    """A ``summary.json`` row as the report indexes it (one model × condition × gate)."""

    model: str
    condition: str
    gate: str
    paired_accuracy: float | None = None
    epochs: int = 1
    lag_hist: dict[int, Any] | None = None


class SummaryShape(_Loose):
    """The parts of ``summary.json`` the report walks (written by :mod:`evalkit.metrics.summary`)."""

    rows: list[SummaryRow]
    settings: dict[str, Any] = {}
    breakdowns: dict[str, list[dict[str, Any]]] = {}
    comparisons: list[dict[str, Any]] = []


class ManifestShape(_Loose):
    """The parts of ``config.json`` (the run manifest) the report shows."""

    config: dict[str, Any] = {}
    suite: dict[str, Any] | None = None
    created: str | None = None


def _result_row_model() -> type[BaseModel]:
    """:class:`ResultRow`: the fields of :class:`~evalkit.records.EpisodeResult` the report
    indexes, with the record's own types — the episode key, ``episode_id`` and ``status``
    required, the others optional (``null`` or absent in a row of an earlier or partial run)."""
    hints = get_type_hints(EpisodeResult)
    fields: dict[str, Any] = {name: (hints[name], ...) for name in (*KEY_FIELDS, "episode_id", "status")}
    fields.update({name: (hints[name] | None, None) for name in ("correct", "reason_codes", "final_text")})
    # any JSON list: the report shows the entries as they are (older runs held other shapes)
    fields["unsupported_args"] = (list[Any] | None, None)
    return create_model("ResultRow", __base__=_Loose, **fields)


ResultRow = _result_row_model()
"""A result row as the report indexes it (:func:`evalkit.metrics.scoring.score_episode`)."""

_ROWS: TypeAdapter[list[Any]] = TypeAdapter(list[ResultRow])  # type: ignore[valid-type]


def _field(loc: tuple[Any, ...]) -> str:
    return ".".join(str(x) for x in loc) or "(top level)"


def read_json(path: Path) -> dict[str, Any]:
    """The JSON object in ``path`` (:meth:`evalkit.harness.run_reader.RunReader.read_json`).

    Raises:
        RunError: the file is missing or unreadable, not UTF-8, not JSON, or not an object.
    """
    return RunReader(path.parent).read_json(path.name)


def load_summary(root: Path) -> dict[str, Any]:
    """``root/summary.json``, checked against :class:`SummaryShape` (the file's own dict is returned).

    Raises:
        RunError: naming the file and the first wrong field.
    """
    path = root / "summary.json"
    summary = read_json(path)
    try:
        SummaryShape.model_validate(summary)
    except ValidationError as exc:
        err = exc.errors()[0]
        raise RunError(f"{path}: field {_field(err['loc'])}: {err['msg']}") from None
    return summary


def load_manifest(root: Path) -> dict[str, Any]:
    """``root/config.json`` checked against :class:`ManifestShape`, or ``{}`` when there is none.

    Raises:
        RunError: naming the file and the first wrong field.
    """
    path = root / "config.json"
    if not path.exists():
        return {}
    manifest = read_json(path)
    try:
        ManifestShape.model_validate(manifest)
    except ValidationError as exc:
        err = exc.errors()[0]
        raise RunError(f"{path}: field {_field(err['loc'])}: {err['msg']}") from None
    return manifest


def load_rows(root: Path, columns: tuple[str, ...]) -> ResultTable:
    """The result rows (``results.parquet``, else ``results.jsonl``: one per episode key),
    only ``columns``, checked against :class:`ResultRow`; an empty table when neither file
    exists.

    Rows are held as columns (:class:`~evalkit.report.rows.ResultTable`): memory grows by a
    few bytes per row, not by a row's dict, and full rows are read back only for the rows the
    report picks. A Parquet file whose column types already guarantee :class:`ResultRow`
    (as evalkit writes it) is not checked row by row; any other file is, a batch at a time.

    Raises:
        RunError: naming the file (and the row and field) of an unreadable or malformed input.
    """
    parquet = root / "results.parquet"
    if parquet.exists():
        return _parquet_rows(parquet, columns)
    if (root / "results.jsonl").exists():
        return _jsonl_rows(root, columns)
    return ResultTable.empty()


_BATCH = 4096
"""Rows checked (and, from ``results.jsonl``, read) at a time."""


def _check(rows: list[dict[str, Any]], start: int, source: Path) -> list[Any]:
    """``rows`` (the ``start``-th row of ``source`` first) validated as :class:`ResultRow`."""
    try:
        return _ROWS.validate_python(rows)
    except ValidationError as exc:
        err = exc.errors()[0]
        index, *field = err["loc"]
        raise RunError(f"{source}: row {start + int(index) + 1}: field {_field(tuple(field))}: {err['msg']}") from None


def _types_suffice(schema: Any, wanted: list[str], index: Any) -> bool:
    """Whether every row of a Parquet file (its columns ``wanted``) passes :class:`ResultRow` by
    the column types (and the null counts of the required columns, read in ``index``) alone."""
    import pyarrow as pa
    import pyarrow.compute as pc

    for name, field in ResultRow.model_fields.items():
        required = field.is_required()
        if name not in wanted:
            if required:
                return False
            continue
        kind = schema.field(name).type
        kind = kind.value_type if pa.types.is_dictionary(kind) else kind
        col = index.column(name) if name in index.column_names else None
        if required and (col is None or col.null_count):
            return False
        if pa.types.is_null(kind):
            ok = not required
        elif field.annotation in (str, str | None):
            ok = is_text(kind)
        elif field.annotation is int:
            ok = pa.types.is_integer(kind)
        elif field.annotation == bool | None:
            ok = pa.types.is_boolean(kind)
        elif field.annotation == list[Any] | None:
            ok = is_list(kind)
        elif field.annotation == list[str] | None and col is not None and is_list(kind):
            flat = pc.list_flatten(col)
            ok = not len(flat) or (is_text(flat.type) and not flat.null_count)
        else:
            ok = False
        if not ok:
            return False
    return True


def _unreadable(parquet: Path, exc: Exception) -> RunError:
    reason = " ".join(str(exc).split())[:200]
    return RunError(f"{parquet}: not a readable Parquet file ({reason}); delete it to render from results.jsonl")


def _parquet_rows(parquet: Path, columns: tuple[str, ...]) -> ResultTable:
    try:
        import numpy as np
        import pyarrow as pa
        import pyarrow.parquet as pq

        with pq.ParquetFile(parquet) as pf:
            schema = pf.schema_arrow
            wanted = [c for c in columns if c in schema.names]
            indexed = [c for c in INDEX_COLUMNS if c in wanted]
            if "failure_kind" not in schema.names:  # written before the column: computed from its inputs
                indexed += [c for c in KIND_INPUTS if c in wanted and c not in indexed]
            index = pa.concat_tables([pf.read_row_group(g, columns=indexed)
                                     for g in range(pf.num_row_groups)] or [pf.schema_arrow.empty_table()])
            if not _types_suffice(schema, wanted, index):
                checked = [c for c in wanted if c in ResultRow.model_fields]
                start = 0
                for batch in pf.iter_batches(batch_size=_BATCH, columns=checked):
                    _check(batch.to_pylist(), start, parquet)
                    start += batch.num_rows
            bounds = np.cumsum([0] + [pf.metadata.row_group(g).num_rows for g in range(pf.num_row_groups)])
    except RunError:
        raise
    except Exception as exc:  # noqa: BLE001 - pyarrow raises ArrowInvalid, OSError ... for a damaged file
        raise _unreadable(parquet, exc) from None
    if not index.num_rows:  # the columns of a file of no rows may be missing
        return ResultTable.empty()

    def fetch(positions: list[int]) -> list[dict[str, Any]]:
        """The rows at ``positions`` (ascending), reading only the row groups holding them."""
        groups = np.searchsorted(bounds, positions, side="right") - 1
        out: list[dict[str, Any]] = []
        try:
            with pq.ParquetFile(parquet) as pf:
                for g in dict.fromkeys(groups.tolist()):
                    local = [p - int(bounds[g]) for p, pg in zip(positions, groups.tolist()) if pg == g]
                    out.extend(map(as_result, pf.read_row_group(g, columns=wanted).take(local).to_pylist()))
        except Exception as exc:  # noqa: BLE001 - as above
            raise _unreadable(parquet, exc) from None
        return out

    return ResultTable.from_arrow(index, fetch)


def _jsonl_rows(root: Path, columns: tuple[str, ...]) -> ResultTable:
    import numpy as np

    from evalkit.harness.store import RunStore

    reader = RunReader(root)
    jsonl = reader.jsonl
    try:
        refs = list(RunStore(root).scan_results().values())  # the last record of each key, in first-seen order
    except OSError as exc:
        raise RunError(f"{jsonl}: cannot read ({exc.strerror})") from None
    except (TypeError, ValueError) as exc:  # an unhashable key field, say
        raise RunError(f"{jsonl}: not a results file evalkit wrote ({exc})") from None
    offsets = np.array([r.offset for r in refs], dtype=np.int64)
    del refs

    def fetch(positions: Any) -> list[dict[str, Any]]:
        try:
            return [{k: row[k] for k in columns if k in row}
                    for row in reader.fetch(int(offsets[i]) for i in positions) if row is not None]
        except OSError as exc:
            raise RunError(f"{jsonl}: cannot read ({exc.strerror})") from None

    def batches() -> Any:
        for start in range(0, len(offsets), _BATCH):
            rows = fetch(range(start, min(start + _BATCH, len(offsets))))
            for row, checked in zip(rows, _check(rows, start, jsonl)):
                row["epoch"] = checked.epoch  # as validated (these copies only feed the table)
            yield rows

    return ResultTable.from_batches(batches(), fetch)


def trace_path(root: Path, episode_id: Any) -> Path | None:
    """``root/traces/EPISODE_ID.jsonl`` when ``episode_id`` is a plain file name, else ``None``
    (:meth:`evalkit.harness.run_reader.RunReader.trace_path`)."""
    return RunReader(root).trace_path(episode_id)
