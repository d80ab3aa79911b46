"""How each condition handles a meta request (DESIGN §3, §5).

* ``tool`` — :class:`PlainToolHandler`: the request is executed directly, with no policy.
  Its events are still logged (``proposed`` then ``fulfilled``) so that meta-request
  metrics can be compared across conditions.
* ``meta`` — :class:`RuntimePolicyHandler`: the request goes through the runtime's full
  protocol (:class:`evalkit.runtime.meta.MetaProtocol`): ``proposed → validating →
  accepted | modified | denied | needs_user → fulfilled | failed | expired``, every
  transition an event, validation of schema, permission, scope, budget, provider
  capability, sensitivity, side effects, provenance and loop limits.

Both end the episode on ``declare_blocked`` (typed decision ``abstain``) and on an
unanswered ``request_user_decision`` (typed decision ``clarify``); an answered one gives
the simulated user's answer and the episode goes on (under ``meta`` the answer arrives at
the start of the next turn, and expires if the state changed meanwhile).

Both classes are built per episode as ``Handler(user_answers, task_tools, **options)``;
``RuntimePolicyHandler`` takes ``policy`` (:class:`~evalkit.runtime.meta.MetaPolicy`) and
``env`` (:class:`~evalkit.runtime.meta.MetaEnvironment`), the plain handler ignores them.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

from evalkit.runtime.events import MetaRequestUpdated
from evalkit.runtime.loop import Recorder
from evalkit.runtime.meta import MetaEnvironment, MetaPolicy, MetaProtocol
from evalkit.runtime.meta_requests import parse_request
from evalkit.runtime.model_io import ToolCall
from evalkit.runtime.signals import DecisionSignals

__all__ = ["MetaPolicy", "PlainToolHandler", "RuntimePolicyHandler"]


class PlainToolHandler:
    """``tool`` condition: meta-request tools run as ordinary tools, without policy.

    Args:
        user_answers: The simulated user's answers by target (``default`` answers any).
        task_tools: Names of the episode's task tools.
        signals: The condition's meta calls (:class:`~evalkit.runtime.signals.DecisionSignals`):
            which call is which meta type, and its argument names; ``None``: each tool is the
            meta type of its name.
        **_options: Accepted for a uniform factory signature and ignored (no policy).
    """

    def __init__(self, user_answers: Mapping[str, str] | None = None, task_tools: tuple[str, ...] = (),
                 *, signals: DecisionSignals | None = None, **_options: Any):
        self.env = MetaEnvironment(user_answers=dict(user_answers or {}), tools=tuple(task_tools))
        self.signals = signals
        self._n = 0

    def handle(self, call: ToolCall, recorder: Recorder, turn: int) -> str | None:
        """Serve the request at once and log ``proposed`` then ``fulfilled``."""
        self._n += 1
        req = parse_request(call, f"mr-{self._n}", self.signals)
        reason = req.reason or req.question or ""
        recorder.emit(MetaRequestUpdated, turn, request_id=req.id, meta_type=req.type, status="proposed",
                      reason=reason, detail={"call_id": call.id, "arguments": req.arguments})
        terminal: str | None = None
        detail: dict[str, Any] = {}
        if req.type == "declare_blocked":
            response: dict[str, Any] = {"status": "stopped"}
            detail["safe_partial_output"] = req.safe_partial_output
            terminal = "abstain"
        elif req.type == "request_user_decision":
            answer = self.env.answer(req.target)
            if answer is None:
                response = {"status": "waiting for the user"}
                terminal = "clarify"
            else:
                response = {"status": "answered", "answer": answer}
        elif req.type == "propose_skill":
            response = {"status": "draft recorded", "active": False}
            detail["draft"] = {"name": req.target or "unnamed", "description": req.reason, "active": False}
        else:
            response = {"status": "unavailable", "message": f"{req.type} cannot be served in this environment"}
        recorder.emit(MetaRequestUpdated, turn, request_id=req.id, meta_type=req.type, status="fulfilled",
                      reason=reason, detail={"call_id": call.id, "response": response, **detail})
        return terminal


class RuntimePolicyHandler(MetaProtocol):
    """``meta`` condition: meta requests go through the runtime's protocol and policy.

    Args:
        user_answers: The simulated user's answers by target (``default`` answers any).
        task_tools: Names of the episode's task tools.
        policy: The runtime's :class:`~evalkit.runtime.meta.MetaPolicy`.
        env: What the offline world can answer (context documents, the reviewer, the
            user's grants, the task's scope); ``user_answers`` and ``task_tools`` fill it
            when given.
        signals: The condition's meta calls (:class:`~evalkit.runtime.signals.DecisionSignals`).
    """

    def __init__(self, user_answers: Mapping[str, str] | None = None, task_tools: tuple[str, ...] = (), *,
                 policy: MetaPolicy | None = None, env: MetaEnvironment | None = None,
                 signals: DecisionSignals | None = None):
        self.signals = signals
        env = env or MetaEnvironment()
        if user_answers:
            env = replace(env, user_answers=dict(user_answers))
        if task_tools:
            env = replace(env, tools=tuple(task_tools))
        super().__init__(policy, env)
