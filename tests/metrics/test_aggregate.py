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
