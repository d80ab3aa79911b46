"""The run summary written to ``summary.json``: the one source of every reported number.

The CLI table, the HTML report and the CI gate all read these rows, so they show the same
numbers (field case C20). JSON is written with NaN rejected (field case C21).
"""

from __future__ import annotations

import json
import math
import sys
from typing import Any, Iterable

import evalkit
from evalkit.metrics.aggregate import BREAKDOWNS, GROUP_KEYS, Key, row_key, summarize
from evalkit.metrics.compare import comparisons
from evalkit.metrics.stats import DEFAULT_BOOTSTRAP_SAMPLES, DEFAULT_SEED


def build_summary(
    plan: Iterable[Key],
    rows: Iterable[dict[str, Any]],
    *,
    pairs: dict[str, dict[str, Any]] | None = None,
    max_lag: int = 1,
    bootstrap_samples: int = DEFAULT_BOOTSTRAP_SAMPLES,
    seed: int = DEFAULT_SEED,
) -> dict[str, Any]:
    """Everything ``summary.json`` holds.

    Args:
        plan: Planned episode keys in run order.
        rows: Result rows (the last row of a key counts; rows outside the plan are ignored).
        pairs: Pair attributes by id (:func:`evalkit.metrics.aggregate.pair_attributes`).
        max_lag: The run's timely threshold (recorded for readers).
        bootstrap_samples: Bootstrap samples per comparison.
        seed: Bootstrap seed.

    Returns:
        ``{"evalkit_version", "n_episodes_planned", "n_episodes_completed", "n_errors",
        "n_missing", "settings", "rows", "breakdowns", "comparisons"}``: ``rows`` has one
        row per model × condition × gate (:func:`~evalkit.metrics.aggregate.summarize`),
        ``breakdowns`` maps each of trigger, phase, domain, split and language to rows per
        model × condition × gate × that attribute (core metrics only), ``comparisons``
        holds the paired tests (:func:`~evalkit.metrics.compare.comparisons`).
    """
    plan = list(plan)
    planned = set(plan)
    latest = {}
    for r in rows:
        latest[row_key(r)] = r
    index = {k: r for k, r in latest.items() if k in planned}
    kept = list(index.values())
    return {
        "evalkit_version": evalkit.__version__,
        "n_episodes_planned": len(plan),
        "n_episodes_completed": len(kept),
        "n_errors": sum(1 for r in kept if r["status"] != "ok"),
        "n_missing": len(plan) - len(kept),
        "settings": {"max_lag": max_lag, "confidence": 0.95, "interval": "wilson",
                     "bootstrap_samples": bootstrap_samples, "bootstrap_seed": seed,
                     "test": "exact McNemar (two-sided)"},
        "rows": summarize(plan, index, pairs=pairs),
        "breakdowns": {
            name: summarize(plan, index, pairs=pairs, by=(*GROUP_KEYS, name), core=True) for name in BREAKDOWNS
        },
        "comparisons": comparisons(plan, kept, samples=bootstrap_samples, seed=seed),
    }


SUMMARY_FIELDS = (
    # the episode key and the pair attributes used for breakdowns
    "pair_id", "variant", "model", "condition", "gate", "epoch", "trigger", "phase", "domain", "split", "language",
    # outcome (evalkit.metrics.aggregate)
    "status", "correct", "decision_match", "post_hoc", "lag", "timely", "first_pass", "injected_commits",
    # meta requests and runtime behaviour
    "meta_made_n", "meta_matched_n", "meta_expected_n", "meta_typed_n", "meta_fulfilled", "meta_denied",
    "repeated_denied", "unnecessary_requests", "permission_escalations", "budget_overruns", "incorrect_tool_use",
    "model_escalations", "review_rounds", "denials", "commit_args_n", "unsupported_args_n",
    # cost (evalkit.metrics.aggregate) and provider totals (evalkit.metrics.provider)
    "tool_calls", "input_tokens", "output_tokens", "latency_s", "cost_usd", "model_calls", "cache_hits", "retries",
    "retry_wait_s", "parse_failures", "repaired_calls", "call_in_content", "content_filter",
    "claimed_action_without_call", "error_code",
)
"""The result-row fields the summary reads (:func:`build_summary`, :func:`~evalkit.metrics.provider.provider_summary`)."""
_FIELD_SET = frozenset(SUMMARY_FIELDS)
_TEXT_FIELDS = frozenset({"pair_id", "variant", "model", "condition", "gate", "trigger", "phase", "domain", "split",
                          "language", "status", "denials", "error_code"})
_FLAG_FIELDS = frozenset({"correct", "decision_match", "post_hoc", "timely", "first_pass", "call_in_content",
                          "content_filter", "claimed_action_without_call"})
_MEASURES = frozenset({"latency_s", "cost_usd", "retry_wait_s"})
_REQUIRED = ("pair_id", "variant", "model", "condition", "gate", "epoch", "status", "correct")


def row_problem(row: dict[str, Any]) -> str | None:
    """What makes ``row`` unusable as a result row for the summary, or ``None``.

    Checked: the key fields, ``status`` and ``correct`` are present; ``status`` is ``ok`` or
    ``error``; ``epoch`` is an integer; every :data:`SUMMARY_FIELDS` value present has its
    JSON type (text, a flag, a count: an integer >= 0, or for latency, cost and retry wait a
    finite number >= 0) or is null (the key fields and ``status`` may not be); ``denials`` is
    a JSON object of reason code → count. Rows evalkit writes always pass; a row edited by hand may not, and is then
    skipped with a warning like a broken line (its episode runs again on resume).

    Returns:
        ``"field NAME: why"`` for the first problem found.
    """
    for name in _REQUIRED:
        if name not in row:
            return f"field {name}: missing"
    if row["status"] not in ("ok", "error"):
        return f"field status: {row['status']!r} is neither 'ok' nor 'error'"
    epoch = row["epoch"]
    if type(epoch) is not int:
        return f"field epoch: {epoch!r} is not an integer"
    for name in SUMMARY_FIELDS:
        if name not in row or name == "epoch":
            continue
        value = row[name]
        if value is None:
            if name in _REQUIRED:
                return f"field {name}: null"
            continue
        if name in _TEXT_FIELDS:
            ok = isinstance(value, str)
            kind = "text"
        elif name in _FLAG_FIELDS:
            ok = isinstance(value, bool)
            kind = "true or false"
        elif name in _MEASURES:
            ok = type(value) in (int, float) and math.isfinite(value) and value >= 0
            kind = "a finite number >= 0"
        else:
            ok = type(value) is int and value >= 0
            kind = "a count (an integer >= 0)"
        if ok and name == "denials":
            ok, kind = _denials_ok(value), "a JSON object of reason code → count"
        if not ok:
            shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:39] + "…"
            return f"field {name}: {shown} is not {kind}"
    return None


def _denials_ok(text: str) -> bool:
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return False
    return isinstance(data, dict) and all(type(n) is int and n >= 0 for n in data.values())


class SummaryRow:
    """A result row cut down to :data:`SUMMARY_FIELDS`, for summarising large runs.

    A scored row (:func:`evalkit.metrics.scoring.score_episode`) is a dict of about 70
    fields, several KB in memory; the summary needs its counts and flags only. A
    ``SummaryRow`` keeps those in slots (strings interned), about 0.5 KB, and reads like
    the row: ``row["status"]``, ``row.get("lag")``, ``"meta_expected_n" in row``. A field the
    source row lacked reads as missing, as in the row. Asking for a field outside
    :data:`SUMMARY_FIELDS` raises ``KeyError`` even through ``get``, so a metric that starts
    reading a new field fails loudly instead of silently reading its default.

    Args:
        row: A result row (dict).
    """

    __slots__ = SUMMARY_FIELDS

    def __init__(self, row: dict[str, Any]):
        for name in SUMMARY_FIELDS:
            if name in row:
                value = row[name]
                setattr(self, name, sys.intern(value) if type(value) is str else value)

    def __getitem__(self, name: str) -> Any:
        if name not in _FIELD_SET:
            raise KeyError(f"{name!r} is not a summary field (evalkit.metrics.summary.SUMMARY_FIELDS)")
        try:
            return getattr(self, name)
        except AttributeError:
            raise KeyError(name) from None

    def get(self, name: str, default: Any = None) -> Any:
        if name not in _FIELD_SET:
            raise KeyError(f"{name!r} is not a summary field (evalkit.metrics.summary.SUMMARY_FIELDS)")
        return getattr(self, name, default)

    def __contains__(self, name: object) -> bool:
        return name in _FIELD_SET and hasattr(self, name)  # type: ignore[arg-type]

    def as_dict(self) -> dict[str, Any]:
        """The kept fields as a plain dict."""
        return {name: getattr(self, name) for name in SUMMARY_FIELDS if hasattr(self, name)}
