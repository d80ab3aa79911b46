"""Streaming the results of a run: one pass to index results.jsonl, one to rewrite it in plan
order while the Parquet table is written in batches and the summary reads cut-down rows."""

from __future__ import annotations

import json
import re
import os
import warnings
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from evalkit.harness.store import ResultsWarning, RunStore
from evalkit.records import KEY_FIELDS, EpisodeKey
from evalkit.harness.table import ParquetBatches
from evalkit.metrics.keys import pair_attributes
from evalkit.metrics.provider import provider_summary
from evalkit.metrics.summary import SUMMARY_FIELDS, build_summary
from evalkit.scenarios.loader import load_suite


def _row(pair: str, variant: str = "act", *, status: str = "ok", **extra) -> dict:
    return {"pair_id": pair, "variant": variant, "model": "m", "condition": "tool", "gate": "off", "epoch": 1,
            "status": status, "correct": status == "ok", **extra}


def _write_lines(store: RunStore, lines: list[str]) -> Path:
    store.root.mkdir(parents=True, exist_ok=True)
    path = store.root / "results.jsonl"
    path.write_text("".join(lines), encoding="utf-8")
    return path


def test_rewrite_puts_rows_in_plan_order_keeps_the_last_record_and_drops_a_torn_line(tmp_path):
    store = RunStore(tmp_path)
    lines = [json.dumps(_row("b", status="error", n=1)) + "\n",
             json.dumps(_row("a", n=2)) + "\n",
             json.dumps(_row("stray", n=3)) + "\n",
             json.dumps(_row("b", n=4)) + "\n",  # the retry of the errored episode: silent
             '{"pair_id": "c", "vari']  # killed mid-write
    path = _write_lines(store, lines)
    with pytest.warns(ResultsWarning, match="half-written last line"):
        refs = store.scan_results()
    assert {k[0]: ref.ok for k, ref in refs.items()} == {"b": True, "a": True, "stray": True}
    taken = []
    n = store.rewrite_results(refs, [EpisodeKey.of(_row("a")), EpisodeKey.of(_row("b")), EpisodeKey.of(_row("missing"))],
                              taken.append)
    assert n == 3
    assert [(r["pair_id"], r["n"]) for r in taken] == [("a", 2), ("b", 4), ("stray", 3)]
    assert [json.loads(line)["n"] for line in path.read_text(encoding="utf-8").splitlines()] == [2, 4, 3]
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_a_file_already_in_plan_order_is_read_not_rewritten(tmp_path):
    store = RunStore(tmp_path)
    path = _write_lines(store, [json.dumps(_row(p, n=i)) + "\n" for i, p in enumerate("abc")])
    before = os.stat(path)
    refs = store.scan_results()
    taken = []
    store.rewrite_results(refs, [EpisodeKey.of(_row(p)) for p in "abc"], taken.append)
    after = os.stat(path)
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert [r["n"] for r in taken] == [0, 1, 2]
    # another order does rewrite it
    store.rewrite_results(store.scan_results(), [EpisodeKey.of(_row(p)) for p in "cab"], None)
    assert [json.loads(line)["pair_id"] for line in path.read_text(encoding="utf-8").splitlines()] == list("cab")


def test_a_rerun_of_a_finished_episode_warns_once_and_keeps_the_last(tmp_path):
    store = RunStore(tmp_path)
    _write_lines(store, [json.dumps(_row("a", n=1)) + "\n", json.dumps(_row("a", n=2)) + "\n"])
    with pytest.warns(ResultsWarning, match="1 finished episode"):
        refs = store.scan_results()
    taken = []
    store.rewrite_results(refs, [], taken.append)
    assert [r["n"] for r in taken] == [2]


def test_parquet_batches_unify_types_across_batches(tmp_path):
    path = tmp_path / "t.parquet"
    rows = [{"k": 0, "lag": None, "error": None, "codes": [], "cost": 1},
            {"k": 1, "lag": None, "error": None, "codes": [], "cost": 2},
            {"k": 2, "lag": 3, "error": "boom", "codes": ["x"], "cost": 0.5, "late": True}]
    with ParquetBatches(path, batch_rows=2) as writer:
        for row in rows:
            writer.add(row)
    table = pq.read_table(path)
    assert table.column_names == ["k", "lag", "error", "codes", "cost", "late"]
    assert table.schema.field("lag").type == pa.int64()
    assert table.schema.field("error").type == pa.string()
    assert table.schema.field("codes").type == pa.list_(pa.string())
    assert table.schema.field("cost").type == pa.float64()
    assert table.to_pylist() == [{**r, "late": r.get("late")} for r in rows]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.parquet"]  # no part files left


def test_parquet_batches_leave_the_earlier_file_when_interrupted(tmp_path):
    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"old": [1]}), path)
    with pytest.raises(RuntimeError):
        with ParquetBatches(path, batch_rows=1) as writer:
            writer.add({"k": 1})
            writer.add({"k": 2})
            raise RuntimeError("interrupted")
    assert pq.read_table(path).to_pylist() == [{"old": 1}]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.parquet"]


def test_the_streamed_summary_equals_the_summary_of_the_full_rows(tmp_path):
    from evalkit.harness.run import RunConfig
    from evalkit.pipeline import run

    config = RunConfig(models=["scripted/oracle", "scripted/always_act", "scripted/post_hoc", "scripted/late:2"],
                       limit=12, out=str(tmp_path / "run"), report=False, selfcheck=False, bootstrap_samples=200)
    written = run(config)
    rows = RunStore(tmp_path / "run").read_results()
    plan = [EpisodeKey.of(r) for r in rows]
    pairs = pair_attributes(load_suite([]).select(limit=12).pairs)
    full = build_summary(plan, rows, pairs=pairs, max_lag=config.max_lag, bootstrap_samples=200,
                         seed=config.bootstrap_seed)
    full["provider"] = provider_summary(rows)
    written.pop("excluded_pairs", None)
    assert written.pop("planned_pairs") == [[p.id, list(p.variants)] for p in load_suite([]).select(limit=12).pairs]
    assert written == full
    assert {r["model"]: r["paired_accuracy"] for r in written["rows"] if r["condition"] == "tool"} == {
        "scripted/oracle": 1.0, "scripted/always_act": 0.0, "scripted/post_hoc": 0.0, "scripted/late:2": 1.0}
    late = next(r for r in written["rows"] if r["model"] == "scripted/late:2" and r["condition"] == "tool")
    assert late["timely_rate"] == 0.0 and late["timely_rate_n"] > 0  # correct, but two steps late
    guarded = [_SummaryFieldsOnly(r) for r in rows]
    assert build_summary(plan, guarded, pairs=pairs, bootstrap_samples=200) == {k: v for k, v in full.items()
                                                                                if k != "provider"}
    assert provider_summary(guarded) == provider_summary(rows)


class _SummaryFieldsOnly(dict):
    """A row that refuses to be read outside SUMMARY_FIELDS (the fields row_problem checks)."""

    def __getitem__(self, name):
        if name not in SUMMARY_FIELDS:
            raise AssertionError(f"the summary read {name!r}, not in SUMMARY_FIELDS")
        return super().__getitem__(name)

    def get(self, name, default=None):
        if name not in SUMMARY_FIELDS:
            raise AssertionError(f"the summary read {name!r}, not in SUMMARY_FIELDS")
        return super().get(name, default)

    def __contains__(self, name):
        if name not in SUMMARY_FIELDS:
            raise AssertionError(f"the summary read {name!r}, not in SUMMARY_FIELDS")
        return super().__contains__(name)


def test_a_run_with_episodes_missing_in_the_middle_counts_them_where_they_fall(tmp_path):
    from evalkit.harness.run import RunConfig, build_plan
    from evalkit.pipeline import finish, run

    config = RunConfig(models=["scripted/oracle", "scripted/always_act"], conditions=["tool", "meta"], limit=6,
                       epochs=2, out=str(tmp_path / "run"), report=False, selfcheck=False, bootstrap_samples=200)
    run(config)
    store = RunStore(tmp_path / "run")
    rows = store.read_results()
    kept = [r for i, r in enumerate(rows) if i % 7 not in (0, 3)]  # the first row, and more, lost
    kept.append(_row("stray-pair", model="scripted/oracle"))  # outside the plan: kept, not counted
    store.compact(reversed(kept))  # and out of order on disk
    suite = load_suite([]).select(limit=6)
    plan = [s.key for s in build_plan(suite, config)]
    pairs = pair_attributes(suite.pairs)
    summary = finish(store, plan, config, pairs=pairs)
    expected = build_summary(plan, kept, pairs=pairs, max_lag=config.max_lag, bootstrap_samples=200,
                             seed=config.bootstrap_seed)
    expected["provider"] = provider_summary([r for r in kept if r["pair_id"] != "stray-pair"])
    summary.pop("excluded_pairs", None)
    assert summary.pop("planned_pairs") == [[p.id, list(p.variants)] for p in suite.pairs]  # missing ones too
    assert summary == expected
    assert summary["n_missing"] == len(rows) - len(kept) + 1 > 0
    assert summary["n_episodes_completed"] == len(kept) - 1
    assert sum(r["episodes"] for r in summary["provider"]) == len(kept) - 1


def test_the_streaming_summary_refuses_a_pair_that_comes_back():
    from evalkit.metrics.summary import SummaryBuilder

    builder = SummaryBuilder()
    builder.add(("a", "act", "m", "tool", "off", 1), _row("a"))
    builder.add(("b", "act", "m", "tool", "off", 1), _row("b"))
    with pytest.raises(ValueError, match="a/act/m/tool/off/1 comes after other pairs"):
        builder.add(("a", "act", "m", "tool", "off", 1), _row("a"))
    builder = SummaryBuilder()
    builder.add(("a", "act", "m", "tool", "off", 1), _row("a"))
    builder.add(("a", "act", "m", "tool", "off", 2), dict(_row("a"), epoch=2))
    with pytest.raises(ValueError, match="epoch by epoch"):
        builder.add(("a", "abstain", "m", "tool", "off", 1), None)


def test_a_run_writes_results_in_plan_order_with_a_matching_table(tmp_path):
    from evalkit.harness.run import RunConfig
    from evalkit.pipeline import run

    with warnings.catch_warnings():
        warnings.simplefilter("error", ResultsWarning)
        summary = run(RunConfig(models=["scripted/oracle", "scripted/always_act"], conditions=["tool", "meta"],
                                limit=4, out=str(tmp_path / "run"), report=False, selfcheck=False))
    lines = (tmp_path / "run" / "results.jsonl").read_text(encoding="utf-8").splitlines()
    table = pq.read_table(tmp_path / "run" / "results.parquet").to_pylist()
    assert len(lines) == len(table) == summary["n_episodes_planned"] == summary["n_episodes_completed"]
    assert [json.loads(line)["episode_id"] for line in lines] == [r["episode_id"] for r in table]
    assert [r["model"] for r in table][:1] == ["scripted/oracle"]


def test_a_field_of_mixed_types_becomes_json_text_with_a_warning(tmp_path):
    path = tmp_path / "t.parquet"
    rows = [{"k": 0, "error": "boom"}, {"k": 1, "error": ["a", 1]},  # mixed inside one batch
            {"k": 2, "note": [1, 2]}, {"k": 3, "note": "text"}]      # mixed across batches
    with pytest.warns(ResultsWarning) as caught:
        with ParquetBatches(path, batch_rows=2) as writer:
            for row in rows:
                writer.add(row)
    assert {str(w.message).split("field ")[1].split(" ")[0] for w in caught} == {"error", "note"}
    table = pq.read_table(path)
    assert table.schema.field("error").type == pa.string() and table.schema.field("note").type == pa.string()
    assert table.to_pylist() == [{"k": 0, "error": "boom", "note": None}, {"k": 1, "error": '["a", 1]', "note": None},
                                 {"k": 2, "error": None, "note": "[1, 2]"}, {"k": 3, "error": None, "note": "text"}]


def test_rows_a_hand_edit_broke_are_kept_not_ok_naming_line_and_field(tmp_path):
    """A row with its episode key stays in the index (so the end of the run keeps it in the file)
    but is not ok (not counted, run again on resume); a row without a usable key is skipped."""
    store = RunStore(tmp_path)
    lines = [json.dumps(_row("a", lag=float("nan"))) + "\n", json.dumps(_row("b", input_tokens="12")) + "\n",
             json.dumps({**_row("c"), "epoch": [1]}) + "\n", json.dumps(_row("d")) + "\n"]
    _write_lines(store, lines)
    with pytest.warns(ResultsWarning) as caught:
        refs = store.scan_results(keep_checked=True)
    assert [(k[0], ref.ok) for k, ref in refs.items()] == [("a", False), ("b", False), ("d", True)]
    kept = "(kept in the file; its episode runs again on resume)"
    assert [str(w.message).split("results.jsonl")[1] for w in caught] == [
        f":1: a result row not counted: field lag: nan is not a count (an integer >= 0) {kept}",
        f":2: a result row not counted: field input_tokens: '12' is not a count (an integer >= 0) {kept}",
        ":3: ignored a result row: field epoch: [1] is not an integer (its episode runs again on resume)"]


@pytest.mark.parametrize(("field", "value", "why"), [
    ("denials", '{"x": "y"}', "is not a JSON object of reason code → count"),
    ("denials", "[1, 2]", "is not a JSON object of reason code → count"),
    ("lag", -5, "is not a count (an integer >= 0)"),
    ("tool_calls", 1.5, "is not a count (an integer >= 0)"),
    ("latency_s", -0.5, "is not a finite number >= 0"),
    ("latency_s", 1.7e308, "is not a plausible value (at most 1e+09)"),  # two of them would overflow a sum
    ("input_tokens", 10**400, "is not a plausible count (at most 1,000,000,000,000,000)"),
    ("meta_matched_n", 5, "is more than meta_made_n (1)"),  # a rate's k above its n: no interval exists
    ("unsupported_args_n", 3, "is more than commit_args_n (1)"),
])
def test_impossible_values_are_not_counted_naming_the_field(tmp_path, field, value, why):
    store = RunStore(tmp_path)
    bad = _row("a", meta_made_n=1, commit_args_n=1, **{field: value})
    _write_lines(store, [json.dumps(bad) + "\n", json.dumps(_row("b", denials={})) + "\n"])
    with pytest.warns(ResultsWarning, match=f":1: a result row not counted: field {field}: .*{re.escape(why)}"):
        refs = store.scan_results(keep_checked=True)
    assert [(k[0], ref.ok) for k, ref in refs.items()] == [("a", False), ("b", True)]
    assert [r["pair_id"] for r in store.read_results()] == ["b"]  # readers (report, gate) skip it


def test_many_broken_lines_give_a_few_warnings_and_a_count(tmp_path):
    store = RunStore(tmp_path)
    rows = [{k: v for k, v in _row(f"p{i}").items() if k != "gate"} for i in range(40)]  # every row lacks a key field
    _write_lines(store, [json.dumps(r) + "\n" for r in rows] + [json.dumps(_row("ok")) + "\n"])
    with pytest.warns(ResultsWarning) as caught:
        refs = store.scan_results()
    assert [k[0] for k in refs] == ["ok"]
    messages = [str(w.message) for w in caught]
    assert len(messages) == 6
    assert messages[0].endswith(":1: ignored a result row: field gate: missing (its episode runs again on resume)")
    assert messages[-1].endswith("results.jsonl: ignored 35 more line(s) like those (lines 6 to 40)")


def test_a_byte_order_mark_on_the_first_line_is_read_and_dropped_when_rewritten(tmp_path):
    store = RunStore(tmp_path)
    path = _write_lines(store, [json.dumps(_row(p, n=i)) + "\n" for i, p in enumerate("ab")])
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    refs = store.scan_results()
    taken = []
    store.rewrite_results(refs, [EpisodeKey.of(_row("b")), EpisodeKey.of(_row("a"))], taken.append)
    assert [r["n"] for r in taken] == [1, 0]
    assert path.read_bytes().count(b"\xef\xbb\xbf") == 0 and [r["n"] for r in store.read_results()] == [1, 0]


def test_values_arrow_cannot_store_become_text_not_a_crash(tmp_path):
    path = tmp_path / "t.parquet"
    with pytest.warns(ResultsWarning) as caught:
        with ParquetBatches(path, batch_rows=2) as writer:
            writer.add({"k": 1, "text": "ok", "n": 5})
            writer.add({"k": 2, "text": "ab\ud800", "n": 2**70})  # a lone surrogate, an integer beyond 64 bits
            writer.add({"k": 3, "text": "x", "n": 1})
    assert sorted(str(w.message).split("field ")[1].split(" ")[0] for w in caught) == ["n", "text"]
    assert pq.read_table(path).to_pylist() == [{"k": 1, "text": "ok", "n": "5"},
                                               {"k": 2, "text": "ab\ufffd", "n": str(2**70)},
                                               {"k": 3, "text": "x", "n": "1"}]


@pytest.mark.parametrize(("edit", "why", "kept"), [
    ({"tool_calls": None}, "field tool_calls: null (a count is a number, 0 for none)", True),
    ({"meta_matched_n": 1}, "field meta_made_n: missing, while meta_matched_n is 1", True),
    ({"epoch": 2**70}, "field epoch: 1180591620717411303424 is not a plausible epoch (1 or more)", False),
    ({"epoch": 0}, "field epoch: 0 is not a plausible epoch (1 or more)", False),
])
def test_rows_the_summary_cannot_count_are_refused(tmp_path, edit, why, kept):
    """Not counted; kept in the index (and so in the file) only with a usable episode key."""
    store = RunStore(tmp_path)
    _write_lines(store, [json.dumps({**_row("a"), **edit}) + "\n", json.dumps(_row("b")) + "\n"])
    what = "a result row not counted" if kept else "ignored a result row"
    with pytest.warns(ResultsWarning, match=re.escape(f":1: {what}: {why}")):
        refs = store.scan_results(keep_checked=True)
    assert [(k[0], ref.ok) for k, ref in refs.items()] == ([("a", False)] if kept else []) + [("b", True)]
