"""Malformed HTTP 200 answers and invalid headers: each is a provider error with an outcome
code and a clear message, never a generic Python error of the episode."""

from __future__ import annotations

import threading

import pytest
from model_helpers import completion, events_of, openai_model, raw_server, run_live_episode, settings
from werkzeug import Response

from evalkit.models.anthropic_messages import translate_anthropic
from evalkit.models.config import RetrySettings
from evalkit.models.openai_compat import translate_openai
from evalkit.models.retry import ProviderError, parse_retry_after

CHAT = "/v1/chat/completions"


@pytest.mark.parametrize("body, needle", [
    ({"choices": {"0": {"message": {"content": "hi"}}}}, "choices is a JSON object, not an array"),
    ({"choices": [{"message": "hello"}]}, "choices[0].message is a JSON string, not an object"),
    ({"choices": ["hello"]}, "choices[0] is a JSON string, not an object"),
    ({"choices": [{"message": {"content": "hi"}, "finish_reason": ["stop"]}]}, "finish_reason is a JSON array"),
    ([1, 2], "the response is a JSON array, not an object"),
    (None, "the response is a JSON null, not an object"),
    ({"choices": []}, "the response holds no choices"),
])
def test_wrong_shapes_are_invalid_response(body, needle):
    with pytest.raises(ProviderError) as caught:
        translate_openai(body)
    assert caught.value.code == "invalid_response" and caught.value.retryable
    assert needle in str(caught.value)


def test_anthropic_wrong_stop_reason_is_invalid_response():
    with pytest.raises(ProviderError) as caught:
        translate_anthropic({"content": [{"type": "text", "text": "hi"}], "stop_reason": ["end_turn"]})
    assert caught.value.code == "invalid_response" and "stop_reason" in str(caught.value)


@pytest.mark.parametrize("headers, expected", [
    ({"Retry-After": "nan"}, None), ({"Retry-After": "inf"}, None), ({"retry-after-ms": "inf"}, None),
    ({"retry-after-ms": "NaN", "Retry-After": "2"}, 2.0), ({"Retry-After": "1.5"}, 1.5),
    ({"Retry-After": "-100"}, None), ({"retry-after-ms": "-5", "Retry-After": "3"}, 3.0), ({"Retry-After": "0"}, 0.0),
    ({"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}, 0.0),
])
def test_non_finite_retry_after_is_ignored(headers, expected):
    assert parse_retry_after(headers) == expected


def _episode_error(result):
    [error] = events_of(result.log, "error")
    return error


def test_retry_after_nan_falls_back_to_the_backoff(api):
    api.expect_ordered_request(CHAT, method="POST").respond_with_json(
        {"error": {"message": "slow down"}}, status=429, headers={"Retry-After": "nan"})
    api.expect_ordered_request(CHAT, method="POST").respond_with_json(completion({"content": "Done."}))
    result = run_live_episode(openai_model(api))
    assert result.error is None, result.error
    [retry] = events_of(result.log, "provider_retry")
    assert retry.code == "rate_limited" and 0 < retry.wait_s <= 0.05  # FAST_RETRY's backoff, not NaN


@pytest.mark.parametrize("raw, needle", [
    ('{"choices": {"0": {}}}', "choices is a JSON object"),
    ('{"choices": [{"message": "hello"}]}', "message is a JSON string"),
    ('{"choices": [{"message": {"content": "hi", "x": ' + "[" * 100000 + "]" * 100000 + "}}]}",
     "nested too deeply"),
    ("{not json", "the response is not JSON"),
])
def test_malformed_200_bodies_end_the_episode_with_invalid_response(api, raw, needle):
    api.expect_request(CHAT, method="POST").respond_with_response(
        Response(raw, status=200, content_type="application/json"))
    model = openai_model(api, retry=RetrySettings(max_attempts=2, initial_wait_s=0.01, max_wait_s=0.01))
    result = run_live_episode(model)
    error = _episode_error(result)
    assert (error.code, error.source) == ("invalid_response", "model")
    assert needle in result.error
    assert len(api.log) == 2  # retried once, like any invalid response


@pytest.fixture
def claims_a_huge_body():
    """A raw socket server answering 200 with ``Content-Length`` 40 MiB (and a few bytes)."""
    hits = []

    def serve(conn):
        with conn:
            try:
                conn.recv(65536)
                hits.append(1)
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                             b"Content-Length: %d\r\n\r\n{\"choices\":" % (40 * 1024 * 1024))
                conn.recv(1)  # until the client hangs up
            except OSError:
                pass

    with raw_server(serve) as port:
        yield f"http://127.0.0.1:{port}", hits


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_body_over_the_cap_is_not_retried_and_names_the_cap(claims_a_huge_body, provider):
    from evalkit.models.live import LiveModel
    from evalkit.models.transport import DEFAULT_MAX_BYTES

    url, hits = claims_a_huge_body
    spec = "openai/m" if provider == "openai" else "anthropic/m"
    model = LiveModel(settings(spec, base_url=f"{url}/v1" if provider == "openai" else url, max_tokens=64),
                      cache=None)
    result = run_live_episode(model)
    error = _episode_error(result)
    assert (error.code, error.retryable) == ("response_too_large", False)
    assert f"larger than {DEFAULT_MAX_BYTES} bytes" in result.error
    assert len(hits) == 1 and not events_of(result.log, "provider_retry")



def test_openai_content_parts_evalkit_does_not_read_are_flagged_per_part_as_for_anthropic():
    body = {"choices": [{"finish_reason": "stop", "message": {"role": "assistant", "content": [
        {"type": "image_url", "image_url": {"url": "x"}}, {"type": "output_audio", "audio": {"id": "a"}},
        {"type": "text", "text": "Here it is."}, {"type": "custom", "text": "read as text"}]}}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 2}}
    reply = translate_openai(body)
    assert reply.flags.count("unknown_content_block") == 2  # the image and the audio; parts with text are read
    assert reply.message["content"][0]["type"] == "image_url"  # kept in the raw body
    anthropic = translate_anthropic({"type": "message", "role": "assistant", "stop_reason": "end_turn",
                                     "content": [{"type": "image", "source": {}}],
                                     "usage": {"input_tokens": 3, "output_tokens": 2}})
    assert anthropic.flags.count("unknown_content_block") == 1
    plain = translate_openai({"choices": [{"finish_reason": "stop", "message": {"content": [
        {"type": "text", "text": "a"}, {"type": "output_text", "text": "b"}, {"type": "refusal", "refusal": "no"}]}}]})
    assert "unknown_content_block" not in plain.flags


@pytest.mark.parametrize("content", [None, "hi", {"type": "text"}, "absent"])
def test_an_anthropic_body_without_content_blocks_keeps_the_usage_it_reported(content):
    body = {"type": "message", "role": "assistant", "stop_reason": "end_turn",
            "usage": {"input_tokens": 100, "output_tokens": 20}}
    if content != "absent":
        body["content"] = content
    with pytest.raises(ProviderError) as caught:
        translate_anthropic(body)
    assert caught.value.code == "invalid_response" and caught.value.retryable
    assert "holds no content blocks" in str(caught.value)
    # billed all the same, as an OpenAI body without choices: unknown only when unreadable, never 0
    assert (caught.value.usage.input_tokens, caught.value.usage.output_tokens) == (100, 20)
    body["usage"] = {"input_tokens": "x"}
    with pytest.raises(ProviderError) as caught:
        translate_anthropic(body)
    assert caught.value.usage.input_tokens is None and caught.value.usage.output_tokens is None


def test_a_body_giving_one_key_twice_is_an_invalid_response_naming_the_key():
    from evalkit.models.retry import parse_body

    anthropic = ('{"type": "message", "content": [{"type": "tool_use", "id": "t1", "name": "refund", '
                 '"input": {"customer_id": "C-9", "customer_id": "C-1"}}], "stop_reason": "tool_use"}')
    with pytest.raises(ProviderError) as caught:
        parse_body(anthropic, status=200, content_type="application/json")
    assert caught.value.code == "invalid_response" and caught.value.retryable
    assert str(caught.value) == ("the response JSON gives the key 'customer_id' twice in one object (HTTP 200, "
                                 "application/json): which value was meant is unknown")
    assert parse_body('{"content": [{"id": 1}, {"id": 2}], "id": 3}') == {"content": [{"id": 1}, {"id": 2}], "id": 3}
