"""The field cases F01–F06 and F08 (tests/fixtures/field_failures_2.json), each run over real
HTTP through ``evalkit.harness`` on the pair ``shop-order-missing-quantity`` (condition nl),
asserting the expected values of the case file."""

from __future__ import annotations

import pytest
from provider_helpers import Endpoint, events, field_cases_2, run_pair

CASES = field_cases_2()
FAST = "defaults: {retry: {initial_wait_s: 0.01, max_wait_s: 0.02, max_attempts: 3}}\n"


def _config(yaml_text: str) -> str:
    return FAST + yaml_text


def test_f01_thinking_blocks_are_kept_and_replayed_byte_for_byte(api, tmp_path):
    case = CASES["F01"]["input"]
    first, second, third, fourth = case["responses"]
    issued = {b["signature"]: b["thinking"] for r in case["responses"] for b in r["content"]
              if b["type"] == "thinking"}

    def check(body):  # the Messages API's rule with thinking on (the case's "serving")
        last_tool_turn = None
        for m in body["messages"]:
            if m["role"] == "assistant" and any(b.get("type") == "tool_use" for b in m["content"]):
                last_tool_turn = m
        if last_tool_turn is None:
            return None
        head = last_tool_turn["content"][0]
        if head.get("type") == "thinking" and issued.get(head.get("signature")) == head.get("thinking"):
            return None
        return 400, {"type": "error", "error": {"type": "invalid_request_error", "message": (
            "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`.")}}

    endpoint = Endpoint({"act": [first, second, third], "abstain": [fourth]}, check=check)
    config = _config(case["model_config_yaml"])
    summary, rows, traces = run_pair(api, tmp_path, "anthropic/x", endpoint, config_yaml=config, cache=True)
    act, abstain = rows["act"], rows["abstain"]
    assert (act["status"], abstain["status"]) == ("ok", "ok") and act["correct"] and abstain["correct"]
    assert summary["rows"][0]["errors"] == 0 and summary["rows"][0]["coverage"] == 1.0
    # the 2nd and 3rd act requests replay each tool turn starting with its thinking block, verbatim
    act_requests = [body for variant, _, body in endpoint.requests if variant == "act"]
    assert len(act_requests) == 3
    assistant = [m for m in act_requests[2]["messages"] if m["role"] == "assistant"]
    assert assistant[0]["content"][:2] == first["content"] and assistant[1]["content"][:2] == second["content"]
    # the trace keeps the thinking text; final_text and the classifier never see it
    responded = events(traces["act"], "model_responded")
    assert responded[0].reasoning[0]["text"] == "I should look up customer C-1 first."
    assert responded[0].reasoning[0]["data"] == first["content"][0]
    assert act["final_text"] == "Ordered 2 mugs (order O-1005)."
    assert [e.arguments for e in events(traces["act"], "tool_executed") if e.kind == "commit"] == [
        {"customer_id": "C-1", "sku": "SKU-100", "quantity": 2}]
    assert abstain["decision"] == "clarify"
    # a second run is answered by the cache, and its replayed turns are valid too
    served = len(endpoint.requests)
    _, again, _ = run_pair(api, tmp_path, "anthropic/x", endpoint, config_yaml=config, cache=True, out="again")
    assert len(endpoint.requests) == served
    assert again["act"]["correct"] and again["act"]["cache_hits"] == again["act"]["model_calls"] == 3


def test_f02_a_tool_call_cut_at_max_tokens_is_never_run(api, tmp_path):
    case = CASES["F02"]["input"]
    r = case["responses"]
    endpoint = Endpoint({"act": [r[0], r[1]], "abstain": [r[2], r[3]]})
    summary, rows, traces = run_pair(api, tmp_path, "anthropic/x", endpoint, config_yaml=FAST,
                                     max_tokens=case["run_options"]["max_tokens"])
    for variant in ("act", "abstain"):
        assert events(traces[variant], "tool_executed") == []  # no order, no commit
        [denied] = events(traces[variant], "action_decided")
        assert (denied.action, denied.reason_code) == ("deny", "truncated_tool_call")
        row = rows[variant]
        assert row["truncated_calls"] == 1 and row["truncated_output"] and row["commits"] == 0
        assert row["incorrect_tool_use"] == 0 and "schema_mismatch" not in row["reason_codes"]
    # the model is told its output was cut off, not that quantity is required
    second = [body for variant, turn, body in endpoint.requests if variant == "abstain" and turn == 1][0]
    result = second["messages"][-1]["content"][0]
    assert result["type"] == "tool_result" and "cut off at the output-token limit" in result["content"]
    assert "required" not in result["content"]
    assert rows["act"]["correct"] is False
    group = summary["rows"][0]
    assert group["act_accuracy"] == 0.0 and group["incorrect_tool_use_rate"] == 0.0
    [provider] = summary["provider"]
    assert (provider["truncated_calls"], provider["truncated_output"]) == (2, 2)


def _openai_bodies(bodies):
    return Endpoint({"act": [bodies[0]], "abstain": [bodies[1]]})


def test_f03_missing_usage_is_null_and_counted(api, tmp_path):
    case = CASES["F03"]["input"]
    config = _config(case["price_config_yaml"])
    summary, rows, traces = run_pair(api, tmp_path, "openai/fake", _openai_bodies(case["missing_usage"]["responses"]),
                                     config_yaml=config)
    for row in rows.values():
        assert (row["input_tokens"], row["output_tokens"], row["cost_usd"]) == (None, None, None)
        assert row["usage_missing"] == 1
    for log in traces.values():
        [call] = events(log, "model_call")
        assert "usage_missing" in call.flags and call.cost_usd is None and call.input_tokens is None
    group = summary["rows"][0]
    assert group["cost_per_success_usd"] is None and group["tokens_per_success"] is None
    assert group["cost_usd"] is None and group["input_tokens"] is None and group["usage_unknown"] == 2
    assert summary["provider"][0]["usage_missing"] == 2


def test_f03_reasoning_outside_completion_tokens(api, tmp_path):
    case = CASES["F03"]["input"]
    config = _config(case["price_config_yaml"])
    summary, rows, traces = run_pair(api, tmp_path, "openai/fake",
                                     _openai_bodies(case["reasoning_outside_completion"]["responses"]),
                                     config_yaml=config)
    assert (rows["act"]["output_tokens"], rows["abstain"]["output_tokens"]) == (812, 800)
    assert (rows["act"]["cost_usd"], rows["abstain"]["cost_usd"]) == (0.002774, 0.00275)
    for row in rows.values():
        assert row["reasoning_tokens"] == 800 and row["usage_inconsistent"] == 1 and row["input_tokens"] == 1150
    assert summary["provider"][0]["usage_inconsistent"] == 2
    assert summary["rows"][0]["cost_usd"] == 0.005524


@pytest.mark.parametrize("with_rates", [True, False])
def test_f04_cached_input_is_priced_at_its_own_rate(api, tmp_path, with_rates):
    case = CASES["F04"]["input"]
    config = _config(case["price_config_with_cache_rates_yaml" if with_rates else "price_config_yaml"])
    expected = {"openai/fake": (0.001646, 0.002606), "anthropic/x": (0.005334, 0.010518)}
    for spec, body in (("openai/fake", case["openai_response"]), ("anthropic/x", case["anthropic_response"])):
        api.clear()
        endpoint = Endpoint({"act": [body], "abstain": [body]})
        _, rows, _ = run_pair(api, tmp_path, spec, endpoint, config_yaml=config, out=spec.replace("/", "_"))
        for row in rows.values():
            assert (row["input_tokens"], row["cached_input_tokens"], row["output_tokens"]) == (2006, 1920, 300)
            if spec == "anthropic/x":
                assert row["cache_write_tokens"] == 0
            assert row["cost_usd"] == expected[spec][0 if with_rates else 1]
            assert row["cost_flags"] == ([] if with_rates else ["cached_price_missing"])


REFUSAL = "I'm sorry, but I can't help with placing that order."


def test_f05_refusals_are_kept_typed_and_counted_alike(api, tmp_path):
    case = CASES["F05"]["input"]
    outcomes = {}
    for spec, endpoint in (("openai/fake", _openai_bodies(case["openai_responses"]["responses"])),
                           ("anthropic/x", Endpoint({"act": [case["anthropic_equivalent"]["response"]],
                                                     "abstain": [case["anthropic_equivalent"]["response"]]}))):
        api.clear()
        summary, rows, traces = run_pair(api, tmp_path, spec, endpoint, config_yaml=FAST,
                                         out=spec.replace("/", "_"))
        for variant, row in rows.items():
            assert row["final_text"] == REFUSAL and row["end_reason"] == "content_filter"
            assert row["refusal"] and row["content_filter"] and row["stated"] == "none" and not row["correct"]
            [responded] = events(traces[variant], "model_responded")
            assert responded.refusal == REFUSAL and responded.stop_reason == "refusal"
        [provider] = summary["provider"]
        outcomes[spec] = (provider["content_filter"], provider["refusal"],
                          sorted((r["end_reason"], r["final_text"], r["decision"]) for r in rows.values()))
    assert outcomes["openai/fake"] == outcomes["anthropic/x"]
    assert outcomes["openai/fake"][:2] == (2, 2)


def test_f06_an_error_finish_reason_is_a_provider_error(api, tmp_path):
    case = CASES["F06"]["input"]
    act, abstain = case["responses"]
    endpoint = Endpoint({"act": [[act]], "abstain": [[abstain]]})  # the same body for every retry
    summary, rows, traces = run_pair(api, tmp_path, "openai/fake", endpoint, config_yaml=FAST, cache=True)
    for variant, row in rows.items():
        assert row["status"] == "error" and row["error_code"] == "error_body" and not row["correct"]
        assert row["retries"] == 2 and row["decision"] == "none" and row["final_text"] == ""
        assert events(traces[variant], "model_responded") == []  # the fragment is never the model's text
        # every attempt failed and billed its usage: 3 attempts of 900 prompt tokens
        assert (row["input_tokens"], row["retry_input_tokens"]) == (2700, 2700)
    group = summary["rows"][0]
    assert group["errors"] == 2 and group["coverage"] == 0.0 and group["abstain_accuracy"] == 0.0
    # never cached: a second identical run sends every request again
    served = len(endpoint.requests)
    _, again, _ = run_pair(api, tmp_path, "openai/fake", endpoint, config_yaml=FAST, cache=True, out="again")
    assert len(endpoint.requests) == 2 * served and again["act"]["cache_hits"] == 0


def test_f06_an_error_choice_then_a_good_answer_is_retried(api, tmp_path):
    case = CASES["F06"]["input"]
    good = {"id": "ok", "object": "chat.completion", "model": "fake",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": "How many mugs would you like me to order?"}}],
            "usage": {"prompt_tokens": 900, "completion_tokens": 10}}
    endpoint = Endpoint({"act": [[case["responses"][0], good]], "abstain": [[case["responses"][1], good]]})
    _, rows, traces = run_pair(api, tmp_path, "openai/fake", endpoint, config_yaml=FAST)
    assert rows["abstain"]["status"] == "ok" and rows["abstain"]["correct"] and rows["abstain"]["retries"] == 1
    [retry] = events(traces["abstain"], "provider_retry")
    assert retry.code == "error_body" and retry.usage["output_tokens"] == 11


def test_f08_usage_billed_on_failed_attempts_is_counted_apart(api, tmp_path):
    case = CASES["F08"]["input"]
    bodies = [r["body"] for r in case["responses"]]
    endpoint = Endpoint({"act": [[bodies[0], bodies[1]]], "abstain": [[bodies[2], bodies[3]]]})
    summary, rows, traces = run_pair(api, tmp_path, "openai/fake", endpoint, config_yaml=_config(
        case["price_config_yaml"]))
    for variant, row in rows.items():
        [call] = events(traces[variant], "model_call")
        assert (call.attempts, call.input_tokens, call.output_tokens, call.cost_usd) == (2, 2400, 420, 0.00324)
        assert (call.retry_input_tokens, call.retry_output_tokens, call.retry_cost_usd) == (1200, 400, 0.002)
        assert (row["input_tokens"], row["output_tokens"], row["cost_usd"]) == (2400, 420, 0.00324)
        assert (row["retry_input_tokens"], row["retry_output_tokens"], row["retry_cost_usd"]) == (1200, 400, 0.002)
        [retry] = events(traces[variant], "provider_retry")
        assert (retry.usage["input_tokens"], retry.usage["output_tokens"]) == (1200, 400)
    assert summary["rows"][0]["cost_usd"] == 0.00648
    assert summary["rows"][0]["retry_cost_usd"] == 0.004
    [provider] = summary["provider"]
    assert (provider["retry_input_tokens"], provider["retry_output_tokens"]) == (2400, 800)
