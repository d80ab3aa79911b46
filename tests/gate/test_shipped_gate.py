"""The shipped gate: gate.yaml, the committed baseline and the example CI workflow agree and pass."""

from __future__ import annotations

import json
import re
import shlex
import subprocess

import yaml
from gate_helpers import ROOT
from typer.testing import CliRunner

from evalkit.cli import app

BASELINE = ROOT / "reports" / "baseline"
WORKFLOW = ROOT / ".github" / "workflows" / "evalkit.yml"
STALE = "reports/baseline is stale or out of step: regenerate it with the command in reports/baseline/README.md"


def _options(args: list[str]) -> dict:
    """The `evalkit run` options that select the run: suites, models, conditions, pairs, gates."""
    out = {"suites": [], "models": [], "conditions": [], "pair_ids": [], "gates": []}
    names = {"--model": "models", "--condition": "conditions", "--pair": "pair_ids", "--gate": "gates"}
    it = iter(args[2:])  # after `evalkit run`
    for arg in it:
        if arg in names:
            out[names[arg]].append(next(it))
        elif arg == "--out":
            next(it)
        elif not arg.startswith("-"):
            out["suites"].append(arg)
    return out


def _manifest_options() -> dict:
    config = json.loads((BASELINE / "config.json").read_text())["config"]
    return {k: config[k] for k in ("suites", "models", "conditions", "pair_ids", "gates")}


def test_workflow_and_readme_run_the_baselines_selection():
    manifest = _manifest_options()
    steps = yaml.safe_load(WORKFLOW.read_text())["jobs"]["gate"]["steps"]
    run = next(s["run"] for s in steps if s.get("run", "").startswith("evalkit run"))
    workflow = _options(shlex.split(run))
    assert {**workflow, "gates": workflow["gates"] or ["off"]} == manifest, STALE
    assert any("evalkit gate" in s.get("run", "") and "--config gate.yaml" in s["run"] for s in steps)
    readme = (BASELINE / "README.md").read_text()
    command = re.search(r"```bash\n(evalkit run .*?)\n```", readme, re.S).group(1).replace("\\\n", " ")
    documented = _options(shlex.split(command))
    assert {**documented, "gates": documented["gates"] or ["off"]} == manifest, STALE


def test_only_the_files_the_gate_reads_are_committed():
    names = {p.name for p in BASELINE.iterdir()}
    assert {"config.json", "summary.json", "results.jsonl"} <= names
    tracked = ["README.md", "config.json", "summary.json", "results.jsonl"]
    ignored = ["traces/x.jsonl", "results.parquet", "selfcheck.json", "report.html", "gate-junit.xml"]
    proc = subprocess.run(["git", "check-ignore", "--no-index", *(f"reports/baseline/{n}" for n in tracked + ignored)],
                          capture_output=True, text=True, cwd=ROOT)
    assert sorted(proc.stdout.split()) == sorted(f"reports/baseline/{n}" for n in ignored)
    assert (BASELINE / "results.jsonl").stat().st_size + (BASELINE / "summary.json").stat().st_size < 400_000


def test_a_fresh_run_of_the_workflow_passes_the_shipped_gate(tmp_path):
    from evalkit.harness.run import RunConfig
    from evalkit.pipeline import run

    config = json.loads((BASELINE / "config.json").read_text())["config"]
    config.update(out=str(tmp_path / "ci"), suites=[str(ROOT / s) for s in config["suites"]])
    run(RunConfig(**config))
    result = CliRunner().invoke(app, ["gate", str(tmp_path / "ci"), "--config", str(ROOT / "gate.yaml")])
    assert result.exit_code == 0, (STALE, result.output[-3000:])
    assert "gate PASS: 0 of 37 checks failed, 0 without data (exit 0)" in result.stdout
    summary = (tmp_path / "ci" / "gate-summary.md").read_text()
    assert summary.startswith("## evalkit gate: ✅ PASS (exit 0)") and f"baseline {BASELINE} ·" in summary
