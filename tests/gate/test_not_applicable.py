"""A metric whose denominator is empty by construction (control pairs have no pair units) is
not applicable to that group; a group whose planned episodes have no results still fails."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest
import yaml

from evalkit.gate.catalogue import POPULATION, metric_kinds, not_applicable, why_empty
from gate_helpers import ROOT, copy_run, edit_results, rebuild_summary
from gate_helpers import gate_in_process as gate

SUITE = ROOT / "scenarios"  # the built-in pairs and the library (which has the control pairs)
# two pairs with both sides (triggers missing_param, high_risk) and two control pairs (trigger none, act only)
PAIRS = ["shop-order-missing-quantity", "shop-bulk-order-confirm", "cal-move-one-on-one-control",
         "cloud-stop-dev-control"]
SHIPPED = yaml.safe_load((ROOT / "gate.yaml").read_text())


@pytest.fixture(scope="module")
def with_controls(tmp_path_factory):
    out = tmp_path_factory.mktemp("controls") / "run"
    args = [sys.executable, "-m", "evalkit", "run", str(SUITE), "-m", "scripted/oracle", "-c", "nl", "-c", "meta",
            "--no-report", "--no-selfcheck", "--out", str(out)]
    for pid in PAIRS:
        args += ["--pair", pid]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    return out


def thresholds_config(tmp_path, *extra: dict):
    """The shipped gate.yaml's thresholds (its regression baseline holds other pairs), plus ``extra``."""
    path = tmp_path / "gate.yaml"
    path.write_text(yaml.safe_dump({"thresholds": [*SHIPPED["thresholds"], *extra]}, sort_keys=False))
    return path


def test_the_shipped_trigger_floor_skips_control_pairs_and_passes(with_controls, tmp_path):
    assert any(t.get("by") == "trigger" and t["metric"] == "paired_accuracy" for t in SHIPPED["thresholds"])
    result, cases = gate(with_controls, thresholds_config(tmp_path), tmp_path)
    assert result.exit_code == 0, result.output
    # 4 main-row checks × 2 conditions, the trigger floor × 3 triggers × 2 conditions, the meta floor: 15
    assert "gate PASS: 0 of 15 checks failed, 0 without data, 2 not applicable (exit 0)" in result.stdout
    for condition in ("nl", "meta"):
        skipped = cases[f"paired_accuracy >= 0.5 [scripted/oracle · {condition} · off · trigger=none]"].find("skipped")
        assert skipped.get("message") == ("not applicable: the group has no pair units with two or more sides "
                                          "(control pairs are act only), so paired_accuracy has n = 0 by construction")
        assert cases[f"paired_accuracy >= 0.5 [scripted/oracle · {condition} · off · trigger=high_risk]"].find(
            "system-out") is not None
    suite = ET.parse(tmp_path / "j.xml").getroot().find("testsuite")
    assert (suite.get("tests"), suite.get("skipped"), suite.get("failures"), suite.get("errors")) == ("15", "2", "0",
                                                                                                       "0")
    md = (tmp_path / "s.md").read_text()
    assert "15 checks: 13 passed, 0 failed, 0 without data, 2 not applicable" in md
    assert "<details><summary>2 not applicable (empty by construction)</summary>" in md


def test_a_group_whose_planned_episodes_have_no_results_still_fails(with_controls, tmp_path):
    from evalkit.harness.store import RunStore
    from evalkit.records import EpisodeKey

    run = copy_run(with_controls, tmp_path / "interrupted")
    plan = [EpisodeKey.of(r) for r in RunStore(run).latest_results().values()]
    # the meta condition lost both sides of the missing_param pair and one control pair's only episode
    lost = {k for k in plan if k[3] == "meta" and k[0] in ("shop-order-missing-quantity", "cloud-stop-dev-control")}
    assert len(lost) == 3
    edit_results(run, lambda r: None if EpisodeKey.of(r) in lost else r)
    rebuild_summary(run, plan)
    config = thresholds_config(tmp_path, {"metric": "post_hoc_rate", "by": "trigger", "equals": 0},
                               {"metric": "control_accuracy", "by": "trigger", "min": 1, "where": {"trigger": "none"}})
    result, cases = gate(run, config, tmp_path)
    assert result.exit_code == 2, result.output
    group = "scripted/oracle · meta · off · trigger="
    # missing episodes count as wrong: a planned pair unit with no result is a failed floor, not a skip
    assert cases[f"paired_accuracy >= 0.5 [{group}missing_param]"].find("failure").get("message") == (
        "0.000 (0/1) is below the floor 0.5 by 0.500")
    # a rate over recorded episodes with none recorded is missing data, naming what is missing
    assert cases[f"post_hoc_rate == 0 [{group}missing_param]"].find("error").get("message") == (
        "missing data: post_hoc_rate has no value (n = 0); 2 of the group's 2 planned episodes have no result; "
        "an empty group is never a pass")
    # a lost control episode fails the control floor; paired accuracy still does not apply to control pairs
    assert cases[f"control_accuracy >= 1 [{group}none]"].find("failure").get("message").startswith("0.500 (1/2)")
    assert cases[f"paired_accuracy >= 0.5 [{group}none]"].find("skipped") is not None
    assert cases[f"post_hoc_rate == 0 [{group}none]"].find("skipped") is not None  # control pairs: no abstain side
    assert cases["coverage == 1 [scripted/oracle · meta · off]"].find("failure") is not None
    assert cases["coverage == 1 [scripted/oracle · nl · off]"].find("system-out") is not None


def test_a_check_that_applies_to_no_selected_group_is_an_error(with_controls, tmp_path):
    config = tmp_path / "none.yaml"
    config.write_text("thresholds: [{metric: paired_accuracy, by: trigger, min: 0.5, where: {trigger: none}}]\n")
    result, cases = gate(with_controls, config, tmp_path)
    assert result.exit_code == 2, result.output
    # one row per selected group, an error each: never both an ERROR and a SKIP row for one group
    assert "gate ERROR: 0 of 2 checks failed, 2 without data (exit 2)" in result.stdout
    assert len(cases) == 2 and all(c.find("skipped") is None for c in cases.values())
    assert {name.rsplit("[", 1)[1] for name in cases} == {"scripted/oracle · nl · off · trigger=none]",
                                                          "scripted/oracle · meta · off · trigger=none]"}
    for case in cases.values():
        assert case.find("error").get("message") == (
            "missing data: paired_accuracy applies to none of the 2 selected group(s) of summary.json "
            "breakdowns.trigger (the group has no pair units with two or more sides (control pairs are act only), "
            "so paired_accuracy has n = 0 by construction); a check that checks nothing is never a pass")


def test_a_regression_on_a_run_of_control_pairs_only(tmp_path):
    out = tmp_path / "controls"
    args = [sys.executable, "-m", "evalkit", "run", str(SUITE), "-m", "scripted/oracle", "-c", "meta", "--no-report",
            "--no-selfcheck", "--out", str(out), "--pair", PAIRS[2], "--pair", PAIRS[3]]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    config = tmp_path / "reg.yaml"
    config.write_text(f"regression:\n  baseline: {out}\n  checks:\n"
                      "    - {metric: control_accuracy, tolerance: 0.05}\n"
                      "    - {metric: paired_accuracy, tolerance: 0.05}\n")
    result, cases = gate(out, config, tmp_path)
    assert result.exit_code == 2, result.output  # paired_accuracy checks nothing in this run
    name = "{} drop vs baseline (tolerance 0.05) [scripted/oracle · meta · off]"
    assert "no drop" in cases[name.format("control_accuracy")].find("system-out").text
    assert cases[name.format("paired_accuracy")].find("skipped") is None  # an error only, not also a skip
    assert cases[name.format("paired_accuracy")].find("error").get("message").startswith(
        "missing data: paired_accuracy applies to none of the 1 selected group(s) of summary.json rows (the group "
        "has no pair units with two or more sides")
    assert len(cases) == 2


def test_population_fields_are_planned_counts_of_every_row():
    kinds, core = metric_kinds(), metric_kinds(core=True)
    for metric, (field, _) in POPULATION.items():
        assert metric in kinds, metric
        assert field in kinds or field.removesuffix("_n") in kinds, field
        if metric in core:
            assert field.removesuffix("_n") in core, (metric, field)
    control_row = {"paired_accuracy_n": 0, "abstain_accuracy_n": 0, "act_accuracy_n": 2, "control_accuracy_n": 2,
                   "n_episodes": 2, "missing": 0, "timely_rate_n": 0}
    assert not_applicable("paired_accuracy", control_row).startswith("the group has no pair units")
    assert not_applicable("timely_rate", control_row) == "the group has no planned abstain episodes"
    assert not_applicable("control_accuracy", control_row) is None
    assert not_applicable("meta_precision", control_row) is None  # not in POPULATION: never empty by construction
    assert not_applicable("paired_accuracy", {"paired_accuracy_n": 3}) is None
    assert not_applicable("paired_accuracy", {}) is None  # an absent field is missing data, never a skip
    always_act = {"abstain_accuracy_n": 12, "n_episodes": 24, "missing": 0}
    assert why_empty("timely_rate", always_act) == ": the group has no correct abstentions among its 12 planned " \
                                                   "abstain episodes"
