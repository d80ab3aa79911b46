"""``EVALKIT_PLUGINS``: a one-file metric named in the environment is loaded by every evalkit
process that reads it — the run, and later the gate on that run — and a module that cannot be
imported is one error naming the variable and the module (exit 2)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

TOYS = Path(__file__).resolve().parent / "toys"


def _evalkit(*args: str, plugins: str | None, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(TOYS), env.get("PYTHONPATH", "")) if p)
    env.pop("EVALKIT_PLUGINS", None)
    if plugins is not None:
        env["EVALKIT_PLUGINS"] = plugins
    return subprocess.run([sys.executable, "-m", "evalkit", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600)


def test_a_metric_named_in_the_environment_reaches_the_summary_and_the_gate(tmp_path):
    run = _evalkit("run", "--model", "scripted/oracle", "--model", "scripted/always_act", "--condition", "tool",
                   "--limit", "6", "--out", str(tmp_path / "run"), "--no-report", plugins="toy_metric",
                   cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    rates = {r["model"]: r["stop_first_rate"] for r in summary["rows"]}
    assert rates["scripted/always_act"] == 0.0  # it always calls the task tools before anything else
    row = json.loads((tmp_path / "run" / "results.jsonl").read_text().splitlines()[0])
    assert "stop_first" in row

    gate = tmp_path / "gate.yaml"
    gate.write_text("thresholds:\n  - metric: stop_first_rate\n    max: 0.5\n    where: {model: scripted/always_act}\n")
    passed = _evalkit("gate", str(tmp_path / "run"), "--config", str(gate), plugins="toy_metric", cwd=tmp_path)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    unknown = _evalkit("gate", str(tmp_path / "run"), "--config", str(gate), plugins=None, cwd=tmp_path)
    assert unknown.returncode == 2
    assert unknown.stderr.splitlines()[1].startswith(
        f"evalkit: error: {gate}: field thresholds.0.metric: unknown metric 'stop_first_rate' for a summary row; it "
        "is not one of evalkit's own metrics: if a plugin provides it, name the plugin's module in EVALKIT_PLUGINS"
    ), unknown.stderr
    assert "(EVALKIT_PLUGINS is not set)" in unknown.stderr
    assert (f"warning: {tmp_path / 'run'}: the run had plugin metrics that are not loaded now: stop_first_rate "
            "(field plugins.metrics of config.json); they are left out: set EVALKIT_PLUGINS=toy_metric to include "
            "them") in unknown.stderr

    bare = _evalkit("report", str(tmp_path / "run"), plugins=None, cwd=tmp_path)
    assert bare.returncode == 0, bare.stderr
    assert "plugin metrics that are not loaded now: stop_first_rate" in bare.stderr
    assert "stop_first_rate" not in (tmp_path / "run" / "report.html").read_text()
    full = _evalkit("report", str(tmp_path / "run"), plugins="toy_metric", cwd=tmp_path)
    assert full.returncode == 0 and "not loaded" not in full.stderr, full.stderr
    assert "stop_first_rate" in (tmp_path / "run" / "report.html").read_text()


def test_a_module_that_cannot_be_imported_is_one_error_naming_the_variable(tmp_path):
    run = _evalkit("run", "--model", "scripted/oracle", "--limit", "1", "--out", str(tmp_path / "run"),
                   "--no-report", plugins="toy_metric, no_such_module_here", cwd=tmp_path)
    assert run.returncode == 2
    assert "EVALKIT_PLUGINS" in run.stderr and "no_such_module_here" in run.stderr
    assert "Traceback" not in run.stderr


def _cut(run_dir: Path, n: int) -> None:
    """Drop the last ``n`` rows of ``run_dir/results.jsonl``, as an interrupted run would leave it."""
    results = run_dir / "results.jsonl"
    results.write_text("".join(results.read_text().splitlines(keepends=True)[:-n]))


def test_a_resume_with_other_plugin_metrics_is_refused_and_with_the_same_counts_every_episode(tmp_path):
    start = ("run", "--model", "scripted/oracle", "--condition", "nl", "--limit", "3", "--no-report")
    without = tmp_path / "without"
    assert _evalkit(*start, "--out", str(without), plugins=None, cwd=tmp_path).returncode == 0
    assert json.loads((without / "config.json").read_text())["plugins"] == {"env_modules": [], "entry_points": [],
                                                                          "metrics": []}
    _cut(without, 2)
    added = _evalkit("run", "--resume", str(without), plugins="toy_metric", cwd=tmp_path)
    assert added.returncode == 2
    assert added.stderr.startswith(
        f"evalkit: error: {without}: the plugin metrics loaded now differ from those this run started with (field "
        "plugins.metrics of config.json): recorded none; loaded now stop_first_rate (EVALKIT_PLUGINS=toy_metric); "
        "resumed, a plugin metric would count only part of the episodes, or be dropped: unset EVALKIT_PLUGINS as "
        "when the run started, or start a new run"), added.stderr
    assert len((without / "results.jsonl").read_text().splitlines()) == 4  # refused before any change
    # a manifest from an evalkit that did not record plugins recorded none: plugin metrics now are refused too
    manifest = json.loads((without / "config.json").read_text())
    del manifest["plugins"]
    (without / "config.json").write_text(json.dumps(manifest))
    older = _evalkit("run", "--resume", str(without), plugins="toy_metric", cwd=tmp_path)
    assert older.returncode == 2
    assert "recorded none (config.json has no field plugins: the run was started by evalkit" in older.stderr

    with_ = tmp_path / "with"
    assert _evalkit(*start, "--out", str(with_), plugins="toy_metric", cwd=tmp_path).returncode == 0
    assert json.loads((with_ / "config.json").read_text())["plugins"]["env_modules"] == ["toy_metric"]
    assert json.loads((with_ / "config.json").read_text())["plugins"]["metrics"] == ["stop_first_rate"]
    _cut(with_, 2)
    dropped = _evalkit("run", "--resume", str(with_), plugins=None, cwd=tmp_path)
    assert dropped.returncode == 2
    assert ("recorded stop_first_rate; loaded now none (EVALKIT_PLUGINS=(not set)); resumed, a plugin metric would "
            "count only part of the episodes, or be dropped: set EVALKIT_PLUGINS=toy_metric as when the run "
            "started, or start a new run") in dropped.stderr, dropped.stderr
    same = _evalkit("run", "--resume", str(with_), plugins="toy_metric", cwd=tmp_path)
    assert same.returncode == 0, same.stderr
    rows = [json.loads(line) for line in (with_ / "results.jsonl").read_text().splitlines()]
    abstains = [r for r in rows if r["variant"] == "abstain"]
    assert len(rows) == 6 and len(abstains) == 3 and all("stop_first" in r for r in rows)
    (summary_row,) = json.loads((with_ / "summary.json").read_text())["rows"]
    assert summary_row["stop_first_rate_n"] == 3  # every recorded abstain episode, the resumed ones included


def _unrecord(run_dir: Path) -> None:
    """Drop the plugin record of ``run_dir/config.json``, as an evalkit that did not record plugins wrote it."""
    manifest = json.loads((run_dir / "config.json").read_text())
    del manifest["plugins"]
    (run_dir / "config.json").write_text(json.dumps(manifest))


def test_a_run_that_does_not_record_its_plugins_resumes_with_a_warning_on_a_sign_of_plugins(tmp_path):
    start = ("run", "--model", "scripted/oracle", "--condition", "nl", "--limit", "3", "--no-report")
    unchecked = "does not record its plugins (config.json has no field plugins: started by evalkit"
    # a finished run with the toy metric, resumed without it: its summary.json names the metric
    metric = tmp_path / "metric"
    assert _evalkit(*start, "--out", str(metric), plugins="toy_metric", cwd=tmp_path).returncode == 0
    _unrecord(metric)
    _cut(metric, 2)
    resumed = _evalkit("run", "--resume", str(metric), plugins=None, cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    (line,) = [ln for ln in resumed.stderr.splitlines() if unchecked in ln]
    assert line.startswith(f"evalkit: warning: {metric}: the run directory {unchecked}") and line.endswith(
        "so plugin metrics cannot be checked on resume; its summary.json holds metrics that are not evalkit's own: "
        "stop_first_rate; if the run was started with plugin metrics, they are dropped or count only part of the "
        "episodes: start a new run to count them over all"), line
    # a run without plugins, resumed with one that registers no metric: accepted, with the warning
    plain = tmp_path / "plain"
    assert _evalkit(*start, "--out", str(plain), plugins=None, cwd=tmp_path).returncode == 0
    _unrecord(plain)
    _cut(plain, 2)
    provider = _evalkit("run", "--resume", str(plain), plugins="toy_provider", cwd=tmp_path)
    assert provider.returncode == 0, provider.stderr
    (line,) = [ln for ln in provider.stderr.splitlines() if unchecked in ln]
    assert "cannot be checked on resume; plugins are loaded now (EVALKIT_PLUGINS=toy_provider); if the run" in line
    # no sign of plugins: no warning
    _cut(plain, 2)
    quiet = _evalkit("run", "--resume", str(plain), plugins=None, cwd=tmp_path)
    assert quiet.returncode == 0 and unchecked not in quiet.stderr, quiet.stderr
