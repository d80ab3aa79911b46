"""The run's records: one episode key, one result-row schema with typed nested fields."""

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from evalkit.records import KEY_FIELDS, EpisodeKey, as_result, check_result, table_row

BASELINE = Path(__file__).resolve().parents[2] / "reports" / "baseline" / "results.jsonl"


def _baseline_row() -> dict:
    with open(BASELINE, encoding="utf-8") as fh:
        return json.loads(fh.readline())


def test_episode_key_is_the_tuple_it_replaces():
    row = {"pair_id": "p", "variant": "abstain", "model": "scripted/oracle", "condition": "nl", "gate": "off",
           "epoch": 2, "status": "ok"}
    key = EpisodeKey.of(row)
    plain = ("p", "abstain", "scripted/oracle", "nl", "off", 2)
    assert key == plain and hash(key) == hash(plain) and {plain: 1}[key] == 1
    assert key.variant == "abstain" and key.epoch == 2 and KEY_FIELDS == tuple(k for k in row if k != "status")
    assert key.unit() == ("p", "scripted/oracle", "nl", "off", 2)
    assert sorted([EpisodeKey.of({**row, "epoch": 3}), key]) == [key, EpisodeKey.of({**row, "epoch": 3})]
    with pytest.raises(KeyError, match="gate"):
        EpisodeKey.of({k: v for k, v in row.items() if k != "gate"})


def test_a_row_written_with_json_text_reads_as_typed_values():
    old = _baseline_row()  # written when the nested fields were JSON text
    assert isinstance(old["denials"], str) and isinstance(old["meta_made"], str)
    row = as_result(dict(old, denials='{"schema_mismatch": 2}',
                         meta_made='[{"type": "request_tool", "target": "x", "source": "typed"}]',
                         gate_decisions='{"act": 3}', judge_votes=None))
    assert row["denials"] == {"schema_mismatch": 2} and row["gate_decisions"] == {"act": 3}
    assert row["meta_made"] == [{"type": "request_tool", "target": "x", "source": "typed"}]
    assert check_result(row) == row  # and it is then a valid EpisodeResult
    assert as_result(dict(row)) == row  # typed values are left as they are


def test_the_parquet_row_holds_the_nested_fields_as_json_text_and_reads_back():
    row = as_result(_baseline_row())
    row["denials"] = {"needs_approval": 1}
    flat = table_row(row)
    assert flat["denials"] == '{"needs_approval": 1}' and flat["meta_made"] == "[]" and flat["judge_votes"] is None
    assert row["denials"] == {"needs_approval": 1}  # the row itself is not changed
    assert as_result(flat) == row


def test_check_result_names_a_field_of_the_wrong_type_and_converts_nothing():
    row = as_result(_baseline_row())
    checked = check_result(dict(row, source_run="/runs/a"))
    assert list(checked) == [*row, "source_run"] and checked["retry_wait_s"] == 0 and type(checked["retry_wait_s"]) is int
    with pytest.raises(ValidationError, match="denials"):
        check_result(dict(row, denials='{"x": 1}'))  # text is not the typed field
    with pytest.raises(ValidationError, match="commits"):
        check_result(dict(row, commits="1"))
    with pytest.raises(ValidationError, match="meta_made.0.source"):
        check_result(dict(row, meta_made=[{"type": "request_tool", "target": None}]))


def test_a_tool_call_stays_one_object_from_the_model_output_to_the_trace_and_back():
    from evalkit.errors import RunError
    from evalkit.records import ToolCall
    from evalkit.runtime.events import EventLog, ModelResponded, event_from_dict

    parsed = ToolCall("c1", "buy", {"n": 2}, '{"n":2}')
    failed = ToolCall("c2", "buy", None, '{"n": 2', "invalid_json: truncated")
    assert parsed.recorded() == ToolCall("c1", "buy", {"n": 2}) and failed.recorded() is failed
    log = EventLog()
    event = log.append(ModelResponded, 1, tool_calls=(parsed.recorded(), failed.recorded()))
    assert event.to_dict()["tool_calls"] == [
        {"id": "c1", "name": "buy", "arguments": {"n": 2}, "parse_error": None},
        {"id": "c2", "name": "buy", "arguments": '{"n": 2', "parse_error": "invalid_json: truncated"}]
    again = EventLog.from_jsonl(log.to_jsonl()).events
    assert again == log.events and all(type(c) is ToolCall for c in again[0].tool_calls)
    assert again[0].tool_calls[1].raw_arguments == '{"n": 2' and again[0].tool_calls[1].arguments is None
    assert ToolCall.from_dict({"id": "c3", "name": "x", "arguments": [1]}).raw_arguments == "[1]"
    with pytest.raises(RunError, match="bad model_responded event: a tool call is a JSON object, not str"):
        event_from_dict({"type": "model_responded", "seq": 0, "turn": 1, "tool_calls": ["buy()"]})
