"""A response ``model`` field that is present but not a string or null (``42``, an object, an
array): the answering model is recorded as unknown (``answered_model`` null, never a name made
from the value) and the response is flagged ``model_invalid``, counted in the row, the provider
summary, the CLI line and the report. A missing or null ``model`` names no model and is neither
flagged nor counted, as before."""

from __future__ import annotations

import re

import pytest
from provider_helpers import Endpoint, events, run_pair

from evalkit.models.anthropic_messages import translate_anthropic
from evalkit.models.openai_compat import translate_openai
from evalkit.models.reply import model_flags

PRICE = "models:\n  {spec}: {{price: {{input_per_mtok: 2.5, output_per_mtok: 10.0}}}}\n"


def openai_body(model: object = "absent") -> dict:
    """A chat completion as OpenAI returns it; ``model`` left out when ``"absent"``."""
    body = {"id": "chatcmpl-AbC123", "object": "chat.completion", "created": 1723000000,
            "choices": [{"index": 0, "logprobs": None, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": "How many mugs would you like?",
                                     "refusal": None}}],
            "usage": {"prompt_tokens": 900, "completion_tokens": 10, "total_tokens": 910},
            "system_fingerprint": "fp_7f6be3efb0"}
    if model != "absent":
        body["model"] = model
    return body


def anthropic_body(model: object = "absent") -> dict:
    """A Messages API response; ``model`` left out when ``"absent"``."""
    body = {"id": "msg_01XyZ", "type": "message", "role": "assistant",
            "content": [{"type": "text", "text": "How many mugs would you like?"}],
            "stop_reason": "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": 900, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
                      "output_tokens": 10, "service_tier": "standard"}}
    if model != "absent":
        body["model"] = model
    return body


@pytest.mark.parametrize("model", [42, 4.0, True, ["gpt-4o"], {"id": "gpt-4o-2024-08-06"}])
def test_a_wrong_typed_model_is_flagged_by_both_translators(model) -> None:
    openai = translate_openai(openai_body(model))
    anthropic = translate_anthropic(anthropic_body(model))
    assert openai.flags == ("model_invalid",) and anthropic.flags == ("model_invalid",)
    assert openai.message["content"] == anthropic.message["content"] == "How many mugs would you like?"
    assert openai.usage.input_tokens == anthropic.usage.input_tokens == 900  # the answer is still read whole


@pytest.mark.parametrize("model", ["absent", None, "", "gpt-4o-2024-08-06"])
def test_a_missing_null_or_string_model_is_not_flagged(model) -> None:
    assert translate_openai(openai_body(model)).flags == ()
    assert translate_anthropic(anthropic_body(model)).flags == ()
    assert model_flags([{"model": 42}]) == []  # only an object has a model field


def test_the_flag_is_kept_next_to_the_other_response_flags() -> None:
    body = openai_body({"name": "gpt-4o"})
    body["choices"][0]["finish_reason"] = "eos"
    del body["usage"]
    assert translate_openai(body).flags == ("usage_missing", "model_invalid", "unknown_stop_reason")


def test_an_openai_run_records_the_model_as_unknown_and_counts_the_flag(api, tmp_path) -> None:
    spec = "openai/gpt-4o"
    endpoint = Endpoint({"act": [openai_body({"name": "gpt-4o"})], "abstain": [openai_body()]})
    summary, rows, traces = run_pair(api, tmp_path, spec, endpoint, config_yaml=PRICE.format(spec=spec))
    act, abstain = rows["act"], rows["abstain"]
    assert (act["model_invalid"], abstain["model_invalid"]) == (1, 0)  # a missing model is not counted
    assert (act["model_mismatch"], act["answered_models"]) == (0, [])
    assert act["cost_usd"] == abstain["cost_usd"] == 0.00235  # billed at the requested price: 900 × 2.5 + 10 × 10
    [call] = events(traces["act"], "model_call")
    assert call.answered_model is None and "model_invalid" in call.flags
    [responded] = events(traces["act"], "model_responded")
    assert "model_invalid" in responded.flags
    [plain] = events(traces["abstain"], "model_call")
    assert plain.answered_model is None and "model_invalid" not in plain.flags
    [provider] = summary["provider"]
    assert (provider["model_invalid"], provider["model_mismatch"]) == (1, 0)

    from evalkit.report.console import provider_lines

    [line] = provider_lines(summary)
    assert ("; 1 responses whose model field was not a string (the answering model unknown, not checked "
            "against the one requested)") in line
    from evalkit.report.html import render_report

    html = render_report(tmp_path / "run").read_text(encoding="utf-8")
    table = html[html.index("<h3>Provider</h3>"):]
    table = table[:table.index("</table>")]
    header = re.findall(r"<th[^>]*>(.*?)</th>", table)
    [cells] = [re.findall(r"<td[^>]*>(.*?)</td>", tr) for tr in re.findall(r"<tr><td>.*?</tr>", table)]
    assert len(header) == len(cells) == 16
    shown = dict(zip(header, cells))
    assert (shown["model field invalid"], shown["answered by another model"]) == ("1", "0")


def test_an_anthropic_run_counts_a_number_model_and_not_a_null_one(api, tmp_path) -> None:
    spec = "anthropic/claude-sonnet-4-5"
    endpoint = Endpoint({"act": [anthropic_body(42)], "abstain": [anthropic_body(None)]})
    summary, rows, traces = run_pair(api, tmp_path, spec, endpoint, config_yaml=PRICE.format(spec=spec))
    assert (rows["act"]["model_invalid"], rows["abstain"]["model_invalid"]) == (1, 0)
    assert [events(traces[v], "model_call")[0].answered_model for v in ("act", "abstain")] == [None, None]
    assert summary["provider"][0]["model_invalid"] == 1


def test_a_resumed_row_adds_the_errored_rows_count() -> None:
    from evalkit.harness.store import carry_spend

    row = {"input_tokens": 900, "output_tokens": 10, "cost_usd": 0.00235, "model_invalid": 1}
    old = {"input_tokens": 900, "output_tokens": 10, "cost_usd": 0.00235, "model_invalid": 2}
    assert carry_spend(row, old)["model_invalid"] == 3
