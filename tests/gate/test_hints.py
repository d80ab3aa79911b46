"""The gate and rules commands point the way: an unfinished run gets the ``--resume`` command, a
baseline without the run's model gets the ``regression.models`` hint, ``rules distill`` and
``rules replay`` warn on an unfinished run, and the quickstart's gate step works as documented."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from gate_helpers import copy_run

ROOT = Path(__file__).resolve().parents[2]


def evalkit(*args, cwd):
    return subprocess.run([sys.executable, "-m", "evalkit", *args], capture_output=True, text=True, timeout=600,
                          cwd=cwd)


@pytest.fixture
def unfinished(runs, tmp_path) -> Path:
    """A copy of the oracle run, traces included, as an interrupted run leaves it (no summary.json)."""
    import shutil

    run = tmp_path / "unfinished"
    shutil.copytree(runs["oracle"], run)
    (run / "summary.json").unlink()
    return run


def test_gate_on_an_unfinished_run_prints_the_resume_command(unfinished, write_config, tmp_path):
    config = write_config("thresholds: [{metric: paired_accuracy, min: 0.75}]\n")
    proc = evalkit("gate", str(unfinished), "--config", str(config), cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip() == (f"evalkit: error: {unfinished}: no summary.json: the run did not finish; continue "
                                   f"it with `evalkit run --resume {unfinished}`, then gate it")


def test_an_unfinished_baseline_also_names_the_resume_command(runs, unfinished, write_config, tmp_path):
    config = write_config(f"regression: {{baseline: {unfinished}, checks: [{{metric: paired_accuracy}}]}}\n")
    proc = evalkit("gate", str(runs["oracle"]), "--config", str(config), cwd=tmp_path)
    assert proc.returncode == 2
    assert f"continue it with `evalkit run --resume {unfinished}`" in proc.stderr


def test_a_baseline_without_the_runs_model_names_regression_models(runs, write_config, tmp_path):
    config = write_config(f"regression: {{baseline: {runs['oracle']}, checks: [{{metric: paired_accuracy}}]}}\n")
    run = copy_run(runs["late3"], tmp_path / "late3")
    proc = evalkit("gate", str(run), "--config", str(config), "--markdown", str(tmp_path / "s.md"), cwd=tmp_path)
    assert proc.returncode == 2
    summary = " ".join((tmp_path / "s.md").read_text().split())
    assert ("the baseline has no model scripted/late:3, only scripted/oracle: to compare scripted/late:3 with one of "
            "them, map it under regression.models in the gate config, e.g. "
            '`models: {"scripted/late:3": "scripted/oracle"}`') in summary
    # with the mapping the groups are compared (late:3 is right on every pair, so no regression)
    mapped = write_config(f"regression: {{baseline: {runs['oracle']}, models: {{'scripted/late:3': scripted/oracle}}, "
                          "checks: [{metric: paired_accuracy}]}\n", name="mapped.yaml")
    proc = evalkit("gate", str(run), "--config", str(mapped), cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "regression.models" not in proc.stdout


def test_rules_distill_and_replay_warn_on_an_unfinished_run(runs, unfinished, tmp_path):
    warning = (f"evalkit: warning: {unfinished}: no summary.json: the run did not finish; continue it with "
               f"`evalkit run --resume {unfinished}`; ")
    proc = evalkit("rules", "distill", str(unfinished), "--out", str(tmp_path / "draft.yaml"), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.startswith(warning + "the draft is distilled from the episodes recorded so far\n")
    proc = evalkit("rules", "replay", str(unfinished), "--rules", "default", cwd=tmp_path)
    assert proc.returncode in (0, 1), proc.stderr
    assert proc.stderr.startswith(warning + "the replay covers the traces recorded so far\n")
    for command in (["distill", str(runs["oracle"]), "--out", str(tmp_path / "d2.yaml")],
                    ["replay", str(runs["oracle"]), "--rules", "default"]):
        proc = evalkit("rules", *command, cwd=tmp_path)
        assert "did not finish" not in proc.stderr


def test_the_quickstart_gate_step_passes_on_the_library_run(tmp_path):
    # the quickstart's `evalkit run` (default models, conditions and --out) on a stratified sample
    # of the whole library, then its documented next step
    proc = evalkit("run", "--sample", "24", "--seed", "1", "--no-report", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    proc = evalkit("gate", "reports/latest", "--config", str(ROOT / "gate-library.yaml"), cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "gate PASS: 0 of " in proc.stdout and proc.stderr == ""
    readme = (ROOT / "README.md").read_text()
    assert "evalkit gate reports/latest --config gate-library.yaml" in " ".join(readme.split())
