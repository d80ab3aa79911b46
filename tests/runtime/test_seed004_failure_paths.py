"""Seed 004's failure paths: the model proposes, code validates and executes, and every
failure comes back as a structured, reproducible result instead of a silent execution."""

from __future__ import annotations

import json

from rt_helpers import call, of, run, say, turn

from evalkit.runtime.controller import Limits
from evalkit.runtime.events import ActionDecided, EpisodeEnded, ToolExecuted
from evalkit.runtime.view import fold


def observation(model, index):
    return json.loads(model.seen[index].messages[-1]["content"])


def test_failure_path_1_schema_mismatch_is_returned_not_executed():
    script = [turn(call("buy", {"item": "apple", "qty": "two"}, "b1")), say("x")]
    model, result = run(script)
    assert of(result, ToolExecuted) == [] and "bought" not in result.state
    obs = observation(model, 1)
    assert obs["error"] == "schema_mismatch" and "$.qty" in obs["message"]
    _, again = run(script)  # the same plan gives the same structured result
    assert again.log.to_jsonl() == result.log.to_jsonl()


def test_failure_path_2_permission_denied_is_checked_before_execution():
    model, result = run([turn(call("buy", {"item": "apple", "qty": 1}, "b1")), say("x")], perms=("store.read",))
    assert observation(model, 1)["error"] == "permission_denied" and "store.buy" in observation(model, 1)["message"]
    assert of(result, ToolExecuted) == [] and result.state["stock"]["apple"] == 5


def test_failure_path_3_over_budget_stops_the_call():
    model, result = run([turn(call("find", {"item": "apple"}, "f1")), turn(call("find", {"item": "pear"}, "f2")),
                         say("x")], limits=Limits(max_tool_calls=1))
    assert [d.reason_code for d in of(result, ActionDecided)] == [None, "budget_exceeded"]
    assert observation(model, 2)["error"] == "budget_exceeded" and len(of(result, ToolExecuted)) == 1


def test_failure_path_4_repeated_planning_is_stopped_at_the_limit():
    forever = [turn(call("find", {"item": "apple"}, f"f{i}")) for i in range(50)]
    _, result = run(forever, limits=Limits(max_turns=6, max_tool_calls=4))
    ended = result.log.events[-1]
    assert isinstance(ended, EpisodeEnded) and ended.reason == "loop_limit"
    view = fold(result.log)
    assert (view.turns, view.executed, view.denials) == (6, 4, 2)  # the budget first, then the turn limit


def test_failure_path_5_a_meaningless_result_goes_back_for_evaluation():
    model, result = run([turn(call("empty", {}, "e1")), say("I could not find anything useful.")])
    executed = of(result, ToolExecuted)[0]
    assert (executed.ok, executed.result, executed.signals) == (True, {}, ("empty_result",))
    # the raw observation goes back to the model (and the trace), flagged, not turned into an answer
    assert observation(model, 1) == {"result": {}, "signals": ["empty_result"]}
    assert result.log.events[-1].final_text == "I could not find anything useful."
    assert fold(result.log).signals == ("empty_result",)
