"""One episode driven by an external agent: each MCP tool call through the reference runtime.

An agent over MCP (:mod:`evalkit.agents`) proposes one tool call per MCP ``tools/call``
request. :class:`AgentSession` turns each request into one *turn* of the episode's event
log, in the same events an in-process model's one-call response makes (DESIGN §2):

1. a :class:`~evalkit.runtime.events.ModelResponded` holding the call (``latency_s``: the
   seconds since the previous answer, the agent's own thinking time; tokens are not seen);
2. the controller's verdict, then :func:`evalkit.runtime.loop.step_call` — the autonomy gate
   (when on), approvals, budgets, the sandbox executor or the condition's meta handler —
   exactly as :func:`~evalkit.runtime.loop.run_episode` runs it;
3. on a side with a follow-up (a :class:`~evalkit.runtime.followup.SimulatedUser` is
   given), a question to the user — a ``request_user_decision``, a ``request_context``
   nothing serves (:func:`~evalkit.runtime.loop.call_question`), or a :data:`FINAL_ANSWER`
   whose text asks (:func:`~evalkit.runtime.loop.text_question`) — does not end the episode:
   the simulated user's reply is recorded exactly as in process (the question, the
   ``followup`` phase with its own turn limit, the reply as the next user turn) and returned
   in the call's result (a last line ``The user replies: ...``, and ``evalkit/user_reply`` in
   the result's ``_meta``); the agent goes on;
4. the end of the episode when the call ended it (a terminal meta request, the gate's last
   stop), when it was the last call allowed (``loop_limit``: the agent's ``max_calls``, or
   after the user's first reply the follow-up phase's limit), or when the meta handler's
   deferred answers end it; otherwise those answers are delivered at once (the in-process
   loop delivers them before the next turn's context, so the log is the same) and the agent
   sees them in this call's result.

The answer to the agent is the call's observation as the context builder renders it for a
model (:func:`evalkit.runtime.context.observation_texts`); a denial, a failed tool and a
denied meta request are MCP tool errors (``isError``) whose text starts with the reason
code. The agent's final answer is a call to :data:`FINAL_ANSWER` (one turn with text and no
call, then ``final_text``), or its standard output (:meth:`AgentSession.finish`). An agent that
exits without either after the user replied to its question has stopped there: its final text
is empty (as an in-process model answering with no text), not an error.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from typing import Any

from evalkit.runtime.approvals import ApprovalPolicy
from evalkit.runtime.context import observation_texts
from evalkit.runtime.controller import Action, Controller, Limits
from evalkit.runtime.events import (
    ActionDecided,
    EpisodeEnded,
    EpisodeStarted,
    ErrorRaised,
    MetaRequestUpdated,
    ModelResponded,
    ToolExecuted,
    UserMessage,
)
from evalkit.runtime.executor import Fault, SandboxExecutor
from evalkit.runtime.followup import SimulatedUser
from evalkit.runtime.gate import AutonomyGate
from evalkit.runtime.jsonsafe import SURROGATE, clean_text, json_problem, sanitize
from evalkit.runtime.loop import (CallPieces, EpisodeRun, Ending, MetaHandler, Recorder, call_question, step_call,
                                  text_question)
from evalkit.runtime.model_io import ToolCall
from evalkit.runtime.tools import ToolSpec

FINAL_ANSWER = "final_answer"
"""The tool an agent calls with its final answer to the user (ends the episode)."""

FINAL_ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"answer": {"type": "string", "description": "Your final message to the user."}},
    "required": ["answer"],
    "additionalProperties": False,
}
FINAL_ANSWER_DESCRIPTION = ("Give your final answer to the user and end the task: what you did, or why you did not "
                            "act, or the question the user must answer first. Call it once, last.")

MAX_STDOUT_ANSWER = 20_000
"""Characters of an agent's standard output kept as its final answer (longer is cut)."""


@dataclass(frozen=True, slots=True)
class Answer:
    """What one MCP tool call returns to the agent.

    Attributes:
        text: The observation (JSON text, as a model would see it in its context).
        is_error: Whether the call was denied, failed, or its meta request was denied.
        ended: Whether the episode has ended (the agent should stop calling tools).
        end_reason: The :class:`EpisodeEnded` reason when ``ended``.
        user_reply: The simulated user's reply when the call asked the user a question,
            else ``None``.
    """

    text: str
    is_error: bool = False
    ended: bool = False
    end_reason: str | None = None
    user_reply: str | None = None


def _is_error(event: Any) -> bool:
    """Whether the event holding a call's observation is a denial, a failed execution or a
    denied meta request (the MCP result's ``isError``)."""
    if type(event) is ActionDecided:
        return event.action == "deny"
    if type(event) is ToolExecuted:
        return not event.ok
    if type(event) is MetaRequestUpdated:
        response = event.detail.get("response")
        return isinstance(response, dict) and response.get("decision") == "denied"
    return False


class AgentSession:
    """The runtime side of one agent-driven episode (see the module docstring).

    Takes the keyword arguments of :func:`evalkit.runtime.loop.run_episode` (``model`` and
    ``episode`` are not used here; ``history``, the earlier turns of a multi-turn pair, goes
    into the user-message event; ``user``, the simulated user of a side with a follow-up) plus
    ``max_calls``, the agent's turn limit.

    Thread-safe: calls are served one at a time, in arrival order.
    """

    def __init__(self, *, tools: dict[str, ToolSpec], state: dict[str, Any], permissions: tuple[str, ...],
                 user_message: str, limits: Limits, system_prompt: str = "",
                 meta_tools: dict[str, ToolSpec] | None = None, meta_handler: MetaHandler | None = None,
                 faults: dict[str, Fault] | None = None, started: dict[str, Any] | None = None,
                 gate: AutonomyGate | None = None, approvals: ApprovalPolicy | None = None,
                 history: tuple[dict[str, Any], ...] = (), user: SimulatedUser | None = None, max_calls: int = 50,
                 **_unused: Any):
        self.meta_tools = meta_tools or {}
        self.tools = tools
        self.system_prompt = system_prompt
        self.user_message = user_message
        self.state = state
        self.limits = limits
        self.max_calls = max_calls
        self.user = user
        self.end = max_calls  # the last turn the episode may run to (the follow-up phase's, once the user replied)
        self.last_text: str | None = None  # the agent's last text (a final answer that asked), as in process
        self.rec = Recorder()
        all_tools = {**tools, **self.meta_tools}
        self.rec.emit(EpisodeStarted, 0, tools=(*all_tools, FINAL_ANSWER), permissions=tuple(sorted(permissions)),
                      limits={**limits.as_dict(), "max_turns": max_calls},
                      **{"gate": "on" if gate is not None else "off", **(started or {})})
        self.history = tuple(history)  # earlier turns of the conversation (a multi-turn pair), shown, not run
        self.rec.emit(UserMessage, 0, content=user_message, **({"history": self.history} if self.history else {}))
        self.controller = Controller(tools, self.meta_tools, step_budgets=gate is None, approvals=approvals)
        self.pieces = CallPieces(self.rec, SandboxExecutor(state, faults), limits, gate, approvals, meta_handler)
        self.turn = 0
        self.ended: str | None = None
        self.calls_after_end = 0
        self.ended_event: Any = None  # set by the server: an asyncio.Event to wake the driver at the end
        self._lock = threading.Lock()
        self._last = time.monotonic()

    # ------------------------------------------------------------------ what the agent sees

    def tool_list(self) -> list[tuple[str, str, dict[str, Any]]]:
        """``(name, description, JSON schema)`` of every tool offered: the episode's task
        tools, the condition's meta tools, and :data:`FINAL_ANSWER`."""
        out = [(s.name, s.description, s.parameters) for s in (*self.tools.values(), *self.meta_tools.values())]
        out.append((FINAL_ANSWER, FINAL_ANSWER_DESCRIPTION, FINAL_ANSWER_SCHEMA))
        return out

    # ------------------------------------------------------------------ calls

    def call(self, name: str, arguments: Any) -> Answer:
        """Serve one MCP tool call (module docstring) and return what the agent sees."""
        with self._lock:
            if self.ended is not None:
                self.calls_after_end += 1
                return Answer(json.dumps({"error": "episode_ended", "message": f"the episode has ended "
                                          f"({self.ended}); make no more calls"}), True, True, self.ended)
            self.turn += 1
            turn = self.turn
            now = time.monotonic()
            latency, self._last = now - self._last, now
            if name == FINAL_ANSWER:
                answer = arguments.get("answer") if isinstance(arguments, dict) else None
                if isinstance(answer, str):
                    return self._final(turn, answer, latency)
            call = _tool_call(f"call_{turn}", name, arguments)
            self.rec.emit(ModelResponded, turn, text=None, tool_calls=(call.recorded(),), finish_reason="tool_calls",
                          stop_reason="tool_use", input_tokens=None, output_tokens=None, latency_s=latency)
            self.last_text = None
            if name == FINAL_ANSWER:  # present but malformed: denied like any call failing its schema
                action = Action("deny", call, None, "schema_mismatch",
                                f"{FINAL_ANSWER} takes one argument, answer (a string)")
            else:
                action = self.controller.decide(call, self.rec.view)
            mark = self.rec.log.events[-1].seq
            ending = step_call(action, turn, self.pieces)
            asked = call_question(action, ending, turn, self.rec, self.user, self.end,
                                  signals=getattr(self.pieces.meta_handler, "signals", None))
            if asked is not None:  # the user replied: the question does not end the episode
                self.end, ending = asked, None
            self._next(turn, ending)
            return self._answer(call.id, mark, self._reply(mark) if asked is not None else None)

    def _next(self, turn: int, ending: Ending | None) -> None:
        """End the episode after ``turn`` when ``ending`` says so or at the turn limit, else
        deliver what the meta handler has for the next turn (as the in-process loop does at
        the start of that turn)."""
        if ending is not None:
            self._end(turn, ending.reason, terminal=ending.terminal, **ending.extra)
        elif turn >= self.end:
            self._end(self.end, "loop_limit", final_text=self.last_text)
        else:
            before_turn = getattr(self.pieces.meta_handler, "before_turn", None)
            terminal = before_turn(self.rec, turn + 1) if before_turn is not None else None
            if terminal is not None:
                self._end(turn + 1, "meta_terminal", final_text=self.last_text, terminal=terminal)

    def _final(self, turn: int, answer: str, latency: float) -> Answer:
        text = clean_text(answer)
        mark = self.rec.emit(ModelResponded, turn, text=text, tool_calls=(), finish_reason="stop",
                             stop_reason="end_turn", input_tokens=None, output_tokens=None, latency_s=latency).seq
        self.last_text = text
        asked = text_question(text, turn, self.rec, self.user, self.end)
        if asked is None:
            self._end(turn, "final_text", final_text=text)
            return Answer(json.dumps({"status": "answer recorded; the episode has ended"}), False, True, "final_text")
        self.end = asked  # the answer asked the user: the reply is the next user turn, the episode goes on
        self._next(turn, None)
        reply = self._reply(mark)
        body = f"Your answer asked the user a question; the episode goes on.\nThe user replies: {reply}"
        if self.ended is not None:
            body += f"\n[evalkit: the episode has ended ({self.ended}); make no more calls]"
        return Answer(body, False, self.ended is not None, self.ended, reply)

    def _reply(self, mark: int) -> str:
        """The simulated user's reply recorded after event ``mark`` (its user message)."""
        return next(e.content for e in reversed(self.rec.log.events) if type(e) is UserMessage and e.seq > mark)

    def _answer(self, call_id: str, mark: int, reply: str | None = None) -> Answer:
        events = self.rec.log.events
        texts = observation_texts(events)
        seq, text = texts.get(call_id, (-1, json.dumps({"error": "no observation recorded"})))
        updates = [f"update on {other}: {t}" for other, (s, t) in texts.items() if other != call_id and s > mark]
        body = "\n".join([text, *updates])
        if reply is not None:
            body += f"\nThe user replies: {reply}"
        if self.ended is not None:
            body += f"\n[evalkit: the episode has ended ({self.ended}); make no more calls]"
        return Answer(body, seq >= 0 and _is_error(events[seq]), self.ended is not None, self.ended, reply)

    def _end(self, turn: int, reason: str, *, final_text: str | None = None, **extra: Any) -> None:
        self.rec.emit(EpisodeEnded, turn, reason=reason, final_text=final_text, **extra)
        self.ended = reason
        if self.ended_event is not None:
            self.ended_event.set()

    # ------------------------------------------------------------------ the end

    def finish(self, *, stdout: str = "", error: str | None = None, code: str | None = None) -> EpisodeRun:
        """End the episode after the agent's process is gone and return its run.

        Args:
            stdout: The agent's standard output: its final answer when it made no
                :data:`FINAL_ANSWER` call (cut to :data:`MAX_STDOUT_ANSWER` characters).
            error: Why the agent failed (hung, crashed, exited non-zero, never answered), or
                ``None``. Ignored when the episode had already ended: its answer stands.
            code: The error's reason code (``agent_timeout``, ``agent_exit``, ``agent_no_answer``,
                ``agent_start``, ``agent_no_connect``, ``agent_no_tools``:
                :mod:`evalkit.agents.server`).

        Returns:
            The :class:`~evalkit.runtime.loop.EpisodeRun`; an error is an error outcome
            (``EpisodeRun.error``), never an abstention.
        """
        with self._lock:
            if self.ended is None and error is None:
                text = clean_text(stdout.strip())[:MAX_STDOUT_ANSWER]
                if text or (self.user is not None and self.user.questions):  # after the user's reply: it stopped
                    self.turn += 1
                    self.rec.emit(ModelResponded, self.turn, text=text, tool_calls=(), finish_reason="stop",
                                  stop_reason="end_turn", input_tokens=None, output_tokens=None,
                                  latency_s=time.monotonic() - self._last)
                    self._end(self.turn, "final_text", final_text=text)
                else:
                    error, code = ("the agent exited without an answer (no final_answer call, nothing on "
                                   "stdout)", "agent_no_answer")
            if self.ended is None:
                message = clean_text(error or "the agent stopped")
                self.rec.emit(ErrorRaised, self.turn, source="agent", message=message, code=code)
                self._end(self.turn, "error")
                return EpisodeRun(self.rec.log, self.state, f"agent error: {message}")
            return EpisodeRun(self.rec.log, self.state)


def _tool_call(call_id: str, name: str, arguments: Any) -> ToolCall:
    """The :class:`ToolCall` for an MCP call: arguments that are not a JSON object, or hold
    values strict JSON cannot (NaN, Infinity), are a parse failure (denied, never run)."""
    name = clean_text(str(name))
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        return ToolCall(call_id, name, None, clean_text(repr(arguments))[:2000], "arguments are not a JSON object")
    problem = json_problem(arguments)
    if problem is not None and problem != SURROGATE:
        return ToolCall(call_id, name, None, clean_text(repr(arguments))[:2000],
                        f"invalid_json: the arguments hold {problem}")
    if problem == SURROGATE:
        arguments = sanitize(arguments)
    return ToolCall(call_id, name, arguments, json.dumps(arguments, ensure_ascii=False))
