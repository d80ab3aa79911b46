"""The OpenAI-compatible adapter against a local fake server that injects provider faults."""

from __future__ import annotations


import threading
import time

from model_helpers import completion, events_of, openai_model, run_live_episode, sent, tool_call
from werkzeug import Response

from evalkit.models.config import RetrySettings
from evalkit.usage import UNKNOWN

CHAT = "/v1/chat/completions"
PAY = tool_call("send_payment", '{"to": "ACC-0001", "amount": 40, "currency": "EUR"}')
DONE = completion({"content": "Paid."}, usage=(30, 3))


def script(api, *responses):
    """Answer the next requests with ``responses`` (a dict body, or (status, body, headers), or a handler)."""
    for item in responses:
        expectation = api.expect_ordered_request(CHAT, method="POST")
        if callable(item):
            expectation.respond_with_handler(item)
        elif isinstance(item, tuple):
            status, body, headers = item
            expectation.respond_with_json(body, status=status, headers=headers)
        else:
            expectation.respond_with_json(item)


def err(message, status):
    return {"error": {"message": message, "type": "server_error" if status >= 500 else "invalid_request_error",
                      "code": status}}


def test_rate_limit_honours_retry_after_and_the_wait_is_not_latency(api):
    script(api, (429, err("slow down", 429), {"Retry-After": "0.2"}),
           completion({"content": None, "tool_calls": [PAY]}, "tool_calls"), DONE)
    start = time.perf_counter()
    result = run_live_episode(openai_model(api))
    elapsed = time.perf_counter() - start
    api.check_assertions()
    assert result.error is None and len(api.log) == 3
    [retry] = events_of(result.log, "provider_retry")
    assert (retry.attempt, retry.code, retry.status, retry.wait_s) == (1, "rate_limited", 429, 0.2)
    assert "slow down" in retry.message
    first = events_of(result.log, "model_responded")[0]
    assert first.latency_s <= elapsed - 0.2  # it waited 0.2 s, and the wait is not charged
    call = events_of(result.log, "model_call")[0]
    assert (call.attempts, call.wait_s, call.cached) == (2, 0.2, False)
    assert events_of(result.log, "tool_executed")[0].ok


def test_retry_after_is_capped_and_retry_after_ms_is_read(api):
    model = openai_model(api, retry=RetrySettings(max_attempts=3, initial_wait_s=0.01, retry_after_cap_s=0.25))
    script(api, (429, err("later", 429), {"Retry-After": "120"}), (429, err("later", 429), {"retry-after-ms": "150"}),
           DONE)
    result = run_live_episode(model)
    assert [r.wait_s for r in events_of(result.log, "provider_retry")] == [0.25, 0.15]
    assert result.error is None


def test_server_errors_back_off_and_recover(api):
    script(api, (503, err("overloaded", 503), {}), (502, err("bad gateway", 502), {}), DONE)
    result = run_live_episode(openai_model(api))
    retries = events_of(result.log, "provider_retry")
    assert [(r.code, r.status) for r in retries] == [("provider_unavailable", 503), ("provider_unavailable", 502)]
    assert all(0 < r.wait_s <= 0.06 for r in retries)  # exponential backoff within max_wait_s (+ jitter)
    assert result.error is None and events_of(result.log, "episode_ended")[0].final_text == "Paid."


def test_a_timeout_is_retried(api):
    release = threading.Event()

    def slow(request):
        release.wait(5)  # answers only after the client gave up
        return Response("{}", status=200, content_type="application/json")

    model = openai_model(api, retry=RetrySettings(max_attempts=3, initial_wait_s=0.01, timeout_s=0.3))
    script(api, slow, DONE)
    result = run_live_episode(model)
    release.set()
    [retry] = events_of(result.log, "provider_retry")
    assert retry.code == "timeout" and retry.status is None and "timed out" in retry.message
    assert retry.usage == UNKNOWN.to_dict()  # sent and perhaps run: billed an unknown amount, never 0
    assert result.error is None
    deadline = time.monotonic() + 5
    while len(api.log) < 2 and time.monotonic() < deadline:  # let the slow answer finish before the next test
        time.sleep(0.01)


def test_deterministic_errors_are_not_retried(api):
    for status, body, code in [
        (400, {"object": "error", "message": "This model's maximum context length is 4096 tokens. However, you "
                                             "requested 4472 tokens.", "code": 400}, "context_length_exceeded"),
        (400, err("'tools.0.function.name' is invalid", 400), "bad_request"),
        (401, err("invalid api key", 401), "auth_error"),
        (404, err("model not found", 404), "not_found"),
        (500, err("boom", 500), "server_error"),  # told not to retry by x-should-retry
    ]:
        api.clear()
        headers = {"x-should-retry": "false"} if status == 500 else {}
        script(api, (status, body, headers))
        result = run_live_episode(openai_model(api))
        assert len(api.log) == 1, code
        assert events_of(result.log, "provider_retry") == []
        [error] = events_of(result.log, "error")
        assert (error.code, error.retryable, error.source) == (code, False, "model")
        assert events_of(result.log, "episode_ended")[0].reason == "error"


def test_exhausted_retries_end_the_episode_with_every_retry_recorded(api):
    script(api, *[(429, err("quota", 429), {"Retry-After": "0.01"})] * 4)
    result = run_live_episode(openai_model(api))
    assert len(api.log) == 4
    assert [r.attempt for r in events_of(result.log, "provider_retry")] == [1, 2, 3]
    [error] = events_of(result.log, "error")
    assert error.code == "rate_limited" and error.retryable
    assert result.error.startswith("model error: HTTP 429")


def test_an_unreachable_endpoint_is_a_connection_error(api):
    from evalkit.models.local import free_port

    model = openai_model(api, retry=RetrySettings(max_attempts=2, initial_wait_s=0.01, timeout_s=2))
    model.settings = model.settings.model_copy(update={"base_url": f"http://127.0.0.1:{free_port()}/v1"})
    result = run_live_episode(model)
    assert [e.code for e in events_of(result.log, "provider_retry")] == ["connection_error"]
    assert events_of(result.log, "error")[0].code == "connection_error"


def test_what_is_sent(api):
    bad = tool_call("lookup", '{"query": "x"}""', "call_bad")
    script(api, completion({"content": None, "tool_calls": [bad]}, "tool_calls"),
           completion({"content": "I'll check.", "tool_calls": [PAY]}, "tool_calls"), DONE)
    model = openai_model(api, max_tokens=64, top_p=0.9, seed=7, stop=["END"], tool_choice="auto",
                         extra_body={"repeat_penalty": 1.0}, max_string_length=20)
    result = run_live_episode(model)
    assert result.error is None
    first, second, third = sent(api)
    assert first["tool_choice"] == "auto" and [t["function"]["name"] for t in first["tools"]] == ["lookup", "send_payment"]
    assert (first["temperature"], first["top_p"], first["max_tokens"], first["seed"], first["stop"]) == (0.0, 0.9, 64, 7, ["END"])
    assert first["repeat_penalty"] == 1.0
    sent_params = {t["function"]["name"]: t["function"]["parameters"]["properties"] for t in first["tools"]}
    assert sent_params["lookup"]["query"]["maxLength"] == 20  # capped from 50
    assert sent_params["send_payment"]["to"]["maxLength"] == 20 and "maxLength" not in sent_params["send_payment"]["amount"]
    assistant = [m for m in second["messages"] if m["role"] == "assistant"][0]
    assert assistant["content"] == ""  # never null
    assert assistant["tool_calls"][0]["function"]["arguments"] == "{}"  # the invalid arguments are not replayed
    tool_msg = [m for m in second["messages"] if m["role"] == "tool"][0]
    assert tool_msg["tool_call_id"] == "call_bad" and "parse_error" in tool_msg["content"]
    assert [m["content"] for m in third["messages"] if m["role"] == "assistant"][1] == "I'll check."
    # the raw text stays in the trace
    assert events_of(result.log, "model_responded")[0].tool_calls[0].raw_arguments == '{"query": "x"}""'


def test_tool_results_go_back_in_a_user_message_when_the_format_needs_it(api):
    two = [tool_call("lookup", '{"query": "known"}', "c1"), tool_call("lookup", '{"query": "other"}', "c2")]
    script(api, completion({"content": None, "tool_calls": two}, "tool_calls"), DONE)
    result = run_live_episode(openai_model(api, tool_results_as="user"))
    assert result.error is None
    messages = sent(api)[1]["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert all(m["role"] != "tool" for m in messages)
    results = messages[3]["content"].split("\n\n")
    assert results[0].startswith("Result of lookup:") and '"found": true' in results[0]
    assert results[1].startswith("Result of lookup:") and '"found": false' in results[1]
    assert "c1" not in messages[3]["content"]  # call ids (random on some servers) stay out of the prompt


def test_named_and_required_tool_choice(api):
    script(api, DONE, DONE)
    run_live_episode(openai_model(api, tool_choice="lookup"))
    run_live_episode(openai_model(api, tool_choice="required"))
    named, required = sent(api)
    assert named["tool_choice"] == {"type": "function", "function": {"name": "lookup"}}
    assert required["tool_choice"] == "required"


def test_usage_and_cost_are_recorded(api):
    script(api, completion({"content": "ok"}, usage=(1000, 500)))
    result = run_live_episode(openai_model(api))  # price: 1 $ in, 2 $ out per million tokens
    responded = events_of(result.log, "model_responded")[0]
    assert (responded.input_tokens, responded.output_tokens) == (1000, 500)
    assert events_of(result.log, "model_call")[0].cost_usd == 0.002


def test_a_malformed_200_is_retried_then_an_error(api):
    script(api, {"object": "chat.completion", "choices": []}, {"choices": []}, {"nope": 1}, {"choices": [1]})
    result = run_live_episode(openai_model(api))
    assert [r.code for r in events_of(result.log, "provider_retry")] == ["invalid_response"] * 3
    assert events_of(result.log, "error")[0].code == "invalid_response"


def test_schemas_sent_to_grammar_servers():
    from evalkit.models.openai_compat import sent_schema

    tools = [{"type": "function", "function": {"name": "share", "parameters": {
        "type": "object", "properties": {
            "email": {"type": "string", "maxLength": 254, "pattern": r"^[^@\s]+@[^@\s]+$"},
            "pattern": {"type": ["string", "null"]},  # a property named like the keyword stays
            "tags": {"type": "array", "items": {"type": "string", "format": "uuid"}}}}}}]
    out = sent_schema(tools, max_string_length=32, drop=["pattern"])
    props = out[0]["function"]["parameters"]["properties"]
    assert props["email"] == {"type": "string", "maxLength": 32}
    assert props["pattern"] == {"type": ["string", "null"], "maxLength": 32}
    assert props["tags"]["items"] == {"type": "string", "format": "uuid", "maxLength": 32}
    assert tools[0]["function"]["parameters"]["properties"]["email"]["maxLength"] == 254  # not changed in place
