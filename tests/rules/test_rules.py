"""Stopping rules as versioned data (DESIGN §4): the schema, the loader's errors, the matcher."""

from __future__ import annotations

import functools
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from evalkit.errors import ConfigError
from evalkit.harness.episode import EpisodeSpec, RuntimeSetup, execute
from evalkit.models.scripted import ScriptedModel
from evalkit.rules import RuleSet, builtin_rules_dir, load_rule_set, scan_log
from evalkit.runtime.controller import Limits
from evalkit.runtime.gate import Situation
from evalkit.scenarios.domains import load_domain
from evalkit.scenarios.loader import load_suite

SUITE = Path(__file__).resolve().parents[1] / "runtime" / "data" / "runtime_suite.yaml"
TASKS = Path(__file__).resolve().parents[1] / "fixtures" / "tasks"
HEADER = ('id: test-rules\nversion: "2"\nchangelog:\n'
          '  - {version: "2", changes: [second]}\n  - {version: "1", changes: [first]}\n')


def write(tmp_path, body: str, header: str = HEADER):
    path = tmp_path / "rules.yaml"
    path.write_text(header + textwrap.dedent(body))
    return path


def test_the_shipped_rule_set_loads_with_its_identity():
    rules = load_rule_set("default")
    assert rules.id == "evalkit-default" and rules.version == "1" and rules.changelog[0].version == "1"
    assert len(rules.sha256) == 64 and rules.label == "evalkit-default@1"
    assert (builtin_rules_dir() / "default.yaml").is_file()
    assert [r.then for r in rules.rules].count("clarify") == 3
    assert all(r.message and r.trigger for r in rules.rules)


def test_rendered_rules_name_every_rule_and_its_decision():
    rules = load_rule_set("default")
    text = rules.render()
    assert text.startswith("Stopping rules (evalkit-default@1)")
    for rule in rules.rules:
        assert f"[{rule.id}]" in text and f": {rule.then}. " in text


@pytest.mark.parametrize(("body", "needle"), [
    ("rules:\n  - {id: r1, when: {signal: conflict}, then: stop, message: m}\n",
     "rule r1: field then: Input should be 'abstain' or 'clarify'"),
    ("rules:\n  - {id: r1, when: {}, then: abstain, message: m}\n", "rule r1: field when: `when` must restrict"),
    ("rules:\n  - {id: r1, when: {signal: a}, then: abstain, message: m}\n"
     "  - {id: r1, when: {signal: b}, then: abstain, message: m}\n", "duplicate rule id 'r1'"),
    ("rules:\n  - {id: r1, when: {tool: x, args: {q: {pattern: '('}}}, then: abstain, message: m}\n",
     "rule r1: field when.args.q.pattern"),
    ("rules:\n  - {id: r1, when: {kind: write}, then: abstain, message: m}\n", "rule r1: field when.kind.0"),
    ("rules:\n  - {id: r1, when: {tool: x, args: {q: {gt: .nan}}}, then: abstain, message: m}\n",
     "rule r1: field when.args.q.gt: a number that is not finite (nan)"),
    ("rules:\n  - {when: {signal: a}, then: abstain, message: m}\n", "rule #1: field id: Field required"),
    ("rules:\n  - {id: r1, when: {signal: a}, then: abstain, message: m, priority: 3}\n",
     "rule r1: field priority: Extra inputs are not permitted"),
    ("rules: []\n", None),
])
def test_rule_sets_are_validated_with_file_rule_and_field(tmp_path, body, needle):
    path = write(tmp_path, body)
    if needle is None:
        assert load_rule_set(path).rules == ()
        return
    with pytest.raises(ConfigError) as err:
        load_rule_set(path)
    assert str(err.value).startswith(f"{path}: ") and needle in str(err.value), str(err.value)


def test_the_version_must_have_a_changelog_entry(tmp_path):
    path = write(tmp_path, "rules: []\n", header='id: t\nversion: "3"\nchangelog: [{version: "2", changes: [x]}]\n')
    with pytest.raises(ConfigError, match="newest changelog entry is version '2' but the set is version '3'"):
        load_rule_set(path)
    with pytest.raises(ConfigError, match="cannot read"):
        load_rule_set(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("id: [unclosed\n")
    with pytest.raises(ConfigError, match=r"not a valid rule-set file \(line"):
        load_rule_set(bad)


RULES = RuleSet.model_validate({
    "id": "m", "version": "1", "changelog": [{"version": "1", "changes": ["x"]}],
    "rules": [
        {"id": "search-v1", "when": {"signal": "missing_target", "source_prefix": "search_", "tool_prefix": "search_"},
         "then": "abstain", "message": "stop searching"},
        {"id": "refund-v1", "when": {"signal": ["conflict", "tool_error"], "domain": "shop", "kind": "commit"},
         "then": "abstain", "message": "reconcile first"},
        {"id": "big-v1", "when": {"tool": ["buy", "order"], "args": {"qty": {"gt": 10}, "note": {"exists": False}}},
         "then": "clarify", "message": "confirm"},
    ],
})


def sit(tool, kind="commit", args=None, domain="shop", signals=()):
    return Situation(tool, kind, args or {}, domain, tuple((s, src, "lookup", "{}") for s, src in signals))


@pytest.mark.parametrize(("situation", "rule"), [
    (sit("search_catalog", "lookup", signals=[("missing_target", "search_catalog")]), "search-v1"),
    (sit("search_catalog", "lookup", signals=[("missing_target", "get_order")]), None),   # signal from elsewhere
    (sit("get_order", "lookup", signals=[("missing_target", "search_catalog")]), None),  # not a search
    (sit("refund", signals=[("tool_error", "check")]), "refund-v1"),
    (sit("refund", domain="mail", signals=[("conflict", "check")]), None),               # other domain
    (sit("refund", "lookup", signals=[("conflict", "check")]), None),                    # not a commit
    (sit("order", args={"qty": 11}), "big-v1"),
    (sit("order", args={"qty": 11, "note": "ok"}), None),                                # exists: false fails
    (sit("order", args={"qty": 10}), None),
    (sit("order", args={"qty": "11"}), None),                                            # not a number
])
def test_the_matcher_applies_every_condition(situation, rule):
    hit = RULES.match(situation)
    assert (hit.rule_id if hit else None) == rule


def test_the_first_matching_rule_wins():
    both = sit("buy", args={"qty": 50}, signals=[("conflict", "check")])
    assert RULES.match(both).rule_id == "refund-v1"


@functools.cache
def _pair(pair_id):
    return next(p for p in load_suite().pairs if p.id == pair_id)


def _episode(pair_id, model, gate="off", setup=None):
    pair = _pair(pair_id)
    spec = EpisodeSpec(pair, "abstain", model.name, "nl", 1, gate, load_domain(pair.domain), setup or RuntimeSetup())
    return execute(spec, model, Limits())


def test_scan_log_finds_a_commit_a_rule_would_have_stopped():
    rules = load_rule_set("default")
    result = _episode("shop-bulk-order-confirm", ScriptedModel("always_act"))
    matches = scan_log(result.log, rules)
    assert [(m.tool, m.rule_id, m.then) for m in matches] == [("place_order", "bulk-order-confirm-v1", "clarify")]
    oracle = _episode("shop-bulk-order-confirm", ScriptedModel("oracle"))
    assert scan_log(oracle.log, rules) == []


class Capture(ScriptedModel):
    def __init__(self):
        super().__init__("oracle")
        self.system = []

    def respond(self, context, episode):
        self.system.append(context.messages[0]["content"])
        return super().respond(context, episode)


@pytest.mark.parametrize("in_context", [True, False])
def test_rules_are_shown_to_the_model_only_when_asked(in_context):
    rules = load_rule_set("default")
    model = Capture()
    _episode("shop-bulk-order-confirm", model, gate="on", setup=RuntimeSetup(rules=rules, rules_in_context=in_context))
    assert ("[bulk-order-confirm-v1]" in model.system[0]) is in_context


def evalkit(*args, out):
    return subprocess.run([sys.executable, "-m", "evalkit", "run", str(SUITE), "--tasks", str(TASKS),
                           "-m", "scripted/always_act", "-c", "nl", "--no-report", "--out", str(out), *args],
                          capture_output=True, text=True, timeout=300)


def test_the_cli_runs_both_gate_settings_with_a_rule_set(tmp_path):
    out = tmp_path / "run"
    proc = evalkit("--pair", "mini-no-purchases-allowed", "--gate", "off", "--gate", "on", "--rules", "default",
                   "--rules-in-context", out=out)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert [(r["gate"], r["paired_accuracy"]) for r in summary["rows"]] == [("off", 0.0), ("on", 1.0)]
    manifest = json.loads((out / "config.json").read_text())
    assert manifest["config"]["rules_in_context"] is True and manifest["rules"]["id"] == "evalkit-default"


def test_the_cli_rejects_bad_runtime_options_in_one_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text('id: x\nversion: "1"\nchangelog: [{version: "1", changes: [x]}]\n'
                   "rules: [{id: r, when: {}, then: abstain, message: m}]\n")
    for args, needle in [(["--rules", str(bad)], "rule r: field when"),
                         (["--gate", "maybe"], "--gate: Input should be 'off' or 'on'"),
                         (["--rules-in-context"], "--rules-in-context needs a rule set"),
                         (["--policy", str(tmp_path / "none.yaml")], "cannot read the policy file")]:
        proc = evalkit(*args, out=tmp_path / "o")
        assert proc.returncode == 2 and needle in proc.stderr and "Traceback" not in proc.stderr, (args, proc.stderr)
        assert len(proc.stderr.strip().splitlines()) == 1


def test_the_rules_package_does_not_import_the_harness():
    code = ("import sys, evalkit.rules, evalkit.rules.replay, evalkit.rules.diff; "
            "print(sorted(m for m in sys.modules if m.startswith(('evalkit.harness', 'evalkit.metrics.summary', "
            "'evalkit.report', 'pandas', 'pyarrow', 'numpy'))))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"
