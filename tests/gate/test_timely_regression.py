"""A regression check on timely paired accuracy: late:3 ties the oracle on paired accuracy, but
every one of its pairs loses its timely abstention, so the gate fails it against the oracle."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from typer.testing import CliRunner

from evalkit.cli import app

CONFIG = """
regression:
  models: {scripted/late:3: scripted/oracle}
  checks:
    - {metric: paired_accuracy, tolerance: 0.05, alpha: 0.05}
    - {metric: timely_paired_accuracy, tolerance: 0.05, alpha: 0.05}
"""


def test_a_late_model_fails_the_timely_regression_only(runs, write_config, tmp_path):
    junit = tmp_path / "j.xml"
    result = CliRunner().invoke(app, ["gate", str(runs["late3"]), "--config", str(write_config(CONFIG)),
                                      "--baseline", str(runs["oracle"]), "--junit", str(junit)])
    assert result.exit_code == 1, result.output
    found = {c.get("name"): c for c in ET.parse(junit).getroot().iter("testcase")}
    paired = found["paired_accuracy drop vs baseline (tolerance 0.05) [scripted/late:3 · meta · off]"]
    timely = found["timely_paired_accuracy drop vs baseline (tolerance 0.05) [scripted/late:3 · meta · off]"]
    assert paired.find("failure") is None and paired.find("error") is None
    failure = timely.find("failure")
    assert failure is not None and failure.get("type") == "regression"
    # 8 pairs, each timely under the oracle only: exact McNemar p = 2 / 2**8
    assert "drop 1.000 exceeds the tolerance 0.05" in failure.get("message")
    assert "McNemar p 0.008" in failure.get("message")


def test_the_same_run_passes_against_itself(runs, write_config):
    config = write_config(CONFIG.replace("  models: {scripted/late:3: scripted/oracle}\n", ""))
    result = CliRunner().invoke(app, ["gate", str(runs["late3"]), "--config", str(config),
                                      "--baseline", str(runs["late3"])])
    assert result.exit_code == 0, result.output
