"""The context builder ``S_B``: a pure function from runtime state to model context.

``build_context`` turns the event log into ``M_t``, the messages and tool definitions
actually sent to the model this turn, under a token budget ``B`` (DESIGN §2, seed 001).
It never reads files, the network or tools: new information enters only through an
action that produced an observation event. Each call reports which events it included,
which it dropped and which it truncated, so a trace can tell apart "not in ``R_t``"
(the runtime lost it), "in ``R_t`` but not in ``M_t``" (not loaded this turn) and "in
``M_t`` but misused" (the model's fault).

Token estimate: ``ceil(len(text) / 4)`` over the JSON text of each message and tool
definition, the usual rule of thumb for English with BPE tokenizers (about four
characters per token). It overestimates CJK text less than it underestimates it, so keep
a margin below the provider's real window.

Policy, in order:
1. the system prompt, the tool definitions and the first user message are always kept;
2. observations longer than ``max_observation_chars`` are cut, with a visible marker;
3. whole turns (an assistant message and its observations) are added newest first while
   they fit; older turns that do not fit are dropped and replaced by one marker message.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, Sequence

from evalkit.runtime.events import (
    ActionDecided,
    Event,
    MetaRequestUpdated,
    ModelResponded,
    ToolExecuted,
    UserMessage,
)

TRUNCATION_MARKER = "…[evalkit: observation truncated, {shown} of {total} characters shown]"
DROPPED_MARKER = "[evalkit: {n} earlier turn(s) omitted to fit the context budget]"


def estimate_tokens(text: str) -> int:
    """Token estimate used by the builder: ``ceil(len(text) / 4)``."""
    return math.ceil(len(text) / 4)


@dataclass(frozen=True, slots=True)
class ModelContext:
    """``M_t``: what the model is sent this turn.

    Attributes:
        messages: Chat messages in OpenAI format (``system``, ``user``, ``assistant``
            with ``tool_calls``, ``tool`` with ``tool_call_id``).
        tools: Tool definitions in OpenAI ``tools`` format.
        tokens: Estimated tokens of messages plus tools.
        budget: The budget ``B`` it was built under.
        included: ``seq`` of the events represented in ``messages``.
        dropped: ``seq`` of events left out to fit the budget.
        truncated: ``seq`` of observations that were cut.
        turn: Number of model responses already in the log.
    """

    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    tokens: int
    budget: int
    included: tuple[int, ...] = ()
    dropped: tuple[int, ...] = ()
    truncated: tuple[int, ...] = ()
    turn: int = 0
    tool_names: tuple[str, ...] = field(default=())


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, default=str)


def _observations(events: Sequence[Event]) -> dict[str, tuple[int, str]]:
    """Map ``call_id`` to (seq, observation text) from execution, denial and meta events."""
    out: dict[str, tuple[int, str]] = {}
    for e in events:
        et = type(e)
        if et is ToolExecuted:
            body = e.result if e.ok else {"error": e.result}
            if e.signals:
                body = {"result": body, "signals": list(e.signals)} if e.ok else {**body, "signals": list(e.signals)}
            out[e.call_id] = (e.seq, _dumps(body))
        elif et is ActionDecided and e.action == "deny":
            out[e.call_id] = (e.seq, _dumps({"error": e.reason_code, "message": e.message}))
        elif et is MetaRequestUpdated and "response" in e.detail:
            call_id = e.detail.get("call_id", "")
            out[call_id] = (e.seq, _dumps(e.detail["response"]))
    return out


def _assistant_message(e: ModelResponded) -> dict[str, Any]:
    msg: dict[str, Any] = {"role": "assistant", "content": e.text or ""}
    if e.tool_calls:
        msg["tool_calls"] = [
            {
                "id": c["id"],
                "type": "function",
                "function": {
                    "name": c["name"],
                    "arguments": c["arguments"]
                    if isinstance(c["arguments"], str)
                    else _dumps(c["arguments"]),
                },
            }
            for c in e.tool_calls
        ]
    return msg


def build_context(
    events: Sequence[Event],
    *,
    system_prompt: str,
    tools: Sequence[dict[str, Any]],
    budget: int = 16_000,
    max_observation_chars: int = 4_000,
) -> ModelContext:
    """Build ``M_t`` from the log. Pure: same arguments, same result, no I/O.

    Args:
        events: The episode's event log so far (``L_t``).
        system_prompt: The condition's system prompt.
        tools: Tool definitions to offer (OpenAI format).
        budget: Token budget ``B`` (estimated tokens, see module docstring).
        max_observation_chars: Longer observations are cut with a visible marker.

    Returns:
        The :class:`ModelContext` with its inclusion record.
    """
    observations = _observations(events)
    head: list[dict[str, Any]] = [{"role": "system", "content": system_prompt}]
    included: list[int] = []
    truncated: list[int] = []
    first_user: UserMessage | None = None
    turns: list[tuple[list[int], list[dict[str, Any]]]] = []
    for e in events:
        et = type(e)
        if et is UserMessage:
            if first_user is None:
                first_user = e
            else:
                turns.append(([e.seq], [{"role": "user", "content": e.content}]))
        elif et is ModelResponded:
            seqs = [e.seq]
            msgs = [_assistant_message(e)]
            for c in e.tool_calls:
                seq, text = observations.get(c["id"], (-1, _dumps({"error": "no observation recorded"})))
                if len(text) > max_observation_chars:
                    truncated.append(seq)
                    text = text[:max_observation_chars] + TRUNCATION_MARKER.format(
                        shown=max_observation_chars, total=len(text)
                    )
                if seq >= 0:
                    seqs.append(seq)
                msgs.append({"role": "tool", "tool_call_id": c["id"], "content": text})
            turns.append((seqs, msgs))
    if first_user is not None:
        head.append({"role": "user", "content": first_user.content})
        included.append(first_user.seq)

    tool_list = list(tools)
    used = estimate_tokens(_dumps(head)) + estimate_tokens(_dumps(tool_list))
    def fit(limit: int) -> tuple[list[tuple[list[int], list[dict[str, Any]]]], list[int], int]:
        kept: list[tuple[list[int], list[dict[str, Any]]]] = []
        dropped: list[int] = []
        total = used
        for index in range(len(turns) - 1, -1, -1):
            seqs, msgs = turns[index]
            cost = estimate_tokens(_dumps(msgs))
            if total + cost <= limit and not dropped:
                kept.append((seqs, msgs))
                total += cost
            else:
                dropped.extend(seqs)
        return kept, dropped, total

    kept, dropped, total = fit(budget)
    if dropped:  # reserve room for the marker that replaces the dropped turns
        marker_cost = estimate_tokens(_dumps({"role": "user", "content": DROPPED_MARKER.format(n=len(turns))}))
        kept, dropped, total = fit(budget - marker_cost)
    used = total
    kept.reverse()
    messages = list(head)
    if dropped:
        n_turns = sum(1 for seqs, _ in turns if seqs[0] in set(dropped))
        note = {"role": "user", "content": DROPPED_MARKER.format(n=n_turns)}
        messages.append(note)
        used += estimate_tokens(_dumps(note))
    for seqs, msgs in kept:
        messages.extend(msgs)
        included.extend(seqs)
    dropped_set = set(dropped)
    return ModelContext(
        messages=messages,
        tools=tool_list,
        tokens=used,
        budget=budget,
        included=tuple(sorted(included)),
        dropped=tuple(sorted(dropped)),
        truncated=tuple(s for s in truncated if s not in dropped_set),
        turn=sum(1 for e in events if type(e) is ModelResponded),
        tool_names=tuple(t["function"]["name"] for t in tool_list),
    )
