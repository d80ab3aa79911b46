"""Threshold bounds against each metric's range (field failure F09): a bound outside the range
is a config error naming the file and the field, a bound no value can violate is warned about,
and ``max: 0`` is a bound like any other."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from evalkit.gate.catalogue import metric_kinds, metric_range
from evalkit.gate.config import GateConfigError, load_gate_config

ROOT = Path(__file__).resolve().parents[2]

G_PCT = ('# the author meant "at most 5 %"\nthresholds:\n  - {metric: post_hoc_rate, max: 5}\n'
         "  - {metric: abstain_accuracy, min: 0.0}\n")
G_ZERO = "thresholds:\n  - {metric: post_hoc_rate, max: 0}\n"


def evalkit(*args, cwd):
    return subprocess.run([sys.executable, "-m", "evalkit", *args], capture_output=True, text=True, timeout=300,
                          cwd=cwd)


@pytest.fixture(scope="module")
def case_dir(tmp_path_factory) -> Path:
    """The F09 run: the built-in pairs, scripted/post_hoc (commits, then refuses), nl."""
    cwd = tmp_path_factory.mktemp("f09")
    proc = evalkit("run", str(ROOT / "scenarios" / "builtin.yaml"), "--model", "scripted/post_hoc", "--condition", "nl",
                   "--no-report", "--out", "runs/post_hoc", cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    (cwd / "g_pct.yaml").write_text(G_PCT)
    (cwd / "g_zero.yaml").write_text(G_ZERO)
    return cwd


def test_the_case_run_has_post_hoc_rate_one(case_dir):
    row = json.loads((case_dir / "runs" / "post_hoc" / "summary.json").read_text())["rows"][0]
    assert (row["post_hoc_rate"], row["post_hoc_rate_k"], row["post_hoc_rate_n"]) == (1.0, 16, 16)


def test_f09_a_percent_on_a_rate_is_a_config_error_never_a_pass(case_dir):
    proc = evalkit("gate", "runs/post_hoc", "--config", "g_pct.yaml", cwd=case_dir)
    assert proc.returncode == 2
    assert proc.stderr.strip() == ("evalkit: error: g_pct.yaml: field thresholds.0.max: max = 5 on post_hoc_rate is "
                                   "outside the metric's range [0, 1]: post_hoc_rate is a rate (a share, 0 to 1); "
                                   "write 5 % as 0.05")
    assert "gate PASS" not in proc.stdout


def test_f09_max_zero_is_honoured(case_dir):
    proc = evalkit("gate", "runs/post_hoc", "--config", "g_zero.yaml", cwd=case_dir)
    assert proc.returncode == 1, proc.stderr
    assert "gate FAIL: 1 of 1 checks failed" in proc.stdout
    assert "1.000 (16/16)" in proc.stdout and "post_hoc_rate <= 0" in proc.stdout
    assert proc.stderr == ""


def test_f09_a_vacuous_bound_is_warned_about_by_name(case_dir):
    (case_dir / "g_vacuous.yaml").write_text("thresholds:\n  - {metric: post_hoc_rate, max: 0.05}\n"
                                             "  - {metric: abstain_accuracy, min: 0.0}\n")
    proc = evalkit("gate", "runs/post_hoc", "--config", "g_vacuous.yaml", cwd=case_dir)
    assert proc.returncode == 1  # the real bound still fails the run
    warning = ("warning: g_vacuous.yaml: thresholds.1.min = 0 on abstain_accuracy can never fail: abstain_accuracy "
               "is a rate (a share, 0 to 1), never below 0; tighten or remove it")
    assert proc.stderr.splitlines() == [warning]
    summary = (case_dir / "runs" / "post_hoc" / "gate-summary.md").read_text()
    assert "thresholds.1.min = 0 on abstain_accuracy can never fail" in summary


@pytest.mark.parametrize("line, field, message", [
    ("{metric: post_hoc_rate, max: 5}", "thresholds.0.max", "max = 5 on post_hoc_rate is outside the metric's range [0, 1]"),
    ("{metric: paired_accuracy, min: -0.1}", "thresholds.0.min", "min = -0.1 on paired_accuracy is outside"),
    ("{metric: coverage, equals: 100}", "thresholds.0.equals", "equals = 100 on coverage is outside"),
    ("{metric: paired_accuracy, min: 75, by: trigger}", "thresholds.0.min", "write 75 % as 0.75"),
    ("{metric: errors, max: -1}", "thresholds.0.max", "max = -1 on errors is outside the metric's range [0, ∞): "
                                                      "errors is a count"),
    ("{metric: cost_usd, max: -0.5}", "thresholds.0.max", "cost_usd is a value in USD"),
    ("{metric: latency_s_p95, max: -2}", "thresholds.0.max", "latency_s_p95 is a value in seconds"),
    ("{metric: lag_mean, min: -1}", "thresholds.0.min", "lag_mean is a mean in tool calls"),
])
def test_bounds_outside_the_range_name_file_and_field(tmp_path, line, field, message):
    path = tmp_path / "g.yaml"
    path.write_text(f"thresholds:\n  - {line}\n")
    with pytest.raises(GateConfigError) as info:
        load_gate_config(path)
    assert info.value.field == field and message in info.value.message
    assert str(info.value).startswith(f"{path}: field {field}: ")


@pytest.mark.parametrize("line, warned", [
    ("{metric: post_hoc_rate, max: 0}", []),
    ("{metric: post_hoc_rate, equals: 0}", []),
    ("{metric: coverage, equals: 1}", []),
    ("{metric: paired_accuracy, min: 1}", []),
    ("{metric: paired_accuracy, min: 0}", ["min"]),
    ("{metric: post_hoc_rate, max: 1.0}", ["max"]),
    ("{metric: paired_accuracy, min: 0, max: 1}", ["min", "max"]),
    ("{metric: errors, min: 0}", ["min"]),
    ("{metric: errors, max: 0}", []),
    ("{metric: cost_usd, max: 1000}", []),
])
def test_vacuous_bounds_are_listed(tmp_path, line, warned):
    path = tmp_path / "g.yaml"
    path.write_text(f"thresholds:\n  - {line}\n")
    config = load_gate_config(path)
    assert [w.split(" = ")[0] for w in config.warnings] == [f"thresholds.0.{b}" for b in warned]


def test_the_catalogue_knows_every_metrics_range():
    for core in (False, True):
        for metric, kind in metric_kinds(core=core).items():
            scale = metric_range(metric, kind)
            assert scale.low == 0, (metric, kind)  # every gateable number is a share, a count or a non-negative mean
            assert scale.high == (1 if kind == "rate" else None), (metric, kind)


def test_shipped_gate_config_has_no_warning():
    assert load_gate_config(ROOT / "gate.yaml").warnings == []
