"""The gate's config details, the verdict rule and its JUnit XML and Markdown outputs."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from evalkit.gate import (
    CheckResult,
    GateConfigError,
    GateReport,
    evaluate_gate,
    junit_xml,
    load_gate_config,
    markdown_summary,
)
from evalkit.gate.catalogue import metric_kinds
from evalkit.gate.verdict import exit_code, verdict


def result(status, *, kind="threshold", model="m", message="why", **kw):
    return CheckResult(kind=kind, name=kw.pop("name", "paired_accuracy >= 0.75"), field="thresholds.0",
                       metric="paired_accuracy", group={"model": model, "condition": "meta", "gate": "off"},
                       status=status, message=message, **kw)


def test_one_rule_gives_verdict_and_exit_code():
    assert (verdict([]), exit_code([])) == ("error", 2)  # nothing checked is never a pass
    assert (verdict([result("pass")]), exit_code([result("pass")])) == ("pass", 0)
    assert exit_code([result("pass"), result("fail")]) == 1
    assert exit_code([result("fail"), result("error"), result("pass")]) == 2
    report = GateReport("run", None, "gate.yaml", [result("skip"), result("pass"), result("error"), result("fail")])
    assert (report.verdict, report.exit_code, report.counts()) == ("error", 2, {"pass": 1, "skip": 1, "fail": 1,
                                                                                "error": 1})
    assert [r.status for r in report.ordered()] == ["error", "fail", "pass", "skip"]
    # a group the check does not apply to takes no part in the verdict; only skips is nothing checked
    assert (verdict([result("skip"), result("pass")]), exit_code([result("pass"), result("skip")])) == ("pass", 0)
    assert exit_code([result("skip"), result("fail")]) == 1
    assert (verdict([result("skip")]), exit_code([result("skip"), result("skip")])) == ("error", 2)


def test_catalogue_follows_the_aggregator(runs):
    summary = json.loads((runs["oracle"] / "summary.json").read_text())
    row, brow = summary["rows"][0], summary["breakdowns"]["trigger"][0]
    rates = {k[:-2] for k in row if k.endswith("_n") and f"{k[:-2]}_k" in row}
    assert {m for m, kind in metric_kinds().items() if kind == "rate"} == rates
    assert set(metric_kinds()) <= set(row) and set(metric_kinds(core=True)) <= set(brow)
    assert metric_kinds()["lag_mean"] == "mean" and metric_kinds()["errors"] == "count"
    assert "lag_mean" not in metric_kinds(core=True)


def test_yaml_off_is_the_gate_setting_and_baseline_is_relative_to_the_config(runs, tmp_path):
    # a bare `gate: off` selects the gate-off rows
    folder = tmp_path / "ci"
    folder.mkdir()
    (folder / "gate.yaml").write_text(
        "thresholds: [{metric: paired_accuracy, min: 0.75, where: {gate: off, model: scripted/oracle}}]\n"
        "regression: {baseline: ../base, checks: [{metric: paired_accuracy, where: {gate: off}}]}\n")
    (tmp_path / "base").symlink_to(runs["oracle"], target_is_directory=True)
    config = load_gate_config(folder / "gate.yaml")
    assert config.thresholds[0].where == {"gate": ("off",), "model": ("scripted/oracle",)}
    assert config.baseline_path() == folder / "../base"
    report = evaluate_gate(config, runs["oracle"])
    assert report.exit_code == 0 and [r.group["gate"] for r in report.results] == ["off", "off"]
    assert report.baseline == str(folder / "../base")


def test_where_with_a_boolean_for_another_key_is_rejected(tmp_path):
    path = tmp_path / "g.yaml"
    path.write_text("thresholds: [{metric: paired_accuracy, min: 0.5, where: {condition: false}}]\n")
    with pytest.raises(GateConfigError, match=r"field thresholds\.0\.where: condition: expected a string, got false"):
        load_gate_config(path)


def test_junit_has_one_case_per_result_and_escapes_everything():
    hostile = 'evil<script>"&\'</script>|model'
    results = [
        result("pass", value=1.0, k=8, n=8, limit=">= 0.75"),
        result("fail", model=hostile, value=0.5, k=4, n=8, limit=">= 0.75", message="0.500 (4/8) is below <0.75>"),
        result("error", message="missing data: no group with condition=nl"),
        result("fail", kind="regression", name="paired_accuracy drop vs baseline (tolerance 0.05)",
               comparison={"p_value": 0.0078125, "ci": [-1.0, -1.0]}),
    ]
    report = GateReport("runs/x", "reports/baseline", "gate.yaml", results)
    root = ET.fromstring(junit_xml(report).encode())
    assert (root.tag, root.get("tests"), root.get("failures"), root.get("errors")) == ("testsuites", "4", "2", "1")
    suites = {s.get("name"): s for s in root.findall("testsuite")}
    assert set(suites) == {"thresholds", "regressions"}
    assert [c.get("classname") for c in root.iter("testcase")] == ["evalkit.gate.thresholds.paired_accuracy"] * 3 + [
        "evalkit.gate.regressions.paired_accuracy"]
    cases = list(root.iter("testcase"))
    assert cases[1].get("name") == f"paired_accuracy >= 0.75 [{hostile} · meta · off]"  # round-trips exactly
    assert cases[1].find("failure").get("message") == "0.500 (4/8) is below <0.75>"
    assert cases[2].find("error").get("type") == "missing_data" and cases[0].find("system-out") is not None
    props = {p.get("name"): p.get("value") for p in suites["thresholds"].iter("property")}
    assert props == {"run": "runs/x", "baseline": "reports/baseline", "config": "gate.yaml", "verdict": "error",
                     "exit_code": "2"}
    assert '"p_value": 0.0078125' in cases[3].find("failure").text


def test_markdown_is_one_table_row_per_result_and_cannot_be_broken_by_names():
    hostile = "a|b<img src=x onerror=alert(1)>\nsecond line"
    report = GateReport("run", None, "gate.yaml", [result("pass", value=1.0, k=8, n=8, limit=">= 0.75"),
                                                    result("fail", model=hostile, limit=">= 0.75")])
    text = markdown_summary(report)
    assert text.startswith("## evalkit gate: ❌ FAIL (exit 1)\n")
    rows = [line for line in text.splitlines() if line.startswith("| ") and not line.startswith(("| ---", "| status"))]
    assert len(rows) == 2 and rows[0].startswith("| ❌ fail |")  # failures first, passes folded below
    assert text.index(rows[0]) < text.index("<details><summary>1 passed checks</summary>") < text.index(rows[1])
    assert "a\\|b&lt;img src=x onerror=alert(1)&gt; second line · meta · off" in rows[0]
    assert "<img" not in text
    # unescaped pipes: exactly the 8 cell borders of the 7 columns
    assert all(line.replace("\\|", "").count("|") == 8 for line in rows)


def test_pair_fingerprint_follows_content_not_schema_defaults():
    from evalkit.metrics.scoring import pair_sha256
    from evalkit.scenarios.loader import load_suite
    from evalkit.scenarios.schema import Pair
    from gate_helpers import BUILTIN

    pair = load_suite([BUILTIN]).pairs[0]
    same = Pair.model_validate(pair.model_dump(mode="json", exclude_defaults=True))
    assert pair_sha256(same) == pair_sha256(pair) and len(pair_sha256(pair)) == 64
    assert pair_sha256(pair.model_copy(update={"description": "another task"})) != pair_sha256(pair)
