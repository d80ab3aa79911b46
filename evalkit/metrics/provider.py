"""Provider-side totals of a run: calls, cache hits, retries, output faults, error outcomes.

These are kept apart from the behaviour metrics (:mod:`evalkit.metrics.aggregate`): they say
how reliable the numbers are, not how the model behaved. One row per model × condition
(DESIGN §7 cost; field cases C04, C11, C15, C17, C19, C25), summed over the recorded
episodes' rows (:func:`evalkit.metrics.scoring.score_episode`):

* ``model_calls``, ``cache_hits`` (calls answered from the cache), ``cache_hit_rate`` =
  hits / calls (``None`` with no calls);
* ``retries`` and ``retry_wait_s`` (seconds waited between attempts, not in latency);
* ``parse_failures``, ``repaired_calls``, ``call_in_content`` (episodes whose final output
  was a tool call written as text), ``content_filter`` (episodes stopped by the provider's
  content filter; they count as incorrect, never as abstentions),
  ``claimed_action_without_call``;
* ``error_codes``: errored episodes by outcome code (``context_length_exceeded`` …).
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Iterable

_SUMS = ("model_calls", "cache_hits", "retries", "parse_failures", "repaired_calls")
_FLAGS = ("call_in_content", "content_filter", "claimed_action_without_call")


def provider_summary(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per (model, condition), in first-seen order (see the module docstring)."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault((r["model"], r["condition"]), []).append(r)
    out = []
    for (model, condition), items in groups.items():
        row: dict[str, Any] = {"model": model, "condition": condition, "episodes": len(items)}
        for name in _SUMS:
            row[name] = sum(int(r.get(name) or 0) for r in items)
        row["cache_hit_rate"] = round(row["cache_hits"] / row["model_calls"], 6) if row["model_calls"] else None
        row["retry_wait_s"] = round(sum(float(r.get("retry_wait_s") or 0.0) for r in items), 6)
        for name in _FLAGS:
            row[name] = sum(1 for r in items if r.get(name))
        codes = Counter(str(r.get("error_code") or "other") for r in items if r.get("status") == "error")
        row["error_codes"] = dict(sorted(codes.items()))
        out.append(row)
    return out
