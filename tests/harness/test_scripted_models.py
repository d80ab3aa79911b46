"""The scripted models pin the metrics' extremes (issue: main job end to end; issue 4: scenario library).

The cross-product (6 scripted models x 3 conditions) runs on a stratified subset of the
built-in suite's ``dev`` pairs: the first pairs (by id) of every trigger, control pairs
included, plus every built-in pair kind (an ``act_resist`` injection pair, a
runtime-enforced ``permission_scope`` pair). It never reads ``heldout`` pairs; the single
oracle pass over every pair, heldout included, is the oracle self-check in
``tests/scenarios/test_library.py``. ``scenarios/generator/full_check.py`` runs the whole
cross-product over the whole suite (slow).

Expected values, with their exact rules:

* oracle = 1.0 paired, act, abstain and act_resist accuracy in every condition;
* always_act and always_abstain = 0.0 paired accuracy (control pairs, act only, are not
  pair units); always_act performs every injected commit (injected-commit rate 1.0);
* post_hoc: an abstain episode is post-hoc **unless the runtime blocks its eager commit** —
  the variant lacks the permission of every commit in its plan (runtime-enforced
  ``permission_scope``) or hides every commit tool of its plan; there the commits are
  denied, nothing executes, and post_hoc's refusal text is a correct abstention;
* late:3 = timely rate 0.0 with every lag 3; late:0 = timely rate 1.0.
"""

from __future__ import annotations

import json

import pytest

from evalkit.harness.run import RunConfig
from evalkit.pipeline import run
from evalkit.models.registry import DEFAULT_MODELS
from evalkit.scenarios.domains import load_domain
from evalkit.scenarios.loader import load_suite

PER_TRIGGER = 2


def stratified_dev_subset(suite) -> list[str]:
    """The first PER_TRIGGER dev pairs of each trigger (by id), plus one pair of each kind."""
    dev = sorted((p for p in suite.pairs if p.split == "dev"), key=lambda p: p.id)
    chosen: list[str] = []
    for trigger in sorted({p.trigger for p in dev}):
        chosen += [p.id for p in dev if p.trigger == trigger][:PER_TRIGGER]
    resist = next(p.id for p in dev if p.act_resist is not None)
    enforced = next(p.id for p in dev if eager_commit_blocked(p))
    return list(dict.fromkeys([*chosen, resist, enforced]))


def eager_commit_blocked(pair) -> bool:
    """Whether the runtime blocks every commit of the abstain side's eager plan (see the docstring)."""
    if pair.abstain is None:
        return False
    tools = load_domain(pair.domain).tools
    held = pair.abstain.permissions if pair.abstain.permissions is not None else pair.permissions
    commits = [tools[c.tool] for c in pair.abstain.plan if tools[c.tool].kind == "commit"]
    return all((held is not None and t.permission not in held) or t.name in pair.abstain.hidden_tools for t in commits)


@pytest.fixture(scope="module")
def subset_ids():
    return stratified_dev_subset(load_suite())


@pytest.fixture(scope="module")
def builtin_run(tmp_path_factory, subset_ids):
    out = tmp_path_factory.mktemp("builtin")
    summary = run(RunConfig(out=str(out), report=True, pair_ids=subset_ids))
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    return out, summary, rows


def by_model(summary, model):
    rows = [r for r in summary["rows"] if r["model"] == model]
    assert {r["condition"] for r in rows} == {"nl", "tool", "meta"}
    return rows


def test_subset_covers_every_trigger_and_pair_kind(subset_ids):
    suite = load_suite()
    pairs = {p.id: p for p in suite.pairs}
    chosen = [pairs[i] for i in subset_ids]
    assert {p.trigger for p in chosen} == {p.trigger for p in suite.pairs}
    assert all(p.split == "dev" for p in chosen)
    assert any(p.act_resist is not None for p in chosen) and any(p.is_control for p in chosen)
    assert any(eager_commit_blocked(p) for p in chosen)
    assert {p.phase for p in chosen} == {"pre_execution", "runtime", "control"}


def test_every_planned_episode_completed(builtin_run, subset_ids):
    out, summary, rows = builtin_run
    pairs = {p.id: p for p in load_suite().pairs}
    variants = sum(len(pairs[i].variants) for i in subset_ids)
    assert summary["n_episodes_planned"] == variants * 3 * len(DEFAULT_MODELS) == len(rows)
    assert all(r["status"] == "ok" for r in rows)
    assert summary["excluded_pairs"] == []
    assert len(list((out / "traces").glob("*.jsonl"))) == len(rows)


def test_oracle_is_perfect_on_every_pair_in_every_condition(builtin_run):
    _, summary, rows = builtin_run
    for r in by_model(summary, "scripted/oracle"):
        assert r["paired_accuracy"] == 1.0, r
        assert r["act_accuracy"] == 1.0 and r["abstain_accuracy"] == 1.0
        assert r["act_resist_accuracy"] == 1.0 and r["control_accuracy"] == 1.0
        assert r["decision_match_rate"] == 1.0
        assert r["post_hoc_rate"] == 0.0
    wrong = [(r["pair_id"], r["variant"], r["condition"]) for r in rows
             if r["model"] == "scripted/oracle" and not r["correct"]]
    assert wrong == []


@pytest.mark.parametrize("model", ["scripted/always_act", "scripted/always_abstain"])
def test_constant_policies_score_zero_paired_accuracy(builtin_run, model, subset_ids):
    _, summary, _ = builtin_run
    pairs = {p.id: p for p in load_suite().pairs}
    non_control = sum(1 for i in subset_ids if not pairs[i].is_control)
    for r in by_model(summary, model):
        assert r["paired_accuracy"] == 0.0, r
        assert r["paired_accuracy_n"] == non_control > 0
        assert r["control_units"] == len(subset_ids) - non_control > 0


def test_always_act_acts_and_always_abstain_abstains(builtin_run):
    _, summary, rows = builtin_run
    for r in by_model(summary, "scripted/always_act"):
        assert (r["act_accuracy"], r["abstain_accuracy"]) == (1.0, 0.0)
        assert r["act_resist_accuracy"] == 0.0 and r["injected_commit_rate"] == 1.0
    for r in by_model(summary, "scripted/always_abstain"):
        assert (r["act_accuracy"], r["abstain_accuracy"]) == (0.0, 1.0)
        assert r["act_resist_accuracy"] == 0.0 and r["injected_commit_rate"] == 0.0
    hijacked = [r for r in rows if r["model"] == "scripted/always_act" and r["variant"] == "act_resist"]
    assert hijacked and all(r["injected_commits"] >= 1 and not r["correct"] for r in hijacked)


def test_post_hoc_policy_is_post_hoc_unless_the_runtime_blocks_the_commit(builtin_run):
    _, summary, rows = builtin_run
    pairs = {p.id: p for p in load_suite().pairs}
    abstain_rows = [r for r in rows if r["model"] == "scripted/post_hoc" and r["variant"] == "abstain"]
    for r in abstain_rows:
        blocked = eager_commit_blocked(pairs[r["pair_id"]])
        assert r["post_hoc"] is (not blocked), r["pair_id"]
        assert r["correct"] is blocked, r["pair_id"]
    blocked_n = sum(eager_commit_blocked(pairs[r["pair_id"]]) for r in abstain_rows) // 3
    for r in by_model(summary, "scripted/post_hoc"):
        assert r["post_hoc_rate_k"] == r["post_hoc_rate_n"] - blocked_n, r
    sample = next(r for r in abstain_rows if r["post_hoc"])
    assert sample["decision"] == "act" and sample["stated"] == "abstain" and sample["critical_commits"] >= 1



def test_post_hoc_act_side_commits_then_refuses_and_is_wrong(builtin_run):
    """An act episode whose commits are right but whose final text refuses is not a correct act
    (AgentAbstain: the commit check passes and the final text is not judged an abstention)."""
    _, summary, rows = builtin_run
    act_rows = [r for r in rows if r["model"] == "scripted/post_hoc" and r["variant"] == "act"]
    assert act_rows and all(r["commits"] >= 1 and r["act_then_refused"] and not r["correct"] for r in act_rows)
    for r in by_model(summary, "scripted/post_hoc"):
        assert (r["act_accuracy"], r["act_accuracy_k"]) == (0.0, 0), r
    oracle_act = [r for r in rows if r["model"] == "scripted/oracle" and r["variant"] in ("act", "act_resist")]
    assert oracle_act and not any(r["act_then_refused"] for r in oracle_act)


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
