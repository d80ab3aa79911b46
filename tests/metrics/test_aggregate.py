"""Denominators and empty groups (field cases C20 and C21)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalkit.harness.store import dump_json
from evalkit.metrics.aggregate import summarize
from evalkit.metrics.stats import wilson

CASES = {c["id"]: c for c in json.loads((Path(__file__).parents[1] / "fixtures" / "field_failures.json").read_text())}


def row(pair, variant, correct, status="ok", model="m", condition="nl", **extra):
    base = {"pair_id": pair, "variant": variant, "model": model, "condition": condition, "gate": "off", "epoch": 1,
            "status": status, "correct": correct if status == "ok" else False, "post_hoc": False, "timely": None,
            "decision_match": True}
    base.update(extra)
    return base


def test_c20_errors_and_missing_twins_stay_in_the_denominator():
    case = CASES["C20"]["input"]
    plan, rows = [], []
    for r in case["results"]:
        variant = "act" if r["label"] == "should_act" else "abstain"
        status = "error" if r.get("error") else "ok"
        rows.append(row(r["pair"], variant, bool(r.get("correct")), status))
    for pid in ("p1", "p2", "p3", "p4"):
        plan += [(pid, "act", "m", "nl", "off", 1), (pid, "abstain", "m", "nl", "off", 1)]
    (s,) = summarize(plan, rows)
    assert (s["episode_accuracy_k"], s["episode_accuracy_n"], s["episode_accuracy"]) == (5, 8, 0.625)
    assert (s["coverage_k"], s["coverage_n"]) == (6, 8)
    assert (s["errors"], s["missing"], s["completed"]) == (1, 1, 7)
    assert (s["paired_accuracy_k"], s["paired_accuracy_n"], s["paired_accuracy"]) == (1, 4, 0.25)
    assert s["incomplete_pairs"] == 2
    assert (s["act_accuracy_k"], s["act_accuracy_n"]) == (3, 4)
    assert (s["abstain_accuracy_k"], s["abstain_accuracy_n"]) == (2, 4)


def test_c21_empty_group_is_null_never_nan_and_json_rejects_nan():
    plan = [("p1", "act", "m", "nl", "off", 1), ("p1", "abstain", "m", "nl", "off", 1)]
    rows = [row("p1", "act", True), row("p1", "abstain", False)]  # no correct abstention: timely has n = 0
    (s,) = summarize(plan, rows)
    assert s["timely_rate"] is None and s["timely_rate_n"] == 0 and s["timely_rate_ci"] == [None, None]
    text = dump_json({"rows": [s]})
    assert "NaN" not in text and json.loads(text)["rows"][0]["timely_rate"] is None
    with pytest.raises(ValueError):
        dump_json({"x": float("nan")})


def test_c21_group_a_mean():
    scores = CASES["C21"]["input"]["scores_by_group"]["group_a"]
    plan = [(f"p{i}", "act", "m", "nl", "off", 1) for i in range(len(scores))]
    rows = [row(f"p{i}", "act", bool(v)) for i, v in enumerate(scores)]
    (s,) = summarize(plan, rows)
    assert (s["act_accuracy"], s["act_accuracy_n"]) == (0.75, 4)


def test_rows_outside_the_plan_are_ignored_and_groups_follow_plan_order():
    plan = [("p1", "act", "b", "nl", "off", 1), ("p1", "act", "a", "nl", "off", 1)]
    rows = [row("p1", "act", True, model="a"), row("p9", "act", True, model="a")]
    out = summarize(plan, rows)
    assert [r["model"] for r in out] == ["b", "a"]
    assert out[0]["missing"] == 1 and out[1]["act_accuracy"] == 1.0 and out[1]["act_accuracy_n"] == 1


def test_wilson_interval_values():
    assert wilson(0, 0) == (None, None)
    low, high = wilson(5, 10)
    assert round(low, 4) == 0.2366 and round(high, 4) == 0.7634
    low, high = wilson(10, 10)
    assert high == 1.0 and round(low, 4) == 0.7225


def test_epochs_give_per_epoch_accuracy_and_pass_k():
    plan = [(p, v, "m", "nl", "off", e) for p in ("p1", "p2") for e in (1, 2) for v in ("act", "abstain")]
    rows = [row(k[0], k[1], not (k[0] == "p2" and k[5] == 2 and k[1] == "abstain"), epoch=k[5]) for k in plan]
    (s,) = summarize(plan, rows)
    assert (s["n_pairs"], s["n_units"], s["epochs"]) == (2, 4, 2)
    assert (s["paired_accuracy_k"], s["paired_accuracy_n"]) == (3, 4)
    assert [(e["epoch"], e["paired_accuracy_k"], e["paired_accuracy_n"]) for e in s["epoch_paired_accuracy"]] == [
        (1, 2, 2), (2, 1, 2)]
    assert (s["pass_k_k"], s["pass_k_n"], s["pass_k"]) == (1, 2, 0.5)


def test_conditional_abstain_accuracy_and_behaviour_rates():
    plan = [(p, v, "m", "nl", "off", 1) for p in ("p1", "p2", "p3") for v in ("act", "abstain")]
    rows = [
        row("p1", "act", True, meta_made_n=1, meta_matched_n=0, unnecessary_requests=1, commit_args_n=3,
            unsupported_args_n=0, first_pass=True),
        row("p1", "abstain", True, meta_made_n=1, meta_matched_n=1, meta_expected_n=1, timely=True, lag=0),
        row("p2", "act", True, commit_args_n=2, unsupported_args_n=1, first_pass=False, denials={"schema_mismatch": 2},
            incorrect_tool_use=2),
        row("p2", "abstain", False, post_hoc=True, meta_expected_n=2, commit_args_n=2, unsupported_args_n=2),
        row("p3", "act", False),
        row("p3", "abstain", True, meta_expected_n=1, meta_made_n=2, meta_matched_n=1, timely=False, lag=3),
    ]
    (s,) = summarize(plan, rows)
    # pairs whose act side is right: p1, p2; of those both right: p1
    assert (s["conditional_abstain_accuracy_k"], s["conditional_abstain_accuracy_n"]) == (1, 2)
    assert (s["post_hoc_rate_k"], s["post_hoc_rate_n"]) == (1, 3)
    assert (s["timely_rate_k"], s["timely_rate_n"], s["lag_mean"], s["lag_hist"]) == (1, 2, 1.5, {"0": 1, "3": 1})
    assert (s["meta_precision_k"], s["meta_precision_n"]) == (2, 4)
    assert (s["meta_recall_k"], s["meta_recall_n"]) == (2, 4)
    assert (s["unnecessary_request_rate_k"], s["unnecessary_request_rate_n"], s["unnecessary_requests"]) == (1, 3, 1)
    assert (s["unsupported_assumption_rate_k"], s["unsupported_assumption_rate_n"]) == (3, 7)
    assert (s["first_pass_rate_k"], s["first_pass_rate_n"]) == (1, 6)
    assert (s["incorrect_tool_use_rate_k"], s["denials_by_code"]) == (1, {"schema_mismatch": 2})
    assert s["cost_usd"] is None and s["cost_per_success_usd"] is None  # no price known
    assert s["repeated_denied_rate"] is None and s["repeated_denied_rate_n"] == 0


def test_missing_episodes_keep_their_breakdown_group_and_expected_requests():
    plan = [(p, v, "m", "nl", "off", 1) for p in ("p1", "p2") for v in ("act", "abstain")]
    pairs = {"p1": {"trigger": "missing_param", "phase": "pre_execution", "domain": "shop", "split": "dev",
                    "language": "en", "meta_expected_n": 1},
             "p2": {"trigger": "tool_failure", "phase": "runtime", "domain": "shop", "split": "heldout",
                    "language": "zh", "meta_expected_n": 2}}
    rows = [row("p1", "act", True, trigger="missing_param"), row("p1", "abstain", True, trigger="missing_param",
                                                                meta_expected_n=1, meta_matched_n=1)]
    (s,) = summarize(plan, rows, pairs=pairs)
    assert (s["meta_recall_k"], s["meta_recall_n"]) == (1, 3)  # p2's two expected requests were never made
    by_trigger = {r["trigger"]: r for r in summarize(plan, rows, pairs=pairs, by=("model", "trigger"), core=True)}
    assert by_trigger["tool_failure"]["missing"] == 2 and by_trigger["tool_failure"]["paired_accuracy_k"] == 0
    assert by_trigger["tool_failure"]["paired_accuracy_n"] == 1 and by_trigger["tool_failure"]["timely_rate"] is None


def test_control_pairs_are_not_pair_units():
    plan = [("c1", "act", "m", "nl", "off", 1), ("p1", "act", "m", "nl", "off", 1),
            ("p1", "abstain", "m", "nl", "off", 1)]
    rows = [row("c1", "act", True, unnecessary_requests=1), row("p1", "act", True), row("p1", "abstain", True)]
    pairs = {"c1": {"trigger": "none"}, "p1": {"trigger": "missing_param"}}
    (s,) = summarize(plan, rows, pairs=pairs)
    assert (s["n_pairs"], s["paired_accuracy_k"], s["paired_accuracy_n"]) == (1, 1, 1)
    assert (s["act_accuracy_k"], s["act_accuracy_n"]) == (2, 2)
    assert (s["unnecessary_request_rate_k"], s["unnecessary_request_rate_n"]) == (1, 2)
    assert (s["pass_k_k"], s["pass_k_n"]) == (1, 1)
