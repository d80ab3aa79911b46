"""The meta-request tools offered to the model (DESIGN §3, seed 000 §3–§4).

Under the ``tool`` condition the seven meta-request types are offered as seven plain
function tools. Under the ``meta`` condition they are one typed tool, ``meta_request``,
whose ``type`` field selects the request and whose fields follow the seed's data model
(id is assigned by the runtime; reason, required evidence, requested resources, risk,
fallback, confidence) plus each type's own fields: ``target`` (the context, document or
skill name wanted), ``question`` and ``options`` (a user decision), ``capability`` (a
missing tool or a model capability) and ``safe_partial_output`` (what a blocked agent can
still hand over). Permissions are asked for as ``requested_resources: {permissions: [...]}``.
"""

from __future__ import annotations

from typing import Any

from evalkit.runtime.tools import ToolSpec
from evalkit.types import META_TYPES

_STR = {"type": "string", "maxLength": 500}
_STR_LIST = {"type": "array", "items": {"type": "string", "maxLength": 200}, "maxItems": 10}


def _obj(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required, "additionalProperties": False}


_PLAIN: dict[str, tuple[str, dict[str, Any]]] = {
    "request_context": (
        "Ask for context you do not have (a file, a record, a document) that the task tools cannot give.",
        _obj({"target": _STR, "reason": _STR}, ["target", "reason"]),
    ),
    "request_tool": (
        "Say that no available tool can do what is needed, and which capability is missing.",
        _obj({"capability": _STR, "reason": _STR}, ["capability", "reason"]),
    ),
    "request_model_escalation": (
        "Ask for a stronger model to take over this step.",
        _obj({"reason": _STR, "requested_capability": _STR}, ["reason"]),
    ),
    "request_independent_review": (
        "Ask for an independent review of a risky or uncertain step before it is taken.",
        _obj({"reason": _STR, "scope": _STR}, ["reason"]),
    ),
    "propose_skill": (
        "Propose saving a reusable procedure as a draft skill (never activated automatically).",
        _obj({"name": {"type": "string", "maxLength": 100}, "description": _STR}, ["name", "description"]),
    ),
    "request_user_decision": (
        "Ask the user a question (missing information, a choice, or a confirmation) and wait for the answer.",
        _obj({"question": _STR, "target": _STR, "options": _STR_LIST, "reason": _STR}, ["question"]),
    ),
    "declare_blocked": (
        "Stop: the request cannot or should not be carried out. Say why and what evidence is missing.",
        _obj({"reason": _STR, "missing_evidence": _STR_LIST, "safe_partial_output": _STR}, ["reason"]),
    ),
}


_PLAIN_SPECS: dict[str, ToolSpec] = {
    name: ToolSpec(name=name, kind="lookup", description=desc, parameters=params, domain="meta")
    for name, (desc, params) in _PLAIN.items()
}


def plain_meta_tools() -> dict[str, ToolSpec]:
    """The seven meta-request types as plain tools (``tool`` condition).

    Returns:
        A new dict of the same frozen :class:`ToolSpec` objects on every call, so that
        what is derived from them once (the compiled argument validators, the token
        estimate of their definitions) is reused by every episode.
    """
    return dict(_PLAIN_SPECS)


META_REQUEST_SCHEMA: dict[str, Any] = _obj(
    {
        "type": {"type": "string", "enum": list(META_TYPES)},
        "reason": _STR,
        "target": _STR,
        "question": _STR,
        "options": _STR_LIST,
        "capability": _STR,
        "safe_partial_output": _STR,
        "required_evidence": _STR_LIST,
        "requested_resources": {"type": "object"},
        "risk": {"type": "string", "enum": ["low", "medium", "high"]},
        "fallback": _STR,
        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
    },
    ["type", "reason"],
)


_TYPED_SPEC = ToolSpec(
    name="meta_request",
    kind="lookup",
    description=(
        "Send a control-plane request to the runtime: ask for context, a tool, a stronger "
        "model, an independent review, propose a skill draft, ask the user to decide, or "
        "declare that you are blocked. The runtime validates it and answers accepted, "
        "modified, denied (with the reason and alternatives) or needs_user."
    ),
    parameters=META_REQUEST_SCHEMA,
    domain="meta",
)


def typed_meta_tool() -> dict[str, ToolSpec]:
    """The single typed ``meta_request`` tool (``meta`` condition).

    Returns:
        A new dict holding the same frozen :class:`ToolSpec` on every call (see
        :func:`plain_meta_tools`).
    """
    return {"meta_request": _TYPED_SPEC}
