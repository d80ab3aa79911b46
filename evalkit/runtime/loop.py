"""The agent loop: one episode of ``R_t → S_B → M_t → model → D_t → C → a_t → env → O_t → U``.

:func:`run_episode` ties the parts of the reference runtime together (DESIGN §2):

* the event log ``L_t`` (:mod:`~evalkit.runtime.events`) receives every fact;
* the effective view ``V_t`` (:mod:`~evalkit.runtime.view`) is refolded after each event
  (``U``);
* the pure context builder ``S_B`` (:mod:`~evalkit.runtime.context`) produces ``M_t``;
* the model returns ``D_t``; a provider error ends the episode as an error outcome, never
  as an abstention;
* the controller ``C`` (:mod:`~evalkit.runtime.controller`) turns each call into an
  action; denials go back to the model as observations;
* with the gate on, the autonomy gate (:mod:`~evalkit.runtime.gate`) decides on every call
  the controller would execute, before anything runs (a :class:`GateDecided` event); a
  stopped call is denied with ``gate_abstain`` / ``gate_clarify`` / ``gate_gather``, and
  after ``max_gate_stops`` stops the episode ends with reason ``gate_stop`` and the
  gate's decision as its typed decision;
* a call that needs approval (:mod:`~evalkit.runtime.approvals`) runs only once approved;
* the sandbox executor runs task tools; meta-request tools go to the condition's
  :class:`MetaHandler`, which may end the episode with a typed decision;
* when a call changes the state version, open approvals and meta requests bound to the
  old version expire (events), and at the start of each turn the handler may deliver
  what the simulated user answered meanwhile.

The loop stops when the model answers without tool calls, when a meta request ends the
episode, at ``max_turns`` (``loop_limit``), or on an error. On a side with a follow-up
(a :class:`~evalkit.runtime.followup.SimulatedUser` is given), a question to the user — a
clarifying final text, ``request_user_decision``, or a ``request_context`` nothing serves —
does not end the episode: the user's reply becomes the next user turn and the episode
goes on in its ``followup`` phase, with that phase's own turn limit
(:mod:`evalkit.runtime.followup`). Calls that follow the one that
ended the episode in the same response are recorded as denied with ``episode_ended`` and
not run. Every model output is checked at the boundary
(:func:`~evalkit.runtime.model_io.checked_output`): a wrong type or range (``respond``
returning ``None``, ``text=42``, negative or huge token counts, a NaN latency or cost) ends
the episode as an error outcome with a one-line message; lone surrogates are replaced and
arguments holding NaN or Infinity become a ``parse_error`` denial, so the log can always
be written. A live model's bookkeeping
(``ModelOutput.extra``) becomes events: each provider retry a ``ProviderRetry`` (also when
the call finally fails), the call's cache hit, attempts, wait and cost a ``ModelCall``, and
each tool call read non-verbatim a ``ToolCallTagged``. An answer withheld by the provider's
content filter, or refused (stop reason ``content_filter`` / ``refusal``), ends the episode
with reason ``content_filter`` and the refusal text as its final text. A tool call in a
response cut at the output-token limit (stop reason ``max_tokens``) is never run, even when
its arguments parse: it is denied with ``truncated_tool_call`` and the model is told its
output was cut off (the scoring table is in :mod:`evalkit.runtime.model_io`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from evalkit.errors import ModelError
from evalkit.runtime.context import build_context, estimate_tool_tokens
from evalkit.runtime.approvals import ApprovalPolicy, expire_stale
from evalkit.runtime.approvals import resolve as resolve_approval
from evalkit.runtime.controller import Action, Controller, Limits
from evalkit.runtime.events import (
    ActionDecided,
    ContextBuilt,
    EpisodeEnded,
    EpisodeStarted,
    ErrorRaised,
    Event,
    EventLog,
    GateDecided,
    MetaRequestUpdated,
    ModelCall,
    ModelResponded,
    ProviderRetry,
    ToolCallTagged,
    ToolExecuted,
    UserMessage,
)
from evalkit.runtime.executor import Fault, SandboxExecutor
from evalkit.runtime.followup import SimulatedUser
from evalkit.runtime.gate import AutonomyGate
from evalkit.runtime.jsonsafe import clean_text, sanitize
from evalkit.runtime.model_io import InvalidOutput, Model, ToolCall, checked_output
from evalkit.runtime.signals import DecisionSignals
from evalkit.runtime.tools import ToolSpec
from evalkit.runtime.view import View, apply


class Recorder:
    """Appends events to the log and keeps the effective view folded (the update ``U``)."""

    __slots__ = ("log", "view")

    def __init__(self) -> None:
        self.log = EventLog()
        self.view = View()

    def emit(self, cls: type[Event], turn: int, **data: Any) -> Event:
        """Append an event of type ``cls`` (fields ``data``) and fold it into the view.

        Returns:
            The appended event, with its ``seq``.
        """
        event = self.log.append(cls, turn, **data)
        self.view = apply(self.view, event)
        return event


class MetaHandler(Protocol):
    """Handles calls to meta-request tools for one episode (implemented by conditions)."""

    def handle(self, call: ToolCall, recorder: Recorder, turn: int) -> str | None:
        """Process ``call``, append its events, and return ``"abstain"``/``"clarify"``
        when it ends the episode, else ``None``.

        A handler may also define ``before_turn(recorder, turn) -> str | None`` (deliver
        deferred answers at the start of a turn) and ``on_state_change(recorder, turn)``
        (expire open requests bound to an older state version); the loop calls them when
        present."""
        ...


_GATE_STOPS = frozenset({"gate_abstain", "gate_clarify"})
WITHHELD = frozenset({"content_filter", "refusal"})
"""Stop reasons that end the episode with reason ``content_filter``: the answer was withheld."""
TRUNCATED = ("not run: your output was cut off at the output-token limit (max_tokens) while this response "
             "was being written, so this call may be incomplete; write it again, shorter, if you still mean it")
"""What the model is told for a call denied with ``truncated_tool_call``."""

_TOOL_TOKENS: dict[tuple[int, ...], tuple[tuple[ToolSpec, ...], int]] = {}
_TOOL_TOKENS_MAX = 256


def _tool_tokens(specs: tuple[ToolSpec, ...], definitions: list[dict[str, Any]]) -> int:
    """:func:`~evalkit.runtime.context.estimate_tool_tokens` of ``definitions`` (the
    definitions of ``specs``), computed once per set of tool objects: episodes of one
    domain and condition offer the same (frozen) :class:`ToolSpec` objects, so their
    definitions are encoded once per run rather than once per turn."""
    key = tuple(map(id, specs))
    hit = _TOOL_TOKENS.get(key)
    if hit is not None and all(a is b for a, b in zip(hit[0], specs)):
        return hit[1]
    tokens = estimate_tool_tokens(definitions)
    if len(_TOOL_TOKENS) >= _TOOL_TOKENS_MAX:
        _TOOL_TOKENS.clear()
    _TOOL_TOKENS[key] = (specs, tokens)  # the specs are kept, so their ids stay theirs
    return tokens


def _gate_and_approve(action: Action, call: ToolCall, turn: int, rec: Recorder, gate: AutonomyGate | None,
                      approvals: ApprovalPolicy | None) -> Action:
    """The gate's decision, then the approval, for a call the controller would execute."""
    spec = action.tool
    assert spec is not None
    if gate is not None:
        verdict = gate.decide(spec, call.arguments, rec.view)
        rec.emit(GateDecided, turn, call_id=call.id, tool=spec.name, kind=spec.kind, decision=verdict.decision,
                 reason=verdict.reason, rule_id=verdict.rule_id, message=verdict.message)
        if not verdict.allowed:
            return Action("deny", call, spec, f"gate_{verdict.decision}", verdict.message)
    if action.needs_approval and approvals is not None:
        refusal = resolve_approval(approvals, spec, call.id, call.arguments or {}, rec, turn)
        if refusal is not None:
            return Action("deny", call, spec, "needs_approval", refusal)
    return action


def _not_run(rec: Recorder, turn: int, calls: tuple[ToolCall, ...], why: str) -> None:
    """Record the calls that follow a terminal one in the same response as denied with
    ``episode_ended``: they are not run, and they do not vanish from the log."""
    for call in calls:
        rec.emit(ActionDecided, turn, call_id=call.id, tool=call.name, action="deny", reason_code="episode_ended",
                 message=f"not run: {why} earlier in this response")


def _question(call: ToolCall, rec: Recorder, terminal: str | None,
              signals: DecisionSignals | None = None) -> tuple[str, str] | None:
    """``(channel, question)`` when the meta call ``call`` asked the user something: a
    ``request_user_decision`` that ended the episode unanswered (``terminal`` ``clarify``), or
    a ``request_context`` that no context document could serve (denied ``not_available``
    under ``meta``, ``unavailable`` under ``tool``); else ``None``. The call's meta type and
    arguments are read through the condition's ``signals`` when it declares the call."""
    read = signals.read(call) if signals is not None else None
    if read is not None:
        mtype, args = read
    else:
        args = call.arguments or {}
        mtype = str(args.get("type", "")) if call.name == "meta_request" else call.name
    if terminal == "clarify":
        return mtype or "request_user_decision", str(args.get("question") or args.get("reason") or "")
    if terminal is not None or mtype != "request_context":
        return None
    for e in reversed(rec.log.events):
        if type(e) is MetaRequestUpdated and e.detail.get("call_id") == call.id:
            response = e.detail.get("response") or {}
            if e.detail.get("code") == "not_available" or response.get("status") == "unavailable":
                return "request_context", str(args.get("target") or args.get("reason") or "")
            return None
    return None


@dataclass(frozen=True, slots=True)
class CallPieces:
    """The per-episode parts every proposed call goes through after the controller: the
    recorder, the sandbox executor, the limits, the autonomy gate (``None``: off), the
    approval policy and the condition's meta handler. Built once per episode; shared by
    :func:`run_episode` and by the MCP episode server (:mod:`evalkit.agents.session`)."""

    rec: Recorder
    executor: SandboxExecutor
    limits: Limits
    gate: AutonomyGate | None = None
    approvals: ApprovalPolicy | None = None
    meta_handler: MetaHandler | None = None


@dataclass(frozen=True, slots=True)
class Ending:
    """How a call ended the episode: ``reason`` ``meta_terminal`` or ``gate_stop``, the typed
    decision ``terminal`` and extra :class:`EpisodeEnded` fields (``partial_output``)."""

    reason: str
    terminal: str
    extra: dict[str, Any]


def step_call(action: Action, turn: int, pieces: CallPieces) -> Ending | None:
    """Carry out the controller's ``action`` on one call (DESIGN §2): the gate and the
    approval for a call the controller would execute, the :class:`ActionDecided` event, then
    the sandbox execution (with the expiry of approvals and meta requests bound to an older
    state version) or the meta handler.

    Args:
        action: ``controller.decide(call, view)`` (or a denial decided before the controller).
        turn: The current turn.
        pieces: The episode's :class:`CallPieces`.

    Returns:
        The :class:`Ending` when this call ended the episode (a terminal meta request, or the
        gate's ``max_gate_stops``-th stop), else ``None``. The caller records
        :class:`EpisodeEnded`.
    """
    rec, gate, approvals = pieces.rec, pieces.gate, pieces.approvals
    call = action.call
    if action.kind == "execute" and (gate is not None or action.needs_approval):
        action = _gate_and_approve(action, call, turn, rec, gate, approvals)
    rec.emit(ActionDecided, turn, call_id=call.id, tool=call.name, action=action.kind,
             reason_code=action.reason_code, message=action.message)
    if action.kind == "execute":
        spec = action.tool
        assert spec is not None and call.arguments is not None
        version = rec.view.state_version
        obs = pieces.executor.run(spec, call.arguments)
        rec.emit(ToolExecuted, turn, call_id=call.id, tool=spec.name, kind=spec.kind, arguments=call.arguments,
                 ok=obs.ok, result=obs.result, signals=obs.signals)
        if rec.view.state_version != version:
            if rec.view.approvals:
                expire_stale(rec, turn)
            on_state_change = getattr(pieces.meta_handler, "on_state_change", None)
            if on_state_change is not None:
                on_state_change(rec, turn)
    elif action.kind == "meta" and pieces.meta_handler is not None:
        terminal = pieces.meta_handler.handle(call, rec, turn)
        if terminal is not None:
            return Ending("meta_terminal", terminal, {"partial_output": rec.view.meta.partial_output})
    elif action.reason_code in _GATE_STOPS and rec.view.gate_stops >= pieces.limits.max_gate_stops:
        last = rec.view.gate_last
        return Ending("gate_stop", last[0] if last is not None else "abstain", {})
    return None


def call_question(action: Action, ending: Ending | None, turn: int, rec: Recorder, user: SimulatedUser | None,
                  end: int, signals: DecisionSignals | None = None) -> int | None:
    """Serve the simulated user's reply when the call of ``action`` asked the user a question.

    On a side with a follow-up (``user`` given), a meta call that asked the user something
    (:func:`_question`: a ``request_user_decision`` that ended the episode unanswered, or a
    ``request_context`` nothing serves) does not end the episode: the user's reply is recorded
    (:meth:`SimulatedUser.reply`: the question, the follow-up phase, the reply as the next
    user turn). Shared by :func:`run_episode` and the MCP episode server
    (:mod:`evalkit.agents.session`), so both ask and answer alike.

    Args:
        action: The controller's action on the call, already carried out by :func:`step_call`.
        ending: What :func:`step_call` returned for it.
        turn: The current turn.
        rec: The episode's recorder.
        user: The simulated user, or ``None`` (no follow-up: a question ends the episode).
        end: The last turn the episode may run to so far.
        signals: The condition's decision signals (how its meta calls are read), or ``None``.

    Returns:
        The last turn the episode may now run to (the follow-up phase's limit after a first
        question, ``end`` after a repeated one) when the call asked the user, else ``None``.
    """
    if user is None or action.kind != "meta":
        return None
    terminal = ending.terminal if ending is not None and ending.reason == "meta_terminal" else None
    asked = _question(action.call, rec, terminal, signals)
    if asked is None:
        return None
    return user.reply(rec, turn, channel=asked[0], question=asked[1], call_id=action.call.id) or end


def text_question(text: str | None, turn: int, rec: Recorder, user: SimulatedUser | None, end: int) -> int | None:
    """Serve the simulated user's reply when a final text asks the user a question
    (:meth:`~evalkit.runtime.followup.SimulatedUser.asks_in_text`) on a side with a follow-up; the
    counterpart of :func:`call_question` for the ``text`` channel. Under a condition whose final
    text is not read (``DecisionSignals(text=False)``) the user is built without a text reader
    (:func:`evalkit.harness.episode.execute`), so no text asks: the text is the final answer.

    Returns:
        The last turn the episode may now run to when the text asked (the episode goes on),
        else ``None`` (the text is the final answer).
    """
    if user is None or not user.asks_in_text(text):
        return None
    return user.reply(rec, turn, channel="text", question=text or "") or end


@dataclass(frozen=True, slots=True)
class EpisodeRun:
    """What one run of the loop produced.

    Attributes:
        log: The complete event log.
        state: The sandbox state at the end (for final-state checks).
        error: The error message when the episode ended on an error, else ``None``.
    """

    log: EventLog
    state: dict[str, Any]
    error: str | None = None


def run_episode(
    *,
    model: Model,
    episode: Any,
    system_prompt: str,
    tools: dict[str, ToolSpec],
    state: dict[str, Any],
    permissions: tuple[str, ...],
    user_message: str,
    limits: Limits,
    meta_tools: dict[str, ToolSpec] | None = None,
    meta_handler: MetaHandler | None = None,
    faults: dict[str, Fault] | None = None,
    started: dict[str, Any] | None = None,
    gate: AutonomyGate | None = None,
    approvals: ApprovalPolicy | None = None,
    history: tuple[dict[str, Any], ...] = (),
    user: SimulatedUser | None = None,
) -> EpisodeRun:
    """Run one episode to its end.

    Args:
        model: The model under evaluation.
        episode: Opaque episode description handed to ``model.respond``.
        system_prompt: The condition's system prompt.
        tools: Task tools registered for the episode.
        state: The episode's private sandbox state (mutated in place).
        permissions: Permissions held at the start.
        user_message: The user's request.
        limits: Turn, tool-call, token and context limits.
        meta_tools: Meta-request tools the condition offers (may be empty).
        meta_handler: Handler for calls to ``meta_tools``.
        faults: Disturbances to inject, by tool name.
        started: Extra fields for the :class:`EpisodeStarted` event (ids, model, condition).
        gate: The autonomy gate, or ``None`` for gate ``off`` (the model alone).
        approvals: The approval policy, or ``None`` when nothing needs approval.
        history: Earlier turns of the conversation shown before ``user_message`` (the
            :class:`~evalkit.runtime.events.UserMessage`'s ``history``; empty: none).
        user: The simulated user who answers a question (a side with a follow-up), or
            ``None``: a question ends the episode.

    Returns:
        The :class:`EpisodeRun`; errors are recorded in the log, not raised.
    """
    meta_tools = meta_tools or {}
    rec = Recorder()
    all_tools = {**tools, **meta_tools}
    definitions = [spec.definition() for spec in all_tools.values()]
    tool_tokens = _tool_tokens(tuple(all_tools.values()), definitions)
    rec.emit(
        EpisodeStarted,
        0,
        tools=tuple(all_tools),
        permissions=tuple(sorted(permissions)),
        limits=limits.as_dict(),
        **{"gate": "on" if gate is not None else "off", **(started or {})},
    )
    rec.emit(UserMessage, 0, content=user_message, history=tuple(history))
    controller = Controller(tools, meta_tools, step_budgets=gate is None, approvals=approvals)
    executor = SandboxExecutor(state, faults)
    pieces = CallPieces(rec, executor, limits, gate, approvals, meta_handler)
    before_turn = getattr(meta_handler, "before_turn", None)
    last_text: str | None = None
    end = limits.max_turns
    turn = 0
    while turn < end:
        turn += 1
        if before_turn is not None and turn > 1:
            terminal = before_turn(rec, turn)
            if terminal is not None:
                rec.emit(EpisodeEnded, turn, reason="meta_terminal", final_text=last_text, terminal=terminal)
                return EpisodeRun(rec.log, state)
        ctx = build_context(
            rec.log.events,
            system_prompt=system_prompt,
            tools=definitions,
            budget=limits.context_budget,
            tool_tokens=tool_tokens,
        )
        rec.emit(
            ContextBuilt,
            turn,
            tokens=ctx.tokens,
            budget=ctx.budget,
            n_messages=len(ctx.messages),
            included=ctx.included,
            dropped=ctx.dropped,
            truncated=ctx.truncated,
            compacted=ctx.compacted,
        )
        try:
            out, recorded_calls = checked_output(model.respond(ctx, episode))
        except ModelError as exc:
            for retry in getattr(exc, "retries", ()):
                rec.emit(ProviderRetry, turn, **sanitize(retry))
            message = clean_text(str(exc))
            usage = getattr(exc, "usage", None)
            rec.emit(ErrorRaised, turn, source="model", message=message, retryable=exc.retryable,
                     code=getattr(exc, "code", None), usage=None if usage is None else usage.to_dict(),
                     cost_usd=getattr(exc, "cost_usd", None))
            rec.emit(EpisodeEnded, turn, reason="error", final_text=None)  # no text of this turn; never an earlier one
            return EpisodeRun(rec.log, state, f"model error: {message}")
        except Exception as exc:  # noqa: BLE001 - an adapter bug must not lose the run
            # a wrong-typed output is an error outcome with a one-line message (InvalidOutput)
            message = clean_text(f"invalid model output: {exc}" if isinstance(exc, InvalidOutput)
                                 else f"{type(exc).__name__}: {exc}")
            # the call may have been answered and billed: its usage is unknown (counted), never 0
            rec.emit(ErrorRaised, turn, source="model", message=message, code="adapter_error", usage={})
            rec.emit(EpisodeEnded, turn, reason="error", final_text=None)  # no text of this turn; never an earlier one
            return EpisodeRun(rec.log, state, f"model error: {message}")
        for retry in out.extra.get("retries", ()):
            rec.emit(ProviderRetry, turn, **retry)
        rec.emit(
            ModelResponded,
            turn,
            text=out.text,
            tool_calls=recorded_calls,
            finish_reason=out.raw_stop_reason or out.stop_reason,
            input_tokens=out.usage.input_tokens,
            output_tokens=out.usage.output_tokens,
            latency_s=out.latency_s,
            stop_reason=out.stop_reason,
            refusal=out.refusal,
            reasoning=tuple(b.to_dict() for b in out.reasoning),
            usage=out.usage.to_dict(),
            flags=out.flags,
            raw=out.raw,
        )
        if "call" in out.extra:
            rec.emit(ModelCall, turn, **out.extra["call"])
        for tagged in out.extra.get("tagged", ()):
            rec.emit(ToolCallTagged, turn, **tagged)
        withheld = out.stop_reason in WITHHELD
        last_text = out.refusal if withheld and out.refusal is not None else out.text
        if not out.tool_calls and out.stop_reason == "max_tokens":
            # a text cut off at the token limit (or paused unfinished) states no decision: not asked back, not read
            rec.emit(EpisodeEnded, turn, reason="truncated", final_text=out.text)
            return EpisodeRun(rec.log, state)
        if not out.tool_calls and not withheld:
            asked = text_question(out.text, turn, rec, user, end)
            if asked is not None:
                end = asked
                continue
        if not out.tool_calls or withheld:
            # a refusal or a provider's content filter is not the model's decision (C17, F05)
            for call in out.tool_calls:
                rec.emit(ActionDecided, turn, call_id=call.id, tool=call.name, action="deny",
                         reason_code="episode_ended", message=f"not run: the response stopped with {out.stop_reason}")
            rec.emit(EpisodeEnded, turn, reason="content_filter" if withheld else "final_text", final_text=last_text)
            return EpisodeRun(rec.log, state)
        truncated = out.stop_reason == "max_tokens"
        for index, call in enumerate(out.tool_calls):
            action = Action("deny", call, None, "truncated_tool_call", TRUNCATED) if truncated \
                else controller.decide(call, rec.view)
            ending = step_call(action, turn, pieces)
            asked = call_question(action, ending, turn, rec, user, end,
                                  signals=getattr(meta_handler, "signals", None))
            if asked is not None:
                _not_run(rec, turn, out.tool_calls[index + 1:], f"{call.name} asked the user")
                end = asked
                break
            if ending is not None:
                why = f"{call.name} ended the episode" if ending.reason == "meta_terminal" \
                    else "the autonomy gate ended the episode"
                _not_run(rec, turn, out.tool_calls[index + 1:], why)
                rec.emit(EpisodeEnded, turn, reason=ending.reason, final_text=out.text, terminal=ending.terminal,
                         **ending.extra)
                return EpisodeRun(rec.log, state)
    rec.emit(EpisodeEnded, end, reason="loop_limit", final_text=last_text)
    return EpisodeRun(rec.log, state)
