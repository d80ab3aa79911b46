"""The event log L_t and the effective view V_t (DESIGN §2)."""

from __future__ import annotations

import json

from evalkit.runtime.events import (
    EpisodeStarted,
    EventLog,
    MetaRequestUpdated,
    ModelResponded,
    PermissionChanged,
    ToolExecuted,
    UserMessage,
)
from evalkit.runtime.view import View, fold


def _log() -> EventLog:
    log = EventLog()
    log.append(EpisodeStarted, 0, episode_id="e1", tools=("find", "buy"), permissions=("read",),
               limits={"max_turns": 5, "max_tool_calls": 9})
    log.append(UserMessage, 0, content="Buy 2 apples — 买两个苹果")
    log.append(PermissionChanged, 1, permission="write", granted=True, source="user")
    log.append(ModelResponded, 1, text=None, tool_calls=({"id": "c1", "name": "buy", "arguments": {"n": 2},
                                                          "parse_error": None},), input_tokens=10, output_tokens=3)
    log.append(ToolExecuted, 1, call_id="c1", tool="buy", kind="commit", arguments={"n": 2}, ok=True,
               result={"id": "P-1"}, signals=("missing_target",))
    log.append(PermissionChanged, 2, permission="write", granted=False, source="policy")
    log.append(MetaRequestUpdated, 2, request_id="mr-1", meta_type="request_context", status="proposed")
    return log


def test_saved_log_replays_into_identical_view(tmp_path):
    log = _log()
    path = tmp_path / "episode.jsonl"
    path.write_text(log.to_jsonl(), encoding="utf-8")
    loaded = EventLog.load(path)
    assert loaded.events == log.events
    assert fold(loaded) == fold(log)
    assert fold(loaded).permissions == frozenset({"read"})


def test_grant_then_revoke_keeps_both_events_but_view_shows_revocation():
    log = _log()
    changes = [e for e in log if isinstance(e, PermissionChanged)]
    assert [(e.permission, e.granted) for e in changes] == [("write", True), ("write", False)]
    view = fold(log)
    assert "write" not in view.permissions
    partial = fold(log.events[:3])
    assert "write" in partial.permissions


def test_view_counts_commits_tokens_signals_and_open_meta():
    view = fold(_log())
    assert view.turns == 1
    assert view.tokens == 13
    assert view.state_version == 1
    assert view.commits == (("buy", json.dumps({"n": 2})),)
    assert view.signals == ("missing_target",)
    assert view.open_meta == (("mr-1", "proposed"),)
    assert view.meta_counts == (("request_context", 1),)
    assert view.limit("max_turns") == 5


def test_fold_is_pure_and_does_not_mutate_start_view():
    start = View()
    first = fold(_log(), start)
    second = fold(_log(), start)
    assert first == second
    assert start == View()


def test_log_never_writes_nan_and_reports_bad_lines(tmp_path):
    import pytest

    from evalkit.errors import RunError

    log = EventLog()
    log.append(ToolExecuted, 1, result={"x": float("nan"), "y": [float("-inf"), 2]})
    log.append(UserMessage, 1, content="ok")
    text = log.to_jsonl()  # a value that slipped past the boundaries is marked, never NaN, never a crash
    first = json.loads(text.splitlines()[0], parse_constant=lambda c: pytest.fail(f"{c} written"))
    assert first["result"] == {"x": "<nan>", "y": ["<-inf>", 2]}
    assert json.loads(text.splitlines()[1])["content"] == "ok"
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "user_message", "seq": 0, "turn": 0, "content": "hi"}\n{"type": "nope"}\n')
    with pytest.raises(RunError, match=r"bad.jsonl:2: unknown event type"):
        EventLog.load(bad)
