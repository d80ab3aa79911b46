"""The Anthropic Messages API provider, on the ``anthropic`` SDK.

The runtime speaks OpenAI-format messages (:mod:`evalkit.runtime.context`); this module
translates them to the Messages API and the answer back, so the agent loop never knows
which provider it talks to:

* system messages become the ``system`` field;
* an assistant message becomes ``text`` and ``tool_use`` blocks (recorded arguments that
  did not parse are replayed as ``{}``, field case C19);
* ``tool`` messages become ``tool_result`` blocks inside one user message; consecutive
  messages of the same role are merged, as the API requires alternating roles;
* tools become ``{name, description, input_schema}``; ``tool_choice`` ``auto`` /
  ``required`` / ``none`` / a name become ``auto`` / ``any`` / ``none`` / ``tool``;
* the answer's ``stop_reason`` maps to a finish reason: ``end_turn`` and
  ``stop_sequence`` → ``stop``, ``tool_use`` → ``tool_calls``, ``max_tokens`` →
  ``length``, ``refusal`` → ``content_filter``.

``temperature`` and ``top_p`` are sent as body fields (recent SDK versions no longer take
them as arguments); ``seed`` is not part of the Messages API and is not sent. The SDK's own retries are off;
evalkit retries (:mod:`evalkit.models.retry`).
"""

from __future__ import annotations

import json
from typing import Any

from evalkit.models.config import ModelSettings
from evalkit.models.parsing import replay_arguments
from evalkit.models.retry import (ProviderError, connection_failure, error_for_status, error_in_body, error_message,
                                  parse_body, token_count)

STOP_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "refusal": "content_filter",
}


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
            blocks: list[dict[str, Any]] = [{"type": "text", "text": content}] if content.strip() else []
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


def normalize_anthropic(data: Any) -> dict[str, Any]:
    """The provider-neutral response (as :func:`evalkit.models.openai_compat.normalize_openai`)
    from a Messages API body; ``tool_use`` blocks become OpenAI-format ``tool_calls``.

    Raises:
        ProviderError: ``invalid_response`` for a body without ``content`` (or whose
            ``content`` is not an array, or whose ``stop_reason`` is not a string), or
            :func:`~evalkit.models.retry.error_in_body`'s error (``error_body``) for an
            error object answered with HTTP 200.
    """
    if not isinstance(data, dict) or not isinstance(data.get("content"), list):
        if isinstance(data, dict) and (data.get("type") == "error" or data.get("error")):
            raise error_in_body(data)
        raise ProviderError("the response holds no content blocks", code="invalid_response", retryable=True)
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    for block in data["content"]:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            texts.append(str(block.get("text", "")))
        elif block.get("type") == "tool_use":
            raw_input = block.get("input")
            calls.append({
                "id": block.get("id"),
                "type": "function",
                "function": {"name": block.get("name"),
                             "arguments": raw_input if not isinstance(raw_input, dict)
                             else json.dumps(raw_input, ensure_ascii=False)},
            })
    usage = data.get("usage")
    input_tokens = sum(token_count(usage, k) for k in
                       ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"))
    stop = data.get("stop_reason") or "end_turn"
    if not isinstance(stop, str):
        raise ProviderError(f"the response's stop_reason is {type(stop).__name__}, not a string",
                            code="invalid_response", retryable=True)
    return {
        "message": {"role": "assistant", "content": "".join(texts) if texts else None,
                    "tool_calls": calls or None},
        "finish_reason": STOP_REASONS.get(stop, stop),
        "usage": {"input_tokens": input_tokens, "output_tokens": token_count(usage, "output_tokens")},
        "model": data.get("model") or "",
        "id": data.get("id") or "",
    }


class AnthropicProvider:
    """The Anthropic Messages API (or a server speaking it).

    Args:
        settings: The model's settings (``max_tokens`` is required by the API; default 1024).
        base_url: Endpoint root (the SDK appends ``/v1/messages``); ``None``: Anthropic's.
        api_key: The key sent as ``x-api-key``.
    """

    name = "anthropic"

    def __init__(self, settings: ModelSettings, *, base_url: str | None, api_key: str):
        from anthropic import Anthropic

        self.settings = settings
        from evalkit.models.transport import guarded_http_client

        http = guarded_http_client(settings.retry.timeout_s, connections=settings.max_connections)
        self.client = Anthropic(base_url=base_url, api_key=api_key, max_retries=0, timeout=settings.retry.timeout_s,
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

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
        """Make one call (no retry); raises :class:`ProviderError` with its outcome code."""
        import anthropic

        try:
            raw = self.client.messages.with_raw_response.create(**self.request(messages, tools))
        except anthropic.APITimeoutError as exc:
            raise ProviderError(f"request timed out: {exc}", code="timeout", retryable=True) from None
        except anthropic.APIConnectionError as exc:
            raise connection_failure(exc) from None
        except anthropic.APIStatusError as exc:
            text = exc.response.text if exc.response is not None else ""
            raise error_for_status(exc.status_code, error_message(exc.body, text or str(exc)),
                                   dict(exc.response.headers)) from None
        return normalize_anthropic(parse_body(raw.http_response.text))

    def close(self) -> None:
        self.client.close()
