"""`evalkit gate`: exit codes 0 / 1 / 2 on real run directories, and the numbers it reads."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest
from typer.testing import CliRunner

from evalkit.cli import app
from gate_helpers import BUILTIN, ROOT, copy_run, edit_results, rebuild_summary

FULL = """
thresholds:
  - {metric: paired_accuracy, min: 0.75}
  - {metric: post_hoc_rate, equals: 0}
  - {metric: timely_rate, min: 0.5}
  - {metric: coverage, equals: 1}
  - {metric: paired_accuracy, by: trigger, min: 0.5, where: {trigger: [missing_param, high_risk]}}
regression:
  models: {scripted/always_act: scripted/oracle, scripted/late:3: scripted/oracle}
  checks:
    - {metric: paired_accuracy, tolerance: 0.05}
    - {metric: abstain_accuracy, tolerance: 0.05, where: {gate: off}}
"""

REGRESSION_ONLY = """
regression:
  models: {scripted/always_act: scripted/oracle, scripted/oracle: scripted/oracle}
  checks:
    - {metric: paired_accuracy, tolerance: 0.05, alpha: 0.05}
"""


def gate(run, config, *extra):
    result = CliRunner().invoke(app, ["gate", str(run), "--config", str(config), *map(str, extra)])
    return result


def cases(junit_path):
    root = ET.parse(junit_path).getroot()
    return {c.get("name"): c for c in root.iter("testcase")}


def test_pass_exits_0_with_a_table_junit_and_markdown(runs, write_config, tmp_path):
    config = write_config(FULL)
    junit, md = tmp_path / "junit.xml", tmp_path / "summary.md"
    result = gate(runs["oracle"], config, "--baseline", runs["oracle"], "--junit", junit, "--markdown", md)
    assert result.exit_code == 0, result.output
    assert "gate PASS: 0 of 8 checks failed, 0 without data (exit 0)" in result.stdout
    assert "paired_accuracy >= 0.75" in result.stdout and "1.000 (8/8)" in result.stdout
    root = ET.parse(junit).getroot()
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("8", "0", "0")
    found = cases(junit)
    assert "paired_accuracy >= 0.5 [scripted/oracle · meta · off · trigger=high_risk]" in found
    assert not any(c.find("failure") is not None or c.find("error") is not None for c in found.values())
    text = md.read_text()
    assert text.startswith("## evalkit gate: ✅ PASS (exit 0)")
    assert "8 checks: 8 passed, 0 failed, 0 without data" in text
    # default outputs go into the run directory
    result = gate(runs["oracle"], config, "--baseline", runs["oracle"])
    assert result.exit_code == 0
    assert (runs["oracle"] / "gate-junit.xml").is_file() and (runs["oracle"] / "gate-summary.md").is_file()


def test_threshold_failure_exits_1(runs, write_config, tmp_path):
    # late:3 is right on both sides but keeps looking up after the trigger: never timely
    config = write_config(FULL)
    result = gate(runs["late3"], config, "--baseline", runs["oracle"], "--junit", tmp_path / "j.xml")
    assert result.exit_code == 1, result.output
    found = cases(tmp_path / "j.xml")
    failure = found["timely_rate >= 0.5 [scripted/late:3 · meta · off]"].find("failure")
    assert failure is not None and failure.get("type") == "threshold"
    assert failure.get("message") == "0.000 (0/8) is below the floor 0.5 by 0.500"
    failed = [name for name, c in found.items() if c.find("failure") is not None]
    assert failed == ["timely_rate >= 0.5 [scripted/late:3 · meta · off]"]  # its regressions pass: no drop


def test_significant_regression_exits_1(runs, write_config, tmp_path):
    config = write_config(REGRESSION_ONLY)
    result = gate(runs["always_act"], config, "--baseline", runs["oracle"], "--junit", tmp_path / "j.xml")
    assert result.exit_code == 1, result.output
    name = "paired_accuracy drop vs baseline (tolerance 0.05) [scripted/always_act · meta · off]"
    case = cases(tmp_path / "j.xml")[name]
    failure = case.find("failure")
    assert failure.get("type") == "regression"
    # 8 discordant pairs, all against the run: exact McNemar p = 2 / 2**8
    assert "drop 1.000 exceeds the tolerance 0.05 and is significant" in failure.get("message")
    assert "McNemar p 0.008" in failure.get("message")
    comparison = json.loads(failure.text.split("comparison: ", 1)[1])
    assert comparison["a_only"] == 8 and comparison["b_only"] == 0 and comparison["p_value"] == 2 / 2**8
    assert comparison["baseline_model"] == "scripted/oracle"


@pytest.fixture(scope="module")
def one_flip(runs, tmp_path_factory):
    """The oracle run with a single pair's abstain side turned wrong (summary recomputed)."""
    run = copy_run(runs["oracle"], tmp_path_factory.mktemp("flip") / "run")
    flipped = []

    def change(row):
        if row["variant"] == "abstain" and not flipped:
            flipped.append(row["pair_id"])
            row["correct"] = False
        return row

    edit_results(run, change)
    rebuild_summary(run)
    return run


def test_insignificant_drop_passes(runs, one_flip, write_config, tmp_path):
    summary = json.loads((one_flip / "summary.json").read_text())
    assert (summary["rows"][0]["paired_accuracy_k"], summary["rows"][0]["paired_accuracy_n"]) == (7, 8)
    # drop 0.125 > tolerance 0.05, but one discordant pair is noise (p = 1)
    config = write_config(REGRESSION_ONLY)
    result = gate(one_flip, config, "--baseline", runs["oracle"], "--markdown", tmp_path / "s.md")
    assert result.exit_code == 0, result.output
    text = (tmp_path / "s.md").read_text()
    assert "drop 0.125 exceeds the tolerance 0.05 but is not significant at alpha 0.05" in text
    # a tolerance above the drop passes without a test
    config = write_config(REGRESSION_ONLY.replace("tolerance: 0.05", "tolerance: 0.2"))
    result = gate(one_flip, config, "--baseline", runs["oracle"], "--markdown", tmp_path / "s.md")
    assert result.exit_code == 0 and "drop 0.125 within the tolerance 0.2" in (tmp_path / "s.md").read_text()
    # the same 7/8 fails an absolute floor of 0.9: thresholds do not wait for significance
    config = write_config("thresholds: [{metric: paired_accuracy, min: 0.9}]")
    assert gate(one_flip, config).exit_code == 1


def test_missing_data_exits_2(runs, write_config, tmp_path):
    # a group the run does not have: reported, never a pass
    config = write_config("thresholds:\n  - {metric: paired_accuracy, min: 0.5, where: {condition: [meta, nl]}}\n")
    result = gate(runs["oracle"], config, "--junit", tmp_path / "j.xml")
    assert result.exit_code == 2, result.output
    error = cases(tmp_path / "j.xml")["paired_accuracy >= 0.5 [nl]"].find("error")
    assert error.get("type") == "missing_data"
    message = error.get("message")
    assert message.startswith("missing data: no group with condition=nl in summary.json rows (there: meta)")
    # the meta row itself still passes and is reported
    assert cases(tmp_path / "j.xml")["paired_accuracy >= 0.5 [scripted/oracle · meta · off]"].find("error") is None
    # two keys that no group matches together: one error naming both, not a contradiction per key
    config = write_config("thresholds:\n  - {metric: paired_accuracy, min: 0.5, where: {condition: nl, gate: off}}\n")
    result = gate(runs["oracle"], config)
    assert result.exit_code == 2 and "1 without data" in result.stdout, result.stdout
    assert "no group matches condition=nl, gate=off in summary.json rows (there: condition=meta, gate=off)" in \
        " ".join(result.stdout.split()), result.stdout
    # a trigger the selection does not hold
    config = write_config("thresholds: [{metric: paired_accuracy, by: trigger, min: 0.5, "
                          "where: {trigger: prompt_injection}}]\n")
    assert gate(runs["oracle"], config).exit_code == 2
    # a metric missing from summary.json
    run = copy_run(runs["oracle"], tmp_path / "no-metric")
    summary = json.loads((run / "summary.json").read_text())
    del summary["rows"][0]["timely_rate"]
    (run / "summary.json").write_text(json.dumps(summary))
    result = gate(run, write_config("thresholds: [{metric: timely_rate, min: 0.5}]"))
    assert result.exit_code == 2 and "missing data: timely_rate is not in this summary row" in result.stdout


def test_n_zero_exits_2_never_a_pass(runs, write_config, tmp_path):
    # field case C21: an empty group is reported as missing data, never as a pass
    case = next(c for c in json.loads((ROOT / "tests/fixtures/field_failures.json").read_text()) if c["id"] == "C21")
    assert case["expected"]["gate"] == "an empty group is reported as missing data, never as a pass"
    # always_act never abstains correctly: timely_rate has n = 0 (a max of 1 would hold for any value)
    config = write_config("thresholds: [{metric: timely_rate, max: 1}]")
    result = gate(runs["always_act"], config, "--junit", tmp_path / "j.xml")
    assert result.exit_code == 2, result.output
    error = cases(tmp_path / "j.xml")["timely_rate <= 1 [scripted/always_act · meta · off]"].find("error")
    assert error.get("message") == ("missing data: timely_rate has no value (n = 0): the group has no correct "
                                    "abstentions among its 8 planned abstain episodes; an empty group is never a pass")
    # these dev pairs hold no control pair: control_accuracy does not apply to the only group, so the
    # check checks nothing, which is never a pass either
    result = gate(runs["oracle"], write_config("thresholds: [{metric: control_accuracy, min: 0}]"))
    assert result.exit_code == 2 and "gate ERROR: 0 of 1 checks failed, 1 without data (exit 2)" in result.stdout
    # n = 0 outranks a real failure in the same gate: the verdict is the worst status
    config = write_config("thresholds: [{metric: timely_rate, max: 1}, {metric: paired_accuracy, min: 0.75}]")
    result = gate(runs["always_act"], config)
    assert result.exit_code == 2 and "gate ERROR: 1 of 2 checks failed, 1 without data (exit 2)" in result.stdout


@pytest.mark.parametrize("text, field, needle", [
    ("thresholds:\n  - metric: paired_accuracy\n    min: [0.75\n", None, "line 4, column 1: malformed YAML"),
    ("thresholds: [{metric: paired_acc, min: 1}]\n", "thresholds.0.metric", "unknown metric 'paired_acc'"),
    ("thresholds: [{metric: paired_accuracy, min: 1, where: {modle: x}}]\n", "thresholds.0.where",
     "unknown group key 'modle' (expected one of model, condition, gate)"),
    ("thresholds: [{metric: paired_accuracy, by: trigger, min: 1, where: {domain: x}}]\n", "thresholds.0.where",
     "unknown group key 'domain' (expected one of model, condition, gate, trigger)"),
    ("thresholds: [{metric: lag_mean, by: phase, max: 1}]\n", "thresholds.0.metric", "breakdown rows keep only"),
    ("thresholds: [{metric: paired_accuracy}]\n", "thresholds.0", "a threshold needs min, max or equals"),
    ("thresholds: [{metric: paired_accuracy, min: 0.5, equals: 1}]\n", "thresholds.0", "equals cannot be combined"),
    ("thresholds: [{metric: paired_accuracy, min: .nan}]\n", "thresholds.0.min", "a number that is not finite (nan)"),
    ("threshold: []\n", "threshold", "unknown field"),
    ("thresholds: []\n", None, "no checks"),
    ("regression: {checks: [{metric: timely_rate}]}\n", "regression.checks.0.metric",
     "'timely_rate' is not an accuracy over planned units"),
    ("regression: {checks: [{metric: paired_accuracy, alpha: 0}]}\n", "regression.checks.0.alpha", "greater than 0"),
    ("- just a list\n", None, "expected a mapping"),
])
def test_bad_config_exits_2_with_one_line_naming_file_and_field(runs, write_config, tmp_path, text, field, needle):
    config = write_config(text)
    result = gate(runs["oracle"], config, "--junit", tmp_path / "j.xml")
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    prefix = f"evalkit: error: {config}: " + (f"field {field}: " if field else "")
    assert lines[0].startswith(prefix) and needle in lines[0], lines[0]
    assert not (tmp_path / "j.xml").exists() and "Traceback" not in result.output


def test_baseline_problems_exit_2(runs, write_config, tmp_path):
    # --baseline without regression checks, and regression checks without a baseline
    result = gate(runs["oracle"], write_config("thresholds: [{metric: paired_accuracy, min: 0}]"),
                  "--baseline", runs["oracle"])
    assert result.exit_code == 2 and "field regression: a baseline run was given" in result.stderr
    config = write_config(REGRESSION_ONLY)
    result = gate(runs["oracle"], config)
    assert result.exit_code == 2 and "field regression.baseline: regression checks need a baseline run" in result.stderr
    # a baseline that is not a run directory
    result = gate(runs["oracle"], config, "--baseline", tmp_path)
    assert result.exit_code == 2 and f"{tmp_path / 'summary.json'}: missing" in result.stderr
    # a model the baseline does not have and no mapping for it
    result = gate(runs["late3"], write_config("regression: {checks: [{metric: paired_accuracy}]}"),
                  "--baseline", runs["oracle"], "--markdown", tmp_path / "s.md")
    assert result.exit_code == 2
    assert f"missing data: the baseline {runs['oracle']} has no group scripted/late:3 · meta · off" in (
        tmp_path / "s.md").read_text()


def test_runs_whose_suites_differ_in_the_compared_pairs_are_refused(runs, write_config, tmp_path):
    config = write_config(REGRESSION_ONLY)
    # a baseline without one of the pairs
    base = copy_run(runs["oracle"], tmp_path / "fewer")
    dropped = json.loads((base / "results.jsonl").read_text().splitlines()[0])["pair_id"]
    edit_results(base, lambda r: None if r["pair_id"] == dropped else r)
    rebuild_summary(base)
    result = gate(runs["oracle"], config, "--baseline", base, "--markdown", tmp_path / "s.md")
    assert result.exit_code == 2
    text = (tmp_path / "s.md").read_text()
    assert f"the run and the baseline differ in the compared pairs: only in the run: {dropped}/1" in text
    # the same pair ids, but one pair's content changed
    base = copy_run(runs["oracle"], tmp_path / "changed")
    edit_results(base, lambda r: {**r, "pair_sha256": "0" * 64} if r["pair_id"] == dropped else r)
    rebuild_summary(base)
    result = gate(runs["oracle"], config, "--baseline", base, "--markdown", tmp_path / "s.md")
    assert result.exit_code == 2
    assert f"differ in the compared pairs: {dropped} changed" in (tmp_path / "s.md").read_text()


def test_summary_that_disagrees_with_the_results_exits_2(runs, write_config, tmp_path):
    run = copy_run(runs["oracle"], tmp_path / "edited")
    edit_results(run, lambda r: {**r, "correct": False} if r["variant"] == "abstain" else r)  # summary left as is
    result = gate(run, write_config(REGRESSION_ONLY), "--baseline", runs["oracle"], "--markdown", tmp_path / "s.md")
    assert result.exit_code == 2
    assert "summary.json: rows scripted/oracle/" in result.output, result.output
    assert "but its per-episode results give" in result.output, result.output


def test_a_tampered_summary_fails_even_with_thresholds_only(runs, write_config, tmp_path):
    """Edited summary numbers are inconsistent data (exit 2), whatever checks the config holds."""
    run = copy_run(runs["post_hoc"] if "post_hoc" in runs else runs["oracle"], tmp_path / "tampered")
    summary = json.loads((run / "summary.json").read_text())
    row = summary["rows"][0]
    row["paired_accuracy_k"] = row["paired_accuracy_n"] + 1
    (run / "summary.json").write_text(json.dumps(summary))
    config = tmp_path / "t.yaml"
    config.write_text("thresholds:\n  - metric: paired_accuracy\n    min: 0\n")
    result = gate(run, config)
    assert result.exit_code == 2, result.output
    assert "paired_accuracy_k" in result.output and "per-episode results" in result.output


def test_the_gate_reads_the_numbers_of_summary_json(runs, one_flip, write_config):
    from evalkit.gate import evaluate_gate, load_gate_config

    config = load_gate_config(write_config(FULL))
    report = evaluate_gate(config, one_flip, runs["oracle"])
    summary = json.loads((one_flip / "summary.json").read_text())
    base = json.loads((runs["oracle"] / "summary.json").read_text())
    row = summary["rows"][0]
    checked = 0
    for r in report.results:
        if r.kind == "threshold" and "trigger" not in r.group:
            assert (r.value, r.k, r.n) == (row[r.metric], row[f"{r.metric}_k"], row[f"{r.metric}_n"])
            checked += 1
        elif r.kind == "threshold":
            brow = next(b for b in summary["breakdowns"]["trigger"] if b["trigger"] == r.group["trigger"])
            assert (r.value, r.k, r.n) == (brow[r.metric], brow[f"{r.metric}_k"], brow[f"{r.metric}_n"])
            checked += 1
        else:
            c = r.comparison
            assert (r.value, r.k, r.n) == (row[r.metric], row[f"{r.metric}_k"], row[f"{r.metric}_n"])
            assert (c["baseline_value"], c["baseline_k"], c["baseline_n"]) == (
                base["rows"][0][r.metric], base["rows"][0][f"{r.metric}_k"], base["rows"][0][f"{r.metric}_n"])
            assert (c["b_k"], c["a_k"], c["n"]) == (r.k, c["baseline_k"], r.n)
            checked += 1
    assert checked == len(report.results) == 8
    assert [r.value for r in report.results if r.metric == "paired_accuracy" and r.kind == "threshold"][0] == 0.875


def test_real_process_exit_code(runs, write_config):
    config = write_config(REGRESSION_ONLY)
    proc = subprocess.run([sys.executable, "-m", "evalkit", "gate", str(runs["always_act"]), "--config", str(config),
                           "--baseline", str(runs["oracle"])], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 1, proc.stderr
    assert "gate FAIL: 1 of 1 checks failed, 0 without data (exit 1)" in proc.stdout


def test_means_and_counts_are_gated_with_their_n(runs, write_config, tmp_path):
    config = write_config("thresholds:\n  - {metric: errors, max: 0}\n  - {metric: lag_mean, max: 1}\n"
                          "  - {metric: tokens_per_success, max: 0}\n")
    result = gate(runs["late3"], config, "--junit", tmp_path / "j.xml")
    assert result.exit_code == 1, result.output  # late:3 lags 3 calls after every trigger
    found = cases(tmp_path / "j.xml")
    assert found["errors <= 0 [scripted/late:3 · meta · off]"].find("failure") is None
    failure = found["lag_mean <= 1 [scripted/late:3 · meta · off]"].find("failure")
    assert failure.get("message") == "3.000 (n=8) is above the ceiling 1 by 2.000"
    # always_act never abstains correctly: lag_mean has nothing to average (n = 0), never a pass
    result = gate(runs["always_act"], config, "--markdown", tmp_path / "s.md")
    assert result.exit_code == 2
    assert "missing data: lag_mean has no value (n = 0)" in (tmp_path / "s.md").read_text()


def test_a_missing_episode_fails_a_threshold_and_is_missing_data_for_a_regression(write_config, tmp_path):
    # an interrupted run: one planned episode never recorded (summary.json counts it as wrong)
    from evalkit.harness.run import load_config
    from evalkit.pipeline import finish
    from evalkit.harness.store import RunStore
    from evalkit.records import EpisodeKey
    from evalkit.metrics.keys import pair_attributes
    from evalkit.scenarios.loader import load_suite

    base = ROOT / "reports" / "baseline"
    run = copy_run(base, tmp_path / "interrupted")
    plan = [EpisodeKey.of(r) for r in RunStore(run).latest_results().values()]
    lost = next(k for k in plan if k[1] == "abstain" and k[3] == "meta")
    edit_results(run, lambda r: None if EpisodeKey.of(r) == lost else r)
    summary = finish(RunStore(run), plan, load_config(run), pairs=pair_attributes(load_suite([BUILTIN]).pairs))
    meta = next(r for r in summary["rows"] if r["condition"] == "meta")
    assert (meta["paired_accuracy_k"], meta["paired_accuracy_n"], meta["missing"]) == (11, 12, 1)
    config = write_config(f"""
thresholds: [{{metric: coverage, equals: 1, where: {{condition: meta}}}}]
regression:
  baseline: {base}
  checks: [{{metric: paired_accuracy, tolerance: 0.05, where: {{condition: meta}}}}]
""")
    result = gate(run, config, "--junit", tmp_path / "j.xml")
    assert result.exit_code == 2, result.output
    found = cases(tmp_path / "j.xml")
    assert found["coverage == 1 [scripted/oracle · meta · off]"].find("failure").get("message") == (
        "0.958 (23/24) is not 1")
    # a regression compares complete groups only: 12/12 → 11/12 with one episode never run is not a
    # comparison of the model (README, CI gate)
    regression = found["paired_accuracy drop vs baseline (tolerance 0.05) [scripted/oracle · meta · off]"]
    assert regression.find("error").get("message") == (
        f"missing data: 1 of the run's 24 planned episodes of this group have no result (an interrupted run: "
        f"`evalkit run --resume {run}`); a regression check compares complete groups only")
    # the baseline side too: the complete run against the interrupted one as baseline
    config = write_config(f"""
regression:
  baseline: {run}
  checks: [{{metric: paired_accuracy, tolerance: 0.05, where: {{condition: meta}}}}]
""")
    result = gate(copy_run(base, tmp_path / "complete"), config, "--junit", tmp_path / "j2.xml")
    assert result.exit_code == 2, result.output
    regression = cases(tmp_path / "j2.xml")[
        "paired_accuracy drop vs baseline (tolerance 0.05) [scripted/oracle · meta · off]"]
    assert regression.find("error").get("message").startswith("missing data: 1 of the baseline's 24 planned episodes")


def test_a_crash_exits_2_never_1(runs, write_config, monkeypatch):
    # exit 1 means "a check failed": an unexpected error must not be read as one
    import evalkit.gate

    def boom(*args, **kwargs):
        raise RuntimeError("unexpected")

    monkeypatch.setattr(evalkit.gate, "evaluate_gate", boom)
    result = gate(runs["oracle"], write_config("thresholds: [{metric: paired_accuracy, min: 0.5}]"))
    assert result.exit_code == 2
    assert result.stderr.strip() == ("evalkit: error: unexpected (RuntimeError: the gate could not run; --debug shows "
                                     "the traceback)")


@pytest.mark.parametrize("text, field, needle", [
    ('{"thresholds": [{"metric": "paired_accuracy", "max": Infinity}]}', "thresholds.0.max",
     "a number that is not finite (inf)"),
    ('{"name": NaN, "thresholds": [{"metric": "paired_accuracy", "min": 0.5}]}', "name", "a number that is not finite (nan)"),
    ('{"thresholds": [{"metric": "paired_accuracy", "min": 0.5},]}', None, "malformed JSON"),
])
def test_a_json_gate_config_is_read_as_json(runs, write_config, tmp_path, text, field, needle):
    """JSON's NaN and Infinity are numbers, refused as such, never read as the strings 'NaN' / 'Infinity'."""
    config = write_config(text, "gate.json")
    result = gate(runs["oracle"], config, "--junit", tmp_path / "j.xml")
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"evalkit: error: {config}: " + (f"field {field}: " if field else ""))
    assert needle in lines[0], lines[0]


def test_a_failing_gate_without_config_names_the_library_config(runs, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "gate.yaml").write_text("thresholds:\n  - {metric: paired_accuracy, min: 0.99}\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["gate", str(runs["always_act"]), "--junit", str(tmp_path / "j.xml"),
                                      "--markdown", str(tmp_path / "m.md")])
    assert result.exit_code == 1, result.output
    assert "hint: no --config was given, so the run was checked against ./gate.yaml" in result.stderr
    passing = CliRunner().invoke(app, ["gate", str(runs["oracle"]), "--junit", str(tmp_path / "j.xml"),
                                       "--markdown", str(tmp_path / "m.md")])
    assert passing.exit_code == 0 and "hint:" not in passing.stderr
    explicit = gate(runs["always_act"], tmp_path / "gate.yaml", "--junit", tmp_path / "j.xml", "--markdown", tmp_path / "m.md")
    assert explicit.exit_code == 1 and "hint:" not in explicit.stderr
