"""The model a response names is compared with the model requested, per call, over real HTTP
through ``evalkit.pipeline.run``: the provider's own names of one model (a dated snapshot, a
gateway's ``org/`` prefix, case) are not a mismatch; another model (a gateway's fallback) is
flagged ``model_mismatch``, counted in the row, the provider summary, the CLI line and the
report, and billed at the answering model's price, or null when no price table has it; a
response without ``model`` is not a mismatch."""

from __future__ import annotations

import pytest
from provider_helpers import Endpoint, events, run_pair

from evalkit.models.identity import answering_price, same_model

FAST = "defaults: {retry: {initial_wait_s: 0.01, max_wait_s: 0.02, max_attempts: 2}}\n"


def openai_body(model: str | None, **extra) -> dict:
    """A chat completion as OpenAI (and OpenRouter, with ``provider``) returns it."""
    body = {"id": "chatcmpl-AbC123", "object": "chat.completion", "created": 1723000000,
            "choices": [{"index": 0, "logprobs": None, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": "How many mugs would you like?",
                                     "refusal": None}}],
            "usage": {"prompt_tokens": 900, "completion_tokens": 10, "total_tokens": 910,
                      "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
                      "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0}},
            "system_fingerprint": "fp_7f6be3efb0", **extra}
    if model is not None:
        body["model"] = model
    return body


def anthropic_body(model: str) -> dict:
    return {"id": "msg_01XyZ", "type": "message", "role": "assistant", "model": model,
            "content": [{"type": "text", "text": "How many mugs would you like?"}],
            "stop_reason": "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": 900, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
                      "output_tokens": 10, "service_tier": "standard"}}


def _config(*entries: tuple[str, float, float], extra: str = "") -> str:
    lines = [f"  {spec}: {{price: {{input_per_mtok: {i}, output_per_mtok: {o}}}{extra if n == 0 else ''}}}"
             for n, (spec, i, o) in enumerate(entries)]
    return FAST + "models:\n" + "\n".join(lines) + "\n"


def _both(body: dict) -> Endpoint:
    return Endpoint({"act": [body], "abstain": [body]})


@pytest.mark.parametrize("requested,answered", [
    ("gpt-4o", "gpt-4o-2024-08-06"),                      # OpenAI's dated snapshot of an alias
    ("gpt-3.5-turbo", "gpt-3.5-turbo-0125"),              # its older four-digit snapshots
    ("claude-sonnet-4-5", "claude-sonnet-4-5-20250929"),  # Anthropic's dated id
    ("claude-3-5-sonnet-latest", "claude-3-5-sonnet-20241022"),
    ("claude-sonnet-4-5", "claude-sonnet-4-5@20250929"),  # Vertex AI's form
    ("gemini-1.5-pro", "models/gemini-1.5-pro-002"),      # Gemini's stable version
    ("claude-3-5-sonnet", "claude-3-5-sonnet-20241022-v2:0"),  # Bedrock's versioned id
    ("mistral-large-latest", "mistral-large-2411"),
    ("openai/gpt-4o", "openai/gpt-4o"),                   # a gateway's org/ prefix
    ("gpt-4o", "openai/gpt-4o-2024-08-06"),
    ("GPT-4o", "gpt-4o"),
    ("llama3.1", "llama3.1:latest"),                      # Ollama's default tag
    ("meta-llama/llama-3.1-8b-instruct:free", "meta-llama/llama-3.1-8b-instruct"),
    ("gpt-4o", None),                                     # no model named: not a mismatch
])
def test_one_model_under_its_providers_names_is_the_same_model(requested, answered):
    assert same_model(requested, answered)


@pytest.mark.parametrize("requested,answered", [
    ("gpt-4o", "gpt-4o-mini-2024-07-18"),
    ("gpt-4o-2024-05-13", "gpt-4o-2024-08-06"),  # a pinned snapshot answered by another one
    ("openai/gpt-4o", "anthropic/claude-3.5-sonnet"),
    ("claude-sonnet-4-5", "claude-3-5-haiku-20241022"),
    ("gpt-4", "gpt-4-turbo-2024-04-09"),
    ("llama3.1:70b", "llama3.1:8b"),
    ("gemini-1.5-pro-001", "gemini-1.5-pro-002"),
    ("gpt-4o-mini", "gpt-4o"),
])
def test_another_model_is_a_mismatch(requested, answered):
    assert not same_model(requested, answered)


def test_declared_aliases_and_the_answering_price_lookup():
    assert same_model("my-gpt4o-deployment", "gpt-4o-2024-08-06", ["gpt-4o"])
    assert not same_model("my-gpt4o-deployment", "gpt-4o-2024-08-06")
    prices = {"openai/gpt-4o-mini": {"input_per_mtok": 0.15, "output_per_mtok": 0.6},
              "openai/gpt-4o": {"input_per_mtok": 2.5, "output_per_mtok": 10.0}}
    assert answering_price("openai", "gpt-4o-mini-2024-07-18", prices) == prices["openai/gpt-4o-mini"]
    assert answering_price("openai", "gpt-4o-2024-08-06", prices) == prices["openai/gpt-4o"]
    assert answering_price("openai", "o3-mini-2025-01-31", prices) is None
    assert answering_price("anthropic", "gpt-4o", prices) is None


def test_a_dated_snapshot_is_not_a_mismatch_and_is_billed_at_the_requested_price(api, tmp_path):
    spec = "openai/gpt-4o"
    summary, rows, traces = run_pair(api, tmp_path, spec, _both(openai_body("gpt-4o-2024-08-06")),
                                     config_yaml=_config((spec, 2.5, 10.0), ("openai/gpt-4o-mini", 0.15, 0.6)))
    for variant, row in rows.items():
        assert (row["model_mismatch"], row["answered_models"]) == (0, [])
        assert row["cost_usd"] == 0.00235 and row["cost_flags"] == []  # 900 × 2.5 + 10 × 10.0 per 1e6
        [call] = events(traces[variant], "model_call")
        assert call.answered_model == "gpt-4o-2024-08-06" and "model_mismatch" not in call.flags
    [provider] = summary["provider"]
    assert (provider["model_mismatch"], provider["answered_models"]) == (0, {})


def test_a_gateway_prefix_and_a_missing_model_field_are_not_a_mismatch(api, tmp_path):
    spec = "openai/openai/gpt-4o"  # OpenRouter's model id behind an OpenAI-compatible base URL
    endpoint = Endpoint({"act": [openai_body("openai/gpt-4o", provider="OpenAI")], "abstain": [openai_body(None)]})
    summary, rows, traces = run_pair(api, tmp_path, spec, endpoint, config_yaml=_config((spec, 2.5, 10.0)))
    assert [rows[v]["model_mismatch"] for v in ("act", "abstain")] == [0, 0]
    assert rows["act"]["cost_usd"] == rows["abstain"]["cost_usd"] == 0.00235
    [no_name] = events(traces["abstain"], "model_call")
    assert no_name.answered_model is None and "model_mismatch" not in no_name.flags
    assert summary["provider"][0]["model_mismatch"] == 0


def test_a_fallback_model_is_flagged_counted_and_billed_at_its_own_price(api, tmp_path):
    spec = "openai/openai/gpt-4o"
    fallback = openai_body("anthropic/claude-3.5-sonnet", provider="Anthropic")
    endpoint = Endpoint({"act": [fallback], "abstain": [openai_body("openai/gpt-4o-2024-08-06")]})
    config = _config((spec, 2.5, 10.0), ("openai/anthropic/claude-3.5-sonnet", 3.0, 15.0))
    summary, rows, traces = run_pair(api, tmp_path, spec, endpoint, config_yaml=config)
    act, abstain = rows["act"], rows["abstain"]
    assert (act["model_mismatch"], act["answered_models"]) == (1, ["anthropic/claude-3.5-sonnet"])
    assert act["cost_usd"] == 0.00285  # 900 × 3.0 + 10 × 15.0 per 1e6: the answering model's price
    assert (abstain["model_mismatch"], abstain["cost_usd"]) == (0, 0.00235)
    [call] = events(traces["act"], "model_call")
    assert call.answered_model == "anthropic/claude-3.5-sonnet" and "model_mismatch" in call.flags
    assert call.cost_usd == 0.00285
    [provider] = summary["provider"]
    assert (provider["model_mismatch"], provider["answered_models"]) == (1, {"anthropic/claude-3.5-sonnet": 1})
    assert summary["rows"][0]["cost_usd"] == 0.0052
    from evalkit.report.console import provider_lines

    [line] = provider_lines(summary)
    assert ("; 1 calls answered by another model than the one requested (anthropic/claude-3.5-sonnet: 1 episodes)"
            in line)
    from evalkit.report.html import render_report

    html = render_report(tmp_path / "run").read_text(encoding="utf-8")
    assert "answered by another model" in html and "anthropic/claude-3.5-sonnet: 1" in html


def test_a_fallback_model_without_a_price_has_unknown_cost_never_the_requested_price(api, tmp_path):
    spec = "anthropic/claude-sonnet-4-5"
    endpoint = Endpoint({"act": [anthropic_body("claude-3-5-haiku-20241022")],
                         "abstain": [anthropic_body("claude-sonnet-4-5-20250929")]})
    summary, rows, _ = run_pair(api, tmp_path, spec, endpoint, config_yaml=_config((spec, 3.0, 15.0)))
    act, abstain = rows["act"], rows["abstain"]
    assert (act["model_mismatch"], act["answered_models"]) == (1, ["claude-3-5-haiku-20241022"])
    assert act["cost_usd"] is None and act["cost_flags"] == ["answered_price_missing"]
    assert (act["input_tokens"], act["output_tokens"]) == (900, 10)  # the tokens are known; the money is not
    assert (abstain["model_mismatch"], abstain["cost_usd"], abstain["cost_flags"]) == (0, 0.00285, [])
    assert summary["rows"][0]["cost_usd"] is None


def test_a_fallback_priced_by_its_alias_in_the_price_table(api, tmp_path):
    spec = "anthropic/claude-sonnet-4-5"
    endpoint = _both(anthropic_body("claude-3-5-haiku-20241022"))
    config = _config((spec, 3.0, 15.0), ("anthropic/claude-3-5-haiku", 0.8, 4.0))
    summary, rows, _ = run_pair(api, tmp_path, spec, endpoint, config_yaml=config)
    for row in rows.values():
        assert row["model_mismatch"] == 1 and row["cost_usd"] == 0.00076  # 900 × 0.8 + 10 × 4.0 per 1e6
    assert summary["provider"][0]["answered_models"] == {"claude-3-5-haiku-20241022": 2}


def test_declared_model_aliases_are_not_a_mismatch(api, tmp_path):
    spec = "openai/my-gpt4o-deployment"  # an Azure deployment: the response names the underlying model
    config = _config((spec, 2.5, 10.0), extra=", model_aliases: [gpt-4o]")
    _, rows, _ = run_pair(api, tmp_path, spec, _both(openai_body("gpt-4o-2024-08-06")), config_yaml=config)
    assert [r["model_mismatch"] for r in rows.values()] == [0, 0]
    assert [r["cost_usd"] for r in rows.values()] == [0.00235, 0.00235]


def test_settings_carry_the_other_models_prices_but_the_manifest_does_not(tmp_path):
    from evalkit.models.config import ModelOptions, resolve_settings

    (tmp_path / "prices.yaml").write_text("models:\n  openai/gpt-4o-mini: {input_per_mtok: 0.15, output_per_mtok: 0.6}\n"
                                          "  anthropic/claude-3-5-haiku: {input_per_mtok: 0.8, output_per_mtok: 4}\n",
                                          encoding="utf-8")
    (tmp_path / "models.yaml").write_text(
        "prices: prices.yaml\nmodels:\n  openai/gpt-4o: {price: {input_per_mtok: 2.5, output_per_mtok: 10}}\n"
        "  openai/o3: {price: {input_per_mtok: 'two', output_per_mtok: 8}}\n", encoding="utf-8")
    s = resolve_settings("openai/gpt-4o", ModelOptions(model_config_file=str(tmp_path / "models.yaml")))
    assert {spec: (p.input_per_mtok, p.output_per_mtok) for spec, p in s.prices.items()} == {
        "openai/gpt-4o": (2.5, 10.0), "openai/gpt-4o-mini": (0.15, 0.6)}  # o3's malformed price: reported when run
    assert "prices" not in s.describe() and s.describe()["price"]["input_per_mtok"] == 2.5
