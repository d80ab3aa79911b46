"""The label checks of pairs (evalkit/suite/checks, docs/labels.md): each check on a
fixture suite with pairs that break it and one that passes, the severities, the CLI, and the
built-in library."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from evalkit.suite.checks import CHECKS, CheckOptions, check_pairs, check_suite
from evalkit.scenarios.loader import load_suite
from evalkit.scenarios.schema import Pair

ROOT = Path(__file__).resolve().parents[2]
TASKS = ROOT / "tests" / "fixtures" / "tasks"
LABELS = ROOT / "tests" / "fixtures" / "labels"


def _issues(name: str, check: str, **options) -> list[str]:
    path = LABELS / f"{name}.yaml"
    report = check_suite(load_suite([path], tasks_dir=TASKS), tasks_dir=TASKS, names=[check],
                         options=CheckOptions(**options))
    return [f"{i.severity}: {i}" for i in report.issues]


def _where(file: str, pair: str, field: str) -> str:
    return f"{LABELS / file}: pair {pair}: field {field}: "


def test_perturbation_check_names_undeclared_and_unchanged_kinds():
    assert _issues("perturbation", "perturbation") == [
        "error: " + _where("perturbation.yaml", "pert-two-undeclared", "perturbation")
        + "[L1] the sides differ in 2 kinds: user_message ('Buy 2 apples.' vs 'Buy 2 pears.'); state (items.pear); "
          "no perturbation is declared (make them differ in one, or declare perturbation.kinds: "
          "['user_message', 'state'])",
        "error: " + _where("perturbation.yaml", "pert-declared-wrong", "perturbation.kinds")
        + "[L1] the sides also differ in state (items.apple), which perturbation.kinds ['faults'] does not declare",
        "error: " + _where("perturbation.yaml", "pert-declared-wrong", "perturbation.kinds")
        + "[L1] declares faults, but it is the same on both sides (the sides differ in: state)",
    ]


def test_contradiction_check_flags_identical_input_with_opposite_labels():
    assert _issues("contradiction", "contradiction") == [
        "error: " + _where("contradiction.yaml", "contra-identical", "abstain")
        + "[L2] the act and abstain sides present identical input (same message, tools and answers; every call of "
          "both plans observes the same in both worlds), yet one is labelled act and the other clarify",
    ]


def test_scope_check_reports_controller_and_gate_refusals():
    refused = "[L3] the runtime refuses buy_item with the gate on and the shipped rules "
    missing_target = ("(gate_abstain: buy_item stopped (abstain, missing_target): find_item found no such target; "
                      "acting on a substitute the user did not name is not allowed, tell the user why.)")
    assert _issues("scope", "scope") == [
        "error: " + _where("scope.yaml", "scope-no-permission", "act.plan.1")
        + "[L3] the runtime refuses buy_item with the gate on and the shipped rules (permission_denied: buy_item "
          "needs permission 'mini.buy', which this session does not hold)",
        "error: " + _where("scope.yaml", "scope-gate-stops", "act.plan.1") + refused + missing_target,
        "error: " + _where("scope.yaml", "scope-budget-ends", "act.plan.1")
        + "[L3] the runtime refuses buy_item with the gate on and the shipped rules (budget_exceeded: tool-call budget "
          "of 1 calls is spent)",
        "error: " + _where("scope.yaml", "scope-gate-ends", "act.plan.1") + refused + missing_target,
        "error: " + _where("scope.yaml", "scope-gate-ends", "act.plan.2")
        + "[L3] and 3 later plan calls refused or not run (gate_abstain, not run)",
    ]


def test_observability_check_holds_world_perturbations_to_their_step():
    field = "abstain.expected.observable_step"
    assert _issues("observability", "observability") == [
        "error: " + _where("observability.yaml", "obs-zero-but-state", field)
        + "[L4] is 0, but the user message and the tool list are the same on both sides; the worlds first differ "
          "at call 1 (check_stock)",
        "error: " + _where("observability.yaml", "obs-too-early", field)
        + "[L4] is 1, but the sides first differ at call 2 (check_stock): nothing is observable at step 1",
        "error: " + _where("observability.yaml", "obs-never", field)
        + "[L4] the trigger is never observable: the user message, the tools and every plan call's observation "
          "are the same on both sides",
    ]


def test_grounding_check_lists_unsupported_commit_arguments():
    assert _issues("grounding", "grounding") == [
        "error: " + _where("grounding.yaml", "ground-guessed-qty", "act.plan")
        + "[L5] 1 of 2 commit argument values appear in neither the user message nor an observation: buy_item.qty=3",
    ]


def test_trigger_check_needs_a_perturbation_the_trigger_can_arise_from():
    assert _issues("trigger", "trigger") == [
        "error: " + _where("trigger.yaml", "trigger-failure-without-fault", "trigger")
        + "[L4] tool_failure arises from a change of faults, but the sides differ only in state",
    ]


@pytest.mark.parametrize("name", ["perturbation", "contradiction", "scope", "trigger", "observability", "grounding"])
def test_each_fixture_file_has_a_pair_passing_every_check(name):
    suite = load_suite([LABELS / f"{name}.yaml"], tasks_dir=TASKS)
    report = check_suite(suite, tasks_dir=TASKS)
    flagged = {i.pair_id for i in report.issues}
    passing = [p.id for p in suite.pairs if p.id not in flagged]
    assert passing and all(p.endswith("pass") for p in passing), passing
    assert report.counts[name]["passed"] < report.counts[name]["applicable"]


def _pair(**changes) -> Pair:
    doc = yaml.safe_load((LABELS / "perturbation.yaml").read_text(encoding="utf-8"))
    raw = copy.deepcopy(next(p for p in doc["pairs"] if p["id"] == "pert-pass"))
    for dotted, value in changes.items():
        *parents, last = dotted.split("__")
        node = raw
        for part in parents:
            node = node.setdefault(part, {})
        if value is None:
            node.pop(last, None)
        else:
            node[last] = value
    return Pair.model_validate(raw)


def _check(pair: Pair, options: CheckOptions | None = None) -> list[tuple[str, str, str]]:
    report = check_pairs([(pair, "mem.yaml")], tasks_dir=TASKS, options=options, names=["perturbation"])
    return [(i.field, i.severity, i.message) for i in report.issues]


def test_a_missing_declaration_is_a_warning_and_an_error_under_strict():
    pair = _pair(perturbation=None, why_abstain=None)
    expected = [("why_abstain", "no why_abstain given (one sentence: the label's reason)"),
                ("perturbation", "no perturbation declared; inferred: state (items.apple)")]
    assert _check(pair) == [(f, "warning", m) for f, m in expected]
    assert _check(pair, CheckOptions.strict()) == [(f, "error", m) for f, m in expected]


def test_the_default_reply_follows_the_label_but_a_named_answer_is_a_perturbation():
    generic = _pair(act__user_answers={"default": "Yes, go ahead."},
                    abstain__user_answers={"default": "I have nothing to add."})
    assert _check(generic) == []
    named = _pair(act__user_answers={"quantity": "2"}, abstain__user_answers={"quantity": "5"})
    assert _check(named) == [("perturbation.kinds", "error",
                              "the sides also differ in user_answers (user_answers.quantity), which "
                              "perturbation.kinds ['state'] does not declare")]


def test_identical_sides_are_an_error():
    pair = _pair(abstain__state={})
    assert _check(pair) == [("abstain", "error", "the act and abstain sides are identical in every input (message, "
                             "state, tools, permissions, budgets, faults, approvals, context, answers)")]


def _evalkit(*args):
    return subprocess.run([sys.executable, "-m", "evalkit", *args], capture_output=True, text=True, timeout=300)


def test_validate_prints_the_checks_and_strict_fails_on_an_error(tmp_path):
    out = tmp_path / "checks.json"
    path = str(LABELS / "scope.yaml")
    proc = _evalkit("suite", "validate", "--no-oracle", "--tasks", str(TASKS), "--json", str(out), path)
    assert proc.returncode == 0, proc.stderr
    assert "label checks (criteria: docs/labels.md)" in proc.stdout and "perturbation kinds: found" in proc.stdout
    assert (f"error: {path}: pair scope-no-permission: field act.plan.1: [L3] the runtime refuses buy_item"
            in proc.stdout)
    assert "label checks: 5 errors" in proc.stdout
    assert proc.stdout.splitlines()[-1].startswith("problems: 5 pairs"), proc.stdout.splitlines()[-1]
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert doc["checks"]["counts"]["scope"] == {"applicable": 5, "passed": 1, "clean": 1, "errors": 5, "warnings": 0}
    assert doc["checks"]["perturbation_kinds"] == {"declared": {"user_message": 5}, "inferred": {"user_message": 5},
                                                   "inferred_by_trigger": {"missing_param": {"user_message": 5}}}
    assert [i["pair_id"] for i in doc["checks"]["issues"]] == [
        "scope-no-permission", "scope-gate-stops", "scope-budget-ends", *["scope-gate-ends"] * 2]
    strict = _evalkit("suite", "validate", "--no-oracle", "--tasks", str(TASKS), "--strict", path)
    assert strict.returncode == 1


def test_builtin_library_checks():
    """Runs every check over the built-in scenarios and prints the counts. The checks listed
    in CLEAN must find no error there; perturbation (declarations) and trigger are not
    clean yet (the pairs they flag are under re-review)."""
    suite = load_suite([])
    report = check_suite(suite)
    for name, counts in report.counts.items():
        print(f"{name}: {counts}")
    flagged = report.flagged()
    for name, ids in flagged.items():
        print(f"{name} flags {len(ids)} pairs: {', '.join(ids[:20])}")
    assert set(report.counts) == set(CHECKS)
    assert report.counts["scope"]["applicable"] == len(suite.pairs)
    CLEAN = ("contradiction", "scope", "observability", "grounding")
    assert {name: flagged[name] for name in CLEAN} == {name: [] for name in CLEAN}


def test_a_control_pair_needs_only_why_act_and_reasons_group_issues_by_pair():
    control = _pair(trigger="none", abstain=None, perturbation=None, why_act=None, why_abstain=None)
    wrong = _pair(id="pert-pass-2", perturbation={"kinds": ["faults"], "what": "The lookup fails."})
    report = check_pairs([(control, "mem.yaml"), (wrong, "mem.yaml")], tasks_dir=TASKS, names=["perturbation"])
    assert [(i.pair_id, i.field, i.severity) for i in report.issues] == [
        ("pert-pass", "why_act", "warning"), ("pert-pass-2", "perturbation.kinds", "error"),
        ("pert-pass-2", "perturbation.kinds", "error")]
    assert report.reasons() == {"pert-pass-2": [
        "perturbation [L1] perturbation.kinds: the sides also differ in state (items.apple), which perturbation.kinds "
        "['faults'] does not declare",
        "perturbation [L1] perturbation.kinds: declares faults, but it is the same on both sides (the sides differ "
        "in: state)"]}
    assert report.counts["perturbation"] == {"applicable": 2, "passed": 1, "clean": 0, "errors": 2, "warnings": 1}


def test_budgets_merge_over_the_pairs_and_only_changed_keys_are_named():
    same = _pair(budgets={"tool_calls": 5}, perturbation={"kinds": ["state"], "what": "The apples are gone."})
    assert _check(same) == []
    spent = _pair(budgets={"tool_calls": 5}, abstain__budgets={"commit_steps": 0}, abstain__state={},
                  perturbation=None)
    assert _check(spent) == [("perturbation", "warning",
                              "no perturbation declared; inferred: budgets (budgets.commit_steps: null vs 0)")]
    declared = _pair(abstain__budgets={"commit_steps": 0}, abstain__state={},
                     perturbation={"kinds": ["budgets"], "what": "No commit step is left."})
    assert _check(declared) == []
