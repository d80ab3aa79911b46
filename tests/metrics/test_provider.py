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
