"""evalkit.gate: the CI regression gate (DESIGN §8), ``evalkit gate RUN --config gate.yaml``.

Thresholds on the numbers of ``summary.json`` (per metric, per model × condition × gate row
or per trigger / phase / domain / split / language breakdown row) and regression checks
against a baseline run on the same pairs (a drop larger than a tolerance *and* significant by
the exact McNemar test on the paired per-episode outcomes). One rule gives the verdict and the
exit code (:mod:`evalkit.gate.verdict`): 0 pass, 1 a threshold or regression failed, 2 bad
config or data (a missing metric or group, or ``n = 0``, is never a pass). A group whose plan
holds none of the units a metric is taken over (the control pairs have no pair units) is not
applicable to that check: a ``skip``, neither pass nor fail (:mod:`evalkit.gate.catalogue`).
Outputs: a table on stdout, a JUnit XML file and a Markdown summary.

Modules: :mod:`~evalkit.gate.config` (the config schema), :mod:`~evalkit.gate.catalogue`
(gateable metrics), :mod:`~evalkit.gate.rundir` (reading a run, its rows streamed:
:mod:`~evalkit.gate.results`), :mod:`~evalkit.gate.plan` (the run plan rebuilt, rows outside
it set aside), :mod:`~evalkit.gate.units` (per-unit outcomes, a byte each),
:mod:`~evalkit.gate.checks`, :mod:`~evalkit.gate.verdict`, :mod:`~evalkit.gate.junit`,
:mod:`~evalkit.gate.markdown`, :mod:`~evalkit.gate.table`.
"""

from __future__ import annotations

from evalkit.gate.checks import CheckResult
from evalkit.gate.config import GateConfig, GateConfigError, load_gate_config
from evalkit.gate.junit import junit_xml, write_junit
from evalkit.gate.markdown import markdown_summary, write_markdown
from evalkit.gate.table import print_gate
from evalkit.gate.verdict import GateReport, evaluate_gate, exit_code, verdict

__all__ = [
    "CheckResult",
    "GateConfig",
    "GateConfigError",
    "GateReport",
    "evaluate_gate",
    "exit_code",
    "junit_xml",
    "load_gate_config",
    "markdown_summary",
    "print_gate",
    "verdict",
    "write_junit",
    "write_markdown",
]
