"""Helpers of the stopping-rule evaluation tests: the CLI as a subprocess, small run directories."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

RULES_DIR = Path(__file__).resolve().parents[2] / "rules"


def evalkit(*args: str, timeout: int = 300) -> subprocess.CompletedProcess:
    """``python -m evalkit ARGS`` with captured text output."""
    return subprocess.run([sys.executable, "-m", "evalkit", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout)


def run_dir(out: Path, model: str, pairs: list[str], *, rules: str = "default", gate: str = "on") -> Path:
    """A small run of the built-in suite (condition nl, no report)."""
    args = ["run", "-m", model, "-c", "nl", "--gate", gate, "--no-report", "--no-selfcheck", "--out", str(out)]
    if rules:
        args += ["--rules", rules]
    for p in pairs:
        args += ["--pair", p]
    proc = evalkit(*args)
    assert proc.returncode == 0, proc.stderr
    return out


def adopt(draft: Path, base: Path, out: Path, version: str = "2") -> Path:
    """What a reviewer does with a draft: copy its rules (not the evidence) into a new version
    of a rule set, with a changelog entry."""
    rules = yaml.safe_load(draft.read_text())["rules"]
    data = yaml.safe_load(base.read_text())
    data["version"] = version
    data["changelog"].insert(0, {"version": version, "changes": [f"adopted {', '.join(r['id'] for r in rules)}"]})
    data["rules"] = [*data["rules"], *rules]
    out.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    return out
