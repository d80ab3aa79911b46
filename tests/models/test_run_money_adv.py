"""Money and tokens over whole runs against local servers on 127.0.0.1: calls replayed from
the cache are shown apart from what a run spent, classes a provider never reports stay null,
a condition whose usage is all unknown does not blank the known money of the others."""

from __future__ import annotations

import json

from provider_helpers import Endpoint, run_pair
from test_conformance import chat

PRICED = ("defaults: {retry: {initial_wait_s: 0.01, max_wait_s: 0.02, max_attempts: 3}}\n"
          "models: {openai/m: {price: {input_per_mtok: 1, output_per_mtok: 2}}}\n")
ASK = chat({"content": "Which quantity should I order?"})  # 10 in, 5 out: 2e-05 USD


def test_calls_replayed_from_the_cache_are_not_new_spend(api, tmp_path):
    endpoint = Endpoint({"act": [ASK], "abstain": [ASK]})
    _, first, _ = run_pair(api, tmp_path, "openai/m", endpoint, config_yaml=PRICED, cache=True, out="first")
    calls = len(endpoint.requests)
    summary, again, _ = run_pair(api, tmp_path, "openai/m", endpoint, config_yaml=PRICED, cache=True, out="again")
    assert len(endpoint.requests) == calls  # nothing was sent the second time
    for variant in ("act", "abstain"):
        assert first[variant]["replayed_cost_usd"] == 0.0 and first[variant]["cost_usd"] == 2e-05
        # the calls cost the same (runs compare), and all of it is replayed, none spent
        assert again[variant]["cost_usd"] == 2e-05 and again[variant]["replayed_cost_usd"] == 2e-05
        assert (again[variant]["input_tokens"], again[variant]["output_tokens"]) == (10, 5)
    [group] = summary["rows"]
    assert (group["cost_usd"], group["replayed_cost_usd"]) == (4e-05, 4e-05)

    from evalkit.report.console import provider_lines

    [line] = provider_lines(summary)
    assert "money $0.000040 ($0.000040 of it replayed from the cache, not spent by this run)" in line


def test_token_classes_never_reported_are_null_in_the_summary_not_zero(api, tmp_path):
    summary, rows, _ = run_pair(api, tmp_path, "openai/m", Endpoint({"act": [ASK], "abstain": [ASK]}),
                                config_yaml=PRICED)
    assert rows["act"]["cached_input_tokens"] is None and rows["act"]["reasoning_tokens"] is None
    [group] = summary["rows"]
    assert (group["input_tokens"], group["output_tokens"]) == (20, 10)
    assert (group["cached_input_tokens"], group["cache_write_tokens"], group["reasoning_tokens"]) == (None, None, None)


def test_reported_zero_cached_tokens_stay_zero(api, tmp_path):
    body = chat({"content": "Which quantity?"}, usage=None) | {"usage": {
        "prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15, "prompt_tokens_details": {"cached_tokens": 0}}}
    summary, _, _ = run_pair(api, tmp_path, "openai/m", Endpoint({"act": [body], "abstain": [ASK]}),
                             config_yaml=PRICED)
    [group] = summary["rows"]
    assert group["cached_input_tokens"] == 0 and group["reasoning_tokens"] is None


def test_a_group_with_no_known_usage_leaves_the_known_money_a_lower_bound():
    from evalkit.report.console import provider_lines

    known = {"model": "openai/m", "condition": "nl", "completed": 2, "usage_unknown": 0, "input_tokens": 20,
             "output_tokens": 10, "cost_usd": 4e-05}
    unknown = {"model": "openai/m", "condition": "tool", "completed": 2, "usage_unknown": 2, "input_tokens": None,
               "output_tokens": None, "cost_usd": None}
    provider = [{"model": "openai/m", "condition": c, "model_calls": 2, "cache_hits": 0, "retries": 0,
                 "parse_failures": 0, "content_filter": 0, "usage_missing": n} for c, n in (("nl", 0), ("tool", 2))]
    [line] = provider_lines({"rows": [known, unknown], "provider": provider})
    assert "tokens ≥ 20 in / ≥ 10 out, money ≥ $0.000040 (usage not reported in 2 of 4 episodes)" in line
    # without a price the money is unknown, never 0
    [line] = provider_lines({"rows": [{**known, "cost_usd": None}, unknown], "provider": provider})
    assert "money n/a" in line


def test_a_missing_stop_reason_is_counted(api, tmp_path):
    summary, rows, traces = run_pair(api, tmp_path, "openai/m", Endpoint({
        "act": [chat({"content": "Which quantity?"}, None)], "abstain": [ASK]}), config_yaml=PRICED)
    assert (rows["act"]["unknown_stop_reason"], rows["abstain"]["unknown_stop_reason"]) == (1, 0)
    [provider] = summary["provider"]
    assert provider["unknown_stop_reason"] == 1


def test_a_failed_attempt_with_partial_usage_is_unknown_in_the_call_and_the_row_alike(api, tmp_path):
    partial = {"error": {"message": "upstream reset", "code": 502}, "usage": {"prompt_tokens": 7}}
    summary, rows, traces = run_pair(api, tmp_path, "openai/m", Endpoint({"act": [[partial, ASK]], "abstain": [ASK]}),
                                     config_yaml=PRICED)
    from provider_helpers import events

    [call] = events(traces["act"], "model_call")
    row = rows["act"]
    # it billed (it reports usage) but its output count is unknown: never read as 0
    assert (call.input_tokens, call.retry_input_tokens) == (row["input_tokens"], row["retry_input_tokens"]) == (None,
                                                                                                               None)
    assert call.cost_usd is row["cost_usd"] is None and row["usage_missing"] == 1 and "usage_missing" in call.flags
    assert summary["rows"][0]["tokens_lower_bound"] is True and summary["rows"][0]["input_tokens"] == 10


def test_anthropic_server_tool_requests_are_flagged_as_left_out_of_the_cost(api, tmp_path):
    from test_conformance import msg

    searched = msg([{"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "q"}},
                    {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []},
                    {"type": "text", "text": "Which quantity?", "citations": None}],
                   usage={"input_tokens": 10, "output_tokens": 5, "server_tool_use": {"web_search_requests": 2},
                          "service_tier": "standard"})
    plain = msg([{"type": "text", "text": "Which quantity?"}],
                usage={"input_tokens": 10, "output_tokens": 5, "server_tool_use": {"web_search_requests": 0}})
    config = PRICED.replace("openai/m", "anthropic/m")
    _, rows, _ = run_pair(api, tmp_path, "anthropic/m", Endpoint({"act": [searched], "abstain": [plain]}),
                          config_yaml=config)
    assert rows["act"]["cost_usd"] == rows["abstain"]["cost_usd"] == 2e-05
    assert rows["act"]["cost_flags"] == ["server_tool_unpriced"] and rows["abstain"]["cost_flags"] == []
    assert rows["act"]["final_text"] == "Which quantity?"


def test_attempts_exhausted_end_in_an_error_row_that_counts_every_billed_attempt(api, tmp_path):
    failed = {"error": {"message": "upstream timeout", "code": 504}, "usage": {"prompt_tokens": 7, "completion_tokens": 3}}
    summary, rows, _ = run_pair(api, tmp_path, "openai/m", Endpoint({"act": [[failed]], "abstain": [ASK]}),
                                config_yaml=PRICED)  # max_attempts 3, every one fails
    act = rows["act"]
    assert (act["status"], act["error_code"]) == ("error", "error_body")
    assert (act["input_tokens"], act["output_tokens"]) == (21, 9)
    assert (act["retry_input_tokens"], act["retry_output_tokens"]) == (21, 9)
    assert act["cost_usd"] == act["retry_cost_usd"] == round((21 + 2 * 9) / 1e6, 10)
    [group] = summary["rows"]
    assert (group["input_tokens"], group["cost_usd"], group["retry_cost_usd"]) == (31, 5.9e-05, 3.9e-05)


def test_a_prompt_blocked_by_the_providers_content_filter_is_a_content_filter_stop_not_a_run_error(api, tmp_path):
    blocked = {"error": {"message": "The response was filtered due to the prompt triggering the content management "
                                    "policy.", "type": None, "param": "prompt", "code": "content_filter", "status": 400}}

    def check(body):
        return (400, blocked) if any("order 2 of" in json.dumps(m) for m in body["messages"]) else None

    endpoint = Endpoint({"act": [ASK], "abstain": [ASK]}, check=check)
    summary, rows, traces = run_pair(api, tmp_path, "openai/m", endpoint, config_yaml=PRICED)
    act = rows["act"]
    assert (act["status"], act["end_reason"], act["content_filter"], act["correct"]) == ("ok", "content_filter", True,
                                                                                          False)
    assert act["input_tokens"] is None and act["cost_usd"] is None and act["usage_missing"] == 1
    assert len([r for r in endpoint.requests if r[0] == "act"]) == 1  # not retried
    from provider_helpers import events

    [responded] = events(traces["act"], "model_responded")
    assert responded.stop_reason == "content_filter" and responded.raw["filtered_request"]["body"] == blocked


def test_no_price_is_null_money_and_a_zero_price_is_free(api, tmp_path):
    fast = PRICED.splitlines()[0] + "\n"
    endpoint = Endpoint({"act": [ASK], "abstain": [ASK]})
    unpriced, rows, _ = run_pair(api, tmp_path, "openai/m", endpoint, config_yaml=fast, out="unpriced")
    assert [rows[v]["cost_usd"] for v in ("act", "abstain")] == [None, None]
    assert [rows[v]["input_tokens"] for v in ("act", "abstain")] == [10, 10]
    [group] = unpriced["rows"]
    assert (group["cost_usd"], group["cost_lower_bound"], group["input_tokens"]) == (None, False, 20)
    free, rows, _ = run_pair(api, tmp_path, "openai/m", endpoint, out="free", config_yaml=fast +
                             "models: {openai/m: {price: {input_per_mtok: 0, output_per_mtok: 0}}}\n")
    assert [rows[v]["cost_usd"] for v in ("act", "abstain")] == [0.0, 0.0]
    assert free["rows"][0]["cost_usd"] == 0.0


def test_a_response_served_on_another_service_tier_is_flagged_in_the_cost(api, tmp_path):
    from test_conformance import msg

    flex = ASK | {"service_tier": "flex"}
    default = ASK | {"service_tier": "default"}
    _, rows, _ = run_pair(api, tmp_path, "openai/m", Endpoint({"act": [flex], "abstain": [default]}),
                          config_yaml=PRICED, out="openai")
    assert rows["act"]["cost_flags"] == ["service_tier_unpriced"] and rows["abstain"]["cost_flags"] == []
    assert rows["act"]["cost_usd"] == rows["abstain"]["cost_usd"] == 2e-05  # list prices, flagged
    api.clear()
    usage = {"input_tokens": 10, "output_tokens": 5}
    _, rows, _ = run_pair(api, tmp_path, "anthropic/m", Endpoint({
        "act": [msg([{"type": "text", "text": "Which quantity?"}], usage=usage | {"service_tier": "priority"})],
        "abstain": [msg([{"type": "text", "text": "Which quantity?"}], usage=usage | {"service_tier": "standard"})]}),
        config_yaml=PRICED.replace("openai/m", "anthropic/m"), out="anthropic")
    assert rows["act"]["cost_flags"] == ["service_tier_unpriced"] and rows["abstain"]["cost_flags"] == []
