"""The golden test: the scripted models' results and summary are exactly as recorded.

Runs the built-in suite with every scripted model, all three conditions and both gate settings
(``golden_lib.RUN_ARGS``, about 34k episodes) and requires the recorded ``results.jsonl`` rows
(in any order) and ``summary.json``, up to the shape changes declared in ``golden_changes.py``.
Re-record with ``python tests/golden/record.py`` only for an intended change of values.
"""

from __future__ import annotations

import pytest

from golden_lib import EXPECTED, compare, load, read_run, run_golden


@pytest.mark.slow
def test_scripted_models_give_the_recorded_results(tmp_path):
    expected = load(EXPECTED)
    actual = read_run(run_golden(tmp_path / "run"))
    report = compare(expected, actual)
    assert report.ok, "\n" + report.text() + "\n(re-record only for an intended change: tests/golden/record.py)"
