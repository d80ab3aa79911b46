"""Reading a run directory for the report, refusing malformed files with one clear line.

The report reads ``summary.json`` (every number shown), ``config.json`` (the run manifest,
optional), the result rows (``results.parquet``, else ``results.jsonl``) and some traces. Each
input is checked here before anything is drawn: a file that cannot be read, is not UTF-8 or
JSON, or has the wrong shape is a :class:`~evalkit.errors.RunError` naming the file (and the
row and field where it helps). Shapes are pydantic models of the fields the report indexes;
other fields pass through untouched. Traces are read leniently (:mod:`evalkit.report.traces`):
a bad trace line is skipped, never fatal.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

from evalkit.errors import RunError


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


class ResultRow(_Loose):
    """A result row as the report indexes it (:func:`evalkit.metrics.scoring.score_episode`)."""

    episode_id: str
    pair_id: str
    variant: str
    model: str
    condition: str
    gate: str
    epoch: int
    status: str
    correct: bool | None = None
    reason_codes: list[str] | None = None
    unsupported_args: list[Any] | None = None
    final_text: str | None = None


_ROWS = TypeAdapter(list[ResultRow])


def _field(loc: tuple[Any, ...]) -> str:
    return ".".join(str(x) for x in loc) or "(top level)"


def read_json(path: Path) -> dict[str, Any]:
    """The JSON object in ``path``.

    Raises:
        RunError: the file is missing or unreadable, not UTF-8, not JSON, or not an object.
    """
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise RunError(f"{path.parent}: no {path.name} (is this a run directory written by `evalkit run`?)") from None
    except OSError as exc:
        raise RunError(f"{path}: cannot read ({exc.strerror})") from None
    try:
        obj = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise RunError(f"{path}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise RunError(f"{path}: not valid JSON ({exc.msg}, line {exc.lineno})") from None
    except RecursionError:
        raise RunError(f"{path}: not valid JSON (nested too deeply)") from None
    if not isinstance(obj, dict):
        raise RunError(f"{path}: expected a JSON object, found {type(obj).__name__ if obj is not None else 'null'}")
    return obj


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


def load_rows(root: Path, columns: tuple[str, ...]) -> list[dict[str, Any]]:
    """The result rows (``results.parquet``, else ``results.jsonl``: one per episode key),
    only ``columns``, checked against :class:`ResultRow`; ``[]`` when neither file exists.

    Raises:
        RunError: naming the file (and the row and field) of an unreadable or malformed input.
    """
    parquet = root / "results.parquet"
    jsonl = root / "results.jsonl"
    if parquet.exists():
        source = parquet
        try:
            import pyarrow.parquet as pq

            names = set(pq.read_schema(parquet).names)
            rows = pq.read_table(parquet, columns=[c for c in columns if c in names]).to_pylist()
        except Exception as exc:  # noqa: BLE001 - pyarrow raises ArrowInvalid, OSError ... for a damaged file
            reason = " ".join(str(exc).split())[:200]
            raise RunError(f"{parquet}: not a readable Parquet file ({reason}); delete it to render from "
                           "results.jsonl") from None
    elif jsonl.exists():
        from evalkit.harness.store import RunStore

        source = jsonl
        try:
            rows = [{k: r[k] for k in columns if k in r} for r in RunStore(root).latest_results().values()]
        except OSError as exc:
            raise RunError(f"{jsonl}: cannot read ({exc.strerror})") from None
        except (TypeError, ValueError) as exc:  # an unhashable key field, say
            raise RunError(f"{jsonl}: not a results file evalkit wrote ({exc})") from None
    else:
        return []
    try:
        _ROWS.validate_python(rows)
    except ValidationError as exc:
        err = exc.errors()[0]
        index, *field = err["loc"]
        raise RunError(f"{source}: row {int(index) + 1}: field {_field(tuple(field))}: {err['msg']}") from None
    return rows


def trace_path(root: Path, episode_id: Any) -> Path | None:
    """``root/traces/EPISODE_ID.jsonl`` when ``episode_id`` is a plain file name, else ``None``
    (a row cannot point the report at a file outside ``traces/``)."""
    if not isinstance(episode_id, str) or not episode_id or episode_id.startswith(".") or \
            any(c in episode_id for c in "/\\\0"):
        return None
    return root / "traces" / f"{episode_id}.jsonl"
