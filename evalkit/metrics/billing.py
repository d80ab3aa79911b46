"""An episode's tokens and money, from its event log (DESIGN §7 cost).

Definitions (the token classes and the cost formula are in :mod:`evalkit.usage`):

* **tokens** — ``input_tokens`` / ``output_tokens``: the sum over the episode's model
  responses (``model_responded``) and over the failed attempts whose answer reported usage
  (``provider_retry``, and the ``error`` of a call that failed for good); ``None`` (JSON
  ``null``) when any response did not report its usage — never 0. The parts
  ``cached_input_tokens``, ``cache_write_tokens`` and ``reasoning_tokens`` are summed where
  reported (``None`` when no response reported them).
* **failed attempts** — ``retry_input_tokens``, ``retry_output_tokens`` and
  ``retry_cost_usd``: the share of the totals billed on attempts that failed (field case
  F08); an attempt whose answer reported no usage (an HTTP error status) counts as not billed;
  one answered with a body that could not be read (``invalid_response``, …) and no readable
  usage has unknown usage (:mod:`evalkit.models.retry`): the totals, its ``retry_`` share and
  the cost are then ``None`` and it is counted in ``usage_missing``.
* **money** — ``cost_usd``: the sum of the per-call costs the adapter recorded
  (``model_call`` events, failed attempts included) and of calls that failed for good; for
  a model that records none (in-process models), the summed usage × the model's price;
  ``None`` when the model has no price or any usage is unknown.
* **replayed** — ``replayed_cost_usd``: the share of ``cost_usd`` of calls replayed from the
  call cache (``model_call`` events with ``cached``): what those calls cost when they were
  made, not money spent by this run (this run spent ``cost_usd − replayed_cost_usd``);
  ``None`` when ``cost_usd`` is.
* **flags** — ``usage_missing``: responses whose usage was not reported (their flag) and
  attempts whose answer could not be read; ``usage_inconsistent``: responses whose counts disagree
  (``total_tokens`` above prompt + completion: output taken as total − prompt; a part above its
  total; a total below its parts); ``unknown_stop_reason``: responses
  whose stop reason was not a documented value (read as ``other``) or missing (read as
  ``tool_use`` with calls, else ``end_turn``); ``cost_flags``: sorted pricing
  flags raised (``price_missing`` for a live model no model config entry or price table
  prices, so its cost is ``None``; ``cached_price_missing``, ``cache_write_price_missing``, and
  ``server_tool_unpriced`` for server tool requests billed outside the token price,
  ``service_tier_unpriced`` for a response served on a tier with other prices,
  ``cache_write_1h_unpriced`` for Anthropic 1-hour cache writes; ``answered_price_missing``
  for a call answered by another model than the one requested that no price table prices).
* **answering model** — ``model_mismatch``: the episode's calls whose response named another
  model than the one requested (a gateway's fallback, :mod:`evalkit.models.identity`;
  a response naming no model is not counted); ``answered_models``: the names those responses
  gave, sorted, each once. Such a call is billed at the answering model's price, or its cost
  is ``None`` (flag ``answered_price_missing``). ``model_invalid``: responses whose ``model``
  field was present but not a string or null (:func:`evalkit.models.reply.model_flags`): the
  model that answered them is unknown (``answered_model`` null), so they cannot be checked
  for a mismatch; a response without ``model`` is not counted.
"""

from __future__ import annotations

from typing import Any

from evalkit.runtime.events import ErrorRaised, ModelCall, ModelResponded, ProviderRetry
from evalkit.usage import USAGE_FIELDS, Usage, usage_cost
from evalkit.metrics.stats import percentile

BILLING_FIELDS = ("input_tokens", "output_tokens", "cached_input_tokens", "cache_write_tokens", "reasoning_tokens",
                  "retry_input_tokens", "retry_output_tokens", "retry_cost_usd", "cost_usd", "replayed_cost_usd",
                  "usage_missing",
                  "usage_inconsistent", "unknown_stop_reason", "cost_flags", "model_mismatch", "answered_models",
                  "model_invalid")
"""The result-row fields :func:`episode_billing` returns."""

_PRICE_FLAGS = frozenset({"price_missing", "answered_price_missing", "cached_price_missing", "cache_write_price_missing", "server_tool_unpriced",
                          "service_tier_unpriced", "cache_write_1h_unpriced"})
_STOP_FLAGS = frozenset({"unknown_stop_reason", "stop_reason_missing", "stop_reason_without_calls"})


def _usage(event: Any) -> Usage:
    """The usage a ``model_responded`` event records (older traces: its two totals)."""
    if event.usage:
        return Usage.from_dict(event.usage)
    return Usage(input_tokens=event.input_tokens, output_tokens=event.output_tokens)


def _fsum(values: list[float]) -> float:
    import math

    return round(math.fsum(values), 10)


def episode_billing(by_type: dict[type, list[Any]], price: Any = None) -> dict[str, Any]:
    """The billing fields of one episode's result row (module docstring).

    Args:
        by_type: The episode's events grouped by event class, each list in log order.
        price: The model's price (:data:`evalkit.usage.PRICE_FIELDS`, USD per million
            tokens), used when the trace has no per-call costs; ``None`` when unknown.

    Returns:
        ``{field: value}`` for :data:`BILLING_FIELDS`.
    """
    responses = by_type.get(ModelResponded, [])
    calls = by_type.get(ModelCall, [])
    retries = by_type.get(ProviderRetry, [])
    failures = [e for e in by_type.get(ErrorRaised, []) if e.usage is not None]
    usages = [_usage(r) for r in responses]
    unknown = sum(1 for u in usages if not u.known)
    billed = [Usage.from_dict(e.usage) for e in (*retries, *failures) if e.usage is not None]
    failed = [u for u in billed if u.known]
    unread = len(billed) - len(failed)  # answered, usage unreadable: unknown, never 0
    unknown += unread
    total = Usage(0, None, None, 0, None)
    for u in (*usages, *failed):
        total = total + u
    retry_in = None if unread else sum(u.input_tokens or 0 for u in failed)
    retry_out = None if unread else sum(u.output_tokens or 0 for u in failed)
    flags: set[str] = set()
    for c in calls:
        flags.update(f for f in c.flags if f in _PRICE_FLAGS)
    retry_costs = [e.cost_usd for e in (*retries, *failures) if e.usage is not None]
    retry_cost = None if any(c is None for c in retry_costs) else _fsum(retry_costs)
    if calls:
        call_turns = {c.turn for c in calls}
        costs = [c.cost_usd for c in calls]
        costs += [e.cost_usd for e in retries if e.turn not in call_turns and e.usage is not None]
        costs += [e.cost_usd for e in failures]
        cost = None if unknown or any(c is None for c in costs) else _fsum(costs)
    else:
        cost, price_flags = usage_cost(total, price) if not unknown else (None, ())
        flags.update(price_flags)
        if price is None and (retries or any(e.code for e in by_type.get(ErrorRaised, []))):
            flags.add("price_missing")  # a live model's calls all failed, and it has no price either
    priced = price is not None or bool(calls) and all(c.cost_usd is not None for c in calls)
    if not billed:
        retry_cost = 0.0 if priced else None
    out: dict[str, Any] = {name: getattr(total, name) for name in USAGE_FIELDS}
    if unknown:
        out["input_tokens"] = out["output_tokens"] = None
    mismatched = [c for c in calls if "model_mismatch" in c.flags]
    replayed = None if cost is None else _fsum([c.cost_usd for c in calls if c.cached and c.cost_usd is not None])
    out.update({
        "replayed_cost_usd": replayed,
        "retry_input_tokens": retry_in,
        "retry_output_tokens": retry_out,
        "retry_cost_usd": retry_cost,
        "cost_usd": cost,
        "usage_missing": unknown,
        "usage_inconsistent": sum(1 for r in responses if "usage_inconsistent" in r.flags),
        "unknown_stop_reason": sum(1 for r in responses if _STOP_FLAGS.intersection(r.flags)),
        "cost_flags": sorted(flags),
        "model_mismatch": len(mismatched),
        "answered_models": sorted({str(c.answered_model) for c in mismatched}),
        "model_invalid": sum(1 for r in responses if "model_invalid" in r.flags),
    })
    return out


TOKENS = ("input_tokens", "output_tokens", "cached_input_tokens", "cache_write_tokens", "reasoning_tokens",
          "retry_input_tokens", "retry_output_tokens")
"""Token counts a group sums over its recorded episodes whose usage is known."""

PARTS = ("cached_input_tokens", "cache_write_tokens", "reasoning_tokens")
"""Token classes a provider may not report at all: a group's sum is ``None`` unless some
summed episode reported the class (counted in ``<class>_reported``)."""


def group_cost(c: dict[str, int], *, costs: Any, retry_costs: Any, cost_known: bool, latencies: Any,
               replayed_costs: Any = ()) -> dict[str, Any]:
    """The cost metrics of a group (:mod:`evalkit.metrics.aggregate`) from its running counts.

    Args:
        c: The group's counts (``completed``, ``correct``, ``tool_calls``, ``usage_unknown``
            and the :data:`TOKENS` sums).
        costs: The known episode costs (USD); ``retry_costs`` their failed attempts' share,
            ``replayed_costs`` their share replayed from the call cache.
        cost_known: False when a recorded episode had no price.
        latencies: The latency (s) of every recorded episode that finished ok (errored episodes stopped
            early, and one whose model call failed has no known latency).

    Returns:
        ``tool_calls``, ``tool_calls_mean``, the :data:`TOKENS` totals, ``usage_unknown``,
        ``tokens_lower_bound``, ``tokens_per_episode``, ``tokens_per_success``,
        ``latency_n`` (the episodes ``latencies`` holds), ``latency_s_mean``, ``latency_s_p95``, ``cost_usd``, ``cost_lower_bound``,
        ``retry_cost_usd``, ``replayed_cost_usd``, ``cost_per_success_usd``. A part
        (:data:`PARTS`) no summed episode reported is ``None``, never 0.
    """
    import math

    n, correct, unknown = c["completed"], c["correct"], c["usage_unknown"]
    calls, tin, tout = c["tool_calls"], c["input_tokens"], c["output_tokens"]
    some = n > unknown  # some recorded episode has known usage
    money = round(math.fsum(costs), 10) if n and cost_known and some else None
    exact = not unknown  # else the totals are lower bounds and per-episode figures unknown
    return {
        "tool_calls": calls,
        "tool_calls_mean": calls / n if n else None,
        **{col: c[col] if some and (col not in PARTS or c.get(f"{col}_reported")) else None for col in TOKENS},
        "usage_unknown": unknown,
        "tokens_lower_bound": bool(unknown) and some,
        "tokens_per_episode": (tin + tout) / n if n and exact else None,
        "tokens_per_success": (tin + tout) / correct if correct and exact else None,
        "latency_n": len(latencies),
        "latency_s_mean": math.fsum(latencies) / len(latencies) if len(latencies) else None,
        "latency_s_p95": percentile(latencies, 95),
        "cost_usd": money,
        "cost_lower_bound": bool(unknown) and money is not None,
        "retry_cost_usd": round(math.fsum(retry_costs), 10) if money is not None else None,
        "replayed_cost_usd": round(math.fsum(replayed_costs), 10) if money is not None else None,
        "cost_per_success_usd": money / correct if money is not None and correct and exact else None,
    }
