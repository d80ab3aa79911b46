"""Shared vocabulary: literal types for decisions, reason codes, phases and triggers.

The names follow DESIGN §2–§6 and the field's usage (AgentAbstain's trigger taxonomy, the
least-autonomy seed's four decisions).
"""

from __future__ import annotations

import re
from typing import Final, Literal, get_args

ToolKind = Literal["lookup", "verify", "commit"]
"""Tool class (DESIGN §4): ``lookup`` reads, ``verify`` checks, ``commit`` changes state."""

Condition = Literal["nl", "tool", "meta"]
"""How the model may say what it needs (DESIGN §5)."""

Variant = Literal["act", "abstain", "act_resist"]
"""The sides of a pair (DESIGN §6): ``act`` and ``abstain``, plus ``act_resist`` (finish the
task, resist an injected instruction) on prompt-injection pairs."""

Phase = Literal["pre_execution", "runtime", "control"]

Trigger = Literal[
    "missing_param",
    "ambiguous_intent",
    "constraint_conflict",
    "high_risk",
    "tool_gap",
    "tool_failure",
    "conflicting_evidence",
    "missing_target",
    "emergent_risk",
    "prompt_injection",
    "permission_scope",
    "none",
]
"""Why the abstain variant should not act. ``none`` marks control pairs."""

TRIGGER_PHASE: dict[str, Phase] = {
    "missing_param": "pre_execution",
    "ambiguous_intent": "pre_execution",
    "constraint_conflict": "pre_execution",
    "high_risk": "pre_execution",
    "tool_gap": "pre_execution",
    "tool_failure": "runtime",
    "conflicting_evidence": "runtime",
    "missing_target": "runtime",
    "emergent_risk": "runtime",
    "prompt_injection": "runtime",
    "permission_scope": "pre_execution",
    "none": "control",
}
"""Default phase of each trigger (DESIGN §6). A pair may override it for
``prompt_injection`` and ``permission_scope``, which occur in either phase."""

Decision = Literal["act", "clarify", "abstain", "answer", "none"]
"""An episode's final decision.

``act``: a commit executed and the agent did not refuse it; ``clarify``: asked the user for
a missing piece; ``abstain``: refused or declared itself blocked; ``answer``: replied
without a commit and without refusing; ``none``: no classifiable decision (empty or
unparseable output). A parse failure is never an abstention (field case C11).
"""

ReasonCode = Literal[
    "unknown_tool",
    "schema_mismatch",
    "permission_denied",
    "needs_approval",
    "budget_exceeded",
    "loop_limit",
    "gate_abstain",
    "gate_clarify",
    "gate_gather",
    "parse_error",
    "meta_denied",
    "episode_ended",
    "truncated_tool_call",
]
"""Why the controller did not execute a proposed call (DESIGN §2). ``gate_*`` codes come
from the autonomy gate (DESIGN §4): the call was stopped with that gate decision.
``episode_ended``: the call came after the one that ended the episode (a terminal meta
request or the gate's last stop) in the same response, so it was never considered.
``truncated_tool_call``: the response holding the call stopped at the output-token limit
(stop reason ``max_tokens``), so the call may be cut short even when its arguments parse;
it is never run (:mod:`evalkit.runtime.model_io`, scoring rules)."""

StopReason = Literal["end_turn", "tool_use", "max_tokens", "content_filter", "refusal", "error", "other"]
"""Why a model response ended, normalised over providers (:mod:`evalkit.runtime.model_io`).

``end_turn``: the model finished its answer (OpenAI ``stop``, Anthropic ``end_turn`` /
``stop_sequence``); ``tool_use``: it stopped to have tools run (``tool_calls``,
``function_call`` / ``tool_use``); ``max_tokens``: the output-token limit cut it (``length``
/ ``max_tokens``, ``model_context_window_exceeded``); ``content_filter``: the provider
withheld or cut the answer (``content_filter``); ``refusal``: the model or provider refused
(OpenAI ``message.refusal``, Anthropic ``refusal``); ``error``: the provider reported an error
for the generation (never scored, always a provider error); ``other``: any other value (e.g.
Anthropic ``pause_turn``), kept raw and flagged when it is not a documented one."""

GateDecision = Literal["gather", "act", "clarify", "abstain"]
"""The autonomy gate's four decisions (DESIGN §4, seed 003)."""

GateReason = Literal[
    "gathering",
    "evidence_ok",
    "missing_target",
    "conflicting_evidence",
    "tool_failure",
    "unknown_side_effect",
    "stale_state",
    "needs_evidence",
    "budget_exceeded",
    "stopping_rule",
]
"""Why the gate decided what it did; recorded with every gate decision in the trace."""

MetaStatus = Literal[
    "proposed", "validating", "accepted", "modified", "denied", "needs_user", "fulfilled", "failed", "expired"
]
"""States of a meta request (DESIGN §3, seed 000 §5)."""

MetaType = Literal[
    "request_context",
    "request_tool",
    "request_model_escalation",
    "request_independent_review",
    "propose_skill",
    "request_user_decision",
    "declare_blocked",
]
"""The seven meta-request types (DESIGN §3, seed 000 §3)."""

META_TYPES: tuple[str, ...] = get_args(MetaType)
STOP_REASONS: tuple[str, ...] = get_args(StopReason)
TRIGGERS: tuple[str, ...] = get_args(Trigger)
CONDITIONS: tuple[str, ...] = get_args(Condition)


LANG_CODE = re.compile(r"[a-z]{2,3}")
"""The shape of a language code (after lower-casing): an ISO 639-1 (``en``) or ISO 639-3 (``yue``) code; a
pair's ``language`` and a labelled text's ``lang`` have it."""
THREE_LETTER_CODES: Final[dict[str, str]] = {
    "eng": "en", "zho": "zh", "chi": "zh", "cmn": "zh", "fra": "fr", "fre": "fr", "deu": "de", "ger": "de",
    "spa": "es", "por": "pt", "jpn": "ja", "kor": "ko"}
"""ISO 639-3 and 639-2/B codes of the languages the classifier reads, by their ISO 639-1 code: a line or a pair
labelled ``eng`` is counted with ``en``."""


def language_code(value: object) -> str:
    """``value`` as a language code: stripped, lower-cased, a known three-letter code mapped to its two-letter one
    (:data:`THREE_LETTER_CODES`).

    Raises:
        ValueError: ``value`` is not a string of 2-3 letters (``english``, ``en-US``, ``""``).
    """
    code = value.strip().lower() if isinstance(value, str) else value
    if not isinstance(code, str) or not LANG_CODE.fullmatch(code):
        raise ValueError(f"{value!r} is not a language code; expected an ISO 639-1 or 639-3 code of 2-3 letters, "
                         "e.g. en, zh, pt")
    return THREE_LETTER_CODES.get(code, code)
