"""Model config and price-table keys that apply to no model of the run: a misspelt spec or
provider prefix is warned about when the run starts (file, entry, suggestion), and a live model
left without a price has cost null flagged ``price_missing``, over real HTTP."""

from __future__ import annotations

import json

from provider_helpers import Endpoint, run_pair

from evalkit.models.entries import unused_entries

ASK = {"id": "ok", "object": "chat.completion", "model": "gpt-4o-mini",
       "choices": [{"index": 0, "finish_reason": "stop",
                    "message": {"role": "assistant", "content": "How many mugs would you like?"}}],
       "usage": {"prompt_tokens": 900, "completion_tokens": 10}}


def _files(tmp_path, models: str, prices: str | None = None):
    config = tmp_path / "models.yaml"
    text = "defaults: {retry: {initial_wait_s: 0.01, max_wait_s: 0.02, max_attempts: 2}}\n" + models
    if prices is not None:
        (tmp_path / "prices.yaml").write_text(prices, encoding="utf-8")
        text += "prices: prices.yaml\n"
    config.write_text(text, encoding="utf-8")
    return config


def test_misspelt_keys_are_named_with_their_file_and_a_suggestion(tmp_path):
    config = _files(tmp_path, "models:\n  openai/gpt-4o-mnii: {temperature: 0.5}\n"
                              "  openai/gpt-4.1: {temperature: 0}\n"  # another run's model: not a typo
                              "  anthropic/claude-x: {max_tokens: 100}\n",
                    prices="models:\n  opneai/*: {input_per_mtok: 1, output_per_mtok: 2}\n"
                           "  openai/gpt-4o-mnii: {input_per_mtok: 1, output_per_mtok: 2}\n"
                           "  anthropic/*: {input_per_mtok: 3, output_per_mtok: 15}\n"
                           "  scripted/*: {input_per_mtok: 0, output_per_mtok: 0}\n")
    lines = unused_entries(["openai/gpt-4o-mini", "anthropic/claude-x", "scripted/oracle"], config)
    assert lines == [
        f"{config}: models entry 'openai/gpt-4o-mnii' matches no model of this run; did you mean "
        "'openai/gpt-4o-mini'?",
        f"{tmp_path / 'prices.yaml'}: price entry 'opneai/*': provider prefix 'opneai' is no registered provider, "
        "so it applies to no model; did you mean 'openai'?",
        f"{tmp_path / 'prices.yaml'}: price entry 'openai/gpt-4o-mnii' matches no model of this run; did you mean "
        "'openai/gpt-4o-mini'?",
    ]
    assert unused_entries(["openai/gpt-4o-mini"], None) == []


def test_a_run_warns_about_a_typo_and_flags_the_unpriced_model(api, tmp_path, capsys):
    models = "models:\n  openai/gpt-4o-mnii: {price: {input_per_mtok: 1.0, output_per_mtok: 2.0}}\n"
    summary, rows, traces = run_pair(api, tmp_path, "openai/gpt-4o-mini", Endpoint({"act": [ASK], "abstain": [ASK]}),
                                     config_yaml=models)
    err = capsys.readouterr().err
    assert ("evalkit: warning: " + str(tmp_path / "models.yaml") + ": models entry 'openai/gpt-4o-mnii' matches no "
            "model of this run; did you mean 'openai/gpt-4o-mini'?") in err
    for row in rows.values():
        assert row["input_tokens"] == 900 and row["cost_usd"] is None and row["cost_flags"] == ["price_missing"]
    assert summary["rows"][0]["cost_usd"] is None


def test_a_priced_model_has_no_price_flag_and_no_warning(api, tmp_path, capsys):
    models = "models:\n  openai/gpt-4o-mini: {price: {input_per_mtok: 1.0, output_per_mtok: 2.0}}\n"
    _, rows, _ = run_pair(api, tmp_path, "openai/gpt-4o-mini", Endpoint({"act": [ASK], "abstain": [ASK]}),
                          config_yaml=models)
    assert "warning" not in capsys.readouterr().err
    assert [(r["cost_usd"], r["cost_flags"]) for r in rows.values()] == [(0.00092, [])] * 2
    assert json.loads((tmp_path / "run" / "config.json").read_text())


def test_an_unpriced_model_whose_calls_all_failed_is_flagged_too(api, tmp_path):
    failing = {"error": {"message": "upstream overloaded", "type": "server_error"}}
    endpoint = Endpoint({"act": [ASK], "abstain": [ASK]}, check=lambda body: (503, failing))
    _, rows, _ = run_pair(api, tmp_path, "openai/gpt-4o-mini", endpoint,
                          config_yaml="defaults: {retry: {initial_wait_s: 0.01, max_wait_s: 0.02, max_attempts: 2}}\n")
    for row in rows.values():
        assert (row["status"], row["error_code"], row["model_calls"]) == ("error", "provider_unavailable", 1)
        assert row["cost_usd"] is None and row["cost_flags"] == ["price_missing"]
        assert (row["input_tokens"], row["usage_missing"]) == (0, 0)  # an HTTP error status bills nothing
