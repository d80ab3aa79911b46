"""evalkit's own metrics, registered in :mod:`evalkit.metrics.registry` like any other.

Their definitions (numerator, denominator) are the table of :mod:`evalkit.metrics.aggregate`
and :mod:`evalkit.metrics.followup`; their per-episode fields are written by
:func:`evalkit.metrics.scoring.score_episode` and their counts kept by
:class:`~evalkit.metrics.aggregate.GroupStats` in one pass over a run (``builtin=True``).
What is declared here is what the summary tables, the report and the CI gate read: kind,
range and unit, direction, breakdown membership (``core``), column label, and how the gate
reads the number (planned population, what an empty denominator lacks, behaviour over
recorded episodes, a mean's ``n``, the unit a regression check compares).
"""

from __future__ import annotations

from typing import Any

from evalkit.metrics.registry import Metric, register_metric

_PAIR_UNITS = ("paired_accuracy_n", "pair units with two or more sides (control pairs are act only)")
_ABSTAIN = ("abstain_accuracy_n", "planned abstain episodes")
_RESIST = ("act_resist_accuracy_n", "planned act_resist episodes")
_FOLLOWUP = ("recovery_rate_n", "planned abstain episodes with a follow-up")
_HI, _LO = "higher", "lower"


def _b(name: str, kind: Any, direction: Any = None, **declaration: Any) -> None:
    register_metric(Metric(name, kind, direction=direction, builtin=True, **declaration))


# counts of every group (main and breakdown rows)
for _name in ("n_pairs", "n_units", "epochs", "n_episodes", "completed", "errors", "missing", "incomplete_pairs",
              "control_units"):
    _b(_name, "count", _LO if _name in ("errors", "missing", "incomplete_pairs") else None, core=True)

_b("paired_accuracy", "rate", _HI, core=True, label="paired acc", column=20, population=_PAIR_UNITS,
   description="pair units with every side ok and correct over planned pair units",
   regression_unit="pair units (pair × epoch) with two or more sides")
_b("timely_paired_accuracy", "rate", _HI, core=True, label="timely paired", column=10, population=_PAIR_UNITS,
   description="paired accuracy with every abstention within max_lag",
   regression_unit="pair units (pair × epoch) with two or more sides, right only with every abstention within "
                   "max_lag")
_b("episode_accuracy", "rate", _HI, core=True, description="correct episodes over planned episodes",
   regression_unit="planned episodes")
_b("coverage", "rate", _HI, core=True, description="ok episodes over planned episodes")
_b("act_accuracy", "rate", _HI, core=True, label="act", column=30,
   population=("act_accuracy_n", "planned act episodes"), regression_unit="planned act episodes")
_b("abstain_accuracy", "rate", _HI, core=True, label="abstain", column=40, population=_ABSTAIN,
   regression_unit="planned abstain episodes")
_b("act_resist_accuracy", "rate", _HI, core=True, population=_RESIST, regression_unit="planned act_resist episodes")
_b("injected_commit_rate", "rate", _LO, core=True, population=_RESIST, conditioned_on="recorded act_resist episodes",
   recorded_behaviour=True)
_b("control_accuracy", "rate", _HI, core=True,
   population=("control_accuracy_n", "planned act episodes of control pairs (trigger none)"),
   regression_unit="planned act episodes of control pairs (act only)")
_b("conditional_abstain_accuracy", "rate", _HI, core=True, population=_PAIR_UNITS,
   conditioned_on="pair units whose act side is correct")
_b("post_hoc_rate", "rate", _LO, core=True, label="post-hoc", column=60, population=_ABSTAIN,
   conditioned_on="recorded abstain episodes", recorded_behaviour=True)
_b("timely_rate", "rate", _HI, core=True, label="timely", column=70, population=_ABSTAIN,
   conditioned_on="correct abstentions")
_b("meta_precision", "rate", _HI, core=True, label="meta P", column=80, conditioned_on="meta requests made",
   recorded_behaviour=True)
_b("meta_recall", "rate", _HI, core=True, label="meta R", column=90,
   population=("meta_recall_n", "expected meta requests (of planned abstain episodes)"))
_b("unnecessary_request_rate", "rate", _LO, core=True, recorded_behaviour=True)
_b("unnecessary_requests", "count", _LO, core=True, recorded_behaviour=True)
_b("unsupported_assumption_rate", "rate", _LO, core=True, label="unsupp.", column=100,
   conditioned_on="commit argument values checked", recorded_behaviour=True)
_b("unjudged_rate", "rate", _LO, core=True, label="unjudged", column=110, recorded_behaviour=True)
_b("unjudged", "count", _LO, core=True, recorded_behaviour=True)
_b("recovery_rate", "rate", _HI, core=True, label="recovery", column=50, population=_FOLLOWUP)
_b("resolved_paired_accuracy", "rate", _HI, core=True,
   population=("resolved_paired_accuracy_n", "pair units whose abstain side has a follow-up"))
_b("repeated_question_rate", "rate", _LO, core=True, population=_FOLLOWUP,
   conditioned_on="follow-up episodes in which the model asked", recorded_behaviour=True)
_b("unhelpful_commit_rate", "rate", _LO, core=True, population=_FOLLOWUP,
   conditioned_on="episodes given an unhelpful reply (run with --user unhelpful)", recorded_behaviour=True)
_b("followup_recorded", "count", core=True)
_b("questions_per_episode", "mean", core=True, unit="questions", population=_FOLLOWUP,
   conditioned_on="recorded follow-up episodes", recorded_behaviour=True, mean_n="followup_recorded")
_b("repeated_questions", "count", _LO, core=True, recorded_behaviour=True)
_b("commits_after_unhelpful", "count", _LO, core=True, recorded_behaviour=True)

# main rows only
_b("decision_match_rate", "rate", _HI, population=_ABSTAIN, conditioned_on="correct abstentions")
_b("first_pass_rate", "rate", _HI)
_b("lag_mean", "mean", _LO, unit="tool calls", population=_ABSTAIN, conditioned_on="correct abstentions with a lag",
   mean_n="timely_rate_n")
_b("pass_k", "rate", _HI, population=_PAIR_UNITS)
_b("repeated_denied_rate", "rate", _LO, conditioned_on="episodes with a denied request", recorded_behaviour=True)
_b("repeated_denied", "count", _LO, recorded_behaviour=True)
_b("fulfilment_rate", "rate", _HI, conditioned_on="typed meta requests made", recorded_behaviour=True)
for _rate, _count in (("permission_escalation_rate", "permission_escalations"),
                      ("budget_overrun_rate", "budget_overruns"), ("incorrect_tool_use_rate", "incorrect_tool_use")):
    _b(_rate, "rate", _LO, recorded_behaviour=True)
    _b(_count, "count", _LO, recorded_behaviour=True)
_b("model_escalations", "count")
_b("review_rounds", "count")
_b("error_rate", "rate", _LO, core=True)
_b("tool_calls", "count", recorded_behaviour=True)
_b("tool_calls_mean", "mean", unit="tool calls", recorded_behaviour=True)
for _name in ("input_tokens", "output_tokens", "cached_input_tokens", "cache_write_tokens", "reasoning_tokens",
              "retry_input_tokens", "retry_output_tokens"):
    _b(_name, "mean", _LO, unit="tokens")
_b("usage_unknown", "count", _LO)
_b("tokens_per_episode", "mean", _LO, unit="tokens")
_b("tokens_per_success", "mean", _LO, unit="tokens", mean_n="episode_accuracy_k")
_b("latency_n", "count")
_b("latency_s_mean", "mean", _LO, unit="seconds", mean_n="latency_n")  # over the episodes that finished ok
_b("latency_s_p95", "mean", _LO, unit="seconds", mean_n="latency_n")
for _name in ("cost_usd", "retry_cost_usd", "replayed_cost_usd"):
    _b(_name, "mean", _LO, unit="USD")
_b("cost_per_success_usd", "mean", _LO, unit="USD", mean_n="episode_accuracy_k")
