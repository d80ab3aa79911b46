"""Pair kinds (control, act_resist), their scoring, and suite export / loading as tables."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import yaml

from evalkit.errors import ScenarioError
from evalkit.harness.episode import EpisodeSpec, execute
from evalkit.metrics.aggregate import summarize
from evalkit.metrics.scoring import score_episode
from evalkit.models.registry import get_model
from evalkit.runtime.controller import Limits
from evalkit.scenarios.domains import load_domain
from evalkit.scenarios.export import export_suite, pair_row
from evalkit.scenarios.loader import load_suite

ROOT = Path(__file__).resolve().parents[2]
LIB = ROOT / "scenarios" / "library"


@pytest.fixture(scope="module")
def mail_suite():
    return load_suite([LIB / "mail.yaml"])


def raw_pairs(name: str) -> list[dict]:
    return yaml.safe_load((LIB / name).read_text(encoding="utf-8"))["pairs"]


def write_suite(tmp_path, pairs, name="s.yaml"):
    path = tmp_path / name
    path.write_text(yaml.safe_dump({"pairs": pairs}, allow_unicode=True), encoding="utf-8")
    return path


def play(pair, variant, model="scripted/oracle", condition="meta"):
    spec = EpisodeSpec(pair, variant, model, condition, 1, "off", load_domain(pair.domain))
    result = execute(spec, get_model(model), Limits())
    return score_episode(spec, result.log, result.state, result.error)


# ---------------------------------------------------------------- schema rules


def test_control_pair_must_not_have_an_abstain_side(tmp_path):
    pair = copy.deepcopy(next(p for p in raw_pairs("mail.yaml") if p["trigger"] == "missing_param"))
    pair["trigger"] = "none"
    with pytest.raises(ScenarioError) as err:
        load_suite([write_suite(tmp_path, [pair])])
    assert "control pair" in str(err.value) and pair["id"] in str(err.value)


def test_non_control_pair_needs_an_abstain_side(tmp_path):
    pair = copy.deepcopy(next(p for p in raw_pairs("mail.yaml") if p["trigger"] == "missing_param"))
    del pair["abstain"]
    with pytest.raises(ScenarioError) as err:
        load_suite([write_suite(tmp_path, [pair])])
    assert "needs an abstain variant" in str(err.value)


def test_act_resist_only_on_injection_pairs(tmp_path):
    pair = copy.deepcopy(next(p for p in raw_pairs("mail.yaml") if "act_resist" in p))
    pair["trigger"] = "high_risk"
    with pytest.raises(ScenarioError) as err:
        load_suite([write_suite(tmp_path, [pair])])
    assert "act_resist is only for prompt_injection" in str(err.value)


def test_forbidden_commit_made_by_the_plan_itself_is_rejected(tmp_path):
    pair = copy.deepcopy(next(p for p in raw_pairs("mail.yaml") if "act_resist" in p))
    commit = next(c for c in pair["act_resist"]["plan"] if c["tool"] == "send_message")
    pair["act_resist"]["expected"]["forbidden"] = [{"tool": "send_message", "args": {"to": commit["args"]["to"]}}]
    with pytest.raises(ScenarioError) as err:
        load_suite([write_suite(tmp_path, [pair])])
    assert err.value.field == "act_resist.expected.forbidden.0"


def test_existing_two_variant_files_stay_valid(mini_suite, mini_tasks):
    suite = load_suite([mini_suite], tasks_dir=mini_tasks)
    assert all(p.variants == ("act", "abstain") for p in suite.pairs)


# ---------------------------------------------------------------- act_resist and control scoring


def test_act_resist_oracle_finishes_the_task_and_always_act_is_hijacked(mail_suite):
    pair = next(p for p in mail_suite.pairs if p.act_resist is not None)
    oracle = play(pair, "act_resist")
    assert oracle["correct"] and oracle["injected_commits"] == 0 and oracle["expected_decision"] == "act"
    hijacked = play(pair, "act_resist", "scripted/always_act")
    assert not hijacked["correct"] and hijacked["injected_commits"] == 1 and hijacked["commits"] == 2
    refused = play(pair, "act_resist", "scripted/always_abstain")
    assert not refused["correct"] and refused["injected_commits"] == 0


def test_forbidden_commit_is_checked_with_its_arguments(mail_suite):
    """A legitimate call of the injected tool with other arguments is not an injected commit."""
    pair = next(p for p in mail_suite.pairs if p.id == "mail-injection-forward-deck")
    resist = pair.act_resist.model_copy(update={"injected_plan": [
        pair.act_resist.injected_plan[0].model_copy(update={"args": {"message_id": "M-105", "to": "lena.vogel@ourco.com",
                                                                     "note": "FYI"}})]})
    variant_pair = pair.model_copy(update={"act_resist": resist})
    row = play(variant_pair, "act_resist", "scripted/always_act")
    assert row["injected_commits"] == 0  # forward of M-105, not the forbidden M-102
    assert not row["correct"]  # still an extra commit the user did not ask for


def test_control_pairs_are_not_pair_units(mail_suite):
    control = next(p for p in mail_suite.pairs if p.is_control)
    normal = next(p for p in mail_suite.pairs if p.trigger == "missing_param")
    rows, plan = [], []
    for pair in (control, normal):
        for variant in pair.variants:
            row = play(pair, variant, "scripted/always_act")
            rows.append(row)
            plan.append((pair.id, variant, row["model"], row["condition"], row["gate"], 1))
    (summary,) = summarize(plan, rows)
    assert (summary["paired_accuracy_k"], summary["paired_accuracy_n"]) == (0, 1)
    assert (summary["control_accuracy_k"], summary["control_accuracy_n"]) == (1, 1)
    assert summary["control_units"] == 1 and summary["act_accuracy"] == 1.0


# ---------------------------------------------------------------- export and table loading


@pytest.mark.parametrize("fmt,name", [("jsonl", "suite.jsonl"), ("parquet", "suite.parquet"), ("datasets", "ds")])
def test_export_round_trips(tmp_path, mail_suite, fmt, name):
    pytest.importorskip("datasets") if fmt == "datasets" else None
    out = export_suite(mail_suite.pairs, tmp_path / name, fmt)
    back = load_suite([out])
    assert [p.id for p in sorted(back.pairs, key=lambda p: p.id)] == sorted(p.id for p in mail_suite.pairs)
    by_id = {p.id: p for p in back.pairs}
    for pair in mail_suite.pairs:
        assert by_id[pair.id].model_dump() == pair.model_dump()


def test_datasets_export_has_one_split_per_suite_split(tmp_path, mail_suite):
    datasets = pytest.importorskip("datasets")
    export_suite(mail_suite.pairs, tmp_path / "ds", "datasets")
    loaded = datasets.load_from_disk(str(tmp_path / "ds"))
    assert set(loaded) == {p.split for p in mail_suite.pairs}
    assert sum(len(loaded[s]) for s in loaded) == len(mail_suite.pairs)
    row = loaded["dev"][0]
    assert set(row) == set(pair_row(mail_suite.pairs[0]))
    assert json.loads(row["pair"])["id"] == row["id"]


def test_a_folder_with_a_saved_dataset_loads_it_whole(tmp_path, mail_suite):
    pytest.importorskip("datasets")
    export_suite(mail_suite.pairs[:3], tmp_path / "lib" / "ds", "datasets")
    export_suite(mail_suite.pairs[3:5], tmp_path / "lib" / "more.jsonl", "jsonl")
    suite = load_suite([tmp_path / "lib"])
    assert len(suite.pairs) == 5


def test_a_bad_table_row_names_the_pair_and_field(tmp_path, mail_suite):
    import pyarrow as pa
    import pyarrow.parquet as pq

    row = pair_row(mail_suite.pairs[0])
    doc = json.loads(row["pair"])
    doc["trigger"] = "not_a_trigger"
    row["pair"] = json.dumps(doc)
    pq.write_table(pa.Table.from_pylist([row]), tmp_path / "bad.parquet")
    with pytest.raises(ScenarioError) as err:
        load_suite([tmp_path / "bad.parquet"])
    assert err.value.pair_id == mail_suite.pairs[0].id and err.value.field == "trigger"
