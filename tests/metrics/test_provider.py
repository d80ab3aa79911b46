"""Provider totals per model x condition: calls, cache hits, retries, output faults, error codes."""

from __future__ import annotations

from evalkit.metrics.provider import provider_summary


def row(condition="nl", **kw):
    base = {"model": "openai/m", "condition": condition, "status": "ok", "model_calls": 2, "cache_hits": 0,
            "retries": 0, "retry_wait_s": 0.0, "parse_failures": 0, "repaired_calls": 0, "call_in_content": False,
            "content_filter": False, "claimed_action_without_call": False, "error_code": None}
    return {**base, **kw}


def test_totals_and_rates():
    rows = [row(cache_hits=2, retries=1, retry_wait_s=0.25), row(parse_failures=2, call_in_content=True),
            row(status="error", error_code="context_length_exceeded", model_calls=0),
            row(status="error", error_code=None, content_filter=False), row("tool", model_calls=0)]
    nl, tool = provider_summary(rows)
    assert (nl["episodes"], nl["model_calls"], nl["cache_hits"], nl["cache_hit_rate"]) == (4, 6, 2, round(2 / 6, 6))
    assert (nl["retries"], nl["retry_wait_s"], nl["parse_failures"], nl["call_in_content"]) == (1, 0.25, 2, 1)
    assert nl["error_codes"] == {"context_length_exceeded": 1, "other": 1}
    assert tool["cache_hit_rate"] is None and tool["error_codes"] == {}  # no calls: null, never NaN


def test_retry_tokens_of_an_unreadable_attempt_are_unknown_or_a_lower_bound_never_zero():
    from evalkit.report.console import provider_lines

    unread = {"retries": 1, "retry_input_tokens": None, "retry_output_tokens": None, "usage_missing": 1}
    billed = {"retries": 1, "retry_input_tokens": 1200, "retry_output_tokens": 400}
    [only_unknown] = provider_summary([row(**unread), row(**unread)])
    assert (only_unknown["retry_input_tokens"], only_unknown["retry_output_tokens"]) == (None, None)
    assert (only_unknown["retry_usage_unknown"], only_unknown["retry_tokens_lower_bound"]) == (2, False)
    [mixed] = provider_summary([row(**unread), row(**billed), row(retry_input_tokens=0, retry_output_tokens=0)])
    assert (mixed["retry_input_tokens"], mixed["retry_output_tokens"]) == (1200, 400)
    assert (mixed["retry_usage_unknown"], mixed["retry_tokens_lower_bound"]) == (1, True)
    [known] = provider_summary([row(**billed), row(**billed)])
    assert (known["retry_input_tokens"], known["retry_usage_unknown"], known["retry_tokens_lower_bound"]) == \
        (2400, 0, False)
    group = {"model": "openai/m", "completed": 3, "usage_unknown": 1, "input_tokens": 5000, "output_tokens": 700,
             "cost_usd": None}
    [line] = provider_lines({"provider": [mixed], "rows": [group]})
    assert "; on failed attempts tokens ≥ 1,200 in / ≥ 400 out (usage not readable in 1 episodes)" in line
    [line] = provider_lines({"provider": [only_unknown], "rows": [{**group, "input_tokens": None}]})
    assert "; on failed attempts tokens n/a in / n/a out (usage not readable in 2 episodes)" in line
    [line] = provider_lines({"provider": [known], "rows": [group]})
    assert "; on failed attempts tokens 2,400 in / 800 out" in line and "not readable" not in line
