"""Running the gate and the one rule that gives both its verdict and its exit code.

The rule (:func:`verdict`): the verdict is the worst status among the check results, in the
order ``pass`` < ``fail`` < ``error``, and the exit code is that status's number. A ``skip``
result (the metric does not apply to that group by construction, e.g. ``paired_accuracy`` of
the control pairs, which have no pair units: :mod:`evalkit.gate.checks`) takes no part in it;
a gate whose results are all skipped, or that has none, is an ``error``:

====== ==== =================================================================================
status exit meaning
====== ==== =================================================================================
pass   0    every threshold is met and no regression is both larger than its tolerance and
            significant
fail   1    a threshold is violated or a significant regression beyond tolerance was found
error  2    bad data: a metric or group is missing or has ``n = 0`` although it has planned
            units (never a pass, field case C21), a check applies to none of its groups, the
            run and the baseline differ in the compared pairs, or ``summary.json`` disagrees
            with the per-episode results; also a run with no check result at all
====== ==== =================================================================================

A config or a run directory that cannot be read at all raises
(:class:`~evalkit.gate.config.GateConfigError`, :class:`~evalkit.errors.RunError`), which the
CLI turns into one line and exit code 2 before any check runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from evalkit.gate.checks import CheckResult, Status, evaluate_regression, evaluate_threshold
from evalkit.gate.config import GateConfig, GateConfigError
from evalkit.gate.rundir import load_run, verify_summary

SEVERITY: dict[Status, int] = {"pass": 0, "fail": 1, "error": 2}
"""Status → severity, which is also the exit code (``skip`` has none: it is not a verdict)."""

_ORDER: dict[Status, int] = {"error": 0, "fail": 1, "pass": 2, "skip": 3}

__all__ = ["GateReport", "SEVERITY", "evaluate_gate", "exit_code", "verdict"]


def verdict(results: list[CheckResult]) -> Status:
    """The worst status of ``results`` other than ``skip`` (``error`` when there is none:
    nothing checked is never a pass)."""
    checked = [r.status for r in results if r.status != "skip"]
    if not checked:
        return "error"
    return max(checked, key=SEVERITY.__getitem__)


def exit_code(results: list[CheckResult]) -> int:
    """The process exit code of a gate with these results: ``SEVERITY[verdict(results)]``."""
    return SEVERITY[verdict(results)]


@dataclass(frozen=True)
class GateReport:
    """A finished gate: the inputs and every check result, in config order.

    Attributes:
        run: The run directory checked.
        baseline: The baseline run directory, or ``None``.
        config: The config file.
        results: Check results, thresholds first, each check's groups in summary order.
        warnings: Threshold bounds that can never fail (:attr:`GateConfig.warnings`).
    """

    run: str
    baseline: str | None
    config: str
    results: list[CheckResult]
    warnings: tuple[str, ...] = ()

    @property
    def verdict(self) -> Status:
        """See :func:`verdict`."""
        return verdict(self.results)

    @property
    def exit_code(self) -> int:
        """See :func:`exit_code`."""
        return exit_code(self.results)

    def counts(self) -> dict[Status, int]:
        """``{"pass": …, "skip": …, "fail": …, "error": …}``."""
        out: dict[Status, int] = {"pass": 0, "skip": 0, "fail": 0, "error": 0}
        for r in self.results:
            out[r.status] += 1
        return out

    def ordered(self) -> list[CheckResult]:
        """Results with errors first, then failures, passes and skips (config order within each)."""
        return sorted(self.results, key=lambda r: _ORDER[r.status])


def evaluate_gate(config: GateConfig, run_dir: str | Path, baseline: str | Path | None = None) -> GateReport:
    """Evaluate every check of ``config`` on a run.

    Args:
        config: The gate config (:func:`evalkit.gate.config.load_gate_config`).
        run_dir: The run directory to check.
        baseline: The baseline run directory; ``None``: the config's ``regression.baseline``.

    Returns:
        The :class:`GateReport`.

    Raises:
        GateConfigError: when a baseline is given without ``regression`` checks, or
            ``regression`` checks have no baseline.
        RunError: when the run or the baseline cannot be read (no ``summary.json``, NaN in it,
            no results for a regression check, a plan that cannot be rebuilt).
    """
    if baseline is not None and config.regression is None:
        raise GateConfigError(config.source, "regression",
                              "a baseline run was given but the config has no regression checks")
    base_path = config.baseline_path(baseline)
    if config.regression is not None and base_path is None:
        raise GateConfigError(config.source, "regression.baseline",
                              "regression checks need a baseline run: set it here or pass --baseline RUN")
    run = load_run(run_dir)
    verify_summary(run, by=sorted({t.by for t in config.thresholds if t.by}))
    results: list[CheckResult] = []
    for i, threshold in enumerate(config.thresholds):
        results += evaluate_threshold(threshold, i, run)
    if config.regression is not None and base_path is not None:  # (a baseline is required above)
        base = load_run(base_path)
        verify_summary(base)
        for i, check in enumerate(config.regression.checks):
            results += evaluate_regression(check, i, run, base, config.regression.models)
    return GateReport(run=str(run_dir), baseline=None if base_path is None else str(base_path),
                      config=config.source, results=results, warnings=tuple(config.warnings))
