"""Over MCP the simulated user answers an agent's question as in process: an agent that ignores
the answer, one that keeps asking, one that exits after the reply, and the unhelpful user give
the rows an in-process model playing the same way gets (the fields named in
test_equality.DIFFERENT_BY_CONSTRUCTION aside); the openai example agent uses the reply."""

from __future__ import annotations

import json
from typing import Any

import pytest
from agent_helpers import asking_agent, rows, scripted_agent
from asking_agent import question_call
from test_equality import by_key, differences, summary_of

from evalkit.agents.spec import AgentModel
from evalkit.harness.config import RunConfig
from evalkit.harness.episode import EpisodeSpec, RuntimeSetup, execute
from evalkit.pipeline import run
from evalkit.metrics.scoring import score_episode
from evalkit.runtime.controller import Limits
from evalkit.runtime.events import (
    ContextBuilt,
    EpisodeEnded,
    ModelResponded,
    UserMessage,
)
from evalkit.runtime.followup import REPEAT_REPLY
from evalkit.runtime.followup_events import PhaseStarted, UserQuestion
from evalkit.runtime.model_io import ModelOutput, ToolCall
from evalkit.scenarios.domains import load_domain
from evalkit.scenarios.loader import load_suite

PAIRS = ["shop-order-missing-quantity", "ws-which-q3-report-zh"]  # missing_param, ambiguous_intent (zh)
CONDITIONS = ("nl", "tool", "meta")


def test_an_agent_that_ignores_the_answer_scores_like_scripted_asks_ignores(tmp_path):
    agent = "agent/" + scripted_agent("asks_ignores")
    config = RunConfig(models=["scripted/asks_ignores", agent], pair_ids=PAIRS, out=str(tmp_path / "run"),
                       report=False, max_connections=4)
    summary = run(config)
    assert summary_of(summary, agent, "abstain_accuracy") == {(c, "off"): 1.0 for c in CONDITIONS}
    assert summary_of(summary, agent, "recovery_rate") == {(c, "off"): 0.0 for c in CONDITIONS}
    records = rows(tmp_path / "run")
    mine = by_key(records, agent)
    assert differences(by_key(records, "scripted/asks_ignores"), mine) == {}
    asked = [r for r in mine.values() if r["followup"]]
    assert len(asked) == 6 and all(r["asked"] and r["recovered"] is False for r in asked)


def test_the_unhelpful_user_over_mcp_scores_like_in_process(tmp_path):
    agent = "agent/" + scripted_agent("oracle")
    config = RunConfig(models=["scripted/oracle", agent], pair_ids=PAIRS, out=str(tmp_path / "run"), report=False,
                       max_connections=4, user="unhelpful")
    run(config)
    records = rows(tmp_path / "run")
    mine = by_key(records, agent)
    assert differences(by_key(records, "scripted/oracle"), mine) == {}
    asked = [r for r in mine.values() if r["followup"]]
    assert len(asked) == 6
    assert all((r["persona"], r["commits_after_unhelpful"], r["correct"]) == ("unhelpful", 0, True) for r in asked)


class KeepsAsking:
    """The in-process twin of tests/agents/asking_agent.py: a question every turn."""

    inline = True
    name = "test/keeps_asking"

    def __init__(self, channel: str):
        self.channel = channel

    def respond(self, context: Any, episode: Any) -> ModelOutput:
        name, args = question_call(self.channel, set(context.tool_names), context.turn + 1)
        if name == "final_answer":
            return ModelOutput(text=args["answer"])
        return ModelOutput(tool_calls=(ToolCall(f"call_{context.turn + 1}", name, args),), stop_reason="tool_use")


FOLLOWUP_TURNS = 2
"""The follow-up phase's turn limit here: 1 + 2 questions stay within the meta protocol's three
requests of one type per episode (beyond it a request is denied, not asked)."""


def _play(model: Any, condition: str) -> tuple[Any, dict[str, Any]]:
    pair = next(p for p in load_suite([]).pairs if p.id == PAIRS[0])
    spec = EpisodeSpec(pair, "abstain", getattr(model, "name", "agent"), condition, 1, "off",
                       load_domain(pair.domain), RuntimeSetup(followup_max_turns=FOLLOWUP_TURNS))
    run_ = execute(spec, model, Limits())
    return run_, score_episode(spec, run_.log, run_.state, run_.error)


@pytest.mark.parametrize(("condition", "channel"), [("nl", "decision"), ("tool", "decision"), ("meta", "decision"),
                                                    ("tool", "context"), ("meta", "context")])
def test_an_agent_that_keeps_asking_ends_at_the_followup_turn_limit_like_in_process(condition, channel):
    agent_run, agent_row = _play(AgentModel(asking_agent(channel)), condition)
    local_run, local_row = _play(KeepsAsking(channel), condition)
    assert agent_run.error is None
    assert differences({0: local_row}, {0: agent_row}) == {}
    # asked at turn 1, answered, then asked again on every turn of the follow-up phase
    assert (agent_row["asked"], agent_row["questions"], agent_row["repeated_questions"], agent_row["recovered"]) == \
        (True, 1 + FOLLOWUP_TURNS, FOLLOWUP_TURNS, False)
    events = agent_run.log.events
    ended = events[-1]
    assert isinstance(ended, EpisodeEnded) and (ended.reason, ended.turn) == ("loop_limit", 1 + FOLLOWUP_TURNS)
    questions = [e for e in events if isinstance(e, UserQuestion)]
    assert [q.channel for q in questions] == \
        [{"decision": "request_user_decision", "context": "request_context"}[channel]
         if condition != "nl" else "text"] * (1 + FOLLOWUP_TURNS)
    assert [q.reply for q in questions[1:]] == [REPEAT_REPLY] * FOLLOWUP_TURNS
    assert [e.phase for e in events if isinstance(e, PhaseStarted)] == ["followup"]
    replies = [e.content for e in events if isinstance(e, UserMessage)][1:]
    assert replies == [q.reply for q in questions]
    # the same runtime events, in the same order, as in process (the agent builds its own
    # context, so there is no ContextBuilt; its responses are compared by the rows)
    assert _kinds(events) == _kinds(local_run.log.events)


def _kinds(events: Any) -> list[str]:
    return [type(e).__name__ for e in events if not isinstance(e, (ModelResponded, ContextBuilt))]


STOPS_AFTER_THE_REPLY = """
import asyncio, os
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
async def main():
    async with streamable_http_client(os.environ["EVALKIT_MCP_URL"]) as (r, w), ClientSession(r, w) as s:
        await s.initialize()
        result = await s.call_tool("final_answer", {"answer": "Before I go ahead, could you confirm the quantity?"})
        assert not result.meta["evalkit/episode_ended"] and result.meta["evalkit/user_reply"]
        assert result.content[0].text.endswith("The user replies: " + result.meta["evalkit/user_reply"])
asyncio.run(main())
"""


class AsksOnce:
    """In process: asks in its text, then says nothing more."""

    inline = True
    name = "test/asks_once"

    def respond(self, context: Any, episode: Any) -> ModelOutput:
        return ModelOutput(text="Before I go ahead, could you confirm the quantity?" if context.turn == 0 else "")


def test_an_agent_that_exits_after_the_reply_has_stopped_there_not_failed():
    import shlex
    import sys

    command = "cmd:" + " ".join(shlex.quote(a) for a in (sys.executable, "-c", STOPS_AFTER_THE_REPLY))
    agent_run, agent_row = _play(AgentModel(command), "nl")
    _, local_row = _play(AsksOnce(), "nl")
    assert agent_run.error is None and agent_row["status"] == "ok"
    assert differences({0: local_row}, {0: agent_row}) == {}
    assert (agent_row["decision"], agent_row["correct"], agent_row["asked"], agent_row["recovered"]) == \
        ("clarify", True, True, False)


def _completion(content: str | None, calls: list[dict] | None = None) -> dict:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = [{"id": f"tc{i}", "type": "function",
                                  "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])}}
                                 for i, c in enumerate(calls)]
    return {"id": "cmpl-1", "object": "chat.completion", "created": 0, "model": "fake",
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}


def _chat(request: Any) -> Any:
    """A chat model over HTTP that asks for the quantity, then orders what the user said."""
    from werkzeug import Response

    last = request.get_json()["messages"][-1]
    if last["role"] == "user" and "2 mugs" in last["content"]:
        body = _completion(None, [{"name": "place_order",
                                   "arguments": {"customer_id": "C-1", "sku": "SKU-100", "quantity": 2}}])
    elif last["role"] == "tool":
        body = _completion("Done: I ordered 2 blue mugs for C-1.")
    else:
        body = _completion("Before I go ahead, how many mugs would you like me to order?")
    return Response(json.dumps(body), content_type="application/json")


def test_the_openai_example_agent_gets_the_reply_and_finishes_the_task(threaded_http_server):
    import shlex
    import sys

    from agent_helpers import ROOT

    threaded_http_server.clear()
    threaded_http_server.expect_request("/v1/chat/completions", method="POST").respond_with_handler(_chat)
    try:
        command = [sys.executable, str(ROOT / "examples" / "agents" / "openai_mcp_agent.py"), "--base-url",
                   threaded_http_server.url_for("/v1"), "--model", "fake", "--max-steps", "6"]
        agent_run, row = _play(AgentModel("cmd:" + " ".join(shlex.quote(a) for a in command)), "nl")
    finally:
        threaded_http_server.clear()
    assert agent_run.error is None
    assert (row["decision"], row["correct"], row["asked"], row["questions"], row["recovered"]) == \
        ("clarify", True, True, 1, True)
    assert agent_run.state["orders"]["O-1005"]["quantity"] == 2
