"""The context builder S_B: pure, budgeted, and honest about what it left out (DESIGN §2)."""

from __future__ import annotations

import contextlib
import json
import sys

import pytest
from rt_helpers import call, run, turn

from evalkit.runtime.context import build_context, estimate_tokens
from evalkit.runtime.controller import Limits
from evalkit.runtime.events import ActionDecided, ContextBuilt, EventLog, ModelResponded, ToolExecuted, UserMessage

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
    log.append(ActionDecided, 1, call_id="c1", tool="nope", action="deny", reason_code="unknown_tool",
               message="no such tool")
    ctx = build_context(log.events, system_prompt="S", tools=TOOLS)
    assert json.loads(ctx.messages[-1]["content"]) == {"error": "unknown_tool", "message": "no such tool"}


def _turn_seqs(log: EventLog) -> set[int]:
    return {e.seq for e in log if isinstance(e, (UserMessage, ModelResponded, ToolExecuted))}


def test_budget_keeps_newest_turns_whole_compacts_older_ones_and_drops_the_oldest():
    log = _log(8, result_size=400)
    full = build_context(log.events, system_prompt="S", tools=TOOLS, budget=100_000)
    assert full.compacted == () and full.dropped == ()
    small = build_context(log.events, system_prompt="S", tools=TOOLS, budget=full.tokens - 600)
    assert small.tokens <= full.tokens - 600
    assert small.compacted and small.dropped
    # included, compacted and dropped partition what the builder represents, oldest dropped first
    parts = [set(small.included), set(small.compacted), set(small.dropped)]
    assert set().union(*parts) == _turn_seqs(log) and sum(map(len, parts)) == len(_turn_seqs(log))
    assert max(small.dropped) < min(small.compacted) < max(small.compacted) < min(small.included[1:])
    note = small.messages[2]["content"].splitlines()
    assert "omitted to fit the context budget" in note[0] and "compacted to one line each" in note[1]
    compacted_turns = len({e.turn for e in log if e.seq in set(small.compacted)})
    assert len([line for line in note if line.startswith("- ")]) == compacted_turns
    assert note[-1].startswith("- find(") and "-> " in note[-1]
    # every kept assistant message with tool calls is followed by its tool results
    msgs = small.messages
    for i, m in enumerate(msgs):
        if m.get("tool_calls"):
            assert msgs[i + 1]["role"] == "tool"


def test_compaction_is_deterministic_and_a_tighter_budget_keeps_less():
    events = _log(8, result_size=400).events
    full = build_context(events, system_prompt="S", tools=TOOLS, budget=100_000).tokens
    a = build_context(events, system_prompt="S", tools=TOOLS, budget=full - 600)
    assert a == build_context(events, system_prompt="S", tools=TOOLS, budget=full - 600)
    b = build_context(events, system_prompt="S", tools=TOOLS, budget=full - 1200)
    assert len(b.included) < len(a.included) and len(b.dropped) >= len(a.dropped)


def test_the_loop_records_what_each_context_compacted():
    _, result = run([turn(call("find", {"item": "apple"}, f"f{i}")) for i in range(12)],
                    limits=Limits(max_turns=12, max_tool_calls=50, context_budget=700))
    built = [e for e in result.log if isinstance(e, ContextBuilt)]
    assert any(e.compacted for e in built) and all(e.tokens <= e.budget for e in built)
    assert built[0].compacted == () and built[0].dropped == ()


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


# ------------------------------------------------------------------ S_B is pure (DESIGN §2)

_GUARD = {"on": False}
_BLOCKED = ("open", "os.", "socket.", "subprocess.", "urllib.", "http.", "shutil.", "glob.", "sqlite3.")


def _audit(event: str, args: tuple) -> None:
    if _GUARD["on"] and event.startswith(_BLOCKED):
        raise PermissionError(f"S_B touched the outside world: {event}")


sys.addaudithook(_audit)  # permanent for the process, but inert unless _GUARD is on


@contextlib.contextmanager
def no_outside_world(monkeypatch):
    """Make file, network and process access raise (an audit hook plus patched entry points)."""
    import builtins
    import io
    import os
    import pathlib
    import socket
    import subprocess
    import urllib.request

    def refuse(*_args, **_kwargs):
        raise PermissionError("S_B touched the outside world")

    for target, name in [(builtins, "open"), (io, "open"), (os, "open"), (os, "listdir"), (os, "scandir"),
                         (pathlib.Path, "open"), (pathlib.Path, "read_text"), (pathlib.Path, "read_bytes"),
                         (socket, "socket"), (socket, "create_connection"), (socket, "getaddrinfo"),
                         (subprocess, "Popen"), (urllib.request, "urlopen")]:
        monkeypatch.setattr(target, name, refuse)
    _GUARD["on"] = True
    try:
        yield
    finally:
        _GUARD["on"] = False


def test_the_guard_really_blocks_files_and_network(monkeypatch, tmp_path):
    import socket

    path = tmp_path / "x.txt"
    path.write_text("x")
    with no_outside_world(monkeypatch):
        with pytest.raises(PermissionError):
            open(path)  # noqa: SIM115
        with pytest.raises(PermissionError):
            socket.create_connection(("127.0.0.1", 9))
        with pytest.raises(PermissionError):  # an entry point nobody patched: the audit hook stops it
            import io

            io.FileIO(path)


def test_the_context_builder_is_pure_under_a_no_io_guard(monkeypatch):
    events = _log(8, result_size=5000).events
    tools = [dict(t) for t in TOOLS]
    expected = build_context(events, system_prompt="S", tools=tools, budget=900, max_observation_chars=300)
    snapshot = (list(events), json.dumps(tools))
    with no_outside_world(monkeypatch):
        got = build_context(events, system_prompt="S", tools=tools, budget=900, max_observation_chars=300)
        again = build_context(events, system_prompt="S", tools=tools, budget=900, max_observation_chars=300)
    assert got == again == expected
    assert got.compacted and got.truncated  # the compaction and truncation paths ran under the guard
    assert (list(events), json.dumps(tools)) == snapshot  # and nothing it was given changed
