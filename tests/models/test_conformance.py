"""Provider conformance: recorded response bodies of each documented shape, served over real
HTTP by a local server on 127.0.0.1, read into the typed :class:`ModelOutput`.

Shapes follow the ``openai`` SDK's ``ChatCompletion`` / ``CompletionUsage`` types and the
``anthropic`` SDK's ``Message`` / ``Usage`` / ``StopReason`` / thinking block types.
"""

from __future__ import annotations

import json

import pytest
from provider_helpers import context, live, path_of

from evalkit.models.cache import CallCache
from evalkit.models.retry import ProviderError
from evalkit.runtime.model_io import checked_output
from evalkit.usage import Usage


def chat(message=None, finish="stop", usage=(10, 5), **extra):
    body = {"id": "chatcmpl-1", "object": "chat.completion", "created": 1700000000, "model": "m",
            "choices": [{"index": 0, "finish_reason": finish, "logprobs": None,
                         "message": {"role": "assistant", "content": None, "refusal": None, **(message or {})}}]}
    if usage is not None:
        body["usage"] = {"prompt_tokens": usage[0], "completion_tokens": usage[1], "total_tokens": sum(usage)}
    body.update(extra)
    return body


def call(name, arguments, cid):
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": arguments}}


def msg(content, stop="end_turn", usage=None):
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": "m", "content": content,
            "stop_reason": stop, "stop_sequence": None,
            "usage": usage if usage is not None else {"input_tokens": 10, "output_tokens": 5}}


PAY = '{"to": "ACC-0001", "amount": 40}'
TOOL_USE = {"type": "tool_use", "id": "toolu_1", "name": "send_payment", "input": {"to": "ACC-0001", "amount": 40}}

OPENAI = {
    "text": (chat({"content": "Done."}), {"text": "Done.", "stop_reason": "end_turn", "raw_stop_reason": "stop",
                                          "usage": Usage(10, None, None, 5, None)}),
    "tool_calls": (chat({"tool_calls": [call("send_payment", PAY, "c1")]}, "tool_calls"),
                   {"calls": [("send_payment", {"to": "ACC-0001", "amount": 40})], "stop_reason": "tool_use"}),
    "parallel_calls": (chat({"tool_calls": [call("lookup", '{"query": "a"}', "c1"),
                                            call("lookup", '{"query": "b"}', "c2")]}, "tool_calls"),
                       {"calls": [("lookup", {"query": "a"}), ("lookup", {"query": "b"})]}),
    "legacy_function_call": (chat({"function_call": {"name": "lookup", "arguments": '{"query": "a"}'}},
                                  "function_call"), {"calls": [("lookup", {"query": "a"})], "stop_reason": "tool_use"}),
    "length": (chat({"content": "Let me"}, "length"), {"text": "Let me", "stop_reason": "max_tokens"}),
    "content_filter": (chat({}, "content_filter"), {"text": None, "stop_reason": "content_filter"}),
    "refusal": (chat({"refusal": "I can't help with that."}), {"text": None, "refusal": "I can't help with that.",
                                                                "stop_reason": "refusal"}),
    "unknown_finish": (chat({"content": "x"}, "eos"), {"stop_reason": "other", "raw_stop_reason": "eos",
                                                        "flags": ("unknown_stop_reason",)}),
    "several_flags": (chat({"content": "x"}, "eos", usage=None), {"flags": ("usage_missing", "unknown_stop_reason")}),
    "no_finish": (chat({"content": "x"}, None), {"stop_reason": "end_turn", "flags": ("stop_reason_missing",)}),
    "tool_calls_finish_without_calls": (chat({"content": "x"}, "tool_calls"),
                                        {"stop_reason": "end_turn", "raw_stop_reason": "tool_calls",
                                         "flags": ("stop_reason_without_calls",)}),
    "cached_and_reasoning": (chat({"content": "x"}, usage=None) | {"usage": {
        "prompt_tokens": 2006, "completion_tokens": 300, "total_tokens": 2306,
        "prompt_tokens_details": {"cached_tokens": 1920, "audio_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": 256, "audio_tokens": 0}}},
        {"usage": Usage(2006, 1920, None, 300, 256)}),
    "reasoning_outside_total": (chat({"content": "x"}, usage=(1150, 12)) | {"usage": {
        "prompt_tokens": 1150, "completion_tokens": 12, "total_tokens": 1962,
        "completion_tokens_details": {"reasoning_tokens": 800}}},
        {"usage": Usage(1150, None, None, 812, 800), "flags": ("usage_inconsistent",)}),
    "reasoning_outside_no_total": (chat({"content": "x"}, usage=None) | {"usage": {
        "prompt_tokens": 1150, "completion_tokens": 12, "completion_tokens_details": {"reasoning_tokens": 800}}},
        {"usage": Usage(1150, None, None, 812, 800), "flags": ("usage_inconsistent",)}),
    "no_usage": (chat({"content": "x"}, usage=None), {"usage": Usage(), "flags": ("usage_missing",)}),
    "null_usage": (chat({"content": "x"}, usage=None) | {"usage": None}, {"usage": Usage(), "flags": ("usage_missing",)}),
}

ANTHROPIC = {
    "text": (msg([{"type": "text", "text": "Done."}]), {"text": "Done.", "stop_reason": "end_turn",
                                                         "raw_stop_reason": "end_turn"}),
    "stop_sequence": (msg([{"type": "text", "text": "a"}], "stop_sequence"), {"stop_reason": "end_turn"}),
    "tool_use": (msg([{"type": "text", "text": "Paying."}, TOOL_USE], "tool_use"),
                 {"text": "Paying.", "calls": [("send_payment", {"to": "ACC-0001", "amount": 40})],
                  "stop_reason": "tool_use"}),
    "parallel_tool_use": (msg([TOOL_USE, {**TOOL_USE, "id": "toolu_2", "input": {"to": "B", "amount": 1}}], "tool_use"),
                          {"calls": [("send_payment", {"to": "ACC-0001", "amount": 40}),
                                     ("send_payment", {"to": "B", "amount": 1})]}),
    "max_tokens": (msg([{"type": "text", "text": "Let"}], "max_tokens"), {"stop_reason": "max_tokens"}),
    "window_exceeded": (msg([{"type": "text", "text": "Let"}], "model_context_window_exceeded"),
                        {"stop_reason": "max_tokens"}),
    "refusal": (msg([{"type": "text", "text": "I can't."}], "refusal"),
                {"text": None, "refusal": "I can't.", "stop_reason": "refusal"}),
    "pause_turn": (msg([{"type": "text", "text": "a"}], "pause_turn"), {"stop_reason": "max_tokens", "flags": ()}),
    "thinking": (msg([{"type": "thinking", "thinking": "Plan.", "signature": "sig-1"},
                      {"type": "redacted_thinking", "data": "EmwKAhgB"}, TOOL_USE], "tool_use"),
                 {"reasoning": [("Plan.", {"type": "thinking", "thinking": "Plan.", "signature": "sig-1"}),
                                (None, {"type": "redacted_thinking", "data": "EmwKAhgB"})]}),
    "cache_usage": (msg([{"type": "text", "text": "x"}], usage={
        "input_tokens": 86, "cache_read_input_tokens": 1920, "cache_creation_input_tokens": 64, "output_tokens": 300,
        "output_tokens_details": {"thinking_tokens": 120}}), {"usage": Usage(2070, 1920, 64, 300, 120)}),
    "null_usage": (msg([{"type": "text", "text": "x"}]) | {"usage": None}, {"usage": Usage(),
                                                                          "flags": ("usage_missing",)}),
}


def _check(out, expected):
    out, _ = checked_output(out)  # what the agent loop accepts
    for name, value in expected.items():
        if name == "calls":
            assert [(c.name, c.arguments) for c in out.tool_calls] == value
        elif name == "reasoning":
            assert [(b.text, b.data) for b in out.reasoning] == value
        else:
            assert getattr(out, name) == value, name
    assert out.raw is not None


@pytest.mark.parametrize("shape", sorted(OPENAI))
def test_openai_shapes(api, shape):
    body, expected = OPENAI[shape]
    api.expect_request(path_of("openai/m"), method="POST").respond_with_json(body)
    out = live(api, "openai/m").respond(context(), None)
    _check(out, expected)
    assert out.raw == body


@pytest.mark.parametrize("shape", sorted(ANTHROPIC))
def test_anthropic_shapes(api, shape):
    body, expected = ANTHROPIC[shape]
    api.expect_request(path_of("anthropic/m"), method="POST").respond_with_json(body)
    out = live(api, "anthropic/m").respond(context(), None)
    _check(out, expected)


ERRORS = {
    "openai/m": [
        ({"error": {"message": "upstream timeout", "code": 504}, "usage": {"prompt_tokens": 7, "completion_tokens": 3}},
         "error_body", True, Usage(7, None, None, 3, None)),
        (chat({"content": "partial"}, "error"), "error_body", True, Usage(10, None, None, 5, None)),
        (chat({"content": "partial"}) | {"choices": [{"index": 0, "finish_reason": "stop", "message": {
            "content": "x"}, "error": {"code": 502, "message": "upstream reset"}}]}, "error_body", True, None),
        (chat({"content": "x"}) | {"choices": []}, "invalid_response", True, Usage(10, None, None, 5, None)),
        (chat({"content": "a"}) | {"choices": [chat({"content": "a"})["choices"][0],
                                              {**chat({"content": "b"})["choices"][0], "index": 1}]},
         "invalid_response", False, None),
        ({"error": {"message": "bad key", "type": "invalid_request_error"}}, "error_body", False, None),
    ],
    "anthropic/m": [
        ({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}, "error_body", True, None),
        ({"type": "error", "error": {"type": "invalid_request_error", "message": "bad"}}, "error_body", False, None),
        # an error beside content blocks is an error, never the text beside it
        (msg([{"type": "text", "text": "How many"}]) | {"error": {"type": "api_error", "message": "upstream reset"}},
         "error_body", True, None),
        ({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}, "content": []},
         "error_body", True, None),
    ],
}


@pytest.mark.parametrize("spec, index", [(s, i) for s, cases in ERRORS.items() for i in range(len(cases))])
def test_error_bodies_are_provider_errors_and_never_cached(api, tmp_path, spec, index):
    body, code, retryable, usage = ERRORS[spec][index]
    api.expect_request(path_of(spec), method="POST").respond_with_json(body)
    cache = CallCache(tmp_path / "calls.sqlite")
    model = live(api, spec, cache=cache, retry={"max_attempts": 2, "initial_wait_s": 0.0, "max_wait_s": 0.0})
    with pytest.raises(ProviderError) as caught:
        model.respond(context(), None)
    error = caught.value
    assert (error.code, error.retryable) == (code, retryable)
    if usage is not None:
        assert error.usage == usage
        if retryable:  # the failed first attempt's usage is in its retry record
            assert error.retries[0]["usage"] == usage.to_dict()
    assert len(cache) == 0 and len(api.log) == (2 if retryable else 1)


def test_the_cache_replays_the_body_and_keys_on_the_thinking_blocks(api, tmp_path):
    body, _ = ANTHROPIC["thinking"]
    api.expect_request(path_of("anthropic/m"), method="POST").respond_with_json(body)
    cache = CallCache(tmp_path / "calls.sqlite")
    model = live(api, "anthropic/m", cache=cache)
    first = model.respond(context(), None)
    again = model.respond(context(), None)
    assert len(api.log) == 1 and again.extra["call"]["cached"]
    assert again.reasoning == first.reasoning and again.raw == body and again.usage == first.usage
    # the same history with a different thinking block is another key
    turn = {"role": "assistant", "content": "", "reasoning": [b.to_dict() for b in first.reasoning],
            "tool_calls": [{"id": "toolu_1", "type": "function",
                            "function": {"name": "send_payment", "arguments": PAY}}]}
    base = context().messages
    model.respond(context([*base, turn, {"role": "tool", "tool_call_id": "toolu_1", "content": "ok"}]), None)
    changed = {**turn, "reasoning": [{**turn["reasoning"][0], "data": {**turn["reasoning"][0]["data"],
                                                                       "signature": "other"}}, turn["reasoning"][1]]}
    model.respond(context([*base, changed, {"role": "tool", "tool_call_id": "toolu_1", "content": "ok"}]), None)
    assert len(api.log) == 3
    sent = json.loads(api.log[1][0].get_data(as_text=True))
    assert sent["messages"][1]["content"][:2] == [b.data for b in first.reasoning]


def test_reasoning_blocks_are_not_sent_to_another_provider(api):
    api.expect_request(path_of("openai/m"), method="POST").respond_with_json(chat({"content": "ok"}))
    turn = {"role": "assistant", "content": "", "reasoning": [{"provider": "anthropic", "text": "t", "data": {
        "type": "thinking", "thinking": "t", "signature": "s"}}]}
    live(api, "openai/m").respond(context([*context().messages, turn, {"role": "user", "content": "go"}]), None)
    sent = json.loads(api.log[0][0].get_data(as_text=True))
    assert all("reasoning" not in m and "thinking" not in json.dumps(m) for m in sent["messages"])


def test_an_openai_call_cut_at_length_is_denied_not_run(api):
    from model_helpers import events_of, run_live_episode

    api.expect_ordered_request(path_of("openai/m"), method="POST").respond_with_json(
        chat({"tool_calls": [call("send_payment", PAY, "c1")]}, "length"))
    api.expect_ordered_request(path_of("openai/m"), method="POST").respond_with_json(chat({"content": "Sorry."}))
    result = run_live_episode(live(api, "openai/m"))
    assert result.state.get("payments") is None and events_of(result.log, "tool_executed") == []
    [denied] = events_of(result.log, "action_decided")
    assert (denied.action, denied.reason_code) == ("deny", "truncated_tool_call")
    sent = json.loads(api.log[1][0].get_data(as_text=True))
    assert "cut off at the output-token limit" in sent["messages"][-1]["content"]
