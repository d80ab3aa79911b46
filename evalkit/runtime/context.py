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
1. the system prompt, the tool definitions, the earlier turns a scenario replays (the
   first :class:`~evalkit.runtime.events.UserMessage`'s ``history``, shown before it as
   user, assistant ``tool_calls`` and ``tool`` messages, with the same observation cut as
   in step 2) and the first user message are always kept;
2. observations longer than ``max_observation_chars`` are cut, with a visible marker;
3. whole turns (an assistant message and its observations) are kept newest first while
   they fit; the older turns just before them are **compacted** to one deterministic
   line each (what was said, each call and the start of its result), newest first, while
   they fit; the oldest ones are **dropped**. Compacted and dropped turns are announced
   by one marker message.

Each built context records the ``seq`` of the events it included in full, compacted,
dropped and truncated (:class:`ModelContext`, and the loop's
:class:`~evalkit.runtime.events.ContextBuilt` event). ``included``, ``compacted`` and
``dropped`` partition the events the builder represents (user messages, model responses
and their observations).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import lru_cache
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
COMPACTED_MARKER = "[evalkit: {n} earlier turn(s) compacted to one line each to fit the context budget]"


def estimate_tokens(text: str) -> int:
    """Token estimate used by the builder: ``ceil(len(text) / 4)``."""
    return math.ceil(len(text) / 4)


@dataclass(frozen=True, slots=True)
class ModelContext:
    """``M_t``: what the model is sent this turn.

    Attributes:
        messages: Chat messages in OpenAI format (``system``, ``user``, ``assistant``
            with ``tool_calls`` and, when the model returned any, ``reasoning`` blocks
            ``{"provider", "text", "data"}``; ``tool`` with ``tool_call_id``).
        tools: Tool definitions in OpenAI ``tools`` format.
        tokens: Estimated tokens of messages plus tools.
        budget: The budget ``B`` it was built under.
        included: ``seq`` of the events represented in full in ``messages``.
        dropped: ``seq`` of events left out to fit the budget.
        truncated: ``seq`` of observations that were cut.
        turn: Number of model responses already in the log.
        tool_names: Names of the tools offered.
        compacted: ``seq`` of events represented only by a one-line digest.
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
    compacted: tuple[int, ...] = ()


try:  # the C encoder json.dumps itself uses, without building a JSONEncoder per call
    from json.encoder import c_make_encoder as _c_make_encoder  # type: ignore[attr-defined]  # private, not in typeshed
    from json.encoder import encode_basestring as _encode_str
except ImportError:  # pragma: no cover - a Python without the C accelerator
    _c_make_encoder = None


def _dumps(obj: Any) -> str:
    """``json.dumps(obj, ensure_ascii=False, sort_keys=True, default=str)`` (the same text)."""
    if _c_make_encoder is None:  # pragma: no cover
        return json.dumps(obj, ensure_ascii=False, sort_keys=True, default=str)
    return "".join(_c_make_encoder({}, str, _encode_str, None, ": ", ", ", True, False, True)(obj, 0))


def estimate_tool_tokens(tools: Sequence[dict[str, Any]]) -> int:
    """Estimated tokens of the tool definitions ``tools`` (OpenAI format), as
    :func:`build_context` counts them: :func:`estimate_tokens` of their JSON text.

    The agent loop computes it once per set of tools and passes it to every
    :func:`build_context` call of the episode (``tool_tokens``), instead of encoding the
    same definitions again each turn.
    """
    return estimate_tokens(_dumps(list(tools)))


@lru_cache(maxsize=256)
def _head_tokens(system_prompt: str, user: str | None) -> int:
    """Estimated tokens of the messages always kept: the system prompt and the first user
    message (strings, so the result can be cached: every episode of a pair and condition
    has the same head)."""
    head: list[dict[str, Any]] = [{"role": "system", "content": system_prompt}]
    if user is not None:
        head.append({"role": "user", "content": user})
    return estimate_tokens(_dumps(head))


_NO_OBSERVATION = (-1, json.dumps({"error": "no observation recorded"}, ensure_ascii=False, sort_keys=True))


def _observations(events: Sequence[Event]) -> dict[str, tuple[int, str]]:
    """Map ``call_id`` to (seq, observation text) from execution, denial and meta events."""
    out: dict[str, tuple[int, str]] = {}
    for e in events:
        if type(e) is ToolExecuted:
            body = e.result if e.ok else {"error": e.result}
            if e.signals:
                body = {"result": body, "signals": list(e.signals)} if e.ok else {**body, "signals": list(e.signals)}
            out[e.call_id] = (e.seq, _dumps(body))
        elif type(e) is ActionDecided and e.action == "deny":
            out[e.call_id] = (e.seq, _dumps({"error": e.reason_code, "message": e.message}))
        elif type(e) is MetaRequestUpdated and "response" in e.detail:
            call_id = e.detail.get("call_id", "")
            out[call_id] = (e.seq, _dumps(e.detail["response"]))
    return out


def observation_texts(events: Sequence[Event]) -> dict[str, tuple[int, str]]:
    """``call_id → (seq, text)``: each call's observation as :func:`build_context` shows it
    to a model (before truncation), from the last execution, denial or meta-request response
    recorded for it. Used to answer an agent's MCP tool call (:mod:`evalkit.agents.session`)."""
    return _observations(events)


def _assistant_message(e: ModelResponded) -> dict[str, Any]:
    msg: dict[str, Any] = {"role": "assistant", "content": e.text or ""}
    if e.reasoning:  # opaque blocks, replayed verbatim by the provider that made them
        msg["reasoning"] = list(e.reasoning)
    if e.tool_calls:
        msg["tool_calls"] = [
            {
                "id": c.id,
                "type": "function",
                "function": {
                    "name": c.name,
                    "arguments": c.raw_arguments if c.arguments is None else _dumps(c.arguments),
                },
            }
            for c in e.tool_calls
        ]
    return msg


def earlier_messages(turns: Sequence[dict[str, Any]], max_observation_chars: int = 4_000) -> list[dict[str, Any]]:
    """OpenAI-format messages for replayed earlier turns (a :class:`UserMessage`'s
    ``history``): per turn the user message, one assistant message with the turn's
    ``tool_calls`` (ids ``earlier-T-I``), a ``tool`` message per result (``{"error": ...}``
    when the call failed; cut at ``max_observation_chars`` with the truncation marker) and the
    assistant's closing text when there is one."""
    out: list[dict[str, Any]] = []
    for t, turn in enumerate(turns):
        out.append({"role": "user", "content": turn["user"]})
        calls = turn.get("calls") or []
        if calls:
            ids = [f"earlier-{t}-{i}" for i in range(len(calls))]
            out.append({"role": "assistant", "content": "", "tool_calls": [
                {"id": cid, "type": "function", "function": {"name": c["tool"], "arguments": _dumps(c.get("args") or {})}}
                for cid, c in zip(ids, calls)]})
            for cid, c in zip(ids, calls):
                text = _dumps(c.get("result") if c.get("ok", True) else {"error": c.get("result")})
                if len(text) > max_observation_chars:
                    text = text[:max_observation_chars] + TRUNCATION_MARKER.format(shown=max_observation_chars,
                                                                                   total=len(text))
                out.append({"role": "tool", "tool_call_id": cid, "content": text})
        if turn.get("answer"):
            out.append({"role": "assistant", "content": turn["answer"]})
    return out


def build_context(
    events: Sequence[Event],
    *,
    system_prompt: str,
    tools: Sequence[dict[str, Any]],
    budget: int = 16_000,
    max_observation_chars: int = 4_000,
    tool_tokens: int | None = None,
) -> ModelContext:
    """Build ``M_t`` from the log. Pure: same arguments, same result, no I/O.

    Args:
        events: The episode's event log so far (``L_t``).
        system_prompt: The condition's system prompt.
        tools: Tool definitions to offer (OpenAI format).
        budget: Token budget ``B`` (estimated tokens, see module docstring).
        max_observation_chars: Longer observations are cut with a visible marker.
        tool_tokens: :func:`estimate_tool_tokens` of ``tools`` when the caller has it
            (the agent loop computes it once per set of tools); ``None``: computed here.

    Returns:
        The :class:`ModelContext` with its inclusion record.
    """
    observations = _observations(events)
    head: list[dict[str, Any]] = [{"role": "system", "content": system_prompt}]
    included: list[int] = []
    truncated: list[int] = []
    first_user: UserMessage | None = None
    turns: list[tuple[list[int], list[dict[str, Any]]]] = []
    responses = 0
    earlier: list[dict[str, Any]] = []
    for e in events:
        if type(e) is UserMessage:
            if first_user is None:
                first_user = e
            else:
                turns.append(([e.seq], [{"role": "user", "content": e.content}]))
        elif type(e) is ModelResponded:
            responses += 1
            seqs = [e.seq]
            msgs = [_assistant_message(e)]
            for c in e.tool_calls:
                seq, text = observations.get(c.id, _NO_OBSERVATION)
                if len(text) > max_observation_chars:
                    truncated.append(seq)
                    text = text[:max_observation_chars] + TRUNCATION_MARKER.format(
                        shown=max_observation_chars, total=len(text)
                    )
                if seq >= 0:
                    seqs.append(seq)
                msgs.append({"role": "tool", "tool_call_id": c.id, "content": text})
            turns.append((seqs, msgs))
    if first_user is not None:
        if first_user.history:
            earlier = earlier_messages(first_user.history, max_observation_chars)
            head.extend(earlier)
        head.append({"role": "user", "content": first_user.content})
        included.append(first_user.seq)

    tool_list = list(tools)
    if tool_tokens is None:
        tool_tokens = estimate_tool_tokens(tool_list)
    user = first_user.content if first_user is not None else None
    if type(system_prompt) is str and (user is None or type(user) is str):
        used = _head_tokens(system_prompt, user) + tool_tokens
    else:
        used = _head_tokens.__wrapped__(system_prompt, user) + tool_tokens
    if earlier:
        used += estimate_tokens(_dumps(earlier))
    costs = [estimate_tokens(_dumps(msgs)) for _, msgs in turns]
    n_full, n_compact, note = len(turns), 0, None
    if used + sum(costs) > budget:
        n_full, n_compact, note = _fit(turns, costs, budget - used)
    first_full = len(turns) - n_full
    first_compact = first_full - n_compact
    compacted: list[int] = []
    dropped: list[int] = []
    for index, (seqs, _) in enumerate(turns[:first_full]):
        (compacted if index >= first_compact else dropped).extend(seqs)
    messages = list(head)
    if note is not None:
        messages.append(note)
        used += estimate_tokens(_dumps(note))
    for index in range(first_full, len(turns)):
        seqs, msgs = turns[index]
        messages.extend(msgs)
        included.extend(seqs)
        used += costs[index]
    kept = set(included)
    return ModelContext(
        messages=messages,
        tools=tool_list,
        tokens=used,
        budget=budget,
        included=tuple(sorted(included)),
        dropped=tuple(sorted(dropped)),
        truncated=tuple(s for s in truncated if s in kept),
        turn=responses,
        tool_names=tuple(t["function"]["name"] for t in tool_list),
        compacted=tuple(sorted(compacted)),
    )


def _clip(text: str, limit: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _digest(msgs: list[dict[str, Any]]) -> str:
    """One deterministic line for a turn: what was said, each call and the start of its result."""
    parts: list[str] = []
    calls: dict[str, str] = {}
    for m in msgs:
        role = m["role"]
        if role == "user":
            parts.append(f"user: {_clip(m['content'], 120)}")
        elif role == "assistant":
            if m.get("content"):
                parts.append(f"you: {_clip(m['content'], 80)}")
            for c in m.get("tool_calls", ()):
                calls[c["id"]] = f"{c['function']['name']}({_clip(c['function']['arguments'], 60)})"
        else:
            parts.append(f"{calls.get(m['tool_call_id'], 'call')} -> {_clip(m['content'], 100)}")
    return "; ".join(parts)


def _note(n_compact: int, n_dropped: int, lines: list[str]) -> dict[str, Any]:
    head = []
    if n_dropped:
        head.append(DROPPED_MARKER.format(n=n_dropped))
    if n_compact:
        head.append(COMPACTED_MARKER.format(n=n_compact))
    return {"role": "user", "content": "\n".join([*head, *(f"- {line}" for line in lines)])}


def _fit(turns: list[tuple[list[int], list[dict[str, Any]]]], costs: list[int],
         room: int) -> tuple[int, int, dict[str, Any]]:
    """How many newest turns stay whole and how many older ones are compacted to fit ``room``.

    The most recent turns are kept whole (as many as fit with at least the marker note);
    then the older turns just before them are compacted to one line each, newest first,
    while the note still fits; the rest are dropped. Deterministic.
    """
    n = len(turns)
    digests: list[str] | None = None
    for n_full in range(n - 1, -1, -1):
        left = room - sum(costs[n - n_full:])
        older = n - n_full
        note = _note(0, older, [])
        if left < estimate_tokens(_dumps(note)):
            continue
        if digests is None:
            digests = [_digest(msgs) for _, msgs in turns]
        lines: list[str] = []
        for index in range(older - 1, -1, -1):
            candidate = _note(len(lines) + 1, older - len(lines) - 1, [digests[index], *lines])
            if estimate_tokens(_dumps(candidate)) > left:
                break
            lines.insert(0, digests[index])
            note = candidate
        return n_full, len(lines), note
    return 0, 0, _note(0, n, [])
