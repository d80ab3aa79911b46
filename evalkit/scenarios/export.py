"""Suites as tables: export to a Hugging Face ``datasets`` dataset, Parquet or JSONL, and back.

A suite is exported as one row per pair. The columns a user filters on are flat, and the
pair itself is kept whole as JSON, because pairs carry free-form state patches whose shapes
differ from pair to pair (a columnar schema would have to be their union):

====================  ===========================================================
column                content
====================  ===========================================================
``id``                pair id
``domain``            task domain (a folder of ``tasks/``)
``trigger``           DESIGN §6 trigger (``none`` for control pairs)
``phase``             ``pre_execution`` | ``runtime`` | ``control``
``split``             ``dev`` | ``heldout``
``language``          language of the user messages (``en``, ``zh``)
``variants``          the pair's variant kinds (``act``, ``abstain``, ``act_resist``)
``source``            provenance of an imported pair as JSON (``""`` for built-in)
``pair``              the pair, as JSON (the suite file format of
                      :mod:`evalkit.scenarios.schema`)
====================  ===========================================================

The ``datasets`` export is a ``DatasetDict`` with one split per suite split (``dev``,
``heldout``), written with ``save_to_disk``; :func:`evalkit.scenarios.loader.load_suite`
reads such a folder (or a single saved ``Dataset``, or a ``.parquet`` file) back. ``datasets``
and ``pyarrow`` are imported only here, inside the functions that need them.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Iterable, Literal

from pydantic import ValidationError

from evalkit.errors import ConfigError, ScenarioError
from evalkit.documents import DocumentError, load_json
from evalkit.scenarios.schema import Pair, error_message

COLUMNS = ("id", "domain", "trigger", "phase", "split", "language", "variants", "source", "pair")
ExportFormat = Literal["datasets", "parquet", "jsonl"]


def pair_row(pair: Pair) -> dict[str, Any]:
    """One export row (see the module docstring) for ``pair``."""
    return {
        "id": pair.id,
        "domain": pair.domain,
        "trigger": pair.trigger,
        "phase": pair.phase,
        "split": pair.split,
        "language": pair.language,
        "variants": list(pair.variants),
        "source": json.dumps(pair.source, ensure_ascii=False, sort_keys=True) if pair.source else "",
        "pair": json.dumps(pair_document(pair), ensure_ascii=False),
    }


def pair_document(pair: Pair) -> dict[str, Any]:
    """The pair as a plain dict in the suite file format (fields that were set only)."""
    return pair.model_dump(mode="json", exclude_unset=True)


def is_dataset_dir(path: Path) -> bool:
    """Whether ``path`` is a folder written by ``datasets``' ``save_to_disk``."""
    return path.is_dir() and ((path / "dataset_dict.json").is_file() or (path / "state.json").is_file())


def export_suite(pairs: Iterable[Pair], out: str | Path, fmt: ExportFormat = "datasets") -> Path:
    """Write ``pairs`` to ``out``.

    Args:
        pairs: The pairs (e.g. ``load_suite(...).pairs``).
        out: A folder for ``datasets``; a file for ``parquet`` / ``jsonl``.
        fmt: ``datasets`` (a ``DatasetDict`` split by ``dev`` / ``heldout``), ``parquet``
            (one table) or ``jsonl`` (one pair per line, the suite file format).

    Returns:
        The path written.

    Raises:
        ConfigError: for an unknown format, no pairs, or a missing optional dependency.
    """
    rows = [pair_row(p) for p in pairs]
    if not rows:
        raise ConfigError("nothing to export: the selection holds no pairs")
    out = Path(out)
    if fmt == "jsonl":
        out.parent.mkdir(parents=True, exist_ok=True)
        with out.open("w", encoding="utf-8") as fh:
            for row in rows:
                fh.write(json.dumps(json.loads(row["pair"]), ensure_ascii=False) + "\n")
        return out
    if fmt == "parquet":
        pa, pq = _pyarrow()
        out.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.Table.from_pylist(rows, schema=_arrow_schema(pa)), out)
        return out
    if fmt == "datasets":
        datasets = _datasets()
        features = datasets.Features({
            **{c: datasets.Value("string") for c in COLUMNS if c != "variants"},
            "variants": datasets.Sequence(datasets.Value("string")),
        })
        splits = {}
        for split in ("dev", "heldout"):
            part = [r for r in rows if r["split"] == split]
            if part:
                splits[split] = datasets.Dataset.from_list(part, features=features)
        datasets.DatasetDict(splits).save_to_disk(str(out))
        return out
    raise ConfigError(f"unknown export format {fmt!r}; choose datasets, parquet or jsonl")


def read_table_pairs(path: Path) -> tuple[list[Pair], str]:
    """Pairs from a saved ``datasets`` folder or a ``.parquet`` file, and a content hash.

    Raises:
        ScenarioError: naming the file, the pair and the field of the first invalid row, or
            a table without the ``pair`` column.
    """
    if path.is_dir():
        rows = _dataset_rows(path)
        digest = hashlib.sha256()
        for f in sorted(path.rglob("*.arrow")):
            digest.update(f.read_bytes())
    else:
        _, pq = _pyarrow()
        try:
            rows = pq.read_table(path).to_pylist()
        except Exception as exc:  # noqa: BLE001 - any unreadable file is a scenario error
            raise ScenarioError(str(path), None, None, f"not a readable Parquet file: {exc}") from None
        digest = hashlib.sha256(path.read_bytes())
    pairs = []
    for i, row in enumerate(rows):
        if "pair" not in row:
            raise ScenarioError(str(path), None, "pair", "the table has no `pair` column (export it with evalkit suite export)")
        try:
            raw = load_json(row["pair"]) if isinstance(row["pair"], str) else None
        except json.JSONDecodeError:
            raw = None
        except DocumentError as exc:  # a repeated key or nesting past the limit
            raise ScenarioError(str(path), str(row.get("id") or f"#{i}"), ".".join(map(str, exc.path)) or "pair",
                                exc.message) from None
        if raw is None:
            raise ScenarioError(str(path), str(row.get("id") or f"#{i}"), "pair", "not valid JSON")
        try:
            pairs.append(Pair.model_validate(raw))
        except ValidationError as exc:
            err = exc.errors()[0]
            loc = ".".join(str(x) for x in err["loc"]) or None
            pair_id = raw.get("id") if isinstance(raw, dict) else None
            raise ScenarioError(str(path), str(pair_id or f"#{i}"), loc, error_message(err)) from None
        _check_columns(path, row, pairs[-1])
    return pairs, digest.hexdigest()


def _check_columns(path: Path, row: dict[str, Any], pair: Pair) -> None:
    """The flat columns of a table row must equal the pair's own values (they are copies of
    them, for filtering: a row whose ``split`` column says ``heldout`` while its pair says
    ``dev`` would be filtered as one and run as the other).

    Raises:
        ScenarioError: naming the column, the value it holds and the pair's.
    """
    want = pair_row(pair)
    for column in COLUMNS:
        if column == "pair" or column not in row:
            continue
        have = list(row[column]) if column == "variants" and row[column] is not None else row[column]
        if column == "source" and have is None:  # a table written without provenance
            have = ""
        if have != want[column]:
            raise ScenarioError(str(path), pair.id, column,
                                f"the {column} column holds {have!r}, but the pair's JSON says {want[column]!r}: "
                                "the columns copy the pair (edit the pair's JSON, or export the suite again "
                                "with evalkit suite export)")


def _dataset_rows(path: Path) -> list[dict[str, Any]]:
    datasets = _datasets()
    try:
        loaded = datasets.load_from_disk(str(path))
    except Exception as exc:  # noqa: BLE001 - report any unreadable dataset as a scenario error
        raise ScenarioError(str(path), None, None, f"not a readable datasets folder: {exc}") from None
    parts = [loaded[name] for name in sorted(loaded)] if isinstance(loaded, datasets.DatasetDict) else [loaded]
    return [row for part in parts for row in part]


def _arrow_schema(pa: Any) -> Any:
    return pa.schema([(c, pa.list_(pa.string()) if c == "variants" else pa.string()) for c in COLUMNS])


def _pyarrow() -> tuple[Any, Any]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    return pa, pq


def _datasets() -> Any:
    try:
        import datasets
    except ImportError:
        raise ConfigError(
            "the datasets format needs the `datasets` package: pip install -e \".[export]\" from a checkout of evalkit"
        ) from None
    return datasets
