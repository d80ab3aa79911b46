"""Approvals and budgets (issue item 4): each rule on its failure path."""

from __future__ import annotations

import json

import pytest
from rt_helpers import call, of, run, say, turn

from evalkit.errors import ConfigError
from evalkit.runtime.approvals import ApprovalPolicy
from evalkit.runtime.controller import Limits
from evalkit.runtime.events import (
    ActionDecided,
    ApprovalRequested,
    ApprovalResolved,
    ModelCall,
    ModelResponded,
    ToolExecuted,
)
from evalkit.runtime.model_io import ModelOutput
from evalkit.runtime.policy import Budgets, load_policy
from evalkit.runtime.view import fold
from evalkit.usage import Usage

BIG = {"item": "apple", "qty": 4}
SMALL = {"item": "apple", "qty": 1}


def policy(**kw) -> ApprovalPolicy:
    base = {"require": [{"tool": "buy", "args": {"qty": {"gt": 2}}}]}
    return ApprovalPolicy.model_validate({**base, **kw})


def test_a_call_needing_approval_never_runs_without_one():
    model, result = run([turn(call("buy", BIG, "b1")), turn(call("buy", BIG, "b2")), say("x")], approvals=policy())
    assert [d.reason_code for d in of(result, ActionDecided)] == ["needs_approval", "needs_approval"]
    assert len(of(result, ApprovalRequested)) == 1  # asked once; still pending the second time
    assert of(result, ApprovalResolved) == [] and "bought" not in result.state
    assert fold(result.log).approvals[0][4] == "pending"
    assert json.loads(model.seen[1].messages[-1]["content"])["error"] == "needs_approval"


def test_calls_outside_the_requirement_run_without_approval():
    _, result = run([turn(call("buy", SMALL, "b1")), say("x")], approvals=policy())
    assert of(result, ApprovalRequested) == [] and result.state["bought"] == [["apple", 1]]


def test_the_simulated_user_approves_and_the_call_runs():
    answers = policy(user=[{"tool": "buy", "approve": True}])
    _, result = run([turn(call("buy", BIG, "b1")), say("x")], approvals=answers)
    # granted, then expired by the very state change the approved commit made
    assert [(e.status, e.source) for e in of(result, ApprovalResolved)] == [("granted", "user"), ("expired", "runtime")]
    assert result.state["bought"] == [["apple", 4]]


def test_a_refused_approval_is_final_for_that_call():
    answers = policy(user=[{"tool": "buy", "approve": False}])
    model, result = run([turn(call("buy", BIG, "b1")), turn(call("buy", BIG, "b2")), say("x")], approvals=answers)
    assert [(e.status, e.source) for e in of(result, ApprovalResolved)] == [("denied", "user")]
    assert len(of(result, ApprovalRequested)) == 1 and "bought" not in result.state
    assert "refused" in json.loads(model.seen[2].messages[-1]["content"])["message"]


def test_a_policy_file_can_pre_approve_calls():
    answers = policy(grant=[{"tool": "buy", "args": {"qty": {"le": 5}}}])
    _, result = run([turn(call("buy", BIG, "b1")), say("x")], approvals=answers)
    assert [(e.status, e.source) for e in of(result, ApprovalResolved)][0] == ("granted", "policy")
    assert result.state["bought"] == [["apple", 4]]


def test_an_approval_is_bound_to_the_exact_arguments():
    answers = policy(user=[{"tool": "buy", "args": {"qty": {"eq": 4}}, "approve": True}])
    _, result = run([turn(call("buy", BIG, "b1")), turn(call("buy", {"item": "apple", "qty": 3}, "b2")), say("x")],
                    approvals=answers)
    assert [e.arguments["qty"] for e in of(result, ApprovalRequested)] == [4, 3]
    assert [d.reason_code for d in of(result, ActionDecided)] == [None, "needs_approval"]


def test_an_approval_expires_when_the_state_changes():
    answers = policy(user=[{"tool": "buy", "approve": True}])
    _, result = run([turn(call("buy", BIG, "b1")), turn(call("buy", BIG, "b2")), say("x")], approvals=answers)
    resolved = [(e.approval_id, e.status) for e in of(result, ApprovalResolved)]
    # granted and used; the commit changed the state, so it expired and the second call asked again
    assert resolved == [("ap-1", "granted"), ("ap-1", "expired"), ("ap-2", "granted"), ("ap-2", "expired")]
    assert result.state["bought"] == [["apple", 4], ["apple", 4]]
    assert [e.state_version for e in of(result, ApprovalRequested)] == [0, 1]


def _spend(tokens=0, cost=None):
    out = {"usage": Usage(input_tokens=tokens, output_tokens=0)}
    if cost is not None:
        out["extra"] = {"call": {"provider": "t", "model": "t", "cost_usd": cost}}
    return out


@pytest.mark.parametrize(("limits", "outputs", "used"), [
    (Limits(max_tool_calls=2), None, "tool_calls"),
    (Limits(max_tokens=100), [{"usage": Usage(60, output_tokens=0)}, {"usage": Usage(60, output_tokens=0)}], "tokens"),
    (Limits(max_money=0.5), [_spend(cost=0.3), _spend(cost=0.3)], "money"),
    (Limits(max_commit_steps=2), None, "commit_steps"),
])
def test_every_budget_is_a_hard_limit(limits, outputs, used):
    plan = [call("buy", SMALL, f"b{i}") for i in range(3)]
    script = []
    for i, c in enumerate(plan):
        spend = (outputs or [{}])[min(i, len(outputs or [{}]) - 1)] if outputs else {}
        script.append(ModelOutput(tool_calls=(c,), **spend))
    _, result = run([*script, say("x")], limits=limits)
    codes = [d.reason_code for d in of(result, ActionDecided)]
    assert codes[-1] == "budget_exceeded", codes
    assert len(of(result, ToolExecuted)) == codes.count(None) < 3
    view = fold(result.log)
    if used == "money":
        assert view.money == pytest.approx(0.9) and len(of(result, ModelCall)) == 3  # the third call was still paid for
    if used == "tokens":
        assert view.tokens == sum(e.input_tokens for e in of(result, ModelResponded))


def test_budgets_merge_run_then_pair_then_variant():
    limits = Limits(max_tool_calls=20, max_commit_steps=None)
    run_level = Budgets(commit_steps=3, gather_steps=9)
    merged = limits.merged(run_level.over(Budgets(commit_steps=1)).over(None).model_dump())
    assert (merged.max_tool_calls, merged.max_commit_steps, merged.max_gather_steps) == (20, 1, 9)
    assert Limits().merged({}) == Limits()


def test_a_policy_file_is_validated_with_the_file_and_field(tmp_path):
    good = tmp_path / "policy.yaml"
    good.write_text("budgets: {commit_steps: 1}\napprovals:\n  require: [{tool: buy}]\nmeta: {max_per_turn: 2}\n")
    loaded = load_policy(good)
    assert (loaded.budgets.commit_steps, loaded.meta.max_per_turn, loaded.approvals.require[0].tool) == (1, 2, ("buy",))
    bad = tmp_path / "bad.yaml"
    bad.write_text("budgets: {commit_step: 1}\n")
    with pytest.raises(ConfigError, match=r"bad.yaml: field budgets.commit_step: Extra inputs"):
        load_policy(bad)
    regex = tmp_path / "regex.yaml"
    regex.write_text("approvals:\n  require: [{tool: buy, args: {item: {pattern: '('}}}]\n")
    with pytest.raises(ConfigError, match=r"regex.yaml: field approvals.require.0.args.item.pattern"):
        load_policy(regex)
    with pytest.raises(ConfigError, match="cannot read"):
        load_policy(tmp_path / "missing.yaml")


def test_a_pending_approval_expires_when_another_change_lands_first():
    _, result = run([turn(call("buy", BIG, "b1")), turn(call("buy", SMALL, "b2")), turn(call("buy", BIG, "b3")),
                     say("x")], approvals=policy())
    assert [(e.approval_id, e.status, e.source) for e in of(result, ApprovalResolved)] == [
        ("ap-1", "expired", "runtime")]
    assert [(e.approval_id, e.state_version) for e in of(result, ApprovalRequested)] == [("ap-1", 0), ("ap-2", 1)]
    assert result.state["bought"] == [["apple", 1]]


@pytest.mark.parametrize(("text", "field", "message"), [
    ("meta: {max_per_turn: -1}\n", "meta.max_per_turn", "greater than or equal to 0"),
    ("meta: {max_cost: -1}\n", "meta.max_cost", "greater than or equal to 0"),
    ("meta: {escalation_cost: -5}\n", "meta.escalation_cost", "greater than or equal to 0"),
    ("meta: {review_cost: .inf}\n", "meta.review_cost", "not finite"),
    ("approvals:\n  require: [{tool_prefix: ''}]\n", "approvals.require.0.tool_prefix",
     "an empty prefix matches every tool"),
])
def test_negative_meta_limits_and_an_empty_tool_prefix_are_refused_naming_the_field(tmp_path, text, field, message):
    path = tmp_path / "policy.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=rf"policy.yaml: field {field}: .*{message}"):
        load_policy(path)


@pytest.mark.parametrize(("name", "text", "message"), [
    ("empty.yaml", "", "holds no policy (empty, only comments or null)"),
    ("comments.yaml", "# nothing here\n", "holds no policy"),
    ("null.yaml", "null\n", "holds no policy"),
    ("broken.yaml", "budgets: {commit_steps: 1\nmeta: {}\n", "not valid YAML (line 2)"),
    ("broken.json", '{"budgets": }', "not valid JSON (line 1): Expecting value"),
])
def test_a_policy_file_with_no_policy_or_bad_syntax_is_one_line_naming_it(tmp_path, name, text, message):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(ConfigError) as err:
        load_policy(path)
    assert str(err.value).startswith(f"{path}: {message}") and "\n" not in str(err.value)


def test_a_policy_file_without_a_known_suffix_is_read_as_yaml_and_braces_name_the_default(tmp_path):
    plain = tmp_path / "policy"
    plain.write_text("budgets: {commit_steps: 1}\n")
    assert load_policy(plain).budgets.commit_steps == 1
    default = tmp_path / "default.yaml"
    default.write_text("{}\n")
    assert load_policy(default) == load_policy(plain).model_validate({})
