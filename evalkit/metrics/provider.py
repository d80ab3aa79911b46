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
  content filter or a refusal; they count as incorrect, never as abstentions), ``refusal``
  (those with a refusal text), ``truncated_output`` (episodes with a response cut at the
  token limit) and ``truncated_calls`` (tool calls denied for it), ``unknown_content_blocks``
  (response content blocks of a type evalkit does not read, kept in the trace),
  ``claimed_action_without_call``;
* ``usage_missing`` (responses whose usage was not reported: their tokens and money are
  ``null``), ``usage_inconsistent`` (responses whose counts disagree, :mod:`evalkit.metrics.billing`),
  ``unknown_stop_reason`` (responses whose stop reason is not a documented value),
  ``retry_input_tokens`` / ``retry_output_tokens`` (billed on failed attempts), summed over
  the episodes whose failed attempts' usage is known: ``retry_usage_unknown`` counts the
  others (an attempt answered with a body whose usage could not be read), and when it is not
  0 the sums are lower bounds (``retry_tokens_lower_bound``), or ``None`` when no episode's
  is known — never 0 for tokens that were billed but not reported;
* ``model_mismatch`` (calls whose response named another model than the one requested,
  :mod:`evalkit.models.identity`) and ``answered_models`` (those calls by the model that
  answered, ``{name: episodes}``); ``model_invalid`` (responses whose ``model`` field was not a
  string or null: which model answered them is unknown, :func:`evalkit.models.reply.model_flags`);
* ``undecodable_text`` (responses whose text, refusal or tool-call arguments hold U+FFFD or a
  lone surrogate, kept as received: :data:`evalkit.models.reply.UNDECODABLE_TEXT`);
* ``error_codes``: errored episodes by outcome code (``context_length_exceeded`` …).
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from typing import Any, Iterable

_SUMS = ("model_calls", "cache_hits", "retries", "parse_failures", "repaired_calls", "usage_missing",
         "usage_inconsistent", "unknown_stop_reason", "truncated_calls", "unknown_content_blocks", "model_mismatch",
         "model_invalid", "undecodable_text")
_RETRY_TOKENS = ("retry_input_tokens", "retry_output_tokens")
_FLAGS = ("call_in_content", "content_filter", "refusal", "truncated_output", "claimed_action_without_call")


def provider_summary(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per (model, condition), in first-seen order (see the module docstring)."""
    totals = ProviderTotals()
    for r in rows:
        totals.add(r)
    return totals.result()


class ProviderTotals:
    """:func:`provider_summary` fed one recorded row at a time: a few counters per
    (model, condition), whatever the number of episodes. Float sums are exact (rounded once)."""

    def __init__(self) -> None:
        self._groups: dict[tuple[str, str], dict[str, Any]] = {}

    def add(self, r: dict[str, Any]) -> None:
        """Count one recorded result row."""
        g = self._groups.get((r["model"], r["condition"]))
        if g is None:
            g = self._groups[(r["model"], r["condition"])] = {
                "episodes": 0, **{name: 0 for name in _SUMS}, "wait": Fraction(0), **{name: 0 for name in _FLAGS},
                **{name: 0 for name in _RETRY_TOKENS}, "retry_unknown": 0, "codes": Counter(), "answered": Counter()}
        g["episodes"] += 1
        for name in _SUMS:
            g[name] += int(r.get(name) or 0)
        if any(r.get(name) is None for name in _RETRY_TOKENS if name in r):  # billed, not reported: unknown
            g["retry_unknown"] += 1
        else:
            for name in _RETRY_TOKENS:
                g[name] += int(r.get(name) or 0)
        if r.get("model_mismatch"):
            g["answered"].update(str(m) for m in r.get("answered_models") or ["unknown"])
        wait = float(r.get("retry_wait_s") or 0.0)
        if wait:
            g["wait"] += Fraction(wait)
        for name in _FLAGS:
            g[name] += bool(r.get(name))
        if r.get("status") == "error":
            g["codes"][str(r.get("error_code") or "other")] += 1

    def result(self) -> list[dict[str, Any]]:
        """The rows of :func:`provider_summary`."""
        out = []
        for (model, condition), g in self._groups.items():
            row: dict[str, Any] = {"model": model, "condition": condition, "episodes": g["episodes"]}
            for name in _SUMS:
                row[name] = g[name]
            row["cache_hit_rate"] = round(row["cache_hits"] / row["model_calls"], 6) if row["model_calls"] else None
            row["retry_wait_s"] = round(float(g["wait"]), 6)
            for name in _FLAGS:
                row[name] = g[name]
            known = g["episodes"] > g["retry_unknown"]
            for name in _RETRY_TOKENS:
                row[name] = g[name] if known else None
            row["retry_usage_unknown"] = g["retry_unknown"]
            row["retry_tokens_lower_bound"] = bool(g["retry_unknown"]) and known
            row["answered_models"] = dict(sorted(g["answered"].items()))
            row["error_codes"] = dict(sorted(g["codes"].items()))
            out.append(row)
        return out
