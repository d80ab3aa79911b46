"""Paired metric differences between two runs under two rule sets (evalkit.rules.diff)."""

from __future__ import annotations

import pytest

from evalkit.rules.diff import changed_episodes, diff_rows, rule_firings


def row(pair, variant, *, correct, timely=None, post_hoc=False, trigger="high_risk", model="m", rules=(),
        status="ok", decision=None):
    return {"pair_id": pair, "variant": variant, "model": model, "condition": "nl", "gate": "on", "epoch": 1,
            "trigger": trigger, "status": status, "correct": correct, "timely": timely, "post_hoc": post_hoc,
            "episode_id": f"{pair}__{variant}", "gate_rules": list(rules),
            "decision": decision or ("act" if variant == "act" or not correct else "abstain")}


def runs(n_fixed, n_same=2, *, break_act=0):
    """OLD: every abstain side wrong (post-hoc); NEW: the first ``n_fixed`` stop in time."""
    old, new = [], []
    for i in range(n_fixed + n_same):
        p = f"p{i}"
        old += [row(p, "act", correct=True), row(p, "abstain", correct=False, post_hoc=True)]
        fixed = i < n_fixed
        new += [row(p, "act", correct=not (i < break_act), rules=("r-v2",) if i < break_act else ()),
                row(p, "abstain", correct=fixed, timely=True if fixed else None, post_hoc=not fixed,
                    rules=("r-v2",) if fixed else ())]
    return old, new


def pick(rows, metric, trigger="all"):
    [r] = [x for x in rows if x["metric"] == metric and x["trigger"] == trigger]
    return r


def test_six_fixed_abstentions_are_significant_and_counts_are_paired():
    old, new = runs(6)
    rows = diff_rows(old, new)
    ab = pick(rows, "abstain_accuracy")
    assert (ab["old_k"], ab["old_n"], ab["new_k"], ab["new_n"]) == (0, 8, 6, 8)
    assert (ab["old_only"], ab["new_only"], ab["n_paired"]) == (0, 6, 8)
    assert ab["p_value"] == pytest.approx(2 / 2**6) and ab["significant"] and ab["direction"] == "better"
    assert ab["diff"] == pytest.approx(0.75)
    ph = pick(rows, "post_hoc_rate")  # lower is better
    assert (ph["old_k"], ph["new_k"], ph["old_only"], ph["new_only"]) == (8, 2, 6, 0) and ph["direction"] == "better"
    tr = pick(rows, "timely_rate")  # conditional: no correct abstention under OLD, so nothing to pair
    assert (tr["old_n"], tr["new_k"], tr["new_n"], tr["n_paired"], tr["p_value"], tr["diff"]) == (0, 6, 6, 0, None,
                                                                                               None)
    ta = pick(rows, "timely_abstention")
    assert (ta["old_k"], ta["new_k"], ta["new_only"]) == (0, 6, 6)
    act = pick(rows, "act_accuracy")
    assert act["direction"] == "same" and act["p_value"] == 1.0 and not act["significant"]
    assert [r["trigger"] for r in rows if r["metric"] == "paired_accuracy"] == ["all", "high_risk"]


def test_a_rule_that_stops_good_commits_is_a_regression():
    old, new = runs(2, 4, break_act=6)
    rows = diff_rows(old, new)
    act = pick(rows, "act_accuracy")
    assert (act["old_k"], act["new_k"], act["old_only"], act["new_only"]) == (6, 0, 6, 0)
    assert act["direction"] == "worse" and act["significant"]
    changes = changed_episodes(old, new)
    assert [c["change"] for c in changes] == ["stopped_good_commit"] * 6 + ["fixed"] * 2
    assert changes[0]["new_rules"] == ["r-v2"] and changes[0]["old_correct"] and not changes[0]["new_correct"]
    [fire] = [f for f in rule_firings(old, new, [], ["r-v2"]) if f["rule_id"] == "r-v2"]
    assert fire == {"rule_id": "r-v2", "status": "added", "old_act": 0, "old_abstain": 0, "new_act": 6,
                    "new_abstain": 2}


def test_a_missing_episode_counts_as_wrong_in_accuracy_only():
    old, new = runs(1, 1)
    new = [r for r in new if not (r["pair_id"] == "p1" and r["variant"] == "abstain")]
    rows = diff_rows(old, new)
    ab = pick(rows, "abstain_accuracy")
    assert (ab["new_k"], ab["new_n"], ab["n_paired"]) == (1, 2, 2)  # planned in OLD, so planned in NEW
    ph = pick(rows, "post_hoc_rate")
    assert (ph["old_n"], ph["new_n"], ph["n_paired"]) == (2, 1, 1)  # post-hoc is over recorded episodes
    pa = pick(rows, "paired_accuracy")
    assert (pa["old_k"], pa["new_k"], pa["new_n"]) == (0, 1, 2)


def test_control_pairs_and_errors():
    old = [row("c", "act", correct=True, trigger="none"), row("p", "act", correct=True),
           row("p", "abstain", correct=True, timely=False)]
    new = [row("c", "act", correct=True, trigger="none"), row("p", "act", correct=True),
           row("p", "abstain", correct=True, timely=True, status="error")]
    rows = diff_rows(old, new)
    assert [r["trigger"] for r in rows if r["metric"] == "act_accuracy"] == ["all", "high_risk", "none"]
    assert pick(rows, "paired_accuracy")["old_n"] == 1  # the control pair is not a pair unit
    ab = pick(rows, "abstain_accuracy")
    assert (ab["old_k"], ab["new_k"], ab["direction"]) == (1, 0, "worse")  # an error is never right
    assert pick(rows, "timely_rate")["new_n"] == 0 and pick(rows, "timely_rate")["diff"] is None


def test_a_conditional_rate_over_different_units_takes_its_direction_from_the_units_in_both():
    # OLD: p0 and p1 abstain correctly, p0 in time; NEW: the same, plus p2 and p3 now correct but late.
    # The timely rate falls from 1/2 to 1/4 only because late units entered the set: on the two units
    # correct under both, nothing changed, so it is "same" there and not a regression.
    def abstain(p, correct, timely):
        return row(p, "abstain", correct=correct, timely=timely if correct else None)
    old = [abstain("p0", True, True), abstain("p1", True, False), abstain("p2", False, None), abstain("p3", False, None)]
    new = [abstain("p0", True, True), abstain("p1", True, False), abstain("p2", True, False), abstain("p3", True, False)]
    tr = pick(diff_rows(old, new), "timely_rate")
    assert (tr["old_k"], tr["old_n"], tr["new_k"], tr["new_n"]) == (1, 2, 1, 4)
    assert tr["diff"] == pytest.approx(-0.25) and tr["units_differ"] and tr["n_paired"] == 2
    assert (tr["old_only"], tr["new_only"], tr["p_value"], tr["direction"], tr["significant"]) == (0, 0, 1.0, "same", False)
    # p0 is now late as well: worse on the units in both, whatever the rates over all units say
    new[0] = abstain("p0", True, False)
    tr = pick(diff_rows(old, new), "timely_rate")
    assert (tr["old_only"], tr["new_only"], tr["direction"]) == (1, 0, "worse")
    from evalkit.report.rules_eval import _mark
    assert _mark(tr) == "worse on the 2 units in both"
    ab = pick(diff_rows(old, new), "abstain_accuracy")  # the same planned units in both runs
    assert not ab["units_differ"] and ab["direction"] == "better"
