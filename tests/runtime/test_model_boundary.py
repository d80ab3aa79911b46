"""Hostile model output at the agent loop's boundary (adversarial round 1, items 1, 3, 7, 18, 29).

Every output is validated before it enters the log: a wrong type or range is an error outcome
with a one-line message; lone surrogates are replaced; arguments holding NaN, Infinity or a
value of another type are a ``parse_error`` denial; the trace can always be written.
Calls after the one that ended the episode in the same response are recorded, not run.
"""

from __future__ import annotations

import datetime as dt
import json
import math

import pytest

from evalkit.errors import ModelError
from evalkit.runtime.controller import Limits
from evalkit.runtime.events import (
    ActionDecided,
    EpisodeEnded,
    ErrorRaised,
    EventLog,
    ModelResponded,
    ProviderRetry,
    ToolExecuted,
)
from evalkit.runtime.model_io import MAX_TOKENS, ModelOutput, ToolCall
from evalkit.usage import Usage

from rt_helpers import call, meta, of, policy_handler, run, say, turn

APPLE = {"item": "apple", "qty": 2}


def _strict_trace(result) -> list[dict]:
    """The trace as written to disk: strict JSON, valid UTF-8, and it loads back."""
    data = result.log.to_jsonl().encode("utf-8")
    text = data.decode("utf-8")
    EventLog.from_jsonl(text)
    return [json.loads(line, parse_constant=lambda c: pytest.fail(f"{c} in the trace")) for line in text.splitlines()]


BAD_OUTPUTS = {
    "none": (None, "respond() returned a NoneType, not a ModelOutput"),
    "str": ("buy two apples", "respond() returned a str, not a ModelOutput"),
    "dict": ({"text": "hi"}, "respond() returned a dict, not a ModelOutput"),
    "text_int": (ModelOutput(text=42), "text is a int, not a string or None"),
    "call_str": (ModelOutput(tool_calls=("buy",)), "tool_calls[0] is a str, not a ToolCall"),
    "calls_dict": (ModelOutput(tool_calls={"name": "buy"}), "tool_calls is a dict"),
    "name_none": (ModelOutput(tool_calls=(ToolCall("c", None, {}),)), "tool_calls[0].name is a NoneType"),
    "args_list": (ModelOutput(tool_calls=(ToolCall("c", "find", ["apple"]),)),
                  "tool_calls[0].arguments is a list, not a dict or None"),
    "finish_int": (ModelOutput(text="x", raw_stop_reason=3), "raw_stop_reason is a int"),
    "stop_unknown": (ModelOutput(text="x", stop_reason="stop"), "stop_reason is 'stop', not one of end_turn"),
    "usage_dict": (ModelOutput(text="x", usage={"input_tokens": 3}), "usage is a dict, not a Usage"),
    "negative_tokens": (ModelOutput(text="x", usage=Usage(input_tokens=-5, output_tokens=0)), "input_tokens is -5; token counts are integers"),
    "huge_tokens": (ModelOutput(text="x", usage=Usage(input_tokens=0, output_tokens=10**20)), f"output_tokens is {10**20}"),
    "float_tokens": (ModelOutput(text="x", usage=Usage(input_tokens=1e30, output_tokens=0)), "input_tokens is a float, not an integer"),
    "str_tokens": (ModelOutput(text="x", usage=Usage(input_tokens=0, output_tokens="abc")), "output_tokens is a str, not an integer"),
    "bool_tokens": (ModelOutput(text="x", usage=Usage(input_tokens=0, output_tokens=True)), "output_tokens is a bool"),
    "nan_latency": (ModelOutput(text="x", latency_s=math.nan), "latency_s is nan"),
    "inf_latency": (ModelOutput(text="x", latency_s=math.inf), "latency_s is inf"),
    "inf_cost": (ModelOutput(text="x", extra={"call": {"provider": "p", "model": "m", "cost_usd": math.inf}}),
                 "extra.call.cost_usd (is the model's price finite?) is inf"),
    "nan_retry_wait": (ModelOutput(text="x", extra={"retries": [{"attempt": 1, "wait_s": math.nan}]}),
                       "extra.retries.wait_s is nan"),
}


@pytest.mark.parametrize("name", sorted(BAD_OUTPUTS))
def test_a_wrong_typed_output_is_an_error_outcome_with_one_line(name):
    output, expected = BAD_OUTPUTS[name]
    _, result = run([output])
    assert result.error is not None and result.error.startswith("model error: invalid model output: ")
    assert expected in result.error and "\n" not in result.error
    assert "AttributeError" not in result.error
    (error,) = of(result, ErrorRaised)
    assert error.source == "model" and error.message == result.error.removeprefix("model error: ")
    assert of(result, ModelResponded) == []  # nothing of the invalid output enters the log
    assert result.log.events[-1] == EpisodeEnded(seq=len(result.log) - 1, turn=1, reason="error")
    _strict_trace(result)


def test_token_counts_at_the_cap_are_accepted_and_the_budget_sees_them():
    _, result = run([ModelOutput(tool_calls=(ToolCall("c1", "find", {"item": "apple"}),), usage=Usage(MAX_TOKENS, output_tokens=0)),
                     turn(call("find", {"item": "pear"}, "c2")), say("done")], limits=Limits(max_tokens=1000))
    assert result.error is None
    assert [e.reason_code for e in of(result, ActionDecided)] == ["budget_exceeded", "budget_exceeded"]


def test_negative_tokens_cannot_buy_back_the_token_budget():
    outputs = [ModelOutput(tool_calls=(ToolCall("c1", "find", {"item": "apple"}),), usage=Usage(900, output_tokens=0)),
               ModelOutput(tool_calls=(ToolCall("c2", "find", {"item": "pear"}),), usage=Usage(-10**6, output_tokens=0))]
    _, result = run(outputs, limits=Limits(max_tokens=1000))
    assert result.error == "model error: invalid model output: input_tokens is -1000000; token counts are " \
                           f"integers from 0 to {MAX_TOKENS:,}"
    assert len(of(result, ToolExecuted)) == 1


def test_lone_surrogates_are_replaced_everywhere_a_model_string_enters_the_log():
    outputs = [
        ModelOutput(tool_calls=(ToolCall("c\ud800", "fi\udfffnd", {"item": "x"}),
                                ToolCall("c2", "find", {"it\ud801em": "ap\udc00ple"}, raw_arguments="{\ud802}"),
                                ToolCall("c3", "find", {"item": "apple"})),
                    stop_reason="tool_use", raw_stop_reason="tool_calls\ud803"),
        say("Done \ud800 — 完成"),
    ]
    _, result = run(outputs)
    assert result.error is None
    lines = _strict_trace(result)
    responded = [line for line in lines if line["type"] == "model_responded"]
    assert responded[0]["tool_calls"][0]["id"] == "c\ufffd" and responded[0]["tool_calls"][0]["name"] == "fi\ufffdnd"
    assert responded[0]["tool_calls"][1]["arguments"] == {"it\ufffdem": "ap\ufffdple"}
    assert responded[0]["finish_reason"] == "tool_calls\ufffd"
    assert [e.reason_code for e in of(result, ActionDecided)] == ["unknown_tool", "schema_mismatch", None]
    ended = result.log.events[-1]
    assert ended.final_text == "Done \ufffd — 完成"  # non-ASCII text is kept as it is


NOT_JSON_ARGUMENTS = {
    "nan": ({"item": "apple", "qty": math.nan}, "a non-finite number (NaN or Infinity)"),
    "inf": ({"item": "apple", "qty": -math.inf}, "a non-finite number (NaN or Infinity)"),
    "datetime": ({"item": "apple", "when": dt.datetime(2024, 1, 2)}, "a datetime value"),
    "bytes": ({"item": b"apple"}, "a bytes value"),
}


@pytest.mark.parametrize("name", sorted(NOT_JSON_ARGUMENTS))
def test_arguments_that_are_not_strict_json_are_a_parse_error_denial(name):
    arguments, problem = NOT_JSON_ARGUMENTS[name]
    _, result = run([turn(ToolCall("c1", "buy", arguments)), say("stopped")])
    assert result.error is None
    (decided,) = of(result, ActionDecided)
    assert (decided.action, decided.reason_code) == ("deny", "parse_error")
    assert problem in decided.message
    assert of(result, ToolExecuted) == [] and "bought" not in result.state
    assert _strict_trace(result)[-1]["final_text"] == "stopped"


def test_arguments_nested_too_deep_are_a_parse_error_not_a_model_error():
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    _, result = run([turn(ToolCall("c1", "find", {"item": deep})), say("ok")])
    assert result.error is None
    (decided,) = of(result, ActionDecided)
    assert decided.reason_code == "parse_error" and "nesting too deep" in decided.message
    _strict_trace(result)


def test_a_provider_error_with_surrogates_is_recorded_cleanly():
    exc = ModelError("HTTP 500: bad \ud800 body", retryable=True)
    exc.retries = [{"attempt": 1, "code": "server_error", "message": "boom \udc00", "wait_s": 0.5}]
    _, result = run([exc])
    assert result.error == "model error: HTTP 500: bad \ufffd body"
    assert of(result, ProviderRetry)[0].message == "boom \ufffd"
    _strict_trace(result)


def test_calls_after_a_terminal_meta_request_are_recorded_as_not_run():
    outputs = [turn(meta("declare_blocked", "m1", reason="no kiwis"), call("buy", APPLE, "b1"),
                    call("find", {"item": "kiwi"}, "f1"))]
    _, result = run(outputs, handler=policy_handler())
    decided = [(e.call_id, e.action, e.reason_code) for e in of(result, ActionDecided)]
    assert decided == [("m1", "meta", None), ("b1", "deny", "episode_ended"), ("f1", "deny", "episode_ended")]
    assert "meta_request ended the episode earlier in this response" in of(result, ActionDecided)[1].message
    assert of(result, ToolExecuted) == [] and "bought" not in result.state
    ended = result.log.events[-1]
    assert isinstance(ended, EpisodeEnded) and (ended.reason, ended.terminal) == ("meta_terminal", "abstain")


def test_calls_after_the_last_gate_stop_are_recorded_as_not_run():
    outputs = [turn(call("find", {"item": "kiwi"}, "f1")),
               turn(call("buy", APPLE, "b1"), call("buy", APPLE, "b2"), call("find", {"item": "pear"}, "f2"))]
    _, result = run(outputs, gate=True, limits=Limits(max_gate_stops=1))
    decided = [(e.call_id, e.reason_code) for e in of(result, ActionDecided)]
    assert decided == [("f1", None), ("b1", "gate_abstain"), ("b2", "episode_ended"), ("f2", "episode_ended")]
    assert [e.call_id for e in of(result, ToolExecuted)] == ["f1"]
    assert result.log.events[-1].reason == "gate_stop"


def test_an_adapter_that_crashes_after_a_call_leaves_its_usage_unknown_and_counted_never_zero():
    from evalkit.metrics.billing import episode_billing

    _, result = run([ModelOutput(tool_calls=(call("find", {"item": "apple"}, "c1"),), usage=Usage(10, output_tokens=5)),
                     ValueError("Exceeds the limit (4300 digits) for integer string conversion")])
    assert result.error == "model error: ValueError: Exceeds the limit (4300 digits) for integer string conversion"
    (error,) = of(result, ErrorRaised)
    assert (error.code, error.usage) == ("adapter_error", {})
    by_type: dict = {}
    for event in result.log.events:
        by_type.setdefault(type(event), []).append(event)
    billing = episode_billing(by_type)
    assert billing["usage_missing"] == 1  # the crashed turn: unknown, counted
    assert billing["input_tokens"] is None and billing["output_tokens"] is None and billing["cost_usd"] is None
