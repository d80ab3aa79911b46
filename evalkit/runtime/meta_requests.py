"""Meta requests as the runtime reads them (DESIGN §3, seed 000 §4).

A ``meta_request`` call (or a call of a plain meta tool) becomes a :class:`MetaRequest`
(:func:`parse_request`): its id, type, reason, target, question, capability, required
evidence, requested resources, risk, fallback, confidence and safe partial output.
:func:`tool_named` says which registered tool a ``request_tool`` capability names. The
protocol that validates and answers requests is :class:`evalkit.runtime.meta.MetaProtocol`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from evalkit.runtime.model_io import ToolCall
from evalkit.runtime.signals import DecisionSignals


@dataclass(frozen=True, slots=True)
class MetaRequest:
    """One meta request as the runtime sees it (seed 000 §4)."""

    id: str
    type: str
    call_id: str
    arguments: dict[str, Any]
    reason: str = ""
    target: str | None = None
    question: str | None = None
    options: tuple[str, ...] = ()
    capability: str | None = None
    required_evidence: tuple[str, ...] = ()
    requested_resources: dict[str, Any] = field(default_factory=dict)
    risk: str | None = None
    fallback: str | None = None
    confidence: float | None = None
    safe_partial_output: str | None = None

    def fingerprint(self) -> str:
        """Identity used to detect a repeated request."""
        return json.dumps([self.type, self.target, self.capability, self.question, self.requested_resources],
                          sort_keys=True, ensure_ascii=False, default=str)


def parse_request(call: ToolCall, request_id: str, signals: DecisionSignals | None = None) -> MetaRequest:
    """The :class:`MetaRequest` of a meta call.

    Args:
        call: The call.
        request_id: The id given to the request.
        signals: The condition's declaration of its meta calls
            (:class:`~evalkit.runtime.signals.DecisionSignals`): the call's meta type and
            canonical arguments are read through it. Without it, or for a call it does not
            declare, a ``meta_request`` call's ``type`` argument, else the tool's name, is the type.
    """
    read = signals.read(call) if signals is not None else None
    if read is not None:
        mtype, args = read
        own = call.arguments or {}
        arguments = {k: v for k, v in args.items() if k in own}  # as called (canonical aliases left out)
    else:
        args = dict(call.arguments or {})
        mtype = str(args.pop("type", "")) if call.name == "meta_request" else call.name
        arguments = args
    resources_ = args.get("requested_resources")

    def text(name: str) -> str | None:
        value = args.get(name)
        return str(value) if value not in (None, "") else None

    return MetaRequest(
        id=request_id, type=mtype, call_id=call.id, arguments=arguments,
        reason=str(args.get("reason") or ""), target=text("target") or text("name"), question=text("question"),
        options=tuple(map(str, args.get("options") or ())),
        capability=text("capability") or text("requested_capability"),
        required_evidence=tuple(map(str, args.get("required_evidence") or args.get("missing_evidence") or ())),
        requested_resources=dict(resources_) if isinstance(resources_, dict) else {},
        risk=text("risk"), fallback=text("fallback"),
        confidence=args.get("confidence") if isinstance(args.get("confidence"), (int, float)) else None,
        safe_partial_output=text("safe_partial_output"),
    )


_NOT_NAME = re.compile(r"[^a-z0-9]+")


def tool_named(capability: str, tools: tuple[str, ...] | list[str]) -> str | None:
    """The registered tool a ``request_tool`` capability names, or ``None``.

    A capability names a tool only when it *is* the tool's name, compared without case and
    with runs of spaces, hyphens, dots and other separators read as ``_`` (``"Send Message"``
    and ``"send-message"`` name ``send_message``). Sharing a word is not naming:
    ``schedule_message`` does not name ``send_message`` and ``exchange item`` does not name
    ``approve_refund``; those pairs are exactly what ``tool_gap`` scenarios test (DESIGN §3,
    seed ``000`` §3.2: the runtime may disclose an existing tool, or record a capability gap).

    Args:
        capability: The requested capability (or target) as the model wrote it.
        tools: Names of the episode's registered task tools.

    Returns:
        The matching tool's name as registered, or ``None`` when no tool is named.
    """
    key = _NOT_NAME.sub("_", capability.strip().lower()).strip("_")
    if not key:
        return None
    return next((name for name in tools if _NOT_NAME.sub("_", name.lower()).strip("_") == key), None)
