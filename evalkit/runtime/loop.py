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
* the sandbox executor runs task tools; meta-request tools go to the condition's
  :class:`MetaHandler`, which may end the episode with a typed decision.

The loop stops when the model answers without tool calls, when a meta request ends the
episode, at ``max_turns`` (``loop_limit``), or on an error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from evalkit.errors import ModelError
from evalkit.runtime.context import build_context
from evalkit.runtime.controller import Controller, Limits
from evalkit.runtime.events import (
    ActionDecided,
    ContextBuilt,
    EpisodeEnded,
    EpisodeStarted,
    ErrorRaised,
    Event,
    EventLog,
    ModelResponded,
    ToolExecuted,
    UserMessage,
)
from evalkit.runtime.executor import Fault, SandboxExecutor
from evalkit.runtime.model_io import Model, ToolCall
from evalkit.runtime.tools import ToolSpec
from evalkit.runtime.view import View, apply


class Recorder:
    """Appends events to the log and keeps the effective view folded (the update ``U``)."""

    __slots__ = ("log", "view")

    def __init__(self) -> None:
        self.log = EventLog()
        self.view = View()

    def emit(self, cls: type[Event], turn: int, **data: Any) -> Event:
        event = self.log.append(cls, turn, **data)
        self.view = apply(self.view, event)
        return event


class MetaHandler(Protocol):
    """Handles calls to meta-request tools for one episode (implemented by conditions)."""

    def handle(self, call: ToolCall, recorder: Recorder, turn: int) -> str | None:
        """Process ``call``, append its events, and return ``"abstain"``/``"clarify"``
        when it ends the episode, else ``None``."""
        ...


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

    Returns:
        The :class:`EpisodeRun`; errors are recorded in the log, not raised.
    """
    meta_tools = meta_tools or {}
    rec = Recorder()
    all_tools = {**tools, **meta_tools}
    definitions = [spec.definition() for spec in all_tools.values()]
    rec.emit(
        EpisodeStarted,
        0,
        tools=tuple(all_tools),
        permissions=tuple(sorted(permissions)),
        limits=limits.as_dict(),
        **(started or {}),
    )
    rec.emit(UserMessage, 0, content=user_message)
    controller = Controller(tools, meta_tools)
    executor = SandboxExecutor(state, faults)
    last_text: str | None = None
    for turn in range(1, limits.max_turns + 1):
        ctx = build_context(
            rec.log.events,
            system_prompt=system_prompt,
            tools=definitions,
            budget=limits.context_budget,
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
        )
        try:
            out = model.respond(ctx, episode)
        except ModelError as exc:
            rec.emit(ErrorRaised, turn, source="model", message=str(exc), retryable=exc.retryable)
            rec.emit(EpisodeEnded, turn, reason="error", final_text=last_text)
            return EpisodeRun(rec.log, state, f"model error: {exc}")
        except Exception as exc:  # noqa: BLE001 - an adapter bug must not lose the run
            message = f"{type(exc).__name__}: {exc}"
            rec.emit(ErrorRaised, turn, source="model", message=message)
            rec.emit(EpisodeEnded, turn, reason="error", final_text=last_text)
            return EpisodeRun(rec.log, state, f"model error: {message}")
        rec.emit(
            ModelResponded,
            turn,
            text=out.text,
            tool_calls=tuple(c.to_dict() for c in out.tool_calls),
            finish_reason=out.finish_reason,
            input_tokens=out.input_tokens,
            output_tokens=out.output_tokens,
            latency_s=out.latency_s,
        )
        last_text = out.text
        if not out.tool_calls:
            rec.emit(EpisodeEnded, turn, reason="final_text", final_text=out.text)
            return EpisodeRun(rec.log, state)
        for call in out.tool_calls:
            action = controller.decide(call, rec.view)
            rec.emit(
                ActionDecided,
                turn,
                call_id=call.id,
                tool=call.name,
                action=action.kind,
                reason_code=action.reason_code,
                message=action.message,
            )
            if action.kind == "execute":
                spec = action.tool
                assert spec is not None and call.arguments is not None
                obs = executor.run(spec, call.arguments)
                rec.emit(
                    ToolExecuted,
                    turn,
                    call_id=call.id,
                    tool=spec.name,
                    kind=spec.kind,
                    arguments=call.arguments,
                    ok=obs.ok,
                    result=obs.result,
                    signals=obs.signals,
                )
            elif action.kind == "meta" and meta_handler is not None:
                terminal = meta_handler.handle(call, rec, turn)
                if terminal is not None:
                    rec.emit(
                        EpisodeEnded, turn, reason="meta_terminal", final_text=out.text, terminal=terminal
                    )
                    return EpisodeRun(rec.log, state)
    rec.emit(EpisodeEnded, limits.max_turns, reason="loop_limit", final_text=last_text)
    return EpisodeRun(rec.log, state)
