"""The gate's JUnit XML file: one test case per check result, for CI test reporters.

Built with :mod:`xml.etree.ElementTree` (every attribute and text is escaped by the library).
Layout::

    <testsuites name="evalkit gate" tests=N failures=F errors=E>
      <testsuite name="thresholds" …>            (and one named "regressions")
        <properties>run, baseline, config, verdict, exit_code</properties>
        <testcase classname="evalkit.gate.thresholds.paired_accuracy"
                  name="paired_accuracy >= 0.75 [scripted/oracle · meta · off]" time="0">
          <failure type="threshold" message="…"/>   a failed check
          <error type="missing_data" message="…"/>  a check without data (exit code 2)
          <skipped message="not applicable: …"/>    a group the check does not apply to
          <system-out>the numbers</system-out>      a passed check
        </testcase>

A ``fail`` status becomes ``<failure>``, an ``error`` becomes ``<error>``, the JUnit
distinction between a test that failed and one that could not run; a ``skip`` (the metric's
denominator is empty by construction in that group) becomes ``<skipped>``.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from evalkit.gate.checks import CheckResult, value_text
from evalkit.gate.verdict import GateReport
from evalkit.harness.atomic import write_output

__all__ = ["junit_xml", "write_junit"]

_SUITES = (("threshold", "thresholds"), ("regression", "regressions"))


def _details(result: CheckResult) -> str:
    lines = [f"config: {result.field}", f"metric: {result.metric}", f"value: {value_text(result)}"]
    if result.limit:
        lines.append(f"limit: {result.limit}")
    lines.append(f"status: {result.status}: {result.message}")
    if result.comparison:
        lines.append("comparison: " + json.dumps(result.comparison, sort_keys=True, allow_nan=False))
    return "\n".join(lines)


def junit_xml(report: GateReport) -> str:
    """The JUnit XML document of a gate report (UTF-8 text with an XML declaration)."""
    counts = report.counts()
    root = ET.Element("testsuites", {
        "name": "evalkit gate", "tests": str(len(report.results)), "failures": str(counts["fail"]),
        "errors": str(counts["error"]), "time": "0",
    })
    props = {"run": report.run, "baseline": report.baseline or "", "config": report.config,
             "verdict": report.verdict, "exit_code": str(report.exit_code)}
    for kind, suite_name in _SUITES:
        results = [r for r in report.results if r.kind == kind]
        if not results and kind == "regression":
            continue
        suite = ET.SubElement(root, "testsuite", {
            "name": suite_name, "tests": str(len(results)),
            "failures": str(sum(r.status == "fail" for r in results)),
            "errors": str(sum(r.status == "error" for r in results)),
            "skipped": str(sum(r.status == "skip" for r in results)), "time": "0",
        })
        properties = ET.SubElement(suite, "properties")
        for name, value in props.items():
            ET.SubElement(properties, "property", {"name": name, "value": value})
        for r in results:
            case = ET.SubElement(suite, "testcase", {
                "classname": f"evalkit.gate.{suite_name}.{r.metric}", "name": r.title, "time": "0"})
            if r.status == "fail":
                ET.SubElement(case, "failure", {"type": kind, "message": r.message}).text = _details(r)
            elif r.status == "error":
                ET.SubElement(case, "error", {"type": "missing_data" if r.message.startswith("missing data")
                                              else "bad_data", "message": r.message}).text = _details(r)
            elif r.status == "skip":
                ET.SubElement(case, "skipped", {"message": r.message}).text = _details(r)
            else:
                ET.SubElement(case, "system-out").text = _details(r)
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def write_junit(report: GateReport, path: str | Path) -> Path:
    """Write :func:`junit_xml` to ``path`` atomically; returns the path."""
    p = Path(path)
    write_output(p, junit_xml(report))
    return p
