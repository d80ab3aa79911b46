"""The scripted models pin the metrics' extremes on every shipped pair (issue: main job end to end).

oracle = 1.0 paired accuracy in every condition (the suite's self-check); always_act and
always_abstain = 0.0; post_hoc = post-hoc rate 1.0 on the should-abstain side;
late:3 = timely rate 0.0; late:0 = timely rate 1.0.
"""

from __future__ import annotations

import json

import pytest

from evalkit.harness.run import RunConfig, run
from evalkit.models.registry import DEFAULT_MODELS
from evalkit.scenarios.loader import load_suite


@pytest.fixture(scope="module")
def builtin_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("builtin")
    summary = run(RunConfig(out=str(out), report=True))
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    return out, summary, rows


def by_model(summary, model):
    rows = [r for r in summary["rows"] if r["model"] == model]
    assert {r["condition"] for r in rows} == {"nl", "tool", "meta"}
    return rows


def test_builtin_suite_is_big_enough():
    suite = load_suite()
    triggers = {p.trigger for p in suite.pairs}
    assert len(suite.pairs) >= 12
    assert len({p.domain for p in suite.pairs}) >= 2
    assert len(triggers) >= 4
    assert {p.phase for p in suite.pairs} >= {"pre_execution", "runtime"}


def test_every_planned_episode_completed(builtin_run):
    out, summary, rows = builtin_run
    n_pairs = len(load_suite().pairs)
    assert summary["n_episodes_planned"] == n_pairs * 2 * 3 * len(DEFAULT_MODELS) == len(rows)
    assert all(r["status"] == "ok" for r in rows)
    assert len(list((out / "traces").glob("*.jsonl"))) == len(rows)


def test_oracle_is_perfect_on_every_pair_in_every_condition(builtin_run):
    _, summary, rows = builtin_run
    for r in by_model(summary, "scripted/oracle"):
        assert r["paired_accuracy"] == 1.0, r
        assert r["act_accuracy"] == 1.0 and r["abstain_accuracy"] == 1.0
        assert r["decision_match_rate"] == 1.0
        assert r["post_hoc_rate"] == 0.0
    wrong = [(r["pair_id"], r["variant"], r["condition"]) for r in rows
             if r["model"] == "scripted/oracle" and not r["correct"]]
    assert wrong == []


@pytest.mark.parametrize("model", ["scripted/always_act", "scripted/always_abstain"])
def test_constant_policies_score_zero_paired_accuracy(builtin_run, model):
    _, summary, _ = builtin_run
    for r in by_model(summary, model):
        assert r["paired_accuracy"] == 0.0, r
        assert r["paired_accuracy_n"] == r["n_pairs"] > 0


def test_always_act_acts_and_always_abstain_abstains(builtin_run):
    _, summary, _ = builtin_run
    for r in by_model(summary, "scripted/always_act"):
        assert (r["act_accuracy"], r["abstain_accuracy"]) == (1.0, 0.0)
    for r in by_model(summary, "scripted/always_abstain"):
        assert (r["act_accuracy"], r["abstain_accuracy"]) == (0.0, 1.0)


def test_post_hoc_policy_has_post_hoc_rate_one(builtin_run):
    _, summary, rows = builtin_run
    for r in by_model(summary, "scripted/post_hoc"):
        assert r["post_hoc_rate"] == 1.0, r
        assert r["abstain_accuracy"] == 0.0
    sample = next(r for r in rows if r["model"] == "scripted/post_hoc" and r["variant"] == "abstain")
    assert sample["decision"] == "act" and sample["stated"] == "abstain" and sample["critical_commits"] >= 1


def test_late_abstention_timeliness(builtin_run):
    _, summary, rows = builtin_run
    for r in by_model(summary, "scripted/late:3"):
        assert r["timely_rate"] == 0.0 and r["timely_rate_n"] > 0, r
        assert r["paired_accuracy"] == 1.0  # late, but still right
    for r in by_model(summary, "scripted/late:0"):
        assert r["timely_rate"] == 1.0, r
    lags = {r["lag"] for r in rows if r["model"] == "scripted/late:3" and r["variant"] == "abstain"}
    assert lags == {3}


def test_summary_json_has_the_documented_keys_and_no_nan(builtin_run):
    out, _, _ = builtin_run
    text = (out / "summary.json").read_text()
    assert "NaN" not in text and "Infinity" not in text
    summary = json.loads(text)
    for row in summary["rows"]:
        for key in ("model", "condition", "n_pairs", "paired_accuracy", "act_accuracy", "abstain_accuracy",
                    "post_hoc_rate", "timely_rate"):
            assert key in row
    always_act = next(r for r in summary["rows"] if r["model"] == "scripted/always_act")
    assert always_act["timely_rate"] is None and always_act["timely_rate_n"] == 0


def test_results_parquet_matches_jsonl(builtin_run):
    import pandas as pd

    out, _, rows = builtin_run
    frame = pd.read_parquet(out / "results.parquet")
    assert len(frame) == len(rows)
    assert frame["correct"].sum() == sum(r["correct"] for r in rows)
    assert set(frame.columns) >= {"pair_id", "variant", "model", "condition", "decision", "lag", "post_hoc"}


def test_report_is_written_and_self_contained(builtin_run):
    out, _, _ = builtin_run
    html = (out / "report.html").read_text()
    assert html.startswith("<!doctype html>")
    assert "data:image/png;base64," in html
    assert "scripted/oracle" in html and "Per pair" in html
    assert "<script src" not in html and "<link" not in html
