"""The Anthropic adapter against a local server speaking the Messages API, tool use included."""

from __future__ import annotations

import pytest
from model_helpers import events_of, run_live_episode, sent, settings

from evalkit.models.anthropic_messages import to_messages_api
from evalkit.models.live import LiveModel

MESSAGES = "/v1/messages"


def message(content, stop_reason="end_turn", usage=(20, 7)):
    return {"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-test", "content": content,
            "stop_reason": stop_reason, "stop_sequence": None,
            "usage": {"input_tokens": usage[0], "output_tokens": usage[1]}}


def error(kind, text):
    return {"type": "error", "error": {"type": kind, "message": text}}


def model(api, **kw):
    kw.setdefault("max_tokens", 512)
    return LiveModel(settings("anthropic/claude-test", base_url=api.url_for("").rstrip("/"), **kw), cache=None)


def script(api, *responses):
    for item in responses:
        status, body, headers = item if isinstance(item, tuple) else (200, item, {})
        api.expect_ordered_request(MESSAGES, method="POST").respond_with_json(body, status=status, headers=headers)


PAY = {"type": "tool_use", "id": "toolu_01", "name": "send_payment",
       "input": {"to": "ACC-0001", "amount": 40, "currency": "EUR"}}


def test_tool_use_round_trip(api):
    script(api, message([{"type": "text", "text": "I'll send it."}, PAY], "tool_use"),
           message([{"type": "text", "text": "Paid: pay_1."}]))
    result = run_live_episode(model(api))
    api.check_assertions()
    assert result.error is None
    assert result.state["payments"] == [{"to": "ACC-0001", "amount": 40, "currency": "EUR"}]
    first, second = sent(api)
    assert first["system"] == "You are a test agent." and first["max_tokens"] == 512
    assert first["tool_choice"] == {"type": "auto"} and first["temperature"] == 0.0
    assert first["tools"][1] == {"name": "send_payment", "description": "Send a payment.",
                                 "input_schema": first["tools"][1]["input_schema"]}
    assert first["tools"][1]["input_schema"]["required"] == ["to", "amount"]
    assert first["messages"] == [{"role": "user", "content": [
        {"type": "text", "text": "Pay invoice INV-0001: send 40 EUR to account ACC-0001."}]}]
    user, assistant, results = second["messages"]
    assert assistant == {"role": "assistant", "content": [{"type": "text", "text": "I'll send it."}, PAY]}
    assert results["role"] == "user" and results["content"][0]["type"] == "tool_result"
    assert results["content"][0]["tool_use_id"] == "toolu_01" and "pay_1" in results["content"][0]["content"]
    request, _ = api.log[0]
    key_header = request.headers.get("x-api-key") or request.headers.get("Authorization", "")  # by SDK version
    assert key_header.endswith("not-needed") and request.headers["anthropic-version"]
    responded = events_of(result.log, "model_responded")
    assert responded[0].finish_reason == "tool_use" and responded[0].text == "I'll send it."  # as sent
    assert responded[0].stop_reason == "tool_use"
    assert responded[0].tool_calls[0].arguments == PAY["input"]
    assert (responded[0].input_tokens, responded[0].output_tokens) == (20, 7)
    assert events_of(result.log, "episode_ended")[0].final_text == "Paid: pay_1."


def test_rate_limit_and_overload_are_retried(api):
    script(api, (429, error("rate_limit_error", "slow down"), {"retry-after": "0.05"}),
           (529, error("overloaded_error", "Overloaded"), {}), message([{"type": "text", "text": "ok"}]))
    result = run_live_episode(model(api))
    assert [(r.code, r.status) for r in events_of(result.log, "provider_retry")] == [
        ("rate_limited", 429), ("provider_unavailable", 529)]
    assert events_of(result.log, "provider_retry")[0].wait_s == 0.05
    assert result.error is None


def test_prompt_too_long_is_not_retried(api):
    script(api, (400, error("invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum"), {}))
    result = run_live_episode(model(api))
    assert len(api.log) == 1
    assert events_of(result.log, "error")[0].code == "context_length_exceeded"


def test_a_refusal_stop_is_a_content_filter_outcome(api):
    script(api, message([], "refusal", usage=(12, 0)))
    result = run_live_episode(model(api))
    ended = events_of(result.log, "episode_ended")[0]
    assert ended.reason == "content_filter" and ended.final_text is None
    assert events_of(result.log, "model_call")[0].flags == ("refusal",)  # a refusal, counted as content_filter


def test_messages_are_merged_into_alternating_roles():
    system, msgs = to_messages_api([
        {"role": "system", "content": "S"},
        {"role": "user", "content": "u1"},
        {"role": "user", "content": "[evalkit: 2 earlier turn(s) omitted]"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "lookup", "arguments": '{"query": "x"}'}},
            {"id": "b", "type": "function", "function": {"name": "", "arguments": '{"oops"'}}]},
        {"role": "tool", "tool_call_id": "a", "content": "r1"},
        {"role": "tool", "tool_call_id": "b", "content": "r2"},
    ])
    assert system == "S"
    assert [m["role"] for m in msgs] == ["user", "assistant", "user"]
    assert len(msgs[0]["content"]) == 2
    assert msgs[1]["content"] == [{"type": "tool_use", "id": "a", "name": "lookup", "input": {"query": "x"}},
                                  {"type": "tool_use", "id": "b", "name": "empty_tool_name", "input": {}}]
    assert [b["tool_use_id"] for b in msgs[2]["content"]] == ["a", "b"]


@pytest.mark.parametrize("choice, expected", [("required", {"type": "any"}), ("none", {"type": "none"}),
                                              ("lookup", {"type": "tool", "name": "lookup"})])
def test_tool_choice_mapping(api, choice, expected):
    script(api, message([{"type": "text", "text": "ok"}]))
    run_live_episode(model(api, tool_choice=choice))
    assert sent(api)[0]["tool_choice"] == expected


def test_a_tool_use_input_sent_as_a_json_string_is_never_run(api):
    """Messages API ``input`` is an object; one sent as a string of JSON is double-encoded: denied."""
    as_string = {**PAY, "input": '{"to": "ACC-0001", "amount": 40, "currency": "EUR"}'}
    script(api, message([as_string], "tool_use"), message([{"type": "text", "text": "Done."}]))
    result = run_live_episode(model(api))
    assert result.state.get("payments", []) == []
    [call] = events_of(result.log, "model_responded")[0].tool_calls
    assert call.arguments is None and call.parse_error is not None
    assert call.raw_arguments == '"{\\"to\\": \\"ACC-0001\\", \\"amount\\": 40, \\"currency\\": \\"EUR\\"}"'
    [action] = events_of(result.log, "action_decided")
    assert (action.action, action.reason_code) == ("deny", "parse_error")


@pytest.mark.parametrize("suffix", ["/v1", "/v1/", ""])
def test_a_base_url_given_with_or_without_its_v1_posts_to_v1_messages(api, suffix):
    script(api, message([{"type": "text", "text": "Done."}]))
    root = api.url_for("").rstrip("/")
    live = LiveModel(settings("anthropic/claude-test", base_url=root + suffix, max_tokens=64), cache=None)
    result = run_live_episode(live)
    api.check_assertions()  # the one request went to /v1/messages, not /v1/v1/messages
    assert result.error is None


def test_messages_root_removes_only_a_trailing_v1():
    from evalkit.models.anthropic_messages import messages_root

    assert [messages_root(u) for u in (None, "http://h:1/v1", "http://h:1/v1/", "http://h:1/api", "http://h:1/v10")] \
        == [None, "http://h:1", "http://h:1", "http://h:1/api", "http://h:1/v10"]
