"""The one reader of a run directory: rows typed whatever the file and its age, last record wins."""

import json
import shutil
from pathlib import Path

import pytest

from evalkit.errors import RunError
from evalkit.harness.run_reader import ResultsWarning, RunReader
from evalkit.harness.store import RunStore
from evalkit.records import EpisodeKey

BASELINE = Path(__file__).resolve().parents[2] / "reports" / "baseline"


@pytest.fixture
def old_run(tmp_path):
    """A copy of the committed baseline run: written when the nested fields were JSON text."""
    run = tmp_path / "old"
    run.mkdir()
    for name in ("config.json", "summary.json", "results.jsonl"):
        shutil.copy(BASELINE / name, run / name)
    return run


def test_rows_of_an_old_run_come_typed_from_jsonl_and_from_parquet(old_run):
    reader = RunReader(old_run)
    first = json.loads((old_run / "results.jsonl").read_text(encoding="utf-8").split("\n", 1)[0])
    assert first["denials"] == "{}" and first["meta_made"] == "[]"  # the file holds JSON text
    rows = reader.rows()
    assert len(rows) == len(reader.latest()) and rows[0]["episode_id"] == first["episode_id"]
    assert all(isinstance(r["denials"], dict) and isinstance(r["meta_made"], list)
               and isinstance(r["gate_decisions"], dict) for r in rows)
    made = [r for r in rows if r["meta_made"]]
    assert made and all({"type", "target", "source"} <= set(m) for r in made for m in r["meta_made"])
    RunStore(old_run).write_parquet(rows)  # the table holds them as JSON text again ...
    (old_run / "results.jsonl").unlink()
    assert reader.rows() == rows  # ... and they read back as the same typed rows


def test_the_last_record_of_an_episode_wins_and_a_broken_line_is_skipped(old_run):
    reader = RunReader(old_run)
    rows = reader.rows()
    again = dict(rows[0], status="error", correct=False, error="boom")
    with open(old_run / "results.jsonl", "a", encoding="utf-8") as fh:
        fh.write(json.dumps(again) + "\n{not json\n")
    with pytest.warns(ResultsWarning) as seen:
        latest = reader.latest()
    messages = [str(w.message) for w in seen]
    assert any("recorded again" in m for m in messages) and any("not a result row" in m for m in messages)
    key = EpisodeKey.of(rows[0])
    assert len(latest) == len(rows) and latest[key]["error"] == "boom" and list(latest)[0] == key
    with pytest.warns(ResultsWarning, match="not a result row"):
        (offset, _, _), = [r for r in reader.records() if r[2]["error"] == "boom"]
    assert next(reader.fetch([offset]))["error"] == "boom" and list(reader.fetch([-1])) == [None]


def test_manifest_summary_and_traces(old_run, tmp_path):
    reader = RunReader(old_run)
    assert reader.read_json("summary.json")["rows"] and reader.config()["models"]
    assert reader.trace_path("ep-1") == old_run / "traces" / "ep-1.jsonl"
    assert reader.trace_path("../escape") is None and reader.trace_path(None) is None
    (old_run / "summary.json").write_text('{"rows": [NaN]}', encoding="utf-8")
    with pytest.raises(RunError, match=r"summary.json: not valid JSON \(NaN is not a JSON number\)"):
        reader.read_json("summary.json")
    (old_run / "summary.json").unlink()
    with pytest.raises(RunError, match="the run did not finish; continue it with `evalkit run --resume"):
        reader.read_json("summary.json")
    with pytest.raises(RunError, match="no results.jsonl or results.parquet"):
        RunReader(tmp_path / "empty").rows()
