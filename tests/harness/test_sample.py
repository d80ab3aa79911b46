"""``--sample N [--seed S]``: a sample of pairs stratified by trigger × domain × split,
deterministic for a seed, recorded in the run manifest and kept by ``--resume``; ``--limit``
keeps taking the first N pairs in file order."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from evalkit.errors import ConfigError
from evalkit.harness.run import RunConfig
from evalkit.pipeline import resume_run, run
from evalkit.scenarios.loader import load_suite
from evalkit.scenarios.sample import stratified_sample

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def builtin():
    return load_suite([])  # the built-in scenarios/ folder, as `evalkit run` loads it


def evalkit(*args, cwd):
    return subprocess.run([sys.executable, "-m", "evalkit", *args], capture_output=True, text=True, timeout=600,
                          cwd=cwd)


@pytest.mark.parametrize("seed", range(12))
def test_24_pairs_cover_every_trigger_evenly_and_spread_domains(builtin, seed):
    triggers = {p.trigger for p in builtin.pairs}
    domains = {p.domain for p in builtin.pairs}
    drawn = stratified_sample(builtin.pairs, 24, seed)
    assert len(drawn) == len({p.id for p in drawn}) == 24
    per_trigger = Counter(p.trigger for p in drawn)
    assert set(per_trigger) == triggers
    assert max(per_trigger.values()) - min(per_trigger.values()) <= 1
    per_domain = Counter(p.domain for p in drawn)
    assert len(per_domain) >= len(domains) - 1 and max(per_domain.values()) <= 3
    order = {p.id: i for i, p in enumerate(builtin.pairs)}
    assert [order[p.id] for p in drawn] == sorted(order[p.id] for p in drawn)  # suite order


def test_the_first_24_pairs_in_file_order_do_not(builtin):
    first = builtin.select(limit=24).pairs
    assert len({p.trigger for p in first}) < len({p.trigger for p in builtin.pairs})


def test_a_sample_is_a_function_of_the_suite_and_the_seed(builtin):
    ids = [[p.id for p in stratified_sample(builtin.pairs, 30, seed)] for seed in (1, 1, 2, 3)]
    assert ids[0] == ids[1]
    assert ids[0] != ids[2] or ids[0] != ids[3]
    assert [p.id for p in builtin.select(sample=30, seed=1).pairs] == ids[0]


def test_small_and_large_samples(builtin):
    assert stratified_sample(builtin.pairs, len(builtin.pairs) + 5, 0) == list(builtin.pairs)
    assert len(stratified_sample(builtin.pairs, 1, 0)) == 1
    few = stratified_sample(builtin.pairs, 5, 7)
    assert len({p.trigger for p in few}) == 5
    with pytest.raises(ValueError):
        stratified_sample(builtin.pairs, 0, 0)


def test_a_sample_within_named_pairs(builtin):
    named = [p.id for p in builtin.pairs[:40]]
    drawn = builtin.select(pair_ids=named, sample=10, seed=3).pairs
    assert len(drawn) == 10 and {p.id for p in drawn} <= set(named)


def test_sample_and_limit_together_are_refused():
    with pytest.raises(ConfigError, match="--sample and --limit"):
        RunConfig(sample=5, limit=5)


def test_run_sample_24_seed_1_covers_every_trigger(tmp_path, builtin):
    proc = evalkit("run", "--sample", "24", "--seed", "1", "--no-report", "--out", str(tmp_path / "run"), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in (tmp_path / "run" / "results.jsonl").read_text().splitlines()]
    assert {r["trigger"] for r in rows} == {p.trigger for p in builtin.pairs}
    assert len({r["pair_id"] for r in rows}) == 24
    manifest = json.loads((tmp_path / "run" / "config.json").read_text())
    assert manifest["config"]["sample"] == 24 and manifest["config"]["seed"] == 1
    record = manifest["sample"]
    assert (record["n"], record["seed"], record["drawn"]) == (24, 1, 24)
    assert sorted(record["pair_ids"]) == sorted({r["pair_id"] for r in rows})
    assert set(record["trigger"]) == {p.trigger for p in builtin.pairs} and sum(record["domain"].values()) == 24


def test_resume_keeps_the_sample_and_refuses_a_different_draw(tmp_path):
    out = tmp_path / "run"
    config = RunConfig(models=["scripted/oracle"], conditions=["nl"], out=str(out), report=False, sample=6, seed=4,
                       selfcheck=False)
    full = run(config)
    rows = (out / "results.jsonl").read_text().splitlines()
    (out / "results.jsonl").write_text("\n".join(rows[:3]) + "\n")
    (out / "summary.json").unlink()
    resumed = resume_run(out)
    assert resumed["rows"] == full["rows"]
    after = {json.loads(line)["pair_id"] for line in (out / "results.jsonl").read_text().splitlines()}
    assert after == set(json.loads((out / "config.json").read_text())["sample"]["pair_ids"])
    manifest = json.loads((out / "config.json").read_text())
    manifest["sample"]["pair_ids"] = manifest["sample"]["pair_ids"][::-1]
    (out / "config.json").write_text(json.dumps(manifest))
    (out / "summary.json").unlink()
    with pytest.raises(ConfigError, match="field sample.pair_ids: the sample drawn again differs"):
        resume_run(out)


def test_limit_help_says_file_order():
    from typer.testing import CliRunner

    from evalkit.cli import app

    text = " ".join(CliRunner().invoke(app, ["run", "--help"], env={"COLUMNS": "200"}).output.split())
    assert "Only the first N pairs in file order" in text and "--sample" in text


def test_a_manifest_written_before_later_options_existed_still_resumes_its_config(tmp_path):
    from evalkit.harness.config import ADDED_FIELDS, load_config

    manifest = json.loads((ROOT / "reports" / "baseline" / "config.json").read_text())
    for name in ADDED_FIELDS:  # as written before --sample, --judge, --agent, --user existed
        manifest["config"].pop(name, None)
    (tmp_path / "config.json").write_text(json.dumps(manifest), encoding="utf-8")
    config = load_config(tmp_path)  # its config_sha256 still matches
    assert config.sample is None and config.pair_ids and config.judges == [] and config.user == "cooperative"
