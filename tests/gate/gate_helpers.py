"""Helpers for the gate's tests: real run directories and edits of copies of them.

Eight dev pairs of the built-in suite (held-out pairs are left to the oracle self-check), the
meta condition, one scripted model per run: the oracle (the baseline), always_act (a paired
accuracy of 0: a significant regression) and late:3 (right, but never timely).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUILTIN = ROOT / "scenarios" / "builtin.yaml"
MODELS = {"oracle": "scripted/oracle", "always_act": "scripted/always_act", "late3": "scripted/late:3"}


def dev_pairs(n: int = 8) -> list[str]:
    from evalkit.scenarios.loader import load_suite

    return [p.id for p in load_suite([BUILTIN]).pairs if p.split == "dev"][:n]


def make_runs(root: Path) -> dict[str, Path]:
    """``name → run directory`` for every model of :data:`MODELS`, written by `evalkit run`."""
    selection = [arg for pid in dev_pairs() for arg in ("--pair", pid)]
    out = {}
    for name, spec in MODELS.items():
        out[name] = root / name
        proc = subprocess.run([sys.executable, "-m", "evalkit", "run", str(BUILTIN), *selection, "-m", spec,
                               "-c", "meta", "--no-report", "--out", str(out[name])],
                              capture_output=True, text=True, timeout=300, cwd=ROOT)
        assert proc.returncode == 0, proc.stderr
    return out


def copy_run(src: Path, dst: Path) -> Path:
    """A copy of a run directory without its traces (the gate does not read them)."""
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("traces"))
    return dst


def edit_results(run: Path, change) -> None:
    """Rewrite ``run/results.jsonl`` row by row: ``change(row)`` returns the row, or None to drop it."""
    path = run / "results.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    kept = [r for r in (change(dict(r)) for r in rows) if r is not None]
    path.write_text("".join(json.dumps(r) + "\n" for r in kept))


def rebuild_summary(run: Path, plan: list | None = None) -> dict:
    """Recompute ``run/summary.json`` from its results with the harness's own ``finish`` (a
    complete run: the plan is the recorded keys; an interrupted one: pass the plan's keys)."""
    from evalkit.harness.run import load_config
    from evalkit.pipeline import finish
    from evalkit.harness.store import RunStore
    from evalkit.records import EpisodeKey
    from evalkit.metrics.keys import pair_attributes
    from evalkit.scenarios.loader import load_suite

    store = RunStore(run)
    if plan is None:
        plan = [EpisodeKey.of(r) for r in store.latest_results().values()]
    config = load_config(run).model_copy(update={"report": False})
    return finish(store, plan, config, pairs=pair_attributes(load_suite(config.suites or [BUILTIN]).pairs))


def gate_in_process(run, config, tmp_path):
    """``evalkit gate RUN --config CONFIG`` in this process: ``(result, JUnit test cases by name)``."""
    import xml.etree.ElementTree as ET

    from typer.testing import CliRunner

    from evalkit.cli import app

    junit = tmp_path / "j.xml"
    result = CliRunner().invoke(app, ["gate", str(run), "--config", str(config), "--junit", str(junit),
                                      "--markdown", str(tmp_path / "s.md")])
    cases = {c.get("name"): c for c in ET.parse(junit).getroot().iter("testcase")} if junit.exists() else {}
    return result, cases
