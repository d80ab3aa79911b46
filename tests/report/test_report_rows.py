"""The report's columnar rows (evalkit.report.rows): the gallery, the embedded traces and the
per-pair grid picked from columns are exactly what the row-by-row definitions below pick, from
results.parquet (fast column types or not, one row group or many) and from results.jsonl; a
malformed row is still named by file, row and field; full rows are read only for rows shown."""

from __future__ import annotations

import json
import warnings
from collections import defaultdict
from itertools import zip_longest
from pathlib import Path
from tempfile import TemporaryDirectory

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalkit.errors import RunError
from evalkit.harness.store import ResultsWarning, RunStore
from evalkit.metrics.failures import failure_kind
from evalkit.report import inputs, view
from evalkit.report.html import ROW_COLUMNS
from evalkit.report.rows import ResultTable, arrow_flags, python_flags
from evalkit.report.traces import truncate

# ---------------------------------------------------------------- the row-by-row definitions


def _in_category(cat, r):
    if cat == "unsupported":
        return bool(r.get("unsupported_args_n"))
    if cat == "judge":
        return bool(r.get("judge_disagrees"))
    return (r["failure_kind"] if "failure_kind" in r else failure_kind(r)) == cat


def _interleave(groups, cap):
    picked = []
    for batch in zip_longest(*groups.values()):
        for r in batch:
            if r is not None:
                picked.append(r)
                if len(picked) >= cap:
                    return picked
    return picked


def ref_gallery(rows, *, max_lag, gates):
    out = []
    cap = view.LIMITS["gallery_per_category"]
    for cat, title, about in view.GALLERY:
        members = defaultdict(list)
        total = abstain_total = 0
        for r in rows:
            if _in_category(cat, r):
                total += 1
                abstain_total += r["variant"] == "abstain"
                members[(r["model"], r["condition"], r["gate"])].append(r)
        for group in members.values():
            group.sort(key=lambda r: r["variant"] != "abstain")
        width = 1200 if cat == "judge" else 300
        cards = [{"row": r, "group": view.group_label(r, gates), "detail": truncate(view._detail(cat, r, max_lag), width),
                  "text": truncate(r.get("final_text") or "", view.LIMITS["text_chars"])}
                 for r in _interleave(members, view.LIMITS["judge_cards"] if cat == "judge" else cap)]
        out.append({"key": cat, "title": title, "about": about, "total": total, "abstain_total": abstain_total,
                    "cards": cards})
    return out


def ref_trace_choice(rows, sections):
    chosen = {}
    cap = view.LIMITS["traces"]
    for section in sections:
        for card in section["cards"]:
            chosen.setdefault(card["row"]["episode_id"], card["row"])
    examples = defaultdict(list)
    for r in rows:
        group = examples[(r["model"], r["condition"], r["gate"])]
        if len(group) < view.LIMITS["examples_per_group"] and r.get("correct") and \
                all(g["variant"] != r["variant"] for g in group):
            group.append(r)
    for r in _interleave(examples, cap):
        if len(chosen) >= cap:
            break
        chosen.setdefault(r["episode_id"], r)
    return list(chosen.values())[:cap]


def ref_pair_grid(rows, columns, embedded):
    cols = columns[: view.LIMITS["grid_columns"]]
    colset = set(cols)
    cells = defaultdict(lambda: defaultdict(list))
    info = {}
    for r in rows:
        col = (r["model"], r["condition"], r["gate"])
        if col not in colset:
            continue
        if r["pair_id"] not in info:
            if len(info) >= view.LIMITS["grid_pairs"]:
                continue
            info[r["pair_id"]] = {k: r.get(k) for k in ("trigger", "phase", "domain", "split")}
        cells[r["pair_id"]][col].append(r)
    grid = {}
    for pid, by_col in cells.items():
        grid[pid] = {}
        for col, members in by_col.items():
            members.sort(key=lambda r: (r["epoch"], view._VARIANTS.get(r["variant"], 9)))
            sym = "".join("!" if m["status"] == "error" else ("✓" if m.get("correct") else "✗") for m in members)
            cls = "err" if "!" in sym else ("ok" if "✗" not in sym else "bad")
            wrong = [m for m in members if not m.get("correct") and m["episode_id"] in embedded]
            anyone = [m for m in members if m["episode_id"] in embedded]
            link = (wrong or anyone or [None])[0]
            title = "; ".join(f"{m['variant']} e{m['epoch']}: {m.get('decision')}" for m in members[:6])
            grid[pid][col] = {"sym": sym, "cls": cls, "title": title, "link": link["episode_id"] if link else None}
    return {"pairs": info, "grid": grid, "columns": cols, "n_pairs_total": len({r["pair_id"] for r in rows}),
            "n_columns_total": len(columns)}


# ---------------------------------------------------------------- random runs

GROUPS = [(m, c, g) for m in ("m1", "m2") for c in ("nl", "tool") for g in ("off",)] + [("m1", "nl", "on")]
TRUTHY = {  # a column's values all of one type, as a Parquet column is
    "bool": st.one_of(st.none(), st.booleans()),
    "int": st.one_of(st.none(), st.integers(0, 2)),
    "float": st.one_of(st.none(), st.sampled_from([0.0, 1.0, 2.5])),
    "str": st.one_of(st.none(), st.sampled_from(["", "yes"])),
}


@st.composite
def runs(draw):
    kinds = {c: draw(st.sampled_from(sorted(TRUTHY))) for c in ("post_hoc", "unsupported_args_n")}
    timely = draw(st.sampled_from([TRUTHY["bool"], TRUTHY["int"]]))
    n = draw(st.integers(0, 40))
    rows, keys = [], set()
    for i in range(n):
        model, condition, gate = draw(st.sampled_from(GROUPS))
        row = {
            "episode_id": draw(st.sampled_from([f"e{i}", f"e{i}", "dup"])),
            "pair_id": draw(st.sampled_from([f"p{k}" for k in range(4)])),
            "variant": draw(st.sampled_from(["act", "abstain", "act_resist", "other"])),
            "model": model, "condition": condition, "gate": gate,
            "epoch": draw(st.integers(1, 3)),
            "trigger": draw(st.sampled_from(["none", "missing_param"])), "phase": "runtime", "domain": "shop",
            "split": None,
            "status": draw(st.sampled_from(["ok", "ok", "error"])),
            "error": draw(st.sampled_from([None, "boom"])),
            "correct": draw(st.one_of(st.none(), st.booleans())),
            "decision": draw(st.sampled_from(["act", "abstain", "none", None])),
            "stated": "refuse", "text_label": "act", "expected_decision": "act",
            "post_hoc": draw(TRUTHY[kinds["post_hoc"]]),
            "lag": draw(st.sampled_from([None, 2, 3])),
            "timely": draw(timely),
            "critical_commits": 1,
            "reason_codes": draw(st.sampled_from([None, [], ["parse_error"], ["budget", "parse_error"], ["budget"]])),
            "unsupported_args_n": draw(TRUTHY[kinds["unsupported_args_n"]]),
            "unsupported_args": draw(st.sampled_from([None, ["qty=7"]])),
            "final_text": draw(st.sampled_from([None, "done", "x" * 500])),
        }
        key = tuple(row[k] for k in ("pair_id", "variant", "model", "condition", "gate", "epoch"))
        if key not in keys:  # one row per episode key, as a run writes
            keys.add(key)
            rows.append(row)
    columns = draw(st.lists(st.sampled_from(GROUPS + [("m3", "nl", "off")]), max_size=6))
    embedded = draw(st.sets(st.sampled_from(sorted({r["episode_id"] for r in rows}) or ["e0"])))
    return rows, columns, embedded


@pytest.fixture()
def small_caps(monkeypatch):
    for key, cap in (("gallery_per_category", 3), ("traces", 5), ("grid_pairs", 3), ("grid_columns", 3)):
        monkeypatch.setitem(view.LIMITS, key, cap)


def _write_parquet(root: Path, rows, row_group_size=None):
    pq.write_table(pa.Table.from_pylist(rows), root / "results.parquet", row_group_size=row_group_size)


def _write_jsonl(root: Path, rows):
    (root / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def _check_same(rows, table, columns, traced):
    sections = view.gallery(table, max_lag=1, gates=True)
    assert sections == ref_gallery(rows, max_lag=1, gates=True)
    chosen = view.trace_choice(table, sections)
    assert chosen == ref_trace_choice(rows, sections)
    embedded = {r["episode_id"] for r in chosen}
    grid = view.pair_grid(table, columns, embedded)
    assert grid == ref_pair_grid(rows, columns, embedded)
    assert list(grid["pairs"]) == list(ref_pair_grid(rows, columns, embedded)["pairs"])  # the order shown
    assert view.pair_grid(table, columns, traced) == ref_pair_grid(rows, columns, traced)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(run=runs(), examples=st.integers(0, 3))
def test_picks_from_columns_are_the_row_by_row_picks(small_caps, monkeypatch, run, examples):
    monkeypatch.setitem(view.LIMITS, "examples_per_group", examples)
    rows, columns, traced = run
    with TemporaryDirectory() as tmp:
        root = Path(tmp)
        _write_parquet(root, rows, row_group_size=7)  # several row groups
        table = inputs.load_rows(root, ROW_COLUMNS)
        assert table.n == len(rows)
        _check_same(pq.read_table(root / "results.parquet").to_pylist(), table, columns, traced)
        (root / "results.parquet").unlink()
        _write_jsonl(root, rows)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ResultsWarning)  # rows of other JSON types are skipped, and said so
            table = inputs.load_rows(root, ROW_COLUMNS)
            kept = [{k: r[k] for k in ROW_COLUMNS if k in r} for r in RunStore(root).latest_results().values()]
        assert table.n == len(kept)
        _check_same(kept, table, columns, traced)


def test_flags_of_unusual_column_types_follow_the_python_definitions():
    rows = [{"status": s, "correct": c, "post_hoc": p, "timely": t, "unsupported_args_n": u, "reason_codes": rc,
             "decision": d}
            for s, c, p, t, u, rc, d in [
                ("ok", 1, "x", 0, 1.5, "parse_error_text", 0),
                ("ok", 0, "", 1, 0.0, None, 1),
                ("error", None, None, None, float("nan"), "", None),
                ("ok", 2, "no", 0, None, "parse_error", None)]]
    expected = python_flags(rows)
    assert expected["parse"] == [True, False, False, True]  # a text column: `in` is a substring test
    assert expected["late"] == [False] * 4  # 0 is not False
    table = pa.Table.from_pylist(rows)
    assert {k: v.tolist() for k, v in arrow_flags(table).items()} == expected
    assert arrow_flags(pa.table({"status": ["ok"]}))["parse"].tolist() == [False]  # absent columns read as None


def test_a_parquet_of_other_column_types_is_checked_row_by_row(hand_run, tmp_path, monkeypatch):
    out, _ = hand_run
    rows = pq.read_table(out / "results.parquet").to_pylist()
    monkeypatch.setattr(inputs, "_BATCH", 2)  # row 4 is in the second batch
    for r in rows:
        r["epoch"] = float(r["epoch"])  # a float column of whole numbers passes as int
    _write_parquet(tmp_path, rows)
    assert inputs.load_rows(tmp_path, ROW_COLUMNS).n == len(rows)
    for r in rows:
        r["epoch"] = str(int(r["epoch"]))
    rows[3]["epoch"] = "fourth"
    _write_parquet(tmp_path, rows)
    with pytest.raises(RunError) as info:
        inputs.load_rows(tmp_path, ROW_COLUMNS)
    assert str(info.value) == f"{tmp_path / 'results.parquet'}: row 4: field epoch: Input should be a valid " \
                              "integer, unable to parse string as an integer"


def test_a_missing_key_column_is_named():
    with TemporaryDirectory() as tmp:
        root = Path(tmp)
        pq.write_table(pa.table({"episode_id": ["e1"], "pair_id": ["p"], "variant": ["act"], "model": ["m"],
                                 "condition": ["nl"], "gate": ["off"], "status": ["ok"]}), root / "results.parquet")
        with pytest.raises(RunError, match=r"results.parquet: row 1: field epoch: Field required$"):
            inputs.load_rows(root, ROW_COLUMNS)


def test_full_rows_are_read_only_for_the_rows_shown(monkeypatch):
    """5,000 right episodes of 50 pairs: the grid shows 50 pairs and 2 traces are embedded, so
    51 full rows are read (the first row of each pair, one of them also a trace, and one more)."""
    rows = [{"episode_id": f"e{i}", "pair_id": f"p{i % 50}", "variant": ("act", "abstain")[i // 50 % 2],
             "model": "m", "condition": "tool", "gate": "off", "epoch": i // 100 + 1, "status": "ok",
             "correct": True, "decision": "act", "trigger": "none"} for i in range(5000)]
    read: list[int] = []

    def fetch(positions):
        read.extend(positions)
        return [rows[i] for i in positions]

    table = ResultTable.from_arrow(pa.Table.from_pylist(rows), fetch)
    sections = view.gallery(table, max_lag=1, gates=False)
    assert [s["total"] for s in sections] == [0] * len(view.GALLERY)
    chosen = view.trace_choice(table, sections)
    assert [r["episode_id"] for r in chosen] == ["e0", "e50"]  # the first right act and abstain episodes
    grid = view.pair_grid(table, [("m", "tool", "off")], {"e0", "e50"})
    assert len(grid["pairs"]) == 50 and sorted(read) == sorted(set(read)) and len(read) == 51
    cell = grid["grid"]["p0"][("m", "tool", "off")]
    assert cell["sym"] == "✓" * 100 and cell["link"] == "e0"
    assert cell["title"] == "; ".join(f"{v} e{e}: act" for e in (1, 2, 3) for v in ("act", "abstain"))


def test_results_jsonl_with_a_byte_order_mark_is_read(hand_run, tmp_path):
    out, _ = hand_run
    text = (out / "results.jsonl").read_text(encoding="utf-8")
    (tmp_path / "results.jsonl").write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    table = inputs.load_rows(tmp_path, ROW_COLUMNS)
    first = json.loads(text.splitlines()[0])
    assert table.n == len(text.splitlines())
    assert table.rows([0])[0]["episode_id"] == first["episode_id"]
