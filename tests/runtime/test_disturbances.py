"""Disturbances δ_t (seed 001): the observation says what the runtime knows, not more."""

from __future__ import annotations

import json

import pytest
from rt_helpers import call, of, run, say, turn

from evalkit.runtime.events import GateDecided, ToolExecuted
from evalkit.runtime.executor import Fault
from evalkit.runtime.view import fold

APPLE = {"item": "apple", "qty": 2}


@pytest.mark.parametrize("applied", [True, False])
def test_a_timeout_leaves_the_side_effect_unknown(applied):
    model, result = run([turn(call("buy", APPLE, "b1")), say("x")], faults={"buy": Fault("timeout", applied=applied)})
    executed = of(result, ToolExecuted)[0]
    # what really happened differs...
    assert ("bought" in result.state) is applied
    # ...but the observation, and so everything the runtime and the model know, is the same
    assert (executed.ok, executed.signals) == (False, ("tool_error", "timeout", "unknown_side_effect"))
    assert json.loads(model.seen[1].messages[-1]["content"]) == {
        "error": {"message": "buy timed out; whether it took effect is unknown"},
        "signals": ["tool_error", "timeout", "unknown_side_effect"]}
    assert fold(result.log).state_version == 1  # the runtime must assume the state may have changed


def test_after_a_timeout_the_gate_asks_before_committing_again():
    _, result = run([turn(call("buy", APPLE, "b1")), turn(call("buy", APPLE, "b2")), say("x")], gate=True,
                    faults={"buy": Fault("timeout", applied=True, times=1)})
    assert [(g.decision, g.reason) for g in of(result, GateDecided)] == [("act", "evidence_ok"),
                                                                        ("clarify", "unknown_side_effect")]
    assert result.state["bought"] == [["apple", 2]]  # no double order


def test_a_transient_failure_clears_on_retry():
    _, result = run([turn(call("check", {"item": "apple"}, "c1")), turn(call("check", {"item": "apple"}, "c2")),
                     turn(call("buy", APPLE, "b1")), say("x")], gate=True, faults={"check": Fault("transient")})
    first, second = of(result, ToolExecuted)[:2]
    assert (first.ok, first.signals, first.result["retryable"]) == (False, ("tool_error", "transient"), True)
    assert (second.ok, second.signals) == (True, ())
    assert [g.decision for g in of(result, GateDecided)][-1] == "act"
    assert result.state["bought"] == [["apple", 2]]


def test_a_transient_failure_not_retried_blocks_the_commit():
    _, result = run([turn(call("check", {"item": "apple"}, "c1")), turn(call("buy", APPLE, "b1")), say("x")],
                    gate=True, faults={"check": Fault("transient")})
    assert [(g.decision, g.reason) for g in of(result, GateDecided)][-1] == ("abstain", "tool_failure")
    assert "bought" not in result.state


def test_a_detected_concurrent_change_rejects_the_commit_until_the_state_is_read_again():
    change = Fault("concurrent", patch={"stock": {"apple": 1}})
    model, result = run([turn(call("find", {"item": "apple"}, "f1")), turn(call("buy", APPLE, "b1")),
                         turn(call("buy", APPLE, "b2")), turn(call("find", {"item": "apple"}, "f2")),
                         turn(call("buy", {"item": "apple", "qty": 1}, "b3")), say("x")],
                        gate=True, faults={"buy": change})
    executed = of(result, ToolExecuted)
    assert (executed[1].ok, executed[1].signals) == (False, ("tool_error", "state_changed"))
    assert "changed since it was last read" in json.loads(model.seen[2].messages[-1]["content"])["error"]["message"]
    assert [(g.decision, g.reason) for g in of(result, GateDecided)] == [
        ("gather", "gathering"), ("act", "evidence_ok"), ("gather", "stale_state"), ("gather", "gathering"),
        ("act", "evidence_ok")]
    assert executed[-2].result["stock"] == 1  # the fresh read shows the other writer's change
    assert result.state["stock"]["apple"] == 0 and result.state["bought"] == [["apple", 1]]


def test_an_undetected_concurrent_change_is_invisible_to_the_runtime():
    change = Fault("concurrent", patch={"stock": {"apple": 1}}, detect=False)
    _, result = run([turn(call("buy", APPLE, "b1")), say("x")], faults={"buy": change})
    executed = of(result, ToolExecuted)[0]
    assert (executed.ok, executed.signals) == (True, ())  # nothing tells the runtime...
    assert result.state["stock"]["apple"] == -1  # ...that it just oversold the changed stock


def test_an_injected_error_has_no_side_effect():
    _, result = run([turn(call("buy", APPLE, "b1")), say("x")], faults={"buy": Fault("error", "down")})
    executed = of(result, ToolExecuted)[0]
    assert (executed.ok, executed.signals, executed.result) == (False, ("tool_error",), {"message": "down"})
    assert "bought" not in result.state and fold(result.log).state_version == 0
