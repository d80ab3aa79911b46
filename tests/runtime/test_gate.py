"""The autonomy gate (DESIGN §4, seed 003): each rule on its failure path, alone and in the loop."""

from __future__ import annotations

import json

import pytest
from rt_helpers import call, of, run, say, tools, turn

from evalkit.rules import RuleSet
from evalkit.runtime.controller import Limits
from evalkit.runtime.events import (
    ActionDecided,
    EpisodeStarted,
    EventLog,
    GateDecided,
    MetaRequestUpdated,
    ToolExecuted,
)
from evalkit.runtime.gate import AutonomyGate
from evalkit.runtime.view import fold

TOOLS = tools()
BUY = TOOLS["buy"]
FIND = TOOLS["find"]
CHECK = TOOLS["check"]


def view(*events, limits=None):
    """A view after ``events``: ``(cls, fields)`` pairs, or a ToolExecuted shorthand dict."""
    log = EventLog()
    log.append(EpisodeStarted, 0, domain="store", gate="on", limits=limits or {})
    for item in events:
        cls, data = item if isinstance(item, tuple) else (ToolExecuted, item)
        log.append(cls, 1, **data)
    return fold(log)


def ex(tool, args, kind="lookup", ok=True, signals=()):
    return {"call_id": "x", "tool": tool, "kind": kind, "arguments": args, "ok": ok, "result": {},
            "signals": tuple(signals)}


def answered():
    return (MetaRequestUpdated, {"request_id": "mr-1", "meta_type": "request_user_decision", "status": "fulfilled",
                                 "detail": {"response": {"decision": "accepted", "answer": "yes"}}})


def stop(decision, reason, rule_id=None):
    return (GateDecided, {"call_id": "x", "tool": "buy", "kind": "commit", "decision": decision, "reason": reason,
                          "rule_id": rule_id})


def decide(spec, args, v, rules=None):
    return AutonomyGate(rules).decide(spec, args, v)


APPLE = {"item": "apple", "qty": 2}


def test_a_missing_target_is_a_hard_abstain_for_commits_only():
    v = view(ex("find", {"item": "kiwi"}, signals=("missing_target",)))
    verdict = decide(BUY, APPLE, v)
    assert (verdict.decision, verdict.reason, verdict.allowed) == ("abstain", "missing_target", False)
    assert "find" in verdict.message
    lookup = decide(FIND, {"item": "pear"}, v)
    assert (lookup.decision, lookup.allowed) == ("gather", True)


def test_a_substitute_target_never_resolves_a_missing_target():
    missing = ex("find", {"item": "kiwi"}, signals=("missing_target",))
    assert decide(BUY, APPLE, view(missing, ex("find", {"item": "apple"}))).reason == "missing_target"
    # only the same call succeeding without the signal resolves it (the item appeared)
    assert decide(BUY, APPLE, view(missing, ex("find", {"item": "kiwi"}))).decision == "act"


def test_conflicting_evidence_is_a_hard_abstain():
    v = view(ex("check", {"item": "apple"}, kind="verify", signals=("conflict",)))
    assert (decide(BUY, APPLE, v).decision, decide(BUY, APPLE, v).reason) == ("abstain", "conflicting_evidence")


def test_a_failed_check_blocks_commits_until_the_same_check_passes():
    failed = ex("check", {"item": "apple"}, kind="verify", ok=False, signals=("tool_error",))
    assert (decide(BUY, APPLE, view(failed)).decision, decide(BUY, APPLE, view(failed)).reason) == \
        ("abstain", "tool_failure")
    assert decide(BUY, APPLE, view(failed, ex("check", {"item": "apple"}, kind="verify"))).decision == "act"


def test_a_failed_commit_does_not_block_a_corrected_commit():
    failed = ex("buy", {"item": "apple", "qty": 99}, kind="commit", ok=False, signals=("tool_error",))
    assert decide(BUY, APPLE, view(failed)).decision == "act"


def test_an_unknown_side_effect_asks_the_user_before_any_other_commit():
    timeout = ex("buy", APPLE, kind="commit", ok=False, signals=("tool_error", "timeout", "unknown_side_effect"))
    verdict = decide(BUY, APPLE, view(timeout))
    assert (verdict.decision, verdict.reason) == ("clarify", "unknown_side_effect")
    still = view(timeout, stop("clarify", "unknown_side_effect"))
    assert decide(BUY, APPLE, still).decision == "clarify"
    assert decide(BUY, APPLE, view(timeout, stop("clarify", "unknown_side_effect"), answered())).decision == "act"


def test_the_commit_budget_is_a_hard_limit():
    v = view(ex("buy", APPLE, kind="commit"), limits={"max_commit_steps": 1})
    assert (decide(BUY, APPLE, v).decision, decide(BUY, APPLE, v).reason) == ("abstain", "budget_exceeded")
    assert decide(BUY, APPLE, view(limits={"max_commit_steps": 1})).decision == "act"


def test_the_gather_budget_is_a_hard_limit_for_lookups_and_verifies():
    v = view(ex("find", {"item": "a"}), ex("find", {"item": "b"}), limits={"max_gather_steps": 2})
    assert (decide(FIND, {"item": "c"}, v).decision, decide(CHECK, {"item": "c"}, v).reason) == \
        ("abstain", "budget_exceeded")
    one = view(ex("find", {"item": "a"}), limits={"max_gather_steps": 2})
    assert decide(FIND, {"item": "c"}, one).decision == "gather"


def test_acting_needs_positive_evidence_when_the_task_requires_it():
    buy = tools(verify_with=("check",))["buy"]
    verdict = decide(buy, APPLE, view())
    assert (verdict.decision, verdict.reason, verdict.allowed) == ("gather", "needs_evidence", False)
    passed = ex("check", {"item": "apple"}, kind="verify")
    assert decide(buy, APPLE, view(passed)).decision == "act"
    # a commit changes the state: the evidence must be gathered again
    assert decide(buy, APPLE, view(passed, ex("buy", APPLE, kind="commit"))).reason == "needs_evidence"
    # an empty or adverse result is not positive evidence
    empty = ex("check", {"item": "apple"}, kind="verify", signals=("empty_result",))
    assert decide(buy, APPLE, view(empty)).reason == "needs_evidence"
    # no verification required by the task: acting needs none
    assert decide(BUY, APPLE, view()).decision == "act"


def test_a_concurrent_change_needs_a_fresh_read_before_committing():
    rejected = ex("buy", APPLE, kind="commit", ok=False, signals=("tool_error", "state_changed"))
    verdict = decide(BUY, APPLE, view(rejected))
    assert (verdict.decision, verdict.reason, verdict.allowed) == ("gather", "stale_state", False)
    assert decide(BUY, APPLE, view(rejected, ex("find", {"item": "apple"}))).decision == "act"


def test_an_abstain_is_sticky_for_every_later_call():
    v = view(stop("abstain", "missing_target"))
    for spec, args in ((BUY, APPLE), (FIND, {"item": "x"})):
        verdict = decide(spec, args, v)
        assert (verdict.decision, verdict.reason) == ("abstain", "missing_target")


def test_a_clarify_is_sticky_for_commits_until_the_user_answers():
    v = view(stop("clarify", "stopping_rule", "r1"))
    assert decide(BUY, APPLE, v).decision == "clarify"
    assert decide(FIND, {"item": "x"}, v).decision == "gather"
    assert decide(BUY, APPLE, view(stop("clarify", "stopping_rule", "r1"), answered())).decision == "act"


RULES = RuleSet.model_validate({
    "id": "t", "version": "1", "changelog": [{"version": "1", "changes": ["test"]}],
    "rules": [
        {"id": "bulk-v1", "when": {"tool": "buy", "args": {"qty": {"gt": 3}}}, "then": "clarify",
         "message": "Confirm large orders."},
        {"id": "search-again-v1", "when": {"signal": "missing_target", "source_prefix": "find", "tool": "find"},
         "then": "abstain", "message": "Stop searching."},
    ],
})


def test_a_stopping_rule_decides_with_its_id_and_message():
    verdict = decide(BUY, {"item": "apple", "qty": 5}, view(), RULES)
    assert (verdict.decision, verdict.reason, verdict.rule_id) == ("clarify", "stopping_rule", "bulk-v1")
    assert "Confirm large orders." in verdict.message
    assert decide(BUY, APPLE, view(), RULES).decision == "act"
    searching = view(ex("find", {"item": "kiwi"}, signals=("missing_target",)))
    assert decide(FIND, {"item": "kiwi2"}, searching, RULES).rule_id == "search-again-v1"


def test_a_clarify_rule_is_satisfied_once_the_user_answered():
    big = {"item": "apple", "qty": 5}
    after = view(stop("clarify", "stopping_rule", "bulk-v1"), answered())
    assert decide(BUY, big, after, RULES).decision == "act"


def test_the_gate_is_pure():
    v = view(ex("find", {"item": "kiwi"}, signals=("missing_target",)))
    before = v
    assert decide(BUY, APPLE, v) == decide(BUY, APPLE, v)
    assert v == before


# ------------------------------------------------------------------ in the agent loop


def test_a_gate_denial_reaches_the_model_as_an_observation():
    model, result = run([turn(call("find", {"item": "kiwi"}, "f1")), turn(call("buy", APPLE, "b1")), say("done")],
                        gate=True)
    observation = json.loads(model.seen[2].messages[-1]["content"])
    assert observation["error"] == "gate_abstain" and "missing_target" in observation["message"]
    assert [(e.decision, e.reason) for e in of(result, GateDecided)] == [("gather", "gathering"),
                                                                         ("abstain", "missing_target")]
    assert [e.reason_code for e in of(result, ActionDecided)] == [None, "gate_abstain"]
    assert result.state["stock"]["apple"] == 5 and "bought" not in result.state


def test_the_episode_ends_after_max_gate_stops():
    buys = [turn(call("buy", APPLE, f"b{i}")) for i in range(5)]
    _, result = run([turn(call("find", {"item": "kiwi"}, "f1")), *buys], gate=True, limits=Limits(max_gate_stops=2))
    ended = result.log.events[-1]
    assert (ended.reason, ended.terminal) == ("gate_stop", "abstain")
    assert fold(result.log).gate_stops == 2 and "bought" not in result.state


def test_with_the_gate_off_nothing_is_gated():
    _, result = run([turn(call("find", {"item": "kiwi"}, "f1")), turn(call("buy", APPLE, "b1")), say("done")])
    assert of(result, GateDecided) == [] and result.state["bought"] == [["apple", 2]]
    assert result.log.events[0].gate == "off"


def test_every_executed_commit_follows_an_act_decision():
    _, result = run([turn(call("find", {"item": "apple"}, "f1")), turn(call("buy", APPLE, "b1")),
                     turn(call("buy", {"item": "pear", "qty": 1}, "b2")), say("done")], gate=True)
    events = result.log.events
    commits = [e for e in events if isinstance(e, ToolExecuted) and e.kind == "commit"]
    assert len(commits) == 2
    for c in commits:
        assert any(isinstance(g, GateDecided) and g.call_id == c.call_id and g.decision == "act"
                   for g in events[: c.seq])


@pytest.mark.parametrize(("gate", "code"), [(False, "budget_exceeded"), (True, "gate_abstain")])
def test_step_budgets_are_enforced_by_the_controller_or_by_the_gate(gate, code):
    _, result = run([turn(call("find", {"item": "a"}, "f1")), turn(call("find", {"item": "b"}, "f2")), say("x")],
                    gate=gate, limits=Limits(max_gather_steps=1))
    decided = of(result, ActionDecided)
    assert [d.reason_code for d in decided] == [None, code]
    assert fold(result.log).gather_steps == 1
