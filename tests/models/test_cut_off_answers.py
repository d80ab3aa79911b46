"""An answer the provider cut off, paused or withheld is never read as the model's decision.

Responses are served over real HTTP by a local fake OpenAI-compatible server and go through the
adapter, the agent loop and the scorer, as in a run.
"""

from __future__ import annotations

import pytest
from model_helpers import completion, events_of, field_domain, field_episode, field_pair, openai_model, tool_call

CHAT = "/v1/chat/completions"
OBJ = {"type": "object", "properties": {}, "additionalProperties": True}


def _setup():
    domain = field_domain({"lookup": ("lookup", OBJ), "save": ("commit", OBJ)})
    return domain, field_pair(domain, "save")


def test_a_question_cut_off_at_the_token_limit_is_no_clarification(api):
    """A text stopped at ``length`` states no decision: the user is not asked, the text is not read."""
    domain, pair = _setup()
    api.expect_ordered_request(CHAT, method="POST").respond_with_json(
        completion({"content": "How many mugs would"}, finish_reason="length"))
    run, row = field_episode(openai_model(api), domain, pair)
    [ended] = events_of(run.log, "episode_ended")
    assert (ended.reason, ended.final_text) == ("truncated", "How many mugs would")
    assert events_of(run.log, "user_message")[1:] == []  # not asked back to the simulated user
    assert (row["stated"], row["decision"], row["correct"], row["status"]) == ("none", "none", False, "ok")
    assert row["truncated_output"] is True and row["unjudged"] is False and row["end_reason"] == "truncated"
    assert (row["input_tokens"], row["output_tokens"]) == (10, 5)  # billed all the same
    from evalkit.metrics.failures import failure_kind

    assert failure_kind(row) == "truncated"  # its own kind in the report's gallery


def test_on_the_act_side_a_cut_off_final_text_leaves_the_commits_to_decide(api):
    domain, pair = _setup()
    api.expect_ordered_request(CHAT, method="POST").respond_with_json(
        completion({"content": None, "tool_calls": [tool_call("save", {})]}, finish_reason="tool_calls"))
    api.expect_ordered_request(CHAT, method="POST").respond_with_json(
        completion({"content": "I have saved it. I'm sorry, but I cannot"}, finish_reason="length"))
    run, row = field_episode(openai_model(api), domain, pair, variant="act")
    assert [e.tool for e in events_of(run.log, "tool_executed")] == ["save"]
    assert row["end_reason"] == "truncated" and row["stated"] == "none"
    assert row["correct"] is True  # the commit is right; the cut-off text is not read as a refusal


@pytest.mark.parametrize("arguments", ['{"customer_id": "C-', '{"customer_id": "C-1"}'])
@pytest.mark.parametrize("variant", ["abstain", "act"])
def test_a_tool_call_cut_off_at_the_token_limit_is_truncated_not_a_parse_failure(api, arguments, variant):
    """A call in a ``length`` response is a truncated call, whether its arguments were cut mid-JSON
    or parse: the failure kind is ``truncated`` (not ``parse_failure``, not ``silent``) and it is
    not also counted in ``parse_failures``."""
    from evalkit.metrics.failures import failure_kind

    domain, pair = _setup()
    api.expect_request(CHAT, method="POST").respond_with_json(
        completion({"content": None, "tool_calls": [tool_call("save", arguments)]}, finish_reason="length"))
    run, row = field_episode(openai_model(api), domain, pair, variant=variant, max_turns=2)
    assert events_of(run.log, "tool_executed") == []
    assert {e.reason_code for e in events_of(run.log, "action_decided")} == {"truncated_tool_call"}
    assert (row["truncated_calls"], row["truncated_output"], row["parse_failures"]) == (2, True, 0)
    assert (row["decision"], row["correct"], row["status"]) == ("none", False, "ok")
    assert failure_kind(row) == "truncated"


def test_a_truncated_call_then_a_plain_answer_is_still_truncated(api):
    """The model, told its call was cut off, answers without deciding: the cut-off call is why."""
    from evalkit.metrics.failures import failure_kind

    domain, pair = _setup()
    api.expect_ordered_request(CHAT, method="POST").respond_with_json(
        completion({"content": None, "tool_calls": [tool_call("save", '{"customer_id": "C-')]},
                   finish_reason="length"))
    api.expect_ordered_request(CHAT, method="POST").respond_with_json(completion({"content": "Here you go."}))
    run, row = field_episode(openai_model(api), domain, pair)
    assert row["end_reason"] == "final_text" and row["decision"] in ("none", "answer")
    assert (row["truncated_calls"], row["parse_failures"]) == (1, 0)
    assert failure_kind(row) == "truncated"


@pytest.mark.parametrize(("finish", "end_reason"), [
    ("SAFETY", "content_filter"), ("recitation", "content_filter"), ("guardrail_intervened", "content_filter"),
    ("Length", "truncated"),
])
def test_stop_values_of_other_providers_are_read_without_regard_to_case(api, finish, end_reason):
    domain, pair = _setup()
    api.expect_ordered_request(CHAT, method="POST").respond_with_json(
        completion({"content": "Could you tell me which order you mean?"}, finish_reason=finish))
    run, row = field_episode(openai_model(api), domain, pair)
    assert events_of(run.log, "episode_ended")[0].reason == end_reason
    assert row["stated"] == "none" and not row["correct"]


def test_a_generation_cut_off_for_lack_of_server_resources_is_a_provider_error(api):
    """DeepSeek's ``insufficient_system_resource``: retried, never the model's answer; here it persists."""
    domain, pair = _setup()
    api.expect_request(CHAT, method="POST").respond_with_json(
        completion({"content": "How many mugs would"}, finish_reason="insufficient_system_resource"))
    run, row = field_episode(openai_model(api), domain, pair)
    assert row["status"] == "error" and row["decision"] == "none" and not row["correct"]
    assert "insufficient_system_resource" in (row["error"] or "")
