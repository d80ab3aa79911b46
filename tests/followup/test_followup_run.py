"""Follow-up metrics over whole runs: summary rows, the CLI table, the gate catalogue, and the
``--user`` persona in the manifest and on ``--resume``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalkit.gate.catalogue import metric_kinds, not_applicable
from evalkit.harness.config import ADDED_FIELDS, config_sha256
from evalkit.harness.run import RunConfig
from evalkit.pipeline import resume_run, run

SUITE = Path(__file__).resolve().parent.parent / "fixtures" / "followup" / "shop_followup.yaml"
MODELS = ["scripted/oracle", "scripted/asks_ignores", "scripted/always_abstain", "scripted/always_act",
          "scripted/late:2"]


def _rows(summary):
    return {(r["model"], r["condition"]): r for r in summary["rows"]}


@pytest.fixture(scope="module")
def cooperative(tmp_path_factory):
    out = tmp_path_factory.mktemp("fu") / "run"
    return run(RunConfig(suites=[str(SUITE)], models=MODELS, out=str(out), report=False, selfcheck=False))


@pytest.mark.parametrize("condition", ["nl", "tool", "meta"])
def test_scripted_baselines_pin_recovery(cooperative, condition):
    rows = _rows(cooperative)
    oracle = rows["scripted/oracle", condition]
    assert (oracle["recovery_rate"], oracle["recovery_rate_k"], oracle["recovery_rate_n"]) == (1.0, 2, 2)
    assert oracle["resolved_paired_accuracy"] == 1.0 and oracle["resolved_paired_accuracy_n"] == 2
    assert oracle["paired_accuracy"] == 1.0 and oracle["abstain_accuracy"] == 1.0
    late = rows["scripted/late:2", condition]  # the oracle, late to stop: it still recovers
    assert (late["recovery_rate_k"], late["recovery_rate_n"]) == (2, 2)
    # requests are matched on the first phase: the question, not what follows the answer
    assert oracle["meta_precision"] == oracle["meta_recall"] == 1.0 and oracle["unsupported_assumption_rate"] == 0.0
    assert oracle["unsupported_assumption_rate_n"] == 15 and oracle["first_pass_rate"] == 1.0
    assert oracle["questions_per_episode"] == 1.0 and oracle["repeated_questions"] == 0
    assert oracle["repeated_question_rate"] == 0.0 and oracle["repeated_question_rate_n"] == 2
    asks = rows["scripted/asks_ignores", condition]
    assert asks["abstain_accuracy"] == 1.0 and asks["paired_accuracy"] == 1.0
    assert (asks["recovery_rate"], asks["recovery_rate_n"]) == (0.0, 2) and asks["resolved_paired_accuracy"] == 0.0
    abstain = rows["scripted/always_abstain", condition]
    assert abstain["recovery_rate"] == 0.0 and abstain["questions_per_episode"] == 0.0
    act = rows["scripted/always_act", condition]
    assert act["recovery_rate"] == 0.0 and act["abstain_accuracy"] == 0.0
    for r in rows.values():  # nobody met an unhelpful user
        assert r["unhelpful_commit_rate"] is None and r["unhelpful_commit_rate_n"] == 0


def test_breakdowns_hold_recovery_per_trigger(cooperative):
    by_trigger = {(r["model"], r["condition"], r["trigger"]): r for r in cooperative["breakdowns"]["trigger"]}
    assert by_trigger["scripted/oracle", "meta", "ambiguous_intent"]["recovery_rate"] == 1.0
    assert by_trigger["scripted/oracle", "meta", "missing_target"]["recovery_rate"] is None


def test_gate_catalogue_holds_the_followup_metrics(cooperative):
    kinds = metric_kinds()
    for name in ("recovery_rate", "resolved_paired_accuracy", "repeated_question_rate", "unhelpful_commit_rate"):
        assert kinds[name] == "rate"
    assert kinds["questions_per_episode"] == "mean" and kinds["commits_after_unhelpful"] == "count"
    row = _rows(cooperative)["scripted/oracle", "meta"]
    assert not_applicable("recovery_rate", row) is None
    assert not_applicable("recovery_rate", {**row, "recovery_rate_n": 0}) == \
        "the group has no planned abstain episodes with a follow-up"


def test_recovery_is_null_without_followup_pairs(tmp_path, mini_suite, mini_tasks):
    summary = run(RunConfig(suites=[str(mini_suite)], tasks_dir=str(mini_tasks), models=["scripted/oracle"],
                            conditions=["meta"], out=str(tmp_path / "run"), report=False))
    row = summary["rows"][0]
    assert row["recovery_rate"] is None and row["recovery_rate_n"] == 0
    assert row["resolved_paired_accuracy"] is None and row["questions_per_episode"] is None


def test_unhelpful_persona_is_recorded_and_honoured_on_resume(tmp_path):
    out = tmp_path / "run"
    config = RunConfig(suites=[str(SUITE)], models=["scripted/oracle"], conditions=["tool"], out=str(out),
                       report=False, selfcheck=False, user="unhelpful")
    full = run(config)
    manifest = json.loads((out / "config.json").read_text())
    assert manifest["config"]["user"] == "unhelpful" and manifest["config"]["followup_max_turns"] == 8
    row = full["rows"][0]
    assert row["recovery_rate"] == 1.0 and row["unhelpful_commit_rate"] == 0.0 and row["unhelpful_commit_rate_n"] == 2
    results = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    (out / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in results[:2]))
    resumed = resume_run(out)
    rows = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    assert {r["persona"] for r in rows if r["asked"]} == {"unhelpful"}
    assert resumed["rows"] == full["rows"]


def test_manifests_written_without_a_persona_keep_their_hash():
    plain = RunConfig(models=["scripted/oracle"])
    data = plain.model_dump(exclude={"out"})
    for name in ADDED_FIELDS:  # each later option at its default is left out of the hash
        del data[name]
    import hashlib
    old = hashlib.sha256(json.dumps(data, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
    assert config_sha256(plain) == old
    assert config_sha256(RunConfig(models=["scripted/oracle"], user="unhelpful")) != old


def test_cli_table_shows_recovery_beside_abstain(cooperative):
    from rich.console import Console

    from evalkit.report.console import summary_tables

    console = Console(width=400, record=True)
    for table in summary_tables(cooperative):
        console.print(table)
    text = console.export_text()
    header = next(line for line in text.splitlines() if "abstain" in line and "recovery" in line)
    assert header.index("abstain") < header.index("recovery")
    assert "1.000 (2/2)" in text and "0.000 (0/2)" in text


def test_recovery_counts_planned_episodes_even_without_a_row(tmp_path):
    from evalkit.metrics.aggregate import summarize
    from evalkit.metrics.keys import pair_attributes
    from evalkit.records import EpisodeKey
    from evalkit.scenarios.loader import load_suite

    out = tmp_path / "run"
    run(RunConfig(suites=[str(SUITE)], models=["scripted/oracle"], conditions=["meta"], out=str(out), report=False,
                  selfcheck=False))
    rows = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    plan = [EpisodeKey.of(r) for r in rows]
    attrs = pair_attributes(load_suite([str(SUITE)]).pairs)
    assert summarize(plan, rows)[0]["recovery_rate_n"] == 2  # read from the rows
    kept = [r for r in rows if not (r["pair_id"] == "fu-shop-ambiguous-mug" and r["variant"] == "abstain")]
    row = summarize(plan, kept, pairs=attrs)[0]
    assert (row["recovery_rate_k"], row["recovery_rate_n"], row["missing"]) == (1, 2, 1)
    assert (row["resolved_paired_accuracy_k"], row["resolved_paired_accuracy_n"]) == (1, 2)
