"""Shared vocabulary: literal types for decisions, reason codes, phases and triggers.

The names follow DESIGN §2–§6 and the field's usage (AgentAbstain's trigger taxonomy, the
least-autonomy seed's four decisions).
"""

from __future__ import annotations

from typing import Literal, get_args

ToolKind = Literal["lookup", "verify", "commit"]
"""Tool class (DESIGN §4): ``lookup`` reads, ``verify`` checks, ``commit`` changes state."""

Condition = Literal["nl", "tool", "meta"]
"""How the model may say what it needs (DESIGN §5)."""

Variant = Literal["act", "abstain"]
"""The two sides of a pair (DESIGN §6)."""

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
    "parse_error",
    "meta_denied",
]
"""Why the controller did not execute a proposed call (DESIGN §2)."""

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
TRIGGERS: tuple[str, ...] = get_args(Trigger)
CONDITIONS: tuple[str, ...] = get_args(Condition)
