"""Odd ``model`` values in responses: what a gateway, a self-hosted server or a broken proxy
writes, per call and over real HTTP, cached and resumed."""

from __future__ import annotations

import pytest
from provider_helpers import Endpoint, events, run_pair
from test_conformance import call, chat

from evalkit.models.identity import answering_price, response_model, same_model


@pytest.mark.parametrize("value", [None, 4, 4.0, ["gpt-4o"], {"id": "gpt-4o"}, "", "   ", "\u200b\ufeff", "/", "\\\\"])
def test_a_model_field_that_names_nothing_is_none(value) -> None:
    assert response_model({"model": value}) is None
    assert response_model([{"model": "gpt-4o"}]) is None


@pytest.mark.parametrize("requested,answered", [
    ("gpt-4o", "ｇｐｔ-4ｏ"),                                # full-width forms (NFKC)
    ("gpt-4o", "gpt\u200b-4o\ufeff"),                      # invisible format characters
    ("gpt-4o", " GPT-4O\n"),
    ("llama3.1", "/models/llama3.1.gguf"),                 # llama.cpp's server reports its file
    ("llama3.1", "C:\\models\\llama3.1.gguf"),             # the same on Windows
    ("llama-3.1-8b-instruct", "/models/Llama-3.1-8B-Instruct/"),  # vLLM serving a folder
    ("openai/llama3.1", "llama3.1"),                       # an openai/ prefix on a local server
    ("straße-1", "STRASSE-1"),                             # case-folded, not only lower-cased
])
def test_one_model_in_odd_forms_is_the_same_model(requested, answered) -> None:
    assert same_model(requested, response_model({"model": answered}))


@pytest.mark.parametrize("requested,answered", [
    ("gpt-4o", "gpt-4\u043e"),                   # a Cyrillic look-alike is another name
    ("gpt-4o", "x" * 100_000),
    ("llama3.1", "/models/llama3.1-70b.gguf"),
])
def test_other_names_stay_a_mismatch(requested, answered) -> None:
    assert not same_model(requested, response_model({"model": answered}))


def test_a_path_finds_its_price_by_the_file_name() -> None:
    prices = {"openai/llama3.1": {"input_per_mtok": 0.0, "output_per_mtok": 0.0}}
    assert answering_price("openai", "/srv/models/Llama3.1.gguf", prices) == prices["openai/llama3.1"]


# --------------------------------------------------------------------------- whole runs over HTTP


PRICES = ("defaults: {retry: {initial_wait_s: 0.01, max_wait_s: 0.02, max_attempts: 2}}\n"
          "models:\n  openai/m: {price: {input_per_mtok: 1, output_per_mtok: 2}}\n"
          "  openai/fallback: {price: {input_per_mtok: 10, output_per_mtok: 20}}\n")


def _two_turns(first_model, second_model) -> list[dict]:
    """A tool call answered by ``first_model``, then a question by ``second_model`` (10 in, 5 out each)."""
    tool = chat({"tool_calls": [call("search_products", '{"query": "mug"}', "call_1")]}, finish="tool_calls",
                model=first_model)
    return [tool, chat({"content": "How many mugs would you like?"}, model=second_model)]


def test_the_model_changing_between_turns_of_one_episode_is_counted_per_call(api, tmp_path) -> None:
    endpoint = Endpoint({"act": _two_turns("fallback", "m"), "abstain": _two_turns("m", "FALLBACK")})
    summary, rows, traces = run_pair(api, tmp_path, "openai/m", endpoint, config_yaml=PRICES)
    for variant, answered in (("act", "fallback"), ("abstain", "FALLBACK")):
        calls = events(traces[variant], "model_call")
        assert len(calls) == 2
        assert [("model_mismatch" in c.flags) for c in calls] == ([True, False] if variant == "act" else [False, True])
        assert (rows[variant]["model_mismatch"], rows[variant]["answered_models"]) == (1, [answered])
        # one call at the fallback's price (10 × 10 + 5 × 20 per 1e6), one at the requested one (10 + 10)
        assert rows[variant]["cost_usd"] == pytest.approx(2e-4 + 2e-5)
    [provider] = summary["provider"]
    assert provider["model_mismatch"] == 2


def test_a_cached_mismatch_is_flagged_and_priced_the_same_when_replayed(api, tmp_path) -> None:
    endpoint = Endpoint({"act": _two_turns("fallback", "m"), "abstain": _two_turns("m", "m")})
    _, first, _ = run_pair(api, tmp_path, "openai/m", endpoint, config_yaml=PRICES, cache=True, out="first")
    sent = len(endpoint.requests)
    summary, again, traces = run_pair(api, tmp_path, "openai/m", endpoint, config_yaml=PRICES, cache=True, out="again")
    assert len(endpoint.requests) == sent  # all replayed
    for variant in ("act", "abstain"):
        for field in ("model_mismatch", "answered_models", "cost_usd", "cost_flags"):
            assert again[variant][field] == first[variant][field], (variant, field)
    assert again["act"]["model_mismatch"] == 1
    assert [c.cached for c in events(traces["act"], "model_call")] == [True, True]
    assert summary["provider"][0]["model_mismatch"] == 1


def test_the_answering_model_fields_survive_a_resume(api, tmp_path) -> None:
    import json

    from evalkit.pipeline import resume_run

    endpoint = Endpoint({"act": _two_turns("fallback", "m"), "abstain": _two_turns("m", "m")})
    full, rows, _ = run_pair(api, tmp_path, "openai/m", endpoint, config_yaml=PRICES)
    results = tmp_path / "run" / "results.jsonl"
    lines = results.read_text(encoding="utf-8").splitlines()
    kept = [x for x in lines if json.loads(x)["variant"] == "act"]  # the abstain episode is run again
    results.write_text("\n".join(kept) + "\n", encoding="utf-8")
    resumed = resume_run(tmp_path / "run")
    final = {json.loads(x)["variant"]: json.loads(x) for x in results.read_text(encoding="utf-8").splitlines()}
    assert (final["act"]["model_mismatch"], final["act"]["answered_models"]) == (1, ["fallback"])
    assert final["act"]["cost_usd"] == rows["act"]["cost_usd"]
    assert resumed["provider"][0]["model_mismatch"] == full["provider"][0]["model_mismatch"] == 1
    assert resumed["provider"][0]["answered_models"] == {"fallback": 1}


def test_control_characters_are_escaped_and_a_huge_name_is_cut() -> None:
    from evalkit.models.identity import MAX_NAME

    shown = response_model({"model": "gpt-4o\x1b[2J\x00\u202egnp"})
    assert shown == "gpt-4o\\u001b[2J\\u0000\\u202egnp"
    assert not same_model("gpt-4o", shown)
    huge = response_model({"model": "y" * 1_000_000})
    assert len(huge) == MAX_NAME + 1 and huge.endswith("…")


def test_a_terminal_escape_in_the_model_field_never_reaches_the_console(api, tmp_path) -> None:
    from evalkit.report.console import provider_lines

    evil = "evil\x1b]0;pwned\x07\x1b[2K"
    endpoint = Endpoint({"act": [chat({"content": "How many mugs?"}, model=evil)], "abstain": _two_turns("m", "m")[1:]})
    summary, rows, _ = run_pair(api, tmp_path, "openai/m", endpoint, config_yaml=PRICES)
    assert rows["act"]["answered_models"] == ["evil\\u001b]0;pwned\\u0007\\u001b[2K"]
    [line] = provider_lines(summary)
    assert "\x1b" not in line and "\x07" not in line and "evil\\u001b" in line
