"""`evalkit report` on damaged run directories (adversarial finding 16): every malformed input is
one RunError line naming the file; a malformed trace never stops the report."""

from __future__ import annotations

import json
import shutil

import pytest

from evalkit.harness.store import ResultsWarning

from evalkit.errors import RunError
from evalkit.report.html import render_report, report_context


@pytest.fixture()
def copy(hand_run, tmp_path):
    out, _ = hand_run
    dst = tmp_path / "run"
    shutil.copytree(out, dst)
    return dst


def failure(run_dir) -> str:
    with pytest.raises(RunError) as info:
        render_report(run_dir)
    message = str(info.value)
    assert "\n" not in message
    return message


@pytest.mark.parametrize(("content", "expected"), [
    (b"[]", "summary.json: expected a JSON object, found list"),
    (b"null", "summary.json: expected a JSON object, found null"),
    (b"{}", "summary.json: field rows: Field required"),
    (b'{"rows": 5}', "summary.json: field rows: Input should be a valid list"),
    (b'{"rows": [{}]}', "summary.json: field rows.0.model: Field required"),
    (b'{"rows": [], "breakdowns": {"trigger": 3}}', "summary.json: field breakdowns.trigger: Input should be a valid list"),
    (b"\x89PNG\r\n\x1a\n\x00\xff", "summary.json: not UTF-8 text (byte 0x89 at offset 0)"),
    (b'{"rows": [', "summary.json: not valid JSON (Expecting value, line 1)"),
    (b"[" * 100_000 + b"]" * 100_000, "summary.json: not valid JSON (nested too deeply)"),
])
def test_a_malformed_summary_is_one_line_naming_it(copy, content, expected):
    (copy / "summary.json").write_bytes(content)
    assert failure(copy) == f"{copy}/{expected}"


def test_a_summary_row_the_template_cannot_draw_names_summary_json(copy):
    summary = json.loads((copy / "summary.json").read_text())
    for row in summary["rows"]:
        del row["paired_accuracy_n"], row["errors"]
    (copy / "summary.json").write_text(json.dumps(summary))
    message = failure(copy)
    assert message.startswith(f"{copy / 'summary.json'}: cannot draw the report from it (")


@pytest.mark.parametrize(("content", "expected"), [
    (b"[]", "config.json: expected a JSON object, found list"),
    (b'{"config": [1]}', "config.json: field config: Input should be a valid dictionary"),
    (b'{"suite": "abc"}', "config.json: field suite: Input should be a valid dictionary"),
    (b"\xff\xfe", "config.json: not UTF-8 text (byte 0xff at offset 0)"),
])
def test_a_malformed_manifest_is_one_line_naming_it(copy, content, expected):
    (copy / "config.json").write_bytes(content)
    assert failure(copy) == f"{copy}/{expected}"


def test_a_truncated_parquet_is_one_line_naming_it(copy):
    data = (copy / "results.parquet").read_bytes()
    (copy / "results.parquet").write_bytes(data[: len(data) // 2])
    message = failure(copy)
    assert message.startswith(f"{copy / 'results.parquet'}: not a readable Parquet file (")
    assert message.endswith("delete it to render from results.jsonl")
    (copy / "results.parquet").unlink()
    assert render_report(copy).is_file()  # the rows then come from results.jsonl


def test_a_result_row_of_the_wrong_shape_names_file_row_and_field(copy):
    (copy / "results.parquet").unlink()
    rows = [json.loads(x) for x in (copy / "results.jsonl").read_text().splitlines()]
    rows[2]["epoch"] = "third"
    (copy / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.warns(ResultsWarning, match=f"{copy / 'results.jsonl'}:3: ignored a result row: field epoch: "
                                            "'third' is not an integer"):
        context = report_context(copy)
    assert context  # the report is drawn from the other rows


def test_a_trace_with_odd_values_is_still_shown(copy):
    context = report_context(copy)
    eid = next(e for e in context["traces"] if "tool_executed" in (copy / "traces" / f"{e}.jsonl").read_text())
    trace = copy / "traces" / f"{eid}.jsonl"
    events = [json.loads(x) for x in trace.read_text().splitlines()]
    for e in events:
        if e["type"] == "tool_executed":
            e["tool"], e["signals"] = 42, "tool_error"
        if e["type"] == "model_responded":
            e["tool_calls"] = "not a list"
            e["turn"] = "three"
    events.append({"type": ["unhashable"], "seq": 99})
    trace.write_text("".join(json.dumps(e) + "\n" for e in events) + "not json\n")
    shown = report_context(copy)["traces"][eid]
    items = [it for turn in shown["turns"] for it in turn["items"]]
    tools = [it for it in items if it["k"] == "tool"]
    assert tools and all(it["tool"] == "42" and it["signals"] == ["tool_error"] for it in tools)
    assert any(it["k"] == "event" and it["type"] == "model_responded" for it in items)  # shown generically
    assert render_report(copy).is_file()


def test_a_row_cannot_point_the_report_outside_traces(copy, tmp_path):
    secret = tmp_path / "secret.jsonl"
    secret.write_text(json.dumps({"type": "user_message", "content": "SECRET"}) + "\n")
    (copy / "results.parquet").unlink()
    rows = [json.loads(x) for x in (copy / "results.jsonl").read_text().splitlines()]
    for r in rows:
        r["episode_id"] = "../../secret"
    (copy / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    context = report_context(copy)
    assert all(t["user"] == [] for t in context["traces"].values())
    assert "SECRET" not in render_report(copy).read_text()
