"""Timely paired accuracy (DESIGN §7, seed 003): a pair right on every side with every abstention
within max_lag; the leaderboard ranks by it, and each comparison has a one-line verdict."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalkit.gate.catalogue import POPULATION, metric_kinds
from evalkit.harness.run import RunConfig
from evalkit.pipeline import run
from evalkit.metrics.aggregate import summarize
from evalkit.report.console import verdict, verdict_lines
from evalkit.report.view import leaderboard

ROOT = Path(__file__).resolve().parents[2]


def row(pair, variant, correct, timely=None, epoch=1, model="m"):
    return {"pair_id": pair, "variant": variant, "model": model, "condition": "nl", "gate": "off", "epoch": epoch,
            "status": "ok", "correct": correct, "post_hoc": False, "timely": timely, "decision_match": True}


def test_a_late_abstention_is_paired_right_but_not_timely():
    plan = [(p, v, "m", "nl", "off", 1) for p in ("p1", "p2", "p3") for v in ("act", "abstain")]
    rows = [row("p1", "act", True), row("p1", "abstain", True, timely=True),
            row("p2", "act", True), row("p2", "abstain", True, timely=False),  # right, 3 calls late
            row("p3", "act", False), row("p3", "abstain", True, timely=True)]
    (s,) = summarize(plan, rows)
    assert (s["paired_accuracy_k"], s["paired_accuracy_n"]) == (2, 3)
    assert (s["timely_paired_accuracy_k"], s["timely_paired_accuracy_n"]) == (1, 3)
    assert s["timely_paired_accuracy"] == pytest.approx(1 / 3)
    low, high = s["timely_paired_accuracy_ci"]
    assert 0 < low < 1 / 3 < high < 1


def test_epochs_count_units_and_the_interval_counts_pairs():
    plan = [(p, v, "m", "nl", "off", e) for p in ("p1", "p2") for e in (1, 2) for v in ("act", "abstain")]
    rows = [row("p1", "act", True, epoch=1), row("p1", "abstain", True, timely=True, epoch=1),
            row("p1", "act", True, epoch=2), row("p1", "abstain", True, timely=False, epoch=2),
            row("p2", "act", True, epoch=1), row("p2", "abstain", True, timely=True, epoch=1),
            row("p2", "act", True, epoch=2), row("p2", "abstain", True, timely=True, epoch=2)]
    (s,) = summarize(plan, rows)
    assert (s["timely_paired_accuracy_k"], s["timely_paired_accuracy_n"]) == (3, 4)
    assert s["timely_paired_accuracy_ci_n"] == 2
    assert s["timely_paired_accuracy_ci"] != [None, None]


def test_control_pairs_take_no_part_and_breakdowns_hold_it():
    plan = [("c1", "act", "m", "nl", "off", 1)]
    (s,) = summarize(plan, [row("c1", "act", True)])
    assert s["timely_paired_accuracy"] is None and s["timely_paired_accuracy_n"] == 0
    (b,) = summarize(plan, [row("c1", "act", True)], by=("model", "condition", "gate", "trigger"), core=True)
    assert "timely_paired_accuracy_k" in b


def test_the_gate_catalogue_knows_it_as_a_rate_over_pair_units():
    assert metric_kinds()["timely_paired_accuracy"] == "rate"
    assert POPULATION["timely_paired_accuracy"][0] == "paired_accuracy_n"


@pytest.fixture(scope="module")
def oracle_and_late(tmp_path_factory, mini_suite, mini_tasks):
    out = tmp_path_factory.mktemp("timely") / "run"
    return run(RunConfig(suites=[str(mini_suite)], tasks_dir=str(mini_tasks), conditions=["nl", "meta"],
                         models=["scripted/late:3", "scripted/oracle"], out=str(out), report=False))


def test_late3_ranks_below_the_oracle(oracle_and_late):
    rows = oracle_and_late["rows"]
    late = [r for r in rows if r["model"] == "scripted/late:3"]
    assert all(r["paired_accuracy"] == 1.0 and r["timely_paired_accuracy"] == 0.0 for r in late)
    ranked = leaderboard(rows)
    assert [r["model"] for r in ranked] == ["scripted/oracle"] * 2 + ["scripted/late:3"] * 2
    assert [r["rank"] for r in ranked] == [1, 2, 3, 4]


def test_one_verdict_line_per_comparison(oracle_and_late):
    comps = oracle_and_late["comparisons"]
    lines = verdict_lines(oracle_and_late)
    assert len(lines) == len(comps) > 0
    cond = next(line for line in lines if line.startswith("scripted/oracle · gate off: "))
    n = next(c["n"] for c in comps if c["kind"] == "condition" and c["model"] == "scripted/oracle")
    assert cond == (f"scripted/oracle · gate off: meta vs nl: +0.000 [0.000, 0.000], McNemar p = 1.000, {n} pairs; "
                    "timely: +0.000 [0.000, 0.000], McNemar p = 1.000")
    # late:3 ties the oracle on paired accuracy and loses every pair on timely paired accuracy
    late = next(line for line in lines if line.startswith("condition nl · gate off: scripted/oracle vs scripted/late:3"))
    assert late.startswith("condition nl · gate off: scripted/oracle vs scripted/late:3: +0.000 ")
    p = 2 * 0.5 ** n  # exact McNemar, all n units discordant one way
    assert late.endswith(f"{n} pairs; timely: +1.000 [1.000, 1.000], McNemar p = {p:.3f}")
    timely = next(c for c in oracle_and_late["timely_comparisons"] if c["kind"] == "model" and c["condition"] == "nl")
    assert (timely["metric"], timely["a_k"], timely["b_k"], timely["n"]) == ("timely_paired_accuracy", 0, n, n)


def test_verdict_format():
    c = {"a": "nl", "b": "meta", "diff": 0.12, "ci": [0.05, 0.19], "p_value": 0.0009, "n": 262}
    assert verdict(c) == "meta vs nl: +0.120 [0.050, 0.190], McNemar p < 0.001, 262 pairs"
    c = {"a": "nl", "b": "meta", "diff": None, "ci": [None, None], "p_value": None, "n": 0}
    assert verdict(c) == "meta vs nl: n/a n/a, McNemar p = n/a, 0 pairs"
