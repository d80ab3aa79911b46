"""evalkit: does this agent know when not to act?

An offline evaluation suite for tool-using LLM agents. It runs paired should-act /
should-abstain scenarios through a reference agent runtime under three conditions
(natural language, ordinary tool calls, explicit meta requests) and reports paired
accuracy, timely and post-hoc abstention, and the cost of getting there.

The names most users need::

    from evalkit import load_suite, run, RunConfig, render_report
    from evalkit import load_run, load_runs   # a run directory as pandas DataFrames (notebooks)
"""

from __future__ import annotations

from evalkit.version import __version__

__all__ = ["__version__", "load_suite", "run", "RunConfig", "render_report", "load_run", "load_runs"]


def __getattr__(name: str):  # lazy: keep `import evalkit` light
    if name == "load_suite":
        from evalkit.scenarios.loader import load_suite

        return load_suite
    if name == "run":
        from evalkit.pipeline import run

        return run
    if name == "RunConfig":
        from evalkit.harness.config import RunConfig

        return RunConfig
    if name == "render_report":
        from evalkit.report.html import render_report

        return render_report
    if name in ("load_run", "load_runs"):
        from evalkit.report import rundata

        return getattr(rundata, name)
    raise AttributeError(f"module 'evalkit' has no attribute {name!r}")
