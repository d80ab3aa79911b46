"""The context builder S_B: pure, budgeted, and honest about what it left out (DESIGN §2)."""

from __future__ import annotations

import json

from evalkit.runtime.context import build_context, estimate_tokens
from evalkit.runtime.events import ActionDecided, EventLog, ModelResponded, ToolExecuted, UserMessage

TOOLS = [{"type": "function", "function": {"name": "find", "description": "Find.", "parameters": {"type": "object"}}}]


def _log(n_turns: int, result_size: int = 10) -> EventLog:
    log = EventLog()
    log.append(UserMessage, 0, content="Find the item.")
    for t in range(1, n_turns + 1):
        log.append(ModelResponded, t, tool_calls=({"id": f"c{t}", "name": "find", "arguments": {"q": t},
                                                   "parse_error": None},))
        log.append(ActionDecided, t, call_id=f"c{t}", tool="find", action="execute")
        log.append(ToolExecuted, t, call_id=f"c{t}", tool="find", arguments={"q": t}, result="x" * result_size)
    return log


def test_messages_follow_the_log_in_openai_format():
    ctx = build_context(_log(2).events, system_prompt="SYS", tools=TOOLS)
    roles = [m["role"] for m in ctx.messages]
    assert roles == ["system", "user", "assistant", "tool", "assistant", "tool"]
    assert ctx.messages[2]["tool_calls"][0]["function"]["arguments"] == json.dumps({"q": 1})
    assert ctx.messages[2]["content"] == ""  # never null: some servers reject content=null
    assert ctx.messages[3]["tool_call_id"] == "c1"
    assert ctx.dropped == () and ctx.truncated == ()
    assert ctx.turn == 2 and ctx.tool_names == ("find",)


def test_denial_is_returned_as_the_observation():
    log = EventLog()
    log.append(UserMessage, 0, content="hi")
    log.append(ModelResponded, 1, tool_calls=({"id": "c1", "name": "nope", "arguments": {}, "parse_error": None},))
    log.append(ActionDecided, 1, call_id="c1", tool="nope", action="deny", reason_code="unknown_tool", message="no such tool")
    ctx = build_context(log.events, system_prompt="S", tools=TOOLS)
    assert json.loads(ctx.messages[-1]["content"]) == {"error": "unknown_tool", "message": "no such tool"}


def test_budget_drops_oldest_turns_whole_and_records_them():
    log = _log(6, result_size=400)
    full = build_context(log.events, system_prompt="S", tools=TOOLS, budget=100_000)
    small = build_context(log.events, system_prompt="S", tools=TOOLS, budget=full.tokens - 150)
    assert small.tokens <= full.tokens - 150
    assert small.dropped and min(small.included[1:]) > max(small.dropped)
    assert set(small.dropped).isdisjoint(small.included)
    assert "omitted to fit the context budget" in small.messages[2]["content"]
    # every kept assistant message with tool calls is followed by its tool results
    msgs = small.messages
    for i, m in enumerate(msgs):
        if m.get("tool_calls"):
            assert msgs[i + 1]["role"] == "tool"


def test_large_observation_is_truncated_with_a_visible_marker():
    ctx = build_context(_log(1, result_size=10_000).events, system_prompt="S", tools=TOOLS, max_observation_chars=500)
    content = ctx.messages[-1]["content"]
    assert len(content) < 700 and "observation truncated, 500 of" in content
    assert ctx.truncated == (3,)


def test_builder_is_pure():
    events = _log(3).events
    a = build_context(events, system_prompt="S", tools=TOOLS, budget=300)
    b = build_context(events, system_prompt="S", tools=TOOLS, budget=300)
    assert a == b


def test_token_estimate_is_chars_over_four_rounded_up():
    assert estimate_tokens("") == 0
    assert estimate_tokens("abcd") == 1
    assert estimate_tokens("abcde") == 2
