"""The controller's structured denials (DESIGN §2): each reason code on its failure path."""

from __future__ import annotations

from evalkit.runtime.controller import Controller
from evalkit.runtime.events import ActionDecided, EpisodeStarted, EventLog, ModelResponded
from evalkit.runtime.model_io import ToolCall
from evalkit.runtime.tools import ToolSpec
from evalkit.runtime.view import fold

SCHEMA = {"type": "object", "properties": {"qty": {"type": "integer", "minimum": 1}}, "required": ["qty"],
          "additionalProperties": False}
BUY = ToolSpec("buy", "commit", "Buy.", SCHEMA, permission="shop.buy", fn=lambda s, qty: {"ok": qty})
META = ToolSpec("declare_blocked", "lookup", "Stop.", {"type": "object"}, domain="meta")


def view(perms=("shop.buy",), calls=0, turns=1, max_calls=5, max_turns=5, max_tokens=None, tokens=0):
    log = EventLog()
    log.append(EpisodeStarted, 0, permissions=perms,
               limits={"max_turns": max_turns, "max_tool_calls": max_calls, "max_tokens": max_tokens})
    for _ in range(turns):
        log.append(ModelResponded, 1, input_tokens=tokens)
    for i in range(calls):
        log.append(ActionDecided, 1, call_id=f"c{i}", tool="buy", action="execute")
    return fold(log)


def decide(call, v=None):
    return Controller({"buy": BUY}, {"declare_blocked": META}).decide(call, v or view())


def test_valid_call_executes():
    action = decide(ToolCall("c1", "buy", {"qty": 2}))
    assert (action.kind, action.reason_code, action.tool) == ("execute", None, BUY)


def test_meta_tool_call_is_routed_to_meta():
    assert decide(ToolCall("c1", "declare_blocked", {"reason": "x"})).kind == "meta"


def test_unknown_tool_is_denied_with_the_available_names():
    action = decide(ToolCall("c1", "delete_everything", {}))
    assert (action.kind, action.reason_code) == ("deny", "unknown_tool")
    assert "buy" in action.message and "declare_blocked" in action.message


def test_empty_tool_name_is_unknown_tool_not_dropped():
    assert decide(ToolCall("c1", "", {})).reason_code == "unknown_tool"


def test_schema_mismatch_names_the_field():
    action = decide(ToolCall("c1", "buy", {"qty": "two"}))
    assert action.reason_code == "schema_mismatch"
    assert "$.qty" in action.message
    assert decide(ToolCall("c1", "buy", {"qty": 1, "extra": True})).reason_code == "schema_mismatch"
    assert decide(ToolCall("c1", "buy", {})).reason_code == "schema_mismatch"


def test_parse_error_is_denied_and_never_executed():
    action = decide(ToolCall("c1", "buy", None, raw_arguments='{"qty": 2}""', parse_error="Extra data"))
    assert (action.kind, action.reason_code) == ("deny", "parse_error")


def test_missing_permission_is_denied():
    action = decide(ToolCall("c1", "buy", {"qty": 2}), view(perms=("shop.read",)))
    assert (action.kind, action.reason_code) == ("deny", "permission_denied")
    assert "shop.buy" in action.message


def test_tool_call_budget_is_a_hard_limit():
    assert decide(ToolCall("c9", "buy", {"qty": 1}), view(calls=4, max_calls=5)).kind == "execute"
    action = decide(ToolCall("c9", "buy", {"qty": 1}), view(calls=5, max_calls=5))
    assert action.reason_code == "budget_exceeded"


def test_token_budget_is_a_hard_limit():
    action = decide(ToolCall("c1", "buy", {"qty": 1}), view(max_tokens=100, tokens=100))
    assert action.reason_code == "budget_exceeded"


def test_turn_limit_gives_loop_limit():
    action = decide(ToolCall("c1", "buy", {"qty": 1}), view(turns=3, max_turns=2))
    assert action.reason_code == "loop_limit"
