"""The SQLite call cache: what the key covers, what is stored, and replay through the loop."""

from __future__ import annotations

import pytest
from model_helpers import completion, events_of, openai_model, run_live_episode, tool_call

from evalkit.models.cache import CallCache, cache_dir, cache_key, shared_cache

BASE = dict(provider="openai", model="m", endpoint="http://127.0.0.1:1/v1",
            messages=[{"role": "user", "content": "hi"}], tools=[{"type": "function", "function": {"name": "t"}}],
            sampling={"temperature": 0.0, "tool_choice": "auto"})


@pytest.mark.parametrize("change", [
    {"provider": "anthropic"}, {"model": "m2"}, {"endpoint": "http://127.0.0.1:2/v1"},
    {"messages": [{"role": "user", "content": "hi!"}]}, {"tools": []},
    {"sampling": {"temperature": 0.0, "tool_choice": "required"}},
    {"sampling": {"temperature": 0.0, "tool_choice": "auto", "top_p": 0.5}},
    {"sampling": {"temperature": 0.0, "tool_choice": "auto", "max_tokens": 10}},
    {"sampling": {"temperature": 0.0, "tool_choice": "auto", "seed": 1}},
    {"sampling": {"temperature": 0.0, "tool_choice": "auto", "stop": ["x"]}},
    {"sampling": {"temperature": 0.0, "tool_choice": "auto", "extra_body": {"repeat_penalty": 1.0}}},
    {"sampling": {"temperature": 0.7, "tool_choice": "auto"}},
])
def test_every_input_is_in_the_key(change):
    assert cache_key(**{**BASE, **change}) != cache_key(**BASE)


def test_epochs_separate_only_sampled_calls_without_a_seed():
    greedy = {**BASE}
    assert cache_key(**greedy, epoch=1) == cache_key(**greedy, epoch=2)
    sampled = {**BASE, "sampling": {"temperature": 0.7}}
    assert cache_key(**sampled, epoch=1) != cache_key(**sampled, epoch=2)
    unset = {**BASE, "sampling": {}}  # provider default temperature: may sample
    assert cache_key(**unset, epoch=1) != cache_key(**unset, epoch=2)
    seeded = {**BASE, "sampling": {"temperature": 0.7, "seed": 3}}
    assert cache_key(**seeded, epoch=1) == cache_key(**seeded, epoch=2)


def test_store_and_count(tmp_path):
    cache = CallCache(tmp_path / "c.sqlite")
    assert cache.get("k") is None and (cache.hits, cache.misses) == (0, 1)
    cache.put("k", {"message": {"content": "é"}, "usage": {"input_tokens": 3}})
    assert cache.get("k")["message"]["content"] == "é" and (cache.hits, len(cache)) == (1, 1)
    cache.close()
    assert CallCache(tmp_path / "c.sqlite").get("k") is not None  # persisted


def test_the_cache_lives_under_evalkit_cache_dir(tmp_path):
    assert cache_dir() == tmp_path / "cache"  # set by the autouse fixture
    assert shared_cache().path == (tmp_path / "cache" / "model_calls.sqlite").resolve()


def test_a_second_run_replays_from_the_cache(api, tmp_path):
    api.expect_ordered_request("/v1/chat/completions").respond_with_json(
        completion({"content": None, "tool_calls": [tool_call("lookup", '{"query": "known"}')]}, "tool_calls"))
    api.expect_ordered_request("/v1/chat/completions").respond_with_json(completion({"content": "Found it."}))
    cache = CallCache(tmp_path / "calls.sqlite")
    first = run_live_episode(openai_model(api, cache=cache))
    assert len(api.log) == 2 and len(cache) == 2
    second = run_live_episode(openai_model(api, cache=cache))
    assert len(api.log) == 2  # nothing sent
    calls = [(c.cached, c.attempts) for c in events_of(second.log, "model_call")]
    assert calls == [(True, 0), (True, 0)]
    assert [(c.cached, c.attempts) for c in events_of(first.log, "model_call")] == [(False, 1), (False, 1)]
    strip = ("seq",)
    same = [{k: v for k, v in e.to_dict().items() if k not in strip} for e in events_of(first.log, "model_responded")]
    again = [{k: v for k, v in e.to_dict().items() if k not in strip} for e in events_of(second.log, "model_responded")]
    assert same == again  # text, calls, usage and the recorded latency are replayed
    assert first.state == second.state


def test_errors_are_never_cached_and_other_settings_miss(api, tmp_path):
    cache = CallCache(tmp_path / "calls.sqlite")
    api.expect_ordered_request("/v1/chat/completions").respond_with_json(
        {"error": {"message": "bad request"}}, status=400)
    api.expect_ordered_request("/v1/chat/completions").respond_with_json(completion({"content": "ok"}))
    api.expect_ordered_request("/v1/chat/completions").respond_with_json(completion({"content": "ok"}))
    failed = run_live_episode(openai_model(api, cache=cache))
    assert failed.error is not None and len(cache) == 0
    run_live_episode(openai_model(api, cache=cache))
    run_live_episode(openai_model(api, cache=cache, max_tokens=99))  # another setting: another key
    assert len(api.log) == 3 and len(cache) == 2
