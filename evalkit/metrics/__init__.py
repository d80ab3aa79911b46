"""evalkit.metrics: per-episode scoring, aggregates with denominators, intervals and paired tests.

Import the submodules for the full API; the names below are the ones most users need.
"""

from __future__ import annotations

__all__ = ["build_summary", "score_episode", "summarize", "wilson", "paired_bootstrap", "mcnemar_exact"]


def __getattr__(name: str):  # lazy: scoring imports the runtime
    if name == "build_summary":
        from evalkit.metrics.summary import build_summary

        return build_summary
    if name == "score_episode":
        from evalkit.metrics.scoring import score_episode

        return score_episode
    if name == "summarize":
        from evalkit.metrics.aggregate import summarize

        return summarize
    if name in ("wilson", "paired_bootstrap", "mcnemar_exact"):
        from evalkit.metrics import stats

        return getattr(stats, name)
    raise AttributeError(f"module 'evalkit.metrics' has no attribute {name!r}")
