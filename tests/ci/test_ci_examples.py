"""The example CI workflows cannot rot: their steps are the scripts in .ci/, and these tests run
those scripts with scripted models (the live gate with its baseline refresh, and the weekly
stopping-rule review) and check that the workflows call them as documented."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
LIVE = ROOT / ".github" / "workflows" / "evalkit-live.yml"
WEEKLY = ROOT / ".github" / "workflows" / "evalkit-weekly-rules.yml"
PAIRS = "shop-order-missing-quantity ws-delete-file-not-found shop-refund-payment-mismatch"


def steps(path: Path) -> list[dict]:
    (job,) = yaml.safe_load(path.read_text())["jobs"].values()
    return job["steps"]


def env(path: Path) -> dict:
    (job,) = yaml.safe_load(path.read_text())["jobs"].values()
    return job["env"]


def script(name: str, mode: str | None, tmp: Path, **extra: str) -> subprocess.CompletedProcess:
    """Run a .ci script from the repository root with evalkit from this checkout."""
    path = tmp / "bin"
    path.mkdir(exist_ok=True)
    shim = path / "evalkit"  # `evalkit` on PATH is this checkout's, whatever is installed
    shim.write_text(f"#!/bin/sh\nexec {sys.executable} -m evalkit \"$@\"\n")
    shim.chmod(0o755)
    environ = {**os.environ, "PATH": f"{path}{os.pathsep}{os.environ['PATH']}", "MPLBACKEND": "Agg",
               "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
               "EVALKIT_CACHE_DIR": str(tmp / "cache"), **extra}
    args = [str(ROOT / ".ci" / name)] + ([mode] if mode else [])
    return subprocess.run(args, cwd=ROOT, env=environ, capture_output=True, text=True, timeout=600)


def has_sample_flag() -> bool:
    out = subprocess.run([sys.executable, "-m", "evalkit", "run", "--help"], capture_output=True, text=True,
                         cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"})
    return "--sample" in out.stdout


def test_the_live_workflow_gates_the_way_a_team_would():
    s = steps(LIVE)
    e = env(LIVE)
    assert e["OPENAI_API_KEY"] == "${{ secrets.OPENAI_API_KEY }}"
    cache = next(x for x in s if x.get("uses", "").startswith("actions/cache@"))
    assert cache["with"]["path"] == ".evalkit-cache" and e["EVALKIT_CACHE_DIR"].endswith("/.evalkit-cache")
    assert "restore-keys" in cache["with"]
    runs = [x.get("run", "") for x in s]
    assert ".ci/evalkit-live-gate.sh gate" in runs and ".ci/evalkit-live-gate.sh baseline" in runs
    assert any("GITHUB_STEP_SUMMARY" in r and "gate-summary.md" in r for r in runs)
    assert e["SAMPLE"] and e["SEED"] and e["GATE_CONFIG"] == "gate-live.yaml"
    assert "MODEL=openai/gpt-4o-mini .ci/evalkit-live-gate.sh baseline" in LIVE.read_text()


def test_the_weekly_workflow_is_scheduled_and_publishes_its_summary():
    on = yaml.safe_load(WEEKLY.read_text())[True]  # YAML 1.1 reads the key `on` as true
    assert on["schedule"][0]["cron"] and "workflow_dispatch" in on
    runs = [x.get("run", "") for x in steps(WEEKLY)]
    assert ".ci/evalkit-weekly-review.sh" in runs
    assert any("GITHUB_STEP_SUMMARY" in r and "summary.md" in r for r in runs)


def _gate_twice(tmp: Path, **selection: str) -> subprocess.CompletedProcess:
    common = {"MODEL": "scripted/oracle", "CONDITIONS": "nl meta", "RUN": str(tmp / "live"),
              "BASELINE": str(tmp / "live-baseline"), **selection}
    refreshed = script("evalkit-live-gate.sh", "baseline", tmp, **common)
    assert refreshed.returncode == 0, refreshed.stderr[-2000:]
    assert "baseline refreshed" in refreshed.stdout
    assert {p.name for p in (tmp / "live-baseline").iterdir()} >= {"config.json", "summary.json", "results.jsonl"}
    gated = script("evalkit-live-gate.sh", "gate", tmp, **common)
    assert gated.returncode == 0, (gated.stdout[-3000:], gated.stderr[-2000:])
    assert "gate PASS" in gated.stdout
    assert (tmp / "live" / "gate-summary.md").read_text().startswith("## evalkit gate: ✅ PASS")
    return gated


def test_the_live_gate_script_with_a_fixed_pair_list(tmp_path):
    _gate_twice(tmp_path, PAIRS=PAIRS)


@pytest.mark.skipif(not has_sample_flag(), reason="`evalkit run --sample` is not in this checkout yet")
def test_the_live_gate_script_with_a_sample(tmp_path):
    _gate_twice(tmp_path, SAMPLE="12", SEED="1")


def test_the_weekly_review_script(tmp_path):
    week = []
    for model in ("scripted/oracle", "scripted/always_act"):  # the week's runs, the latest with misactions
        out = tmp_path / model.split("/")[1]
        args = [sys.executable, "-m", "evalkit", "run", "scenarios/builtin.yaml", "--model", model,
                "--condition", "tool", "--no-report", "--out", str(out)]
        for p in PAIRS.split():
            args += ["--pair", p]
        proc = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=300,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert proc.returncode == 0, proc.stderr[-2000:]
        week.append(str(out))
    review = script("evalkit-weekly-review.sh", None, tmp_path, RUNS=" ".join(week), PAIRS=PAIRS,
                    MODEL="scripted/oracle scripted/always_act", OUT=str(tmp_path / "weekly"))
    assert review.returncode == 0, (review.stdout[-3000:], review.stderr[-2000:])
    summary = (tmp_path / "weekly" / "summary.md").read_text()
    assert summary.startswith("## evalkit weekly stopping-rule review")
    for title in ("### rules eval: candidate vs current (exit 0)",
                  "### rules replay: the week's traces against the candidate (exit",
                  "### rules distill: draft from"):
        assert title in summary
    assert (tmp_path / "weekly" / "eval" / "rules-eval.json").is_file()
    assert (tmp_path / "weekly" / "replay.json").is_file()
    assert (tmp_path / "weekly" / "rules-draft.yaml").is_file()
