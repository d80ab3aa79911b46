"""A provider attempt answered with a body evalkit cannot read (HTML, empty, a JSON array, usage
counts that are negative or strings) has unknown usage, never 0: over real HTTP, through
``evalkit.harness``, the row's tokens and money are null and counted, the call is counted,
the summary's totals are lower bounds, and a gate ceiling on tokens is never passed on them."""

from __future__ import annotations

import json

import pytest
from provider_helpers import Endpoint, events, run_pair
from werkzeug import Response

FAST = "defaults: {retry: {initial_wait_s: 0.01, max_wait_s: 0.02, max_attempts: 2}}\n"
PRICED = FAST + ("models:\n  openai/fake: {price: {input_per_mtok: 1.0, output_per_mtok: 2.0}}\n"
                 "  anthropic/x: {price: {input_per_mtok: 1.0, output_per_mtok: 2.0}}\n")

OPENAI_GOOD = {"id": "ok", "object": "chat.completion", "model": "fake",
               "choices": [{"index": 0, "finish_reason": "stop",
                            "message": {"role": "assistant", "content": "How many mugs would you like?"}}],
               "usage": {"prompt_tokens": 900, "completion_tokens": 10}}
ANTHROPIC_GOOD = {"id": "msg", "type": "message", "role": "assistant", "model": "x", "stop_reason": "end_turn",
                  "content": [{"type": "text", "text": "How many mugs would you like?"}],
                  "usage": {"input_tokens": 900, "output_tokens": 10}}


def _bad_usage(spec: str, usage: dict) -> str:
    good = OPENAI_GOOD if spec.startswith("openai/") else ANTHROPIC_GOOD
    return json.dumps({**good, "usage": usage})


BODIES = {  # (content type, body text) of a 200 answer evalkit cannot read
    "html": ("text/html", "<html><body><h1>502 Bad Gateway</h1></body></html>"),
    "empty": ("application/json", ""),
    "array": ("application/json", "[]"),
}
BAD_USAGE = {
    "openai/fake": {"negative": {"prompt_tokens": -5, "completion_tokens": 10},
                    "string": {"prompt_tokens": "900", "completion_tokens": 10}},
    "anthropic/x": {"negative": {"input_tokens": 900, "output_tokens": -1},
                    "string": {"input_tokens": "many", "output_tokens": 10}},
}
CASES = [(spec, name) for spec in ("openai/fake", "anthropic/x") for name in (*BODIES, "negative", "string")]


class Raw(Endpoint):
    """Answers each episode's attempts in turn with raw texts: ``script[variant]`` lists
    ``(content type, text[, status])`` per attempt (the last repeats)."""

    def __call__(self, request) -> Response:
        body = json.loads(request.get_data(as_text=True))
        variant = "act" if "order 2 of" in json.dumps(body["messages"]) else "abstain"
        self.requests.append((variant, 0, body))
        n = self.attempts[(variant, 0)]
        self.attempts[(variant, 0)] += 1
        answers = self.script[variant]
        ctype, text, *status = answers[min(n, len(answers) - 1)]
        return Response(text, content_type=ctype, status=status[0] if status else 200)


def _answer(spec: str, name: str) -> tuple[str, str]:
    if name in BODIES:
        return BODIES[name]
    return "application/json", _bad_usage(spec, BAD_USAGE[spec][name])


def _good(spec: str) -> tuple[str, str]:
    return "application/json", json.dumps(OPENAI_GOOD if spec.startswith("openai/") else ANTHROPIC_GOOD)


def _gate(run_dir, tmp_path, yaml_text: str):
    from evalkit.gate import evaluate_gate, load_gate_config

    path = tmp_path / "gate.yaml"
    path.write_text(yaml_text, encoding="utf-8")
    report = evaluate_gate(load_gate_config(path), run_dir)
    return report, report.exit_code


@pytest.mark.parametrize("spec,name", CASES)
def test_an_unreadable_answer_has_unknown_usage_never_zero(api, tmp_path, spec, name):
    endpoint = Raw({"act": [_answer(spec, name)], "abstain": [_answer(spec, name)]})
    summary, rows, traces = run_pair(api, tmp_path, spec, endpoint, config_yaml=PRICED)
    attempts = 2 if name in BODIES else 1  # a wrong count is not retried (the same body comes back)
    assert len(endpoint.requests) == 2 * attempts  # every attempt was answered
    for variant, row in rows.items():
        assert (row["status"], row["error_code"]) == ("error", "invalid_response")
        assert (row["input_tokens"], row["output_tokens"], row["cost_usd"]) == (None, None, None)
        assert row["usage_missing"] == attempts and row["model_calls"] == 1 and row["retries"] == attempts - 1
        [error] = events(traces[variant], "error")
        assert error.usage == {k: None for k in error.usage} and error.cost_usd is None
        if attempts == 2:
            assert (row["retry_input_tokens"], row["retry_output_tokens"], row["retry_cost_usd"]) == (None, None, None)
            [retry] = events(traces[variant], "provider_retry")
            assert retry.usage == {k: None for k in retry.usage} and retry.cost_usd is None
    group = summary["rows"][0]
    assert (group["input_tokens"], group["output_tokens"], group["cost_usd"]) == (None, None, None)
    assert group["usage_unknown"] == 2 and group["errors"] == 2
    [provider] = summary["provider"]
    assert (provider["model_calls"], provider["usage_missing"]) == (2, 2 * attempts)
    if attempts == 2:  # both episodes' failed attempts were answered unreadably: unknown, never 0
        assert (provider["retry_input_tokens"], provider["retry_output_tokens"]) == (None, None)
        assert provider["retry_usage_unknown"] == 2
        from evalkit.report.console import provider_lines

        [line] = provider_lines(summary)
        assert "; on failed attempts tokens n/a in / n/a out (usage not readable in 2 episodes)" in line
    report, code = _gate(tmp_path / "run", tmp_path, "thresholds:\n  - {metric: input_tokens, max: 50}\n")
    assert code == 2 and [r.status for r in report.results] == ["error"]
    assert report.results[0].message.startswith("missing data: input_tokens has no value")


CUT_AFTER_60 = json.dumps(OPENAI_GOOD)[:60]
NOT_JSON = {  # (content type, body text, what the error names after "the response is not JSON ")
    "html": (*BODIES["html"], "(HTTP 200, text/html): '<html><body><h1>502 Bad Gateway</h1></body></html>'"),
    "empty": (*BODIES["empty"], "(HTTP 200, application/json): empty body"),
    "cut": ("application/json; charset=utf-8", CUT_AFTER_60, f"(HTTP 200, application/json): '{CUT_AFTER_60}'"),
    "long": ("text/plain", "Gateway\r\n\x00" + "x" * 200,
             "(HTTP 200, text/plain): 'Gateway\\r\\n\\x00" + "x" * 62 + "…'"),
}


@pytest.mark.parametrize("spec", ["openai/fake", "anthropic/x"])
@pytest.mark.parametrize("name", NOT_JSON)
def test_a_200_body_that_is_not_json_is_named_by_status_content_type_and_first_characters(api, tmp_path, spec, name):
    """A wrong ``--base-url`` (a gateway's page), an empty or a cut body: the error says which,
    in at most 80 characters of the body, control characters escaped; the usage stays unknown."""
    ctype, text, named = NOT_JSON[name]
    endpoint = Raw({"act": [(ctype, text)], "abstain": [(ctype, text)]})
    summary, rows, traces = run_pair(api, tmp_path, spec, endpoint, config_yaml=PRICED)
    for variant, row in rows.items():
        assert (row["status"], row["error_code"]) == ("error", "invalid_response")
        assert f"the response is not JSON {named}" in row["error"]
        assert len(named.split(": ", 1)[1]) <= 80 and "\n" not in row["error"] and "\x00" not in row["error"]
        [error] = events(traces[variant], "error")
        assert f"the response is not JSON {named}" in error.message
        [retry] = events(traces[variant], "provider_retry")
        assert f"the response is not JSON {named}" in retry.message
        assert (row["input_tokens"], row["output_tokens"], row["cost_usd"]) == (None, None, None)
        assert row["usage_missing"] == 2 and row["model_calls"] == 1
    [provider] = summary["provider"]
    assert (provider["model_calls"], provider["usage_missing"]) == (2, 4)


@pytest.mark.parametrize("spec", ["openai/fake", "anthropic/x"])
def test_an_unreadable_attempt_before_a_good_answer_makes_totals_a_lower_bound(api, tmp_path, spec):
    endpoint = Raw({"act": [BODIES["html"], _good(spec)], "abstain": [_good(spec)]})
    summary, rows, traces = run_pair(api, tmp_path, spec, endpoint, config_yaml=PRICED)
    act, abstain = rows["act"], rows["abstain"]
    assert act["status"] == abstain["status"] == "ok" and act["retries"] == 1
    assert (act["input_tokens"], act["output_tokens"], act["cost_usd"], act["usage_missing"]) == (None, None, None, 1)
    assert (act["retry_input_tokens"], act["retry_cost_usd"], act["model_calls"]) == (None, None, 1)
    [call] = events(traces["act"], "model_call")
    assert (call.attempts, call.input_tokens, call.cost_usd, call.retry_input_tokens) == (2, None, None, None)
    assert "usage_missing" in call.flags
    assert (abstain["input_tokens"], abstain["output_tokens"], abstain["usage_missing"]) == (900, 10, 0)
    assert abstain["cost_usd"] == 0.00092
    group = summary["rows"][0]
    assert (group["input_tokens"], group["output_tokens"], group["usage_unknown"]) == (900, 10, 1)
    assert group["tokens_lower_bound"] is True and group["cost_lower_bound"] is True
    assert group["cost_usd"] == 0.00092 and group["tokens_per_success"] is None
    [provider] = summary["provider"]  # the failed attempt's tokens: a lower bound, never a plain 0
    assert (provider["retry_input_tokens"], provider["retry_usage_unknown"]) == (0, 1)
    assert provider["retry_tokens_lower_bound"] is True
    run_dir = tmp_path / "run"
    # 900 known tokens is only a lower bound: a ceiling above it is not passed, one below it fails
    report, code = _gate(run_dir, tmp_path, "thresholds:\n  - {metric: input_tokens, max: 5000}\n")
    assert code == 2 and report.results[0].status == "error"
    assert "is a lower bound: 1 recorded episode(s) have unknown usage" in report.results[0].message
    report, code = _gate(run_dir, tmp_path, "thresholds:\n  - {metric: input_tokens, max: 50}\n")
    assert code == 1 and report.results[0].status == "fail"
    report, code = _gate(run_dir, tmp_path, "thresholds:\n  - {metric: cost_usd, min: 0.0005}\n")
    assert code == 0 and report.results[0].status == "pass"
    report, code = _gate(run_dir, tmp_path, "thresholds:\n  - {metric: cost_usd, max: 1}\n")
    assert code == 2 and report.results[0].status == "error"


def test_an_http_error_status_without_usage_is_still_not_billed(api, tmp_path):
    """The other side of the rule: a 503 answer says nothing was produced, so it bills nothing."""
    overloaded = ("application/json", json.dumps({"error": {"message": "overloaded"}}), 503)
    endpoint = Raw({"act": [overloaded, _good("openai/fake")], "abstain": [_good("openai/fake")]})
    summary, rows, _ = run_pair(api, tmp_path, "openai/fake", endpoint, config_yaml=PRICED)
    act = rows["act"]
    assert (act["retries"], act["usage_missing"], act["input_tokens"], act["retry_input_tokens"]) == (1, 0, 900, 0)
    assert act["cost_usd"] == 0.00092 and act["retry_cost_usd"] == 0.0
    assert summary["rows"][0]["tokens_lower_bound"] is False and summary["rows"][0]["input_tokens"] == 1800


def test_unknown_anthropic_content_blocks_are_flagged_and_counted_never_dropped(api, tmp_path):
    novel = {"type": "server_tool_use_v9", "id": "srv_9", "payload": {"q": "mugs"}}
    search = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "q"}}
    act = {**ANTHROPIC_GOOD, "content": [novel, {"type": "text", "text": "How many mugs?"}, dict(novel, id="srv_10")]}
    abstain = {**ANTHROPIC_GOOD, "content": [search, {"type": "text", "text": "How many mugs?"}]}
    summary, rows, traces = run_pair(api, tmp_path, "anthropic/x", Endpoint({"act": [act], "abstain": [abstain]}),
                                     config_yaml=PRICED)
    assert (rows["act"]["unknown_content_blocks"], rows["abstain"]["unknown_content_blocks"]) == (2, 0)
    assert rows["act"]["final_text"] == "How many mugs?" and rows["act"]["status"] == "ok"
    [responded] = events(traces["act"], "model_responded")
    assert responded.flags.count("unknown_content_block") == 2 and responded.raw["content"][0] == novel
    [call] = events(traces["act"], "model_call")
    assert "unknown_content_block" in call.flags
    assert summary["provider"][0]["unknown_content_blocks"] == 2
    from evalkit.report.console import provider_lines

    [line] = provider_lines(summary)
    assert line.endswith("; 2 response content blocks of an unknown type (kept in the traces)")


def test_an_anthropic_error_body_with_unreadable_usage_is_unknown_as_for_openai(api, tmp_path):
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"},
             "usage": {"input_tokens": "900", "output_tokens": 3}}
    endpoint = Raw({"act": [("application/json", json.dumps(error))], "abstain": [_good("anthropic/x")]})
    summary, rows, _ = run_pair(api, tmp_path, "anthropic/x", endpoint, config_yaml=PRICED)
    act = rows["act"]
    assert (act["status"], act["error_code"], act["retries"]) == ("error", "error_body", 1)
    assert (act["input_tokens"], act["cost_usd"], act["usage_missing"]) == (None, None, 2)
    assert summary["rows"][0]["tokens_lower_bound"] is True and summary["rows"][0]["input_tokens"] == 900
