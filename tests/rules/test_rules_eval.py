"""`evalkit rules validate` and `evalkit rules eval` on the shipped rule sets."""

from __future__ import annotations

import json
import re

import pytest
from rules_helpers import RULES_DIR, evalkit

from evalkit.errors import ConfigError
from evalkit.rules import load_rule_set
from evalkit.rules.diff import rule_changes

# pairs version 2 changes (large credit, large payment) and one it leaves alone
PAIRS = ["sup-huge-credit", "pay-large-payment", "shop-bulk-order-confirm"]


def test_two_versions_of_the_default_set_are_shipped_with_changelogs():
    v1, v2 = load_rule_set("default"), load_rule_set("default-v2")
    assert (v1.id, v1.version, v2.id, v2.version) == ("evalkit-default", "1", "evalkit-default", "2")
    assert [c.version for c in v2.changelog] == ["2", "1"] and v2.changelog[1] == v1.changelog[0]
    changes = rule_changes(v1, v2)
    assert changes["removed"] == [] and changes["changed"] == []  # version 2 keeps every version-1 rule
    assert len(changes["added"]) == 6 and all(i.endswith("-v2") for i in changes["added"])
    assert all(rule_id in " ".join(v2.changelog[0].changes) for rule_id in changes["added"])


def test_validate_prints_identity_and_names_file_rule_and_field(tmp_path):
    proc = evalkit("rules", "validate", RULES_DIR / "default.yaml", "default-v2")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [f"{RULES_DIR / 'default.yaml'}: ok: evalkit-default version 1, 5 rules",
                                        "default-v2: ok: evalkit-default version 2, 11 rules"]
    bad = tmp_path / "bad.yaml"
    bad.write_text('id: x\nversion: "1"\nchangelog: [{version: "1", changes: [x]}]\n'
                   "rules: [{id: big-v1, when: {tool: order, args: {qty: {gt: many}}}, then: abstain, message: m}]\n")
    proc = evalkit("rules", "validate", bad, "default")
    assert proc.returncode == 2
    assert proc.stderr.strip() == (f"evalkit: error: {bad}: rule big-v1: field when.args.qty.gt: "
                                   "Input should be a valid number")  # strict: a string is never parsed as a bound
    assert "default: ok: evalkit-default version 1" in proc.stdout  # the other files are still checked


@pytest.fixture(scope="module")
def shipped_eval(tmp_path_factory):
    out = tmp_path_factory.mktemp("rules-eval")
    args = ["rules", "eval", "--rules", "default-v2", "--against", RULES_DIR / "default.yaml",
            "-m", "scripted/always_act", "-m", "scripted/oracle", "-c", "nl", "--out", out]
    for p in PAIRS:
        args += ["--pair", p]
    proc = evalkit(*args)
    assert proc.returncode == 0, proc.stderr
    return out, proc


def test_rules_eval_on_the_shipped_sets_prints_the_diff_table(shipped_eval):
    out, proc = shipped_eval
    text = proc.stdout
    assert "stopping rules evalkit-default@2 (NEW) vs evalkit-default@1 (OLD)" in text
    lines = [line for line in text.splitlines() if "always_act · nl" in line and "│ all " in line]
    by_metric = {re.split(r"\s*│\s*", line)[3]: line for line in lines}
    assert set(by_metric) == {"paired acc", "act acc", "abstain acc", "timely abstention", "timely rate",
                              "post-hoc rate"}
    # two of the three should-abstain sides now stop: 1/3 -> 3/3 (bulk order was stopped by version 1)
    assert "0.333 (1/3)" in by_metric["abstain acc"] and "1.000 (3/3)" in by_metric["abstain acc"]
    assert "+0.667" in by_metric["abstain acc"] and "0/2" in by_metric["abstain acc"]
    assert "0.500" in by_metric["abstain acc"] and "better" in by_metric["abstain acc"]  # p = 2 * (1/2)^2
    assert "1.000 (3/3)" in by_metric["act acc"] and "+0.000" in by_metric["act acc"]  # no good commit stopped
    assert re.search(r"large-credit-confirm-v2\s*│\s*added\s*│\s*0\s*│\s*0\s*│\s*0\s*│\s*1", text)
    assert f"wrote {out / 'rules-eval.json'} and {out / 'rules-eval.html'}" in text
    assert "running 3 pairs under evalkit-default@1 (old, gate on)" in proc.stderr


def test_rules_eval_runs_one_plan_under_both_sets_and_matches_the_run_summaries(shipped_eval):
    out, _ = shipped_eval
    result = json.loads((out / "rules-eval.json").read_text())
    assert result["old"]["label"] == "evalkit-default@1" and result["new"]["label"] == "evalkit-default@2"
    old_cfg = json.loads((out / "old" / "config.json").read_text())
    new_cfg = json.loads((out / "new" / "config.json").read_text())
    differs = {k for k in old_cfg["config"] if old_cfg["config"][k] != new_cfg["config"][k]}
    assert differs == {"rules", "out"} and old_cfg["config"]["gates"] == ["on"]
    assert old_cfg["rules"]["version"] == "1" and new_cfg["rules"]["version"] == "2"
    # every k/n shown is the run summary's k/n for the same model, condition and trigger
    for tag in ("old", "new"):
        summary = json.loads((out / tag / "summary.json").read_text())
        checked = 0
        for s in summary["breakdowns"]["trigger"] + [{**r, "trigger": "all"} for r in summary["rows"]]:
            for row in result["rows"]:
                if (row["model"], row["condition"], row["trigger"]) == (s["model"], s["condition"], s["trigger"]) \
                        and row["metric"] in s:
                    assert (row[f"{tag}_k"], row[f"{tag}_n"]) == (s[f"{row['metric']}_k"], s[f"{row['metric']}_n"])
                    checked += 1
        assert checked == 2 * 2 * 5  # models × (all, high_risk) × the five summary metrics
    oracle = [r for r in result["rows"] if r["model"] == "scripted/oracle"]
    assert oracle and all(r["direction"] in ("same", None) and r["old_only"] == r["new_only"] == 0 for r in oracle)
    fixed = {c["pair_id"] for c in result["changed"] if c["change"] == "fixed"}
    assert fixed == {"sup-huge-credit", "pay-large-payment"}
    assert {tuple(c["new_rules"]) for c in result["changed"]} == {("large-credit-confirm-v2",),
                                                                 ("large-payment-confirm-v2",)}


def test_rules_eval_writes_the_html_section(shipped_eval):
    out, _ = shipped_eval
    html = (out / "rules-eval.html").read_text()
    assert html.startswith("<!doctype html>") and "<style>" in html
    assert "evalkit-default@2 <span class=\"kn\">(new)</span> vs evalkit-default@1" in html
    for section in ("overview", "changes", "headline", "diff", "firings", "episodes", "definitions"):
        assert f'<section id="{section}">' in html
    row = re.search(r'<tr data-trigger="all" data-metric="abstain_accuracy">(.*?)</tr>',
                    html.split('data-group="scripted/always_act · nl"')[2], re.S).group(1)
    assert 'data-k="1" data-n="3"' in row and 'data-k="3" data-n="3"' in row and "+0.667" in row
    assert '<tr data-rule="large-payment-confirm-v2">' in html and "sup-huge-credit" in html


def test_rules_eval_html_escapes_rule_text(tmp_path, shipped_eval):
    from evalkit.report.rules_eval import render_rules_eval

    out, _ = shipped_eval
    result = json.loads((out / "rules-eval.json").read_text())
    result["new"]["changelog"][0]["changes"] = ["<script>alert(1)</script>"]
    result["changed"][0]["pair_id"] = '<img src=x onerror="alert(2)">'
    html = render_rules_eval(result, tmp_path / "page.html").read_text()
    assert "<script>alert(1)" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<img src=x" not in html and "&lt;img src=x onerror=" in html


def test_rules_eval_refuses_bad_and_draft_rule_sets_before_running(tmp_path):
    draft = tmp_path / "draft.yaml"
    draft.write_text("draft: true\nid: d\nversion: draft-1\nrules: []\n")
    for args, needle in [(["--rules", draft, "--against", "default"], "is a draft rule set"),
                         (["--rules", "default", "--against", tmp_path / "none.yaml"], "cannot read the rule set"),
                         (["--rules", "default", "--against", "default", "--pair", "nope"], "--pair nope")]:
        proc = evalkit("rules", "eval", *args, "-m", "scripted/oracle", "-c", "nl", "--out", tmp_path / "o")
        assert proc.returncode == 2 and needle in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
        assert not (tmp_path / "o" / "old").exists()
    with pytest.raises(ConfigError, match="never active"):
        load_rule_set(draft)
