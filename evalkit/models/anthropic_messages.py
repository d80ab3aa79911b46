"""The Anthropic Messages API provider, on the ``anthropic`` SDK.

The runtime speaks OpenAI-format messages (:mod:`evalkit.runtime.context`); this module
translates them to the Messages API and the answer back, so the agent loop never knows
which provider it talks to:

* system messages become the ``system`` field;
* an assistant message becomes its ``thinking`` / ``redacted_thinking`` blocks exactly as
  received (signatures included: the API rejects a tool turn replayed without them when
  thinking is on), then ``text`` and ``tool_use`` blocks (recorded arguments that did not
  parse are replayed as ``{}``, field case C19);
* ``tool`` messages become ``tool_result`` blocks inside one user message; consecutive
  messages of the same role are merged, as the API requires alternating roles;
* tools become ``{name, description, input_schema}``; ``tool_choice`` ``auto`` /
  ``required`` / ``none`` / a name become ``auto`` / ``any`` / ``none`` / ``tool``;
* the answer is read by :func:`translate_anthropic` (stop reasons :data:`STOP_REASONS`,
  usage by class, thinking blocks kept, a refusal typed).

``temperature`` and ``top_p`` are sent as body fields (recent SDK versions no longer take
them as arguments); ``seed`` is not part of the Messages API and is not sent. The SDK's own retries are off;
evalkit retries (:mod:`evalkit.models.retry`).
"""

from __future__ import annotations

import json
from typing import Any

from evalkit.models.config import ModelSettings
from evalkit.models.parsing import replay_arguments
from evalkit.models.reply import (ProviderReply, count, error_usage, invalid, json_kind, model_flags, stop_reason,
                                  text_flags, tier_flags, usage_object, usage_part)
from evalkit.models.retry import (ProviderError, connection_failure, error_for_status, error_in_body, error_message,
                                  parse_body, timeout_failure)
from evalkit.runtime.model_io import ReasoningBlock
from evalkit.usage import UNKNOWN, Usage
from evalkit.models.transport import guarded_http_client

STOP_REASONS = {
    "end_turn": "end_turn",
    "stop_sequence": "end_turn",
    "tool_use": "tool_use",
    "max_tokens": "max_tokens",
    "model_context_window_exceeded": "max_tokens",
    "refusal": "refusal",
    "pause_turn": "max_tokens",
}
"""Messages API ``stop_reason`` values (the ``anthropic`` SDK's ``StopReason`` literal) →
:data:`evalkit.types.StopReason`. ``pause_turn`` (the API paused a long turn, to be continued) is an
unfinished output, read like one cut off at the token limit (``max_tokens``): its text is not the
model's answer and its calls are not run."""


def to_messages_api(messages: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """``(system, messages)`` in Messages API form for OpenAI-format ``messages``."""
    system: list[str] = []
    out: list[dict[str, Any]] = []

    def push(role: str, blocks: list[dict[str, Any]]) -> None:
        if not blocks:
            return
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": list(blocks)})

    for m in messages:
        role = m.get("role")
        content = m.get("content") or ""
        if role == "system":
            system.append(content)
        elif role == "assistant":
            blocks: list[dict[str, Any]] = [dict(r["data"]) for r in m.get("reasoning") or ()
                                            if r.get("provider") == "anthropic" and isinstance(r.get("data"), dict)]
            if content.strip():
                blocks.append({"type": "text", "text": content})
            for c in m.get("tool_calls") or []:
                fn = c.get("function") or {}
                blocks.append({"type": "tool_use", "id": c.get("id"), "name": fn.get("name") or "empty_tool_name",
                               "input": json.loads(replay_arguments(fn.get("arguments")))})
            push("assistant", blocks or [{"type": "text", "text": "(no answer)"}])
        elif role == "tool":
            push("user", [{"type": "tool_result", "tool_use_id": m.get("tool_call_id"), "content": content}])
        else:
            push("user", [{"type": "text", "text": content or "(empty message)"}])
    return "\n\n".join(system), out


def to_tools(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI ``tools`` → Messages API tools."""
    out = []
    for t in tools:
        fn = t.get("function", t)
        out.append({"name": fn["name"], "description": fn.get("description", ""),
                    "input_schema": fn.get("parameters") or {"type": "object", "properties": {}}})
    return out


def tool_choice_param(choice: str) -> dict[str, Any]:
    """``auto`` / ``required`` / ``none`` / a tool name → the Messages API ``tool_choice``."""
    if choice == "auto":
        return {"type": "auto"}
    if choice == "required":
        return {"type": "any"}
    if choice == "none":
        return {"type": "none"}
    return {"type": "tool", "name": choice}


def anthropic_usage(body: Any) -> tuple[Usage, tuple[str, ...]]:
    """The :class:`~evalkit.usage.Usage` a Messages API body reports, and its flags.

    The API's ``input_tokens`` excludes cached tokens: total input is ``input_tokens +
    cache_read_input_tokens + cache_creation_input_tokens``, the last two kept as the cached
    and cache-write parts. ``output_tokens`` is every output token, thinking included
    (``output_tokens_details.thinking_tokens`` is the reasoning part). An absent or null
    ``usage`` is unknown (flag ``usage_missing``), never 0. Server tool requests
    (``server_tool_use.web_search_requests`` …) are billed per request, outside the token
    price: they are flagged ``server_tool_unpriced``, so the cost is known to leave them out;
    a ``service_tier`` other than ``standard`` (``priority``, ``batch``) is flagged
    ``service_tier_unpriced``, and cache writes with the 1-hour lifetime
    (``cache_creation.ephemeral_1h_input_tokens``), dearer than the 5-minute ones the single
    ``cache_write_per_mtok`` prices, ``cache_write_1h_unpriced``.

    Raises:
        ProviderError: ``invalid_response`` for a count of the wrong type (in ``server_tool_use``
            and ``cache_creation`` too), a details object that is not an object or a
            ``service_tier`` that is not a string.
    """
    usage, flags = usage_object(body)
    if usage is None:
        return UNKNOWN, tuple(flags)
    uncached, output = count(usage, "input_tokens"), count(usage, "output_tokens")
    cached, written = count(usage, "cache_read_input_tokens"), count(usage, "cache_creation_input_tokens")
    reasoning = count(usage_part(usage, "output_tokens_details"), "thinking_tokens", "usage.output_tokens_details")
    if uncached is None or output is None:
        flags.append("usage_missing")
    total = None if uncached is None else uncached + (cached or 0) + (written or 0)
    out = Usage(total, cached, written, output, reasoning)
    if out.inconsistent:  # thinking tokens above output_tokens
        flags.append("usage_inconsistent")
    server = usage_part(usage, "server_tool_use")  # each of its counts read (a wrong one is no "none used")
    if server is not None and any([count(server, name, "usage.server_tool_use") for name in server]):
        flags.append("server_tool_unpriced")  # billed per request (web search …): not in the token price
    flags.extend(tier_flags(usage.get("service_tier"), "usage.service_tier"))
    creation = usage_part(usage, "cache_creation")
    written_by_lifetime = {name: count(creation, name, "usage.cache_creation") for name in creation or ()}
    if written_by_lifetime.get("ephemeral_1h_input_tokens"):
        flags.append("cache_write_1h_unpriced")  # 1-hour writes cost more than the one cache-write price
    return out, tuple(flags)


SERVER_BLOCKS = frozenset({
    "server_tool_use", "web_search_tool_result", "web_fetch_tool_result", "code_execution_tool_result",
    "bash_code_execution_tool_result", "text_editor_code_execution_tool_result", "mcp_tool_use", "mcp_tool_result",
    "container_upload",
})
"""Documented content blocks of tools the API runs itself (web search, code execution, MCP
connectors): the server's own activity, kept in the raw body, neither text nor a call to run."""

UNKNOWN_BLOCK = "unknown_content_block"
"""The flag a response carries once per content block of a type evalkit does not read."""


def translate_anthropic(data: Any) -> ProviderReply:
    """The :class:`~evalkit.models.reply.ProviderReply` of a Messages API body.

    ``text`` blocks become the text (``None`` when the stop reason is ``refusal``: the text is
    then the refusal, verbatim); ``tool_use`` blocks OpenAI-form tool calls; ``thinking`` and
    ``redacted_thinking`` blocks :class:`~evalkit.runtime.model_io.ReasoningBlock` objects
    holding the block exactly as received (signature included), to be sent back before the
    turn's ``tool_use`` blocks (:func:`to_messages_api`); blocks of server-run tools
    (:data:`SERVER_BLOCKS`) stay in the raw body only. A block of any other type is kept in
    the raw body and flagged :data:`UNKNOWN_BLOCK` once per block (counted per episode as
    ``unknown_content_blocks``), never read as text or calls and never dropped silently.
    ``stop_reason`` is normalised by :data:`STOP_REASONS`; usage by :func:`anthropic_usage`; a
    ``model`` that is not a string or ``null`` is flagged ``model_invalid``
    (:func:`~evalkit.models.reply.model_flags`); an answer whose text (or refusal) or a
    ``tool_use`` block's arguments hold U+FFFD or a lone surrogate is kept as received and flagged
    ``undecodable_text`` once (:func:`~evalkit.models.reply.text_flags`).

    Raises:
        ProviderError: ``error_body`` for an error object answered with HTTP 200 (``type:
            "error"`` or an ``error`` field, even beside content blocks; with the usage it reports); ``invalid_response`` for a body without ``content`` (or whose
            ``content`` is not an array, or whose ``stop_reason`` is not a string).
    """
    if isinstance(data, dict) and (data.get("type") == "error" or data.get("error")):  # even beside content blocks
        error = error_in_body(data)
        try:
            error.usage = anthropic_usage(data)[0]
        except ProviderError:  # usage reported but unreadable: unknown, never 0 (as for OpenAI)
            error.usage = UNKNOWN
        raise error
    if not isinstance(data, dict):
        raise ProviderError("the response holds no content blocks", code="invalid_response", retryable=True)
    if not isinstance(data.get("content"), list):  # the usage it reports is billed all the same (as for OpenAI)
        try:
            reported = anthropic_usage(data)[0]
        except ProviderError:
            reported = UNKNOWN
        content = "no content" if data.get("content") is None else f"content that is a JSON {json_kind(data['content'])}"
        raise invalid(f"the response holds no content blocks ({content})", reported)
    usage, usage_flags = anthropic_usage(data)
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    reasoning: list[ReasoningBlock] = []
    unknown = 0
    for i, block in enumerate(data["content"]):
        if not isinstance(block, dict):
            raise invalid(f"the response's content[{i}] is a JSON {json_kind(block)}, not a content block", usage)
        kind = block.get("type")
        if kind == "text":
            text = block.get("text")
            if not isinstance(text, str):
                raise invalid(f"the response's content[{i}].text is a JSON {json_kind(text)}, not a string", usage)
            texts.append(text)
        elif kind == "tool_use":
            raw_input = block.get("input")
            calls.append({
                "id": block.get("id"),
                "type": "function",
                # the input as the JSON it came as: an object is the arguments; a string holding JSON is
                # double-encoded (never run unless that repair is opted into, then tagged), like any non-object
                "function": {"name": block.get("name"), "arguments": json.dumps(raw_input, ensure_ascii=False)},
            })
        elif kind in ("thinking", "redacted_thinking"):
            text = block.get("thinking") if kind == "thinking" else None
            reasoning.append(ReasoningBlock("anthropic", text if isinstance(text, str) else None, dict(block)))
        elif kind not in SERVER_BLOCKS:
            unknown += 1  # kept in the raw body; never read as text or calls, never dropped silently
    raw_stop = data.get("stop_reason")
    if raw_stop is not None and not isinstance(raw_stop, str):
        raise invalid(f"the response's stop_reason is {type(raw_stop).__name__}, not a string", usage)
    flags = (list(usage_flags) + [UNKNOWN_BLOCK] * unknown + model_flags(data)
             + text_flags(*texts, *(c["function"]["arguments"] for c in calls)))
    stop = stop_reason(raw_stop, STOP_REASONS, bool(calls), flags)
    text = "".join(texts) if texts else None
    refusal = None
    if stop == "refusal":
        refusal, text = text, None
    return ProviderReply(message={"role": "assistant", "content": text, "tool_calls": calls or None},
                         stop_reason=stop, raw_stop_reason=raw_stop, refusal=refusal, reasoning=tuple(reasoning),
                         usage=usage, flags=tuple(flags))


def messages_root(base_url: str | None) -> str | None:
    """The root the Anthropic SDK takes for ``base_url``: a trailing ``/v1`` (and ``/``) is removed, since the
    SDK appends ``/v1/messages`` itself and ``--base-url http://host/v1`` would otherwise post to
    ``/v1/v1/messages``. ``None`` stays ``None`` (Anthropic's endpoint)."""
    if base_url is None:
        return None
    root = base_url.rstrip("/")
    return root[: -len("/v1")] if root.endswith("/v1") else root


class AnthropicProvider:
    """The Anthropic Messages API (or a server speaking it).

    Args:
        settings: The model's settings (``max_tokens`` is required by the API; default 1024).
        base_url: Endpoint root (the SDK appends ``/v1/messages``), given with or without its ``/v1``
            (``http://127.0.0.1:8080/v1``, as for OpenAI-compatible servers, is read as
            ``http://127.0.0.1:8080``: :func:`messages_root`); ``None``: Anthropic's.
        api_key: The key sent as ``x-api-key``.
    """

    name = "anthropic"

    def __init__(self, settings: ModelSettings, *, base_url: str | None, api_key: str):
        from anthropic import Anthropic

        self.settings = settings

        http = guarded_http_client(settings.retry.timeout_s, connections=settings.max_connections)
        self.client = Anthropic(base_url=messages_root(base_url), api_key=api_key, max_retries=0, timeout=settings.retry.timeout_s,
                                http_client=http)

    def request(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
        """The request body fields for one call."""
        s = self.settings
        system, msgs = to_messages_api(messages)
        kwargs: dict[str, Any] = {"model": s.model, "max_tokens": s.max_tokens or 1024, "messages": msgs}
        if system:
            kwargs["system"] = system
        if tools:
            kwargs["tools"] = to_tools(tools)
            kwargs["tool_choice"] = tool_choice_param(s.tool_choice)
        if s.stop:
            kwargs["stop_sequences"] = list(s.stop)
        # sent as body fields: recent SDK versions no longer take them as arguments
        extra = {name: getattr(s, name) for name in ("temperature", "top_p") if getattr(s, name) is not None}
        extra.update(s.extra_body)
        if extra:
            kwargs["extra_body"] = extra
        return kwargs

    translate = staticmethod(translate_anthropic)

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Any:
        """Make one call (no retry), checked by :func:`translate_anthropic`; returns the body
        as received. Raises :class:`ProviderError` with its outcome code."""
        import anthropic

        try:
            raw = self.client.messages.with_raw_response.create(**self.request(messages, tools))
        except anthropic.APITimeoutError as exc:
            raise timeout_failure(exc) from None
        except anthropic.APIConnectionError as exc:
            raise connection_failure(exc) from None
        except anthropic.APIStatusError as exc:
            text = exc.response.text if exc.response is not None else ""
            error = error_for_status(exc.status_code, error_message(exc.body, text or str(exc)),
                                     dict(exc.response.headers))
            error.usage = error_usage(text, anthropic_usage)
            raise error from None
        answer = raw.http_response
        body = parse_body(answer.text, status=answer.status_code, content_type=answer.headers.get("content-type"))
        translate_anthropic(body)  # an error the body reports is raised here, inside the retry policy
        return body

    def close(self) -> None:
        self.client.close()
