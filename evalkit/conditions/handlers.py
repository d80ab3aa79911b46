"""How each condition handles a meta request (DESIGN §3, §5).

* ``tool`` — :class:`PlainToolHandler`: the request is executed directly, with no policy.
  Its events are still logged (``proposed`` then ``fulfilled``) so that meta-request
  metrics can be compared across conditions.
* ``meta`` — :class:`RuntimePolicyHandler`: the request goes through the runtime's
  protocol ``proposed → validating → accepted | modified | denied | needs_user →
  fulfilled | failed | expired``, each transition an event. This is the first slice of
  the protocol: validation checks the per-turn and per-type loop limits and whether the
  runtime can serve the type offline; denials carry the reason and the alternatives.

Both end the episode on ``declare_blocked`` (typed decision ``abstain``) and on an
unanswered ``request_user_decision`` (typed decision ``clarify``); an answered one
returns the simulated user's answer and the episode goes on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from evalkit.runtime.events import MetaRequestUpdated
from evalkit.runtime.loop import Recorder
from evalkit.runtime.model_io import ToolCall


@dataclass
class MetaPolicy:
    """Loop authority for meta requests (seed 000 §6).

    Attributes:
        max_per_turn: Meta requests allowed in one model response.
        max_per_type: Requests of one type allowed per episode.
    """

    max_per_turn: int = 3
    max_per_type: int = 3


@dataclass
class _Base:
    user_answers: dict[str, str] = field(default_factory=dict)
    task_tools: tuple[str, ...] = ()
    _n: int = 0

    def _answer(self, args: dict[str, Any]) -> str | None:
        target = args.get("target")
        if target and target in self.user_answers:
            return self.user_answers[target]
        return self.user_answers.get("default")

    def _new_id(self) -> str:
        self._n += 1
        return f"mr-{self._n}"


def _request(call: ToolCall) -> tuple[str, dict[str, Any]]:
    args = dict(call.arguments or {})
    if call.name == "meta_request":
        return str(args.pop("type", "")), args
    return call.name, args


class PlainToolHandler(_Base):
    """``tool`` condition: meta-request tools run as ordinary tools, without policy."""

    def handle(self, call: ToolCall, recorder: Recorder, turn: int) -> str | None:
        mtype, args = _request(call)
        rid = self._new_id()
        reason = str(args.get("reason") or args.get("question") or "")
        recorder.emit(MetaRequestUpdated, turn, request_id=rid, meta_type=mtype, status="proposed",
                      reason=reason, detail={"call_id": call.id, "arguments": args})
        terminal: str | None = None
        if mtype == "declare_blocked":
            response: dict[str, Any] = {"status": "stopped"}
            terminal = "abstain"
        elif mtype == "request_user_decision":
            answer = self._answer(args)
            if answer is None:
                response = {"status": "waiting for the user"}
                terminal = "clarify"
            else:
                response = {"status": "answered", "answer": answer}
        elif mtype == "propose_skill":
            response = {"status": "draft recorded", "active": False}
        else:
            response = {"status": "unavailable", "message": f"{mtype} cannot be served in this environment"}
        recorder.emit(MetaRequestUpdated, turn, request_id=rid, meta_type=mtype, status="fulfilled",
                      reason=reason, detail={"call_id": call.id, "response": response})
        return terminal


class RuntimePolicyHandler(_Base):
    """``meta`` condition: meta requests go through the runtime's validation and state machine."""

    def __init__(self, user_answers: dict[str, str] | None = None, task_tools: tuple[str, ...] = (),
                 policy: MetaPolicy | None = None):
        super().__init__(user_answers=dict(user_answers or {}), task_tools=tuple(task_tools))
        self.policy = policy or MetaPolicy()
        self._per_turn: dict[int, int] = {}
        self._per_type: dict[str, int] = {}

    def handle(self, call: ToolCall, recorder: Recorder, turn: int) -> str | None:
        mtype, args = _request(call)
        rid = self._new_id()
        reason = str(args.get("reason") or "")

        def emit(status: str, **detail: Any) -> None:
            recorder.emit(MetaRequestUpdated, turn, request_id=rid, meta_type=mtype, status=status,
                          reason=reason, detail={"call_id": call.id, **detail})

        emit("proposed", arguments=args)
        emit("validating")
        self._per_turn[turn] = self._per_turn.get(turn, 0) + 1
        self._per_type[mtype] = self._per_type.get(mtype, 0) + 1
        if self._per_turn[turn] > self.policy.max_per_turn:
            emit("denied", code="loop_limit", response={
                "decision": "denied", "reason": f"at most {self.policy.max_per_turn} meta requests per turn",
                "alternatives": ["continue with the task tools", "declare_blocked"]})
            return None
        if self._per_type[mtype] > self.policy.max_per_type:
            emit("denied", code="loop_limit", response={
                "decision": "denied",
                "reason": f"{mtype} was already requested {self.policy.max_per_type} times without new evidence",
                "alternatives": ["declare_blocked", "request_user_decision"]})
            return None
        if mtype == "declare_blocked":
            emit("accepted", response={"decision": "accepted", "reason": "the episode stops here"})
            emit("fulfilled", safe_partial_output=args.get("safe_partial_output"))
            return "abstain"
        if mtype == "request_user_decision":
            emit("needs_user", response={"decision": "needs_user", "question": args.get("question") or reason})
            answer = self._answer(args)
            if answer is None:
                emit("expired", note="the simulated user gave no answer")
                return "clarify"
            emit("fulfilled", response={"decision": "accepted", "answer": answer})
            return None
        if mtype == "propose_skill":
            emit("accepted", response={"decision": "accepted", "reason": "stored as an inactive draft",
                                       "active": False})
            emit("fulfilled", draft={"name": args.get("target") or reason, "active": False})
            return None
        alternatives = [f"use {name}" for name in self.task_tools] + ["request_user_decision", "declare_blocked"]
        emit("denied", code="not_available", response={
            "decision": "denied", "reason": f"{mtype} cannot be served in this environment",
            "alternatives": alternatives})
        return None
