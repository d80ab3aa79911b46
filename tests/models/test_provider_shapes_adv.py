"""Odd but documented provider answers, served over real HTTP on 127.0.0.1: each must land in
the typed places of :class:`~evalkit.runtime.model_io.ModelOutput` (a refusal kept, reasoning
kept apart from the text, an answer that is not a chat completion refused as invalid)."""

from __future__ import annotations

import pytest
from model_helpers import events_of, run_live_episode
from provider_helpers import context, live, path_of
from test_conformance import PAY, call, chat, msg

from evalkit.models.cache import CallCache
from evalkit.models.retry import ProviderError
from evalkit.runtime.model_io import checked_output
from evalkit.usage import Usage

OPENAI = "openai/m"


def respond(api, body, spec=OPENAI, **kw):
    api.expect_request(path_of(spec), method="POST").respond_with_json(body)
    out, _ = checked_output(live(api, spec, **kw).respond(context(), None))
    return out


def test_a_refusal_sent_as_a_content_part_is_the_refusal_not_lost(api):
    # the request-side shape ``[{"type": "refusal", "refusal": …}]`` echoed by compatible servers
    out = respond(api, chat({"content": [{"type": "text", "text": "Partly: "},
                                         {"type": "refusal", "refusal": "I can't move money."}]}))
    assert (out.refusal, out.stop_reason, out.raw_stop_reason) == ("I can't move money.", "refusal", "stop")
    assert out.text == "Partly: "


def test_a_refusal_next_to_tool_calls_withholds_the_calls(api):
    api.expect_ordered_request(path_of(OPENAI), method="POST").respond_with_json(
        chat({"refusal": "I won't do that.", "tool_calls": [call("send_payment", PAY, "c1")]}, "tool_calls"))
    result = run_live_episode(live(api, OPENAI))
    assert result.state.get("payments") is None and events_of(result.log, "tool_executed") == []
    [ended] = events_of(result.log, "episode_ended")
    assert (ended.reason, ended.final_text) == ("content_filter", "I won't do that.")
    [responded] = events_of(result.log, "model_responded")
    assert (responded.stop_reason, responded.refusal) == ("refusal", "I won't do that.")


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
def test_reasoning_of_compatible_servers_is_kept_as_reasoning_not_text(api, field):
    out = respond(api, chat({"content": "ACC-0001 needs the amount.", field: "The user gave no amount."}))
    assert out.text == "ACC-0001 needs the amount."
    assert [(b.provider, b.text) for b in out.reasoning] == [("openai", "The user gave no amount.")]


def test_the_same_reasoning_in_both_fields_is_one_block(api):
    out = respond(api, chat({"content": "ok", "reasoning": "Think.", "reasoning_content": "Think."}))
    assert [b.text for b in out.reasoning] == ["Think."]


def test_openai_reasoning_is_never_sent_back(api):
    api.expect_request(path_of(OPENAI), method="POST").respond_with_json(chat({"content": "ok"}))
    turn = {"role": "assistant", "content": "Asked.", "reasoning": [
        {"provider": "openai", "text": "hidden", "data": {"type": "reasoning_content", "reasoning_content": "hidden"}}]}
    live(api, OPENAI).respond(context([*context().messages, turn, {"role": "user", "content": "go"}]), None)
    assert "hidden" not in api.log[0][0].get_data(as_text=True)


@pytest.mark.parametrize("body, shape", [
    ({"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
      "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Hi"}, "finish_reason": None}]}, "delta"),
    ({"id": "c", "object": "text_completion", "choices": [{"index": 0, "text": "Hi", "finish_reason": "stop"}],
      "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}}, "text"),
    ({"id": "c", "object": "chat.completion", "choices": [{"index": 0, "finish_reason": "stop"}],
      "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}}, None),
])
def test_a_choice_without_a_message_is_an_invalid_response_never_an_empty_answer(api, tmp_path, body, shape):
    cache = CallCache(tmp_path / "calls.sqlite")
    api.expect_request(path_of(OPENAI), method="POST").respond_with_json(body)
    with pytest.raises(ProviderError) as caught:
        live(api, OPENAI, cache=cache, retry={"max_attempts": 2, "initial_wait_s": 0.0, "max_wait_s": 0.0}
             ).respond(context(), None)
    assert caught.value.code == "invalid_response" and "no message" in str(caught.value)
    if shape:
        assert repr(shape) in str(caught.value)
    assert len(cache) == 0 and len(api.log) == 2
    if "usage" in body:  # the tokens billed on the failed attempts are kept
        assert caught.value.usage == Usage(3, None, None, 1, None)
        assert caught.value.retries[0]["usage"]["input_tokens"] == 3


def test_an_error_object_next_to_choices_is_a_provider_error(api):
    body = chat({"content": "Payment sent."}) | {"error": {"message": "upstream provider failed mid-answer",
                                                            "code": 502}}
    api.expect_request(path_of(OPENAI), method="POST").respond_with_json(body)
    with pytest.raises(ProviderError) as caught:
        live(api, OPENAI, retry={"max_attempts": 1}).respond(context(), None)
    assert caught.value.code == "error_body" and caught.value.retryable
    assert "mid-answer" in str(caught.value) and caught.value.usage == Usage(10, None, None, 5, None)


def test_a_null_error_next_to_choices_is_no_error(api):
    out = respond(api, chat({"content": "ok"}) | {"error": None})
    assert out.text == "ok"


def test_a_tool_call_of_another_type_keeps_its_name_and_is_denied_not_run(api):
    custom = {"id": "c1", "type": "custom", "custom": {"name": "send_payment", "input": "to ACC-0001, 40 EUR"}}
    api.expect_ordered_request(path_of(OPENAI), method="POST").respond_with_json(
        chat({"tool_calls": [custom]}, "tool_calls"))
    api.expect_ordered_request(path_of(OPENAI), method="POST").respond_with_json(chat({"content": "Sorry."}))
    result = run_live_episode(live(api, OPENAI))
    assert result.state.get("payments") is None and events_of(result.log, "tool_executed") == []
    [responded, _] = events_of(result.log, "model_responded")
    [c] = responded.tool_calls
    assert c.name == "send_payment" and c.parse_error.startswith("unsupported_call_type: a 'custom'")
    assert c.arguments is None and c.raw_arguments == "to ACC-0001, 40 EUR"
    [denied] = events_of(result.log, "action_decided")
    assert (denied.tool, denied.action, denied.reason_code) == ("send_payment", "deny", "parse_error")


@pytest.mark.parametrize("spec, status, usage, expected", [
    (OPENAI, 500, {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}, Usage(7, None, None, 3, None)),
    ("anthropic/m", 529, {"input_tokens": 7, "output_tokens": 3}, Usage(7, None, None, 3, None)),
    (OPENAI, 429, None, None),
])
def test_usage_an_http_error_answer_reports_is_counted_on_the_failed_attempt(api, spec, status, usage, expected):
    error = {"error": {"message": "upstream failed after generating", "type": "server_error"}}
    if spec.startswith("anthropic/"):
        error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    if usage is not None:
        error["usage"] = usage
    api.expect_ordered_request(path_of(spec), method="POST").respond_with_json(error, status=status)
    ok = chat({"content": "ok"}) if spec == OPENAI else msg([{"type": "text", "text": "ok"}])
    api.expect_ordered_request(path_of(spec), method="POST").respond_with_json(ok)
    out, _ = checked_output(live(api, spec).respond(context(), None))
    [retry] = out.extra["retries"]
    assert retry["status"] == status
    assert retry["usage"] == (None if expected is None else expected.to_dict())
    call_ = out.extra["call"]
    extra_in, extra_out = (0, 0) if expected is None else (7, 3)
    assert (call_["input_tokens"], call_["output_tokens"]) == (10 + extra_in, 5 + extra_out)
    assert (call_["retry_input_tokens"], call_["retry_output_tokens"]) == (extra_in, extra_out)
    # the test price: 1 USD / Mtok in, 2 out
    assert call_["cost_usd"] == round((10 + extra_in + 2 * (5 + extra_out)) / 1e6, 10)


def test_an_aborted_generation_is_a_provider_error_never_the_answer(api, tmp_path):
    # vLLM / SGLang finish an engine-aborted request with finish_reason "abort" and partial text
    cache = CallCache(tmp_path / "calls.sqlite")
    api.expect_request(path_of(OPENAI), method="POST").respond_with_json(chat({"content": "I will pay 4"}, "abort"))
    with pytest.raises(ProviderError) as caught:
        live(api, OPENAI, cache=cache, retry={"max_attempts": 2, "initial_wait_s": 0.0, "max_wait_s": 0.0}
             ).respond(context(), None)
    assert caught.value.code == "error_body" and caught.value.retryable and "abort" in str(caught.value)
    assert caught.value.usage == Usage(10, None, None, 5, None) and len(cache) == 0 and len(api.log) == 2


@pytest.mark.parametrize("finish", ["eos_token", "stop_sequence"])
def test_tgi_finish_reasons_are_end_turn_not_unknown(api, finish):
    out = respond(api, chat({"content": "Which quantity?"}, finish))
    assert (out.stop_reason, out.raw_stop_reason, out.flags) == ("end_turn", finish, ())


WRONG_TYPES = [
    (OPENAI, chat({"content": 42}), "message.content is a JSON number"),
    (OPENAI, chat({"content": {"text": "hi"}}), "message.content is a JSON object"),
    (OPENAI, chat({"content": ["hello"]}), "message.content[0] is a JSON string"),
    (OPENAI, chat({"content": [{"type": "text", "text": 7}]}), "message.content[0].text is a JSON number"),
    (OPENAI, chat({"tool_calls": "send_payment()"}, "tool_calls"), "message.tool_calls is a JSON string"),
    (OPENAI, chat({"tool_calls": call("send_payment", PAY, "c1")}, "tool_calls"), "message.tool_calls is a JSON object"),
    (OPENAI, chat({"refusal": {"message": "no"}}), "message.refusal is a JSON object"),
    (OPENAI, chat({"content": "ok", "reasoning_content": ["a"]}), "message.reasoning_content is a JSON array"),
    (OPENAI, chat({"function_call": "lookup"}, "function_call"), "message.function_call is a JSON string"),
    ("anthropic/m", msg([{"type": "text", "text": None}]), "content[0].text is a JSON null"),
    ("anthropic/m", msg([{"type": "text", "text": 5}]), "content[0].text is a JSON number"),
    ("anthropic/m", msg(["hello"]), "content[0] is a JSON string"),
]


@pytest.mark.parametrize("spec, body, needle", WRONG_TYPES)
def test_a_field_of_the_wrong_type_is_an_invalid_response_never_text_or_calls(api, tmp_path, spec, body, needle):
    cache = CallCache(tmp_path / "calls.sqlite")
    api.expect_request(path_of(spec), method="POST").respond_with_json(body)
    with pytest.raises(ProviderError) as caught:
        live(api, spec, cache=cache, retry={"max_attempts": 1}).respond(context(), None)
    assert caught.value.code == "invalid_response" and needle in str(caught.value)
    assert caught.value.usage == Usage(10, None, None, 5, None) and len(cache) == 0


def test_a_text_part_with_null_text_is_no_text(api):
    out = respond(api, chat({"content": [{"type": "text", "text": None}, {"type": "text", "text": "ok"}]}))
    assert out.text == "ok"


@pytest.mark.parametrize("error, code, retryable", [
    ({"message": "Incorrect API key provided", "code": "invalid_api_key"}, "error_body", False),
    ({"message": "You exceeded your current quota", "type": "insufficient_quota", "code": "insufficient_quota"},
     "error_body", False),
    ({"message": "Request too big for this model", "code": "context_length_exceeded"}, "context_length_exceeded", False),
    ({"message": "Rate limit reached", "code": "rate_limit_exceeded"}, "error_body", True),
])
def test_an_error_body_naming_a_request_fault_by_code_is_not_retried(api, error, code, retryable):
    api.expect_request(path_of(OPENAI), method="POST").respond_with_json({"error": error})
    with pytest.raises(ProviderError) as caught:
        live(api, OPENAI, retry={"max_attempts": 2, "initial_wait_s": 0.0, "max_wait_s": 0.0}).respond(context(), None)
    assert (caught.value.code, caught.value.retryable) == (code, retryable)
    assert len(api.log) == (2 if retryable else 1)


@pytest.mark.parametrize("spec", [OPENAI, "anthropic/m"])
def test_an_html_page_answered_with_200_is_an_invalid_response(api, tmp_path, spec):
    from werkzeug import Response

    cache = CallCache(tmp_path / "calls.sqlite")
    api.expect_request(path_of(spec), method="POST").respond_with_response(
        Response("<html><body>Sign in to the proxy</body></html>", status=200, content_type="text/html"))
    with pytest.raises(ProviderError) as caught:
        live(api, spec, cache=cache, retry={"max_attempts": 2, "initial_wait_s": 0.0, "max_wait_s": 0.0}
             ).respond(context(), None)
    assert caught.value.code == "invalid_response" and "not JSON" in str(caught.value)
    assert len(cache) == 0 and len(api.log) == 2


def test_an_anthropic_refusal_with_a_tool_use_keeps_the_refusal_and_runs_nothing(api):
    body = msg([{"type": "text", "text": "I started to "},
                {"type": "tool_use", "id": "toolu_1", "name": "send_payment", "input": {"to": "ACC-0001", "amount": 40}}],
               "refusal")
    api.expect_request(path_of("anthropic/m"), method="POST").respond_with_json(body)
    result = run_live_episode(live(api, "anthropic/m"))
    assert result.state.get("payments") is None and events_of(result.log, "tool_executed") == []
    [ended] = events_of(result.log, "episode_ended")
    assert (ended.reason, ended.final_text) == ("content_filter", "I started to ")
    [denied] = events_of(result.log, "action_decided")
    assert (denied.action, denied.reason_code) == ("deny", "episode_ended")


def test_mistral_model_length_is_max_tokens_and_its_calls_are_not_run(api):
    api.expect_ordered_request(path_of(OPENAI), method="POST").respond_with_json(
        chat({"tool_calls": [call("send_payment", PAY, "c1")]}, "model_length"))
    api.expect_ordered_request(path_of(OPENAI), method="POST").respond_with_json(chat({"content": "Sorry."}))
    result = run_live_episode(live(api, OPENAI))
    assert result.state.get("payments") is None and events_of(result.log, "tool_executed") == []
    [denied] = events_of(result.log, "action_decided")
    assert denied.reason_code == "truncated_tool_call"
    assert events_of(result.log, "model_responded")[0].stop_reason == "max_tokens"


@pytest.mark.parametrize("part", [
    {"type": "thinking", "thinking": [{"type": "text", "text": "No amount was given."}]},
    {"type": "reasoning", "text": "No amount was given."},
])
def test_reasoning_content_parts_are_reasoning_never_text(api, part):
    out = respond(api, chat({"content": [part, {"type": "text", "text": "How much should I send?"}]}))
    assert out.text == "How much should I send?"
    assert [b.text for b in out.reasoning] == ["No amount was given."]


def test_a_cached_body_now_read_as_an_error_is_asked_again_and_replaced(api, tmp_path):
    from evalkit.models.cache import cache_key

    cache = CallCache(tmp_path / "calls.sqlite")
    model = live(api, OPENAI, cache=cache)
    s = model.settings
    key = cache_key(provider=s.provider, model=s.model, endpoint=model.endpoint, messages=context().messages,
                    tools=context().tools, sampling={**s.sampling(), "tool_results_as": s.tool_results_as,
                                                     "max_string_length": s.max_string_length,
                                                     "drop_schema_keywords": s.drop_schema_keywords}, epoch=None)
    # what an older reading stored: an aborted generation's partial text
    cache.put(key, {"body": chat({"content": "I will pay 4"}, "abort"), "latency_s": 0.1}, provider="openai", model="m")
    api.expect_request(path_of(OPENAI), method="POST").respond_with_json(chat({"content": "How much?"}))
    out = model.respond(context(), None)
    assert out.text == "How much?" and not out.extra["call"]["cached"] and len(api.log) == 1
    again = model.respond(context(), None)
    assert again.text == "How much?" and again.extra["call"]["cached"] and len(api.log) == 1


@pytest.mark.parametrize("spec, usage, expected", [
    (OPENAI, {"prompt_tokens": 100, "completion_tokens": 10}, Usage(100, None, None, 10, None)),
    (OPENAI, {"prompt_tokens": -50, "completion_tokens": 10}, Usage()),
    (OPENAI, {"prompt_tokens": 100, "completion_tokens": 10, "prompt_tokens_details": "x"}, Usage()),
    (OPENAI, {"prompt_tokens": 100}, Usage(100, None, None, None, None)),
    ("anthropic/m", {"input_tokens": 100, "output_tokens": 10, "cache_creation": "y"}, Usage()),
])
def test_an_error_answer_whose_usage_cannot_be_read_whole_bills_an_unknown_amount(api, spec, usage, expected):
    """An HTTP error body that reports usage billed something: a malformed report is unknown, never 0."""
    api.expect_request(path_of(spec), method="POST").respond_with_json(
        {"error": {"message": "upstream failed", "type": "server_error"}, "usage": usage}, status=500)
    with pytest.raises(ProviderError) as caught:
        live(api, spec, retry={"max_attempts": 1}).respond(context(), None)
    assert caught.value.usage == expected


def test_an_error_answer_without_usage_bills_nothing(api):
    api.expect_request(path_of(OPENAI), method="POST").respond_with_json(
        {"error": {"message": "upstream failed", "type": "server_error"}}, status=500)
    with pytest.raises(ProviderError) as caught:
        live(api, OPENAI, retry={"max_attempts": 1}).respond(context(), None)
    assert caught.value.usage is None
