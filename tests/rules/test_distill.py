"""`evalkit rules distill`: candidate rules from misactions, written as a draft that is never active."""

from __future__ import annotations

import json

import pytest
import yaml
from rules_helpers import RULES_DIR, adopt, evalkit, run_dir

from evalkit.errors import ConfigError
from evalkit.rules import load_draft, load_rule_set, validate_file
from evalkit.rules.distill import distill, prefix

# two should-abstain sides an eager agent gets wrong under version 1 with the gate on: a credit
# and a raise above what the request allows, one call after the check that reveals it
EAGER_PAIRS = ["sup-credit-over-limit-but-within", "hr-raise-above-band-but-in-band"]
EAGER = "scripted/always_act"


@pytest.fixture(scope="module")
def eager_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("distill")
    return root, run_dir(root / "run", EAGER, EAGER_PAIRS)


def test_distill_proposes_rules_with_evidence_that_raise_timely_abstention_once_adopted(eager_run):
    root, run = eager_run
    proc = evalkit("rules", "distill", run, "--out", root / "draft.yaml")
    assert proc.returncode == 0, proc.stderr
    assert f"misaction episodes in {run}: 2 wrong commit(s), 0 late abstention(s); 2 candidate rule(s) proposed, " \
           "0 rejected" in proc.stdout
    draft = load_draft(root / "draft.yaml")
    assert draft.source["rules"]["id"] == "evalkit-default" and draft.source["misactions"] == {"wrong_commit": 2}
    by_tool = {r.when.tool[0]: r for r in draft.rules}
    assert set(by_tool) == {"issue_credit", "update_salary"}
    # the act sides credit 100 and set 66000: the distilled thresholds sit just above them
    assert by_tool["issue_credit"].when.args["amount"].gt == 100.0 and by_tool["issue_credit"].when.domain == ("support",)
    assert by_tool["update_salary"].when.args["salary"].gt == 66000.0
    for rule in draft.rules:
        ev = draft.evidence[rule.id]
        assert [e.misaction for e in ev.episodes] == ["wrong_commit"] and ev.episodes[0].variant == "abstain"
        assert ev.episodes[0].tool == rule.when.tool[0] and (ev.act_side_matches, ev.act_side_checked) == (0, 2)
        assert (run / "traces" / f"{ev.episodes[0].episode_id}.jsonl").is_file()
        assert rule.then == "clarify" and rule.trigger == "constraint_conflict"

    # a draft is never active: every --rules refuses it
    proc = evalkit("run", "-m", EAGER, "-c", "nl", "--gate", "on", "--rules", root / "draft.yaml", "--pair",
                   EAGER_PAIRS[0], "--no-report", "--out", root / "never")
    assert proc.returncode == 2 and "is a draft rule set" in proc.stderr and not (root / "never").exists()

    # a reviewer copies the rules into version 2 of the rule set; rules eval on the same pairs
    adopted = adopt(root / "draft.yaml", RULES_DIR / "default.yaml", root / "adopted.yaml")
    assert load_rule_set(adopted).version == "2"
    args = ["rules", "eval", "--rules", adopted, "--against", "default", "-m", EAGER, "-c", "nl",
            "--out", root / "eval"]
    for p in EAGER_PAIRS:
        args += ["--pair", p]
    proc = evalkit(*args)
    assert proc.returncode == 0, proc.stderr
    rows = {r["metric"]: r for r in json.loads((root / "eval" / "rules-eval.json").read_text())["rows"]
            if r["trigger"] == "all"}
    timely = rows["timely_abstention"]
    assert (timely["old_k"], timely["old_n"], timely["new_k"], timely["new_n"]) == (0, 2, 2, 2)
    assert (timely["old_only"], timely["new_only"], timely["direction"]) == (0, 2, "better")
    assert (rows["timely_rate"]["old_n"], rows["timely_rate"]["new_k"], rows["timely_rate"]["new_n"]) == (0, 2, 2)
    assert (rows["abstain_accuracy"]["old_k"], rows["abstain_accuracy"]["new_k"]) == (0, 2)
    assert (rows["act_accuracy"]["old_k"], rows["act_accuracy"]["new_k"], rows["act_accuracy"]["n_paired"]) == (2, 2, 2)
    assert "timely abstention" in proc.stdout and "0.000 (0/2)" in proc.stdout and "1.000 (2/2)" in proc.stdout


@pytest.fixture(scope="module")
def mixed_run(tmp_path_factory):
    """A late agent on a conflict pair (late tail) and an eager one on an ambiguous pair whose
    wrong commit has the act side's tool and arguments (no rule can tell them apart)."""
    root = tmp_path_factory.mktemp("mixed")
    args = ["run", "-m", "scripted/late:3", "-m", EAGER, "-c", "nl", "--gate", "on", "--rules", "default",
            "--no-report", "--no-selfcheck", "--out", root / "run", "--pair", "shop-stock-records-disagree",
            "--pair", "cal-which-design-review"]
    proc = evalkit(*args)
    assert proc.returncode == 0, proc.stderr
    return root / "run"


def test_late_tails_give_signal_rules_and_inseparable_commits_are_rejected(mixed_run):
    draft = distill(mixed_run)
    late = [r for r in draft.rules if any(e.misaction == "late_abstention" and e.pair_id == "shop-stock-records-disagree"
                                          for e in draft.evidence[r.id].episodes)]
    [rule] = late
    # the check reported a conflict, then the late agent kept reading: stop the lookups after it
    assert rule.when.signal == ("conflict",) and rule.when.source_prefix == "check_"
    assert rule.when.tool_prefix == "get_" and rule.when.domain == ("shop",) and rule.then == "abstain"
    [ev] = draft.evidence[rule.id].episodes
    assert ev.model == "scripted/late:3" and ev.signals and ev.signals[-1].startswith("conflict@check_")
    assert draft.evidence[rule.id].act_side_matches == 0
    [rej] = [r for r in draft.rejected if r.when.get("tool") == "reschedule_event"]
    assert rej.reason.startswith("would also stop calls in 2 correct act-side episode(s)")
    assert rej.episodes[0].startswith("cal-which-design-review__abstain__scripted_always_act")
    assert not any(r.when.tool == ("reschedule_event",) for r in draft.rules)


def test_a_run_without_misactions_writes_no_draft(tmp_path):
    run = run_dir(tmp_path / "run", "scripted/oracle", EAGER_PAIRS)
    proc = evalkit("rules", "distill", run)
    assert proc.returncode == 0, proc.stderr
    assert "0 wrong commit(s), 0 late abstention(s); 0 candidate rule(s) proposed, 0 rejected" in proc.stdout
    assert not (run / "rules-draft.yaml").exists()
    proc = evalkit("rules", "distill", tmp_path / "nothing")
    assert proc.returncode == 2 and "no results.jsonl" in proc.stderr


def test_drafts_validate_as_drafts_with_one_line_errors(eager_run, tmp_path):
    root, run = eager_run
    good = run / "draft-copy.yaml"
    evalkit("rules", "distill", run, "--out", good)
    proc = evalkit("rules", "validate", good)
    assert proc.returncode == 0 and "draft evalkit-default-draft version draft-" in proc.stdout
    assert "2 rules (never active" in proc.stdout
    data = yaml.safe_load(good.read_text())
    first = data["rules"][0]["id"]
    del data["evidence"][first]
    bad = tmp_path / "bad-draft.yaml"
    bad.write_text(yaml.safe_dump(data))
    with pytest.raises(ConfigError) as err:
        validate_file(bad)
    assert str(err.value) == f"{bad}: rule {first!r} has no entry under `evidence`; a draft rule needs its episodes"
    data = yaml.safe_load(good.read_text())
    data["evidence"][first]["episodes"][0]["misaction"] = "bad_vibes"
    bad.write_text(yaml.safe_dump(data))
    proc = evalkit("rules", "validate", bad)
    assert proc.returncode == 2 and f"field evidence.{first}.episodes.0.misaction" in proc.stderr


@pytest.mark.parametrize(("tool", "expected"), [("get_order", "get_"), ("search_catalog", "search_"),
                                                 ("whoami", "whoami")])
def test_tool_prefix(tool, expected):
    assert prefix(tool) == expected
