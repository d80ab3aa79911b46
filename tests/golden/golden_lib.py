"""The golden run of the scripted models: how it is run, stored, read back and compared.

The golden run is the quickstart's ``evalkit run`` over the built-in suite with every scripted
model (:data:`MODELS`), all three conditions and both gate settings (:data:`RUN_ARGS`). It is
deterministic: the same code gives the same ``results.jsonl`` rows and ``summary.json``, up to
the wall-clock fields listed in :data:`VOLATILE_RESULT_FIELDS` and :data:`VOLATILE_SUMMARY_FIELDS`.

Stored form (:data:`EXPECTED`, an xz-compressed JSON object): ``key`` (the episode key fields),
``columns`` (each result field → its values, one per episode, rows sorted by key) and
``summary`` (``summary.json`` without its volatile fields). ``record.py`` writes it;
``test_golden.py`` compares a fresh run with it (:func:`compare`).
"""

from __future__ import annotations

import json
import lzma
import math
import os
import subprocess
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from golden_changes import CHANGES, Added, Change, Reformat, Removed, Renamed

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
EXPECTED = HERE / "expected.json.xz"
FORMAT = 1

MODELS = (
    # evalkit.models.registry.DEFAULT_MODELS (the quickstart's default set) ...
    "scripted/oracle",
    "scripted/always_act",
    "scripted/always_abstain",
    "scripted/post_hoc",
    "scripted/late:0",
    "scripted/late:3",
    # ... and the scripted models outside it
    "scripted/asks_ignores",
    "scripted/late:1",
)
RUN_ARGS = (
    "run",
    *(arg for model in MODELS for arg in ("--model", model)),
    *("--condition", "nl", "--condition", "tool", "--condition", "meta"),
    *("--gate", "off", "--gate", "on"),
    "--no-report",  # report.html is not compared; rendering it costs time
)
"""``evalkit`` arguments of the golden run (``--out DIR`` is appended)."""

KEY = ("pair_id", "variant", "model", "condition", "gate", "epoch")
"""The fields that identify an episode's row."""

VOLATILE_RESULT_FIELDS = frozenset({"latency_s"})
"""Result fields that depend on the machine (wall-clock), never compared."""

VOLATILE_SUMMARY_FIELDS = frozenset({"evalkit_version", "latency_s_mean", "latency_s_p95"})
"""Summary keys (at any depth) never compared: wall-clock aggregates and the package version."""

ID_FIELDS = ("kind", "metric", "model", "condition", "gate", "trigger", "phase", "domain", "split", "language", "a", "b")
"""Keys that identify an entry of a list of objects in ``summary.json`` (rows, breakdowns,
comparisons): such lists are matched entry by entry on these, in any order."""

REL_TOL = 1e-9
"""Relative tolerance of float comparison (summation order only; any real change is larger)."""


# --- running and reading ------------------------------------------------------------------


def run_golden(out: Path) -> Path:
    """Run the golden job into ``out`` (a new folder) with this checkout's evalkit.

    Raises:
        AssertionError: ``evalkit run`` failed (its stderr tail is in the message).
    """
    env = dict(os.environ, EVALKIT_PROGRESS_INTERVAL="0", PYTHONPATH=os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p))
    proc = subprocess.run([sys.executable, "-m", "evalkit", *RUN_ARGS, "--out", str(out)], cwd=ROOT, env=env,
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise AssertionError(f"evalkit run exited {proc.returncode}:\n{proc.stderr[-4000:]}")
    return out


def read_results(path: Path) -> list[dict[str, Any]]:
    """The rows of a ``results.jsonl`` without their volatile fields."""
    rows = []
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                row = json.loads(line)
                rows.append({k: v for k, v in row.items() if k not in VOLATILE_RESULT_FIELDS})
    return rows


def strip_summary(value: Any) -> Any:
    """``summary.json`` content without the :data:`VOLATILE_SUMMARY_FIELDS` at any depth."""
    if isinstance(value, dict):
        return {k: strip_summary(v) for k, v in value.items() if k not in VOLATILE_SUMMARY_FIELDS}
    if isinstance(value, list):
        return [strip_summary(v) for v in value]
    return value


def read_run(run_dir: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """A run directory's canonical rows and summary."""
    summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    return read_results(run_dir / "results.jsonl"), strip_summary(summary)


def row_key(row: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(row.get(k) for k in KEY)


def _sort_key(row: dict[str, Any]) -> tuple[str, ...]:
    return tuple(str(row.get(k)) for k in KEY)


# --- storing --------------------------------------------------------------------------------


def dump(rows: list[dict[str, Any]], summary: dict[str, Any], path: Path = EXPECTED) -> int:
    """Write the golden data (rows column by column, sorted by key); returns its size in bytes."""
    rows = sorted(rows, key=_sort_key)
    fields = list(dict.fromkeys(f for row in rows for f in row))
    data = {
        "format": FORMAT,
        "run_args": list(RUN_ARGS),
        "key": list(KEY),
        "n_rows": len(rows),
        # a field absent from a row is stored as the marker, so absence and null stay distinct
        "columns": {f: [row.get(f, _ABSENT) for row in rows] for f in fields},
        "summary": summary,
    }
    blob = lzma.compress(json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode(), preset=9)
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(blob)
    tmp.replace(path)
    return len(blob)


_ABSENT = "\u0000absent"


def load(path: Path = EXPECTED) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The stored rows (in key order) and summary."""
    data = json.loads(lzma.decompress(path.read_bytes()))
    if data.get("format") != FORMAT:
        raise ValueError(f"{path}: golden format {data.get('format')!r}, expected {FORMAT}: re-record")
    columns: dict[str, list[Any]] = data["columns"]
    rows: list[dict[str, Any]] = [{} for _ in range(data["n_rows"])]
    for name, values in columns.items():
        for row, value in zip(rows, values):
            if value != _ABSENT:
                row[name] = value
    return rows, data["summary"]


# --- declared changes ---------------------------------------------------------------------


def _applies(change: Change, scope: str, section: str | None) -> bool:
    return change.scope == scope and (change.section is None or change.section == section)


def expected_row(row: dict[str, Any], changes: Iterable[Change]) -> dict[str, Any]:
    """A recorded result row as the current code should write it, given the declared changes
    (renamed, reformatted and removed fields applied; old values normalised by ``Reformat.old``)."""
    out = dict(row)
    for change in changes:
        if not _applies(change, "results", None):
            continue
        _apply(out, change)
    return out


def _apply(obj: dict[str, Any], change: Change) -> None:
    if isinstance(change, Renamed) and change.old in obj:
        obj[change.new] = obj.pop(change.old)
    elif isinstance(change, Removed):
        obj.pop(change.field, None)
    elif isinstance(change, Reformat) and change.field in obj and change.old is not None:
        obj[change.field] = change.old(obj[change.field])


def actual_row(row: dict[str, Any], changes: Iterable[Change]) -> dict[str, Any]:
    """A fresh result row normalised for comparison (``Reformat.new`` applied, declared added
    fields dropped)."""
    out = dict(row)
    for change in changes:
        if not _applies(change, "results", None):
            continue
        if isinstance(change, Added):
            out.pop(change.field, None)
        elif isinstance(change, Reformat) and change.field in out and change.new is not None:
            out[change.field] = change.new(out[change.field])
    return out


def _summary_side(value: Any, changes: list[Change], side: str, section: str | None = None) -> Any:
    """Apply the declared summary changes to every object at any depth (``side``: expected or
    actual)."""
    if isinstance(value, list):
        return [_summary_side(v, changes, side, section) for v in value]
    if not isinstance(value, dict):
        return value
    out = {}
    for k, v in value.items():
        out[k] = _summary_side(v, changes, side, k if section is None else section)
    for change in changes:
        if not _applies(change, "summary", section):
            continue
        if side == "expected":
            _apply(out, change)
        elif isinstance(change, Added):
            out.pop(change.field, None)
        elif isinstance(change, Reformat) and change.field in out and change.new is not None:
            out[change.field] = change.new(out[change.field])
    return out


# --- comparing ------------------------------------------------------------------------------


def same(a: Any, b: Any) -> bool:
    """Equal values: exact for strings, booleans and None (a bool is not a number), numerically
    for int/float (relative tolerance :data:`REL_TOL`), element by element for lists and dicts."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
            return True
        return a == b or math.isclose(a, b, rel_tol=REL_TOL, abs_tol=1e-12)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


@dataclass
class Report:
    """The differences found by :func:`compare`; ``lines`` is the printable report."""

    results: list[str] = field(default_factory=list)
    summary: list[str] = field(default_factory=list)
    n_row_diffs: int = 0
    n_summary_diffs: int = 0

    @property
    def ok(self) -> bool:
        return not self.results and not self.summary

    def text(self) -> str:
        parts = []
        if self.results:
            parts += ["results.jsonl differs from the golden rows:", *self.results]
        if self.summary:
            parts += [f"summary.json differs from the golden summary ({self.n_summary_diffs} values):", *self.summary]
        return "\n".join(parts)


def _show(value: Any, limit: int = 160) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True) if not isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _fmt_key(key: tuple[Any, ...]) -> str:
    return "(" + ", ".join(f"{k}={v}" for k, v in zip(KEY, key)) + ")"


def compare_results(expected: list[dict[str, Any]], actual: list[dict[str, Any]], changes: list[Change],
                    first: int = 5) -> list[str]:
    """Report lines for the differences between recorded and fresh result rows (in any order):
    missing and extra episodes, fields added or removed without a declared change, and for each
    field the episodes whose value differs (the first ``first`` of each, with old and new)."""
    exp = {}
    for row in expected:
        exp[row_key(row)] = expected_row(row, changes)
    act: dict[tuple[Any, ...], dict[str, Any]] = {}
    lines: list[str] = []
    duplicates = []
    for row in actual:
        key = row_key(row)
        if key in act:
            duplicates.append(key)
        act[key] = actual_row(row, changes)
    if duplicates:
        lines.append(f"  {len(duplicates)} episodes have more than one row, e.g. {_fmt_key(duplicates[0])}")
    missing = [k for k in exp if k not in act]
    extra = [k for k in act if k not in exp]
    for label, keys in (("missing (recorded, not in the new run)", missing), ("extra (new, never recorded)", extra)):
        if keys:
            lines.append(f"  {len(keys)} episodes {label}:")
            lines += [f"    {_fmt_key(k)}" for k in sorted(keys, key=lambda k: tuple(map(str, k)))[:first]]
    by_field: dict[str, list[tuple[tuple[Any, ...], Any, Any]]] = {}
    absent_new: dict[str, int] = {}
    absent_old: dict[str, int] = {}
    for key, old in exp.items():
        new = act.get(key)
        if new is None:
            continue
        for name, value in old.items():
            if name not in new:
                absent_new[name] = absent_new.get(name, 0) + 1
            elif not same(value, new[name]):
                by_field.setdefault(name, []).append((key, value, new[name]))
        for name in new.keys() - old.keys():
            absent_old[name] = absent_old.get(name, 0) + 1
    for name, n in sorted(absent_new.items()):
        lines.append(f"  field {name!r} is gone from {n} rows (declare Renamed/Removed in golden_changes.py "
                     "if intended)")
    for name, n in sorted(absent_old.items()):
        lines.append(f"  field {name!r} is new in {n} rows (declare Added/Renamed in golden_changes.py if intended)")
    for name in sorted(by_field):
        diffs = sorted(by_field[name], key=lambda d: tuple(map(str, d[0])))
        lines.append(f"  field {name!r}: {len(diffs)} episodes differ, first {min(first, len(diffs))}:")
        lines += [f"    {_fmt_key(k)}: {_show(o)} -> {_show(n)}" for k, o, n in diffs[:first]]
    return lines


def _identity(entry: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    return tuple((k, entry[k]) for k in ID_FIELDS if k in entry)


def _diff_values(old: Any, new: Any, path: str) -> Iterator[tuple[str, Any, Any]]:
    """(path, old, new) for every leaf that differs; lists of identifiable objects are matched
    on :data:`ID_FIELDS` (order-insensitive), other lists by position."""
    if isinstance(old, dict) and isinstance(new, dict):
        for k in old:
            sub = f"{path}.{k}" if path else k
            if k not in new:
                yield sub, old[k], "<absent>"
            else:
                yield from _diff_values(old[k], new[k], sub)
        for k in new.keys() - old.keys():
            yield (f"{path}.{k}" if path else k), "<absent>", new[k]
        return
    if isinstance(old, list) and isinstance(new, list) and _keyed(old) and _keyed(new):
        o = {_identity(e): e for e in old}
        n = {_identity(e): e for e in new}
        for ident, entry in o.items():
            label = f"{path}[{', '.join(f'{k}={v}' for k, v in ident)}]"
            if ident not in n:
                yield label, "<entry>", "<absent>"
            else:
                yield from _diff_values(entry, n[ident], label)
        for ident in n.keys() - o.keys():
            yield f"{path}[{', '.join(f'{k}={v}' for k, v in ident)}]", "<absent>", "<entry>"
        return
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new) and any(
            isinstance(x, (dict, list)) for x in old):
        for i, (x, y) in enumerate(zip(old, new)):
            yield from _diff_values(x, y, f"{path}[{i}]")
        return
    if not same(old, new):
        yield path, old, new


def _keyed(entries: list[Any]) -> bool:
    if not entries or not all(isinstance(e, dict) for e in entries):
        return False
    idents = [_identity(e) for e in entries]
    return all(idents) and len(set(idents)) == len(idents)


def compare_summary(expected: dict[str, Any], actual: dict[str, Any], changes: list[Change],
                    first: int = 20) -> tuple[int, list[str]]:
    """The number of differing summary values and report lines for the first ``first``."""
    old = _summary_side(expected, changes, "expected")
    new = _summary_side(actual, changes, "actual")
    diffs = list(_diff_values(old, new, ""))
    lines = [f"  {p}: {_show(o)} -> {_show(n)}" for p, o, n in diffs[:first]]
    if len(diffs) > first:
        lines.append(f"  ... and {len(diffs) - first} more")
    return len(diffs), lines


def compare(expected: tuple[list[dict[str, Any]], dict[str, Any]], actual: tuple[list[dict[str, Any]], dict[str, Any]],
            changes: Iterable[Change] = CHANGES) -> Report:
    """Compare recorded (``expected``) with fresh (``actual``) rows and summary under the
    declared ``changes``."""
    changes = list(changes)
    report = Report()
    report.results = compare_results(expected[0], actual[0], changes)
    report.n_summary_diffs, report.summary = compare_summary(expected[1], actual[1], changes)
    return report
