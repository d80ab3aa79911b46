"""Token counts that real servers get wrong, served over real HTTP: the money follows the
documented formula, a miscount is flagged and never billed beyond the totals reported."""

from __future__ import annotations

import pytest
from provider_helpers import context, live, path_of
from test_conformance import chat, msg

from evalkit.models.cache import CallCache
from evalkit.models.retry import ProviderError
from evalkit.runtime.model_io import checked_output
from evalkit.usage import Usage

PRICE = {"input_per_mtok": 1.0, "cached_input_per_mtok": 0.5, "cache_write_per_mtok": 1.25,
         "output_per_mtok": 2.0}


def answer(api, spec, body, **kw):
    api.expect_request(path_of(spec), method="POST").respond_with_json(body)
    out, _ = checked_output(live(api, spec, price=PRICE, **kw).respond(context(), None))
    return out


def test_cached_tokens_above_the_prompt_are_flagged_and_billed_only_up_to_it(api):
    body = chat({"content": "x"}, usage=None) | {"usage": {
        "prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15, "prompt_tokens_details": {"cached_tokens": 50}}}
    out = answer(api, "openai/m", body)
    assert out.usage == Usage(10, 50, None, 5, None) and "usage_inconsistent" in out.flags
    # all 10 prompt tokens at the cached rate, never 50 of them, never a negative uncached part
    assert out.extra["call"]["cost_usd"] == round((10 * 0.5 + 5 * 2.0) / 1e6, 10)


def test_a_total_below_prompt_plus_completion_is_flagged(api):
    out = answer(api, "openai/m", chat({"content": "x"}, usage=None) | {"usage": {
        "prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 3}})
    assert out.usage == Usage(10, None, None, 5, None) and out.flags == ("usage_inconsistent",)
    assert out.extra["call"]["cost_usd"] == round((10 * 1.0 + 5 * 2.0) / 1e6, 10)


def test_anthropic_thinking_tokens_above_output_are_flagged_and_billed_as_output(api):
    out = answer(api, "anthropic/m", msg([{"type": "text", "text": "x"}], usage={
        "input_tokens": 10, "output_tokens": 5, "output_tokens_details": {"thinking_tokens": 40}}))
    assert "usage_inconsistent" in out.flags
    assert out.extra["call"]["cost_usd"] == round((10 * 1.0 + 5 * 2.0) / 1e6, 10)


def test_a_consistent_answer_is_not_flagged(api):
    out = answer(api, "anthropic/m", msg([{"type": "text", "text": "x"}], usage={
        "input_tokens": 86, "cache_read_input_tokens": 1920, "cache_creation_input_tokens": 64, "output_tokens": 300,
        "cache_creation": {"ephemeral_5m_input_tokens": 64, "ephemeral_1h_input_tokens": 0},
        "service_tier": "standard"}))
    assert out.flags == () and out.usage == Usage(2070, 1920, 64, 300, None)
    assert out.extra["call"]["cost_usd"] == round((86 * 1.0 + 1920 * 0.5 + 64 * 1.25 + 300 * 2.0) / 1e6, 10)


def test_an_integral_float_count_is_that_count(api):
    out = answer(api, "openai/m", chat({"content": "x"}, usage=None) | {"usage": {
        "prompt_tokens": 12.0, "completion_tokens": 3, "total_tokens": 15.0}})
    assert out.usage == Usage(12, None, None, 3, None) and out.flags == ()
    assert type(out.usage.input_tokens) is int


@pytest.mark.parametrize("value", [10**30, 100_000_001, 1e300])
def test_an_impossible_count_is_an_invalid_response_and_never_cached(api, tmp_path, value):
    cache = CallCache(tmp_path / "calls.sqlite")
    api.expect_request(path_of("openai/m"), method="POST").respond_with_json(
        chat({"content": "x"}, usage=None) | {"usage": {"prompt_tokens": value, "completion_tokens": 3}})
    with pytest.raises(ProviderError) as caught:
        live(api, "openai/m", cache=cache).respond(context(), None)
    assert caught.value.code == "invalid_response" and "usage.prompt_tokens" in str(caught.value)
    assert len(cache) == 0


def test_deepseek_cache_hits_are_cached_input(api):
    out = answer(api, "openai/m", chat({"content": "x"}, usage=None) | {"usage": {
        "prompt_tokens": 1200, "completion_tokens": 50, "total_tokens": 1250,
        "prompt_cache_hit_tokens": 1024, "prompt_cache_miss_tokens": 176}})
    assert out.usage == Usage(1200, 1024, None, 50, None) and out.flags == ()
    assert out.extra["call"]["cost_usd"] == round((176 * 1.0 + 1024 * 0.5 + 50 * 2.0) / 1e6, 10)


@pytest.mark.parametrize("usage, expected", [
    ({"prompt_tokens": 10, "total_tokens": 10}, Usage(10, None, None, 0, None)),  # a zero count left out
    ({"prompt_tokens": 10, "total_tokens": 14}, Usage(10, None, None, 4, None)),
    ({"completion_tokens": 4, "total_tokens": 14}, Usage(10, None, None, 4, None)),
])
def test_a_count_left_out_next_to_a_total_is_derived_not_unknown(api, usage, expected):
    out = answer(api, "openai/m", chat({"content": "x"}, usage=None) | {"usage": usage})
    assert out.usage == expected and out.flags == ("usage_derived",)
    assert out.extra["call"]["cost_usd"] == round((expected.input_tokens + 2 * expected.output_tokens) / 1e6, 10)


def test_a_count_left_out_without_a_total_stays_unknown(api):
    out = answer(api, "openai/m", chat({"content": "x"}, usage=None) | {"usage": {"prompt_tokens": 10}})
    assert out.usage == Usage(10, None, None, None, None) and out.flags == ("usage_missing",)
    assert out.extra["call"]["cost_usd"] is None


def test_reasoning_above_completion_is_not_added_when_the_total_agrees_with_prompt_plus_completion(api):
    # two counts agree (total = prompt + completion); the reasoning count is the outlier
    out = answer(api, "openai/m", chat({"content": "x"}, usage=None) | {"usage": {
        "prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15,
        "completion_tokens_details": {"reasoning_tokens": 50}}})
    assert out.usage == Usage(10, None, None, 5, 50) and out.flags == ("usage_inconsistent",)
    assert out.extra["call"]["cost_usd"] == round((10 * 1.0 + 5 * 2.0) / 1e6, 10)  # never above the total


def test_anthropic_one_hour_cache_writes_are_flagged(api):
    usage = {"input_tokens": 10, "cache_creation_input_tokens": 100, "cache_read_input_tokens": 0, "output_tokens": 5,
             "cache_creation": {"ephemeral_5m_input_tokens": 40, "ephemeral_1h_input_tokens": 60}}
    out = answer(api, "anthropic/m", msg([{"type": "text", "text": "x"}], usage=usage))
    assert out.usage == Usage(110, 0, 100, 5, None) and out.flags == ("cache_write_1h_unpriced",)
    assert "cache_write_1h_unpriced" in out.extra["call"]["flags"]


@pytest.mark.parametrize("spec, usage, field", [
    ("openai/m", {"prompt_tokens": 10, "completion_tokens": 5, "prompt_tokens_details": "cached: 8"},
     "usage.prompt_tokens_details"),
    ("openai/m", {"prompt_tokens": 10, "completion_tokens": 5, "prompt_tokens_details": [8]},
     "usage.prompt_tokens_details"),
    ("openai/m", {"prompt_tokens": 10, "completion_tokens": 5, "completion_tokens_details": 3},
     "usage.completion_tokens_details"),
    ("anthropic/m", {"input_tokens": 10, "output_tokens": 5, "output_tokens_details": "many"},
     "usage.output_tokens_details"),
    ("anthropic/m", {"input_tokens": 10, "output_tokens": 5, "cache_creation": 64}, "usage.cache_creation"),
    ("anthropic/m", {"input_tokens": 10, "output_tokens": 5, "server_tool_use": ["web_search"]},
     "usage.server_tool_use"),
])
def test_a_usage_details_object_of_the_wrong_type_is_an_invalid_response(api, tmp_path, spec, usage, field):
    """A details object that is not an object never reads as "no cached / no reasoning tokens"."""
    cache = CallCache(tmp_path / "calls.sqlite")
    body = (chat({"content": "x"}, usage=None) | {"usage": usage} if spec.startswith("openai")
            else msg([{"type": "text", "text": "x"}], usage=usage))
    api.expect_request(path_of(spec), method="POST").respond_with_json(body)
    with pytest.raises(ProviderError) as caught:
        live(api, spec, cache=cache).respond(context(), None)
    assert caught.value.code == "invalid_response" and f"{field} is a JSON " in str(caught.value)
    assert len(cache) == 0


@pytest.mark.parametrize("spec, usage", [
    ("openai/m", {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}),
    ("openai/m", None),  # the tier is a field of the body, read without usage too
    ("anthropic/m", {"input_tokens": 10, "output_tokens": 5}),
])
@pytest.mark.parametrize("tier, kind", [(2, "number"), ({"name": "flex"}, "object"), (["flex"], "array"),
                                        (True, "boolean")])
def test_a_service_tier_of_the_wrong_type_is_an_invalid_response(api, tmp_path, spec, usage, tier, kind):
    """A tier that is not a string is never read as the list price's tier."""
    cache = CallCache(tmp_path / "calls.sqlite")
    if spec.startswith("openai"):
        body, field = chat({"content": "x"}, usage=None) | {"usage": usage, "service_tier": tier}, "service_tier"
    else:
        body, field = msg([{"type": "text", "text": "x"}], usage=usage | {"service_tier": tier}), "usage.service_tier"
    api.expect_request(path_of(spec), method="POST").respond_with_json(body)
    with pytest.raises(ProviderError) as caught:
        live(api, spec, cache=cache).respond(context(), None)
    assert caught.value.code == "invalid_response"
    assert str(caught.value) == f"{field} is a JSON {kind}, not a string"
    assert len(cache) == 0


@pytest.mark.parametrize("spec", ["openai/m", "anthropic/m"])
@pytest.mark.parametrize("tier, flags", [(None, ()), ("absent", ()), ("Priority", ("service_tier_unpriced",))])
def test_a_null_or_absent_service_tier_is_the_list_price(api, spec, tier, flags):
    extra = {} if tier == "absent" else {"service_tier": tier}
    if spec.startswith("openai"):
        body = chat({"content": "x"}, usage=None) | {"usage": {"prompt_tokens": 10, "completion_tokens": 5}} | extra
    else:
        body = msg([{"type": "text", "text": "x"}], usage={"input_tokens": 10, "output_tokens": 5} | extra)
    out = answer(api, spec, body)
    assert out.usage == Usage(10, None, None, 5, None) and out.flags == flags


@pytest.mark.parametrize("details", [None, {}])
def test_a_null_or_empty_details_object_leaves_its_counts_unknown(api, details):
    out = answer(api, "openai/m", chat({"content": "x"}, usage=None) | {"usage": {
        "prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15, "prompt_tokens_details": details}})
    assert out.usage == Usage(10, None, None, 5, None) and out.flags == ()


@pytest.mark.parametrize("part, value", [
    ("server_tool_use", {"web_search_requests": "many"}), ("server_tool_use", {"web_search_requests": True}),
    ("server_tool_use", {"web_search_requests": -2}), ("cache_creation", {"ephemeral_5m_input_tokens": -7}),
])
def test_an_inner_server_tool_or_cache_count_of_the_wrong_type_is_an_invalid_response(api, part, value):
    api.expect_request(path_of("anthropic/m"), method="POST").respond_with_json(
        msg([{"type": "text", "text": "x"}], usage={"input_tokens": 10, "output_tokens": 5, part: value}))
    with pytest.raises(ProviderError) as caught:
        live(api, "anthropic/m").respond(context(), None)
    assert caught.value.code == "invalid_response" and f"usage.{part}." in str(caught.value)


def test_an_integral_float_server_tool_count_is_that_count(api):
    out = answer(api, "anthropic/m", msg([{"type": "text", "text": "x"}], usage={
        "input_tokens": 10, "output_tokens": 5, "server_tool_use": {"web_search_requests": 2.0}}))
    assert out.flags == ("server_tool_unpriced",)
