"""The LLM-judge path against the real local model: `evalkit judge eval --judge` and
`evalkit run --judge` over real HTTP. The tiny base model's verdicts are not asserted: each
must be a label or a counted judge error, and the run must record who decided."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.live

TEXTS = Path(__file__).resolve().parent.parent / "conditions" / "data" / "final_texts.jsonl"


def evalkit(*args, home, timeout=900):
    env = {**os.environ, "EVALKIT_CACHE_DIR": str(home)}
    return subprocess.run([sys.executable, "-m", "evalkit", *args], capture_output=True, text=True, env=env,
                          timeout=timeout)


def test_judge_eval_and_run_with_the_local_model(gemma_server, tmp_path):
    home = tmp_path / "home"
    few = tmp_path / "few.jsonl"
    few.write_text("\n".join(TEXTS.read_text(encoding="utf-8").splitlines()[:4]) + "\n", encoding="utf-8")
    out = tmp_path / "judge.json"
    proc = evalkit("judge", "eval", "--texts", str(few), "--judge", "local/gemma-3-270m", "--base-url",
                   gemma_server.base_url, "--json", str(out), home=home)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text(encoding="utf-8"))
    clf, judge = data["readers"]
    assert judge["reader"] == "judge local/gemma-3-270m" and judge["n"] == 4
    assert sum(sum(row.values()) for row in judge["confusion"].values()) == 4  # each a label or a judge error

    run_dir = tmp_path / "run"
    proc = evalkit("run", "-m", "scripted/oracle", "-c", "nl", "--limit", "1", "--judge", "local/gemma-3-270m",
                   "--base-url", gemma_server.base_url, "--out", str(run_dir), "--no-selfcheck", home=home)
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    assert rows and all(r["text_judge"] in ("classifier", "local/gemma-3-270m") for r in rows)
    manifest = json.loads((run_dir / "config.json").read_text())
    assert manifest["judge"]["judges"] == ["local/gemma-3-270m"]
