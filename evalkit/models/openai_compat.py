"""The OpenAI-compatible chat-completions provider, on the ``openai`` SDK.

Works with any endpoint that speaks ``POST {base_url}/chat/completions``: OpenAI, vLLM,
llama.cpp's server, Ollama, LM Studio. The SDK's own retries are switched off
(``max_retries=0``): evalkit retries itself (:mod:`evalkit.models.retry`) so that every
retry is an event and its wait is known.

What is sent differs from the context builder's messages only where real servers need it:

* an assistant message's ``content`` is always a string, ``""`` when empty (llama.cpp's
  server answers HTTP 500 to ``null``);
* a recorded call whose arguments did not parse is replayed with ``"{}"``, never verbatim
  (field case C19), and an empty name as ``empty_tool_name``;
* with ``tool_results_as="user"`` tool results are passed back inside one user message per
  turn, for chat formats that do not show ``tool`` messages to the model;
* with ``max_string_length`` every string argument's ``maxLength`` is capped, and with
  ``drop_schema_keywords`` keywords such as ``pattern`` are removed, in the tool schemas
  sent (validation still uses the tools' own schemas).

Responses are read from the raw JSON body, not the SDK's typed objects, so that malformed
output (arguments as an object, missing ids, ``content: null``) reaches
:mod:`evalkit.models.parsing` exactly as sent. Requests go out as a plain JSON body through
the SDK client's ``post`` (its auth, headers and error types), not its typed ``create``,
which walks every message and tool against its type hints on each call: at
``--max-connections 64`` that walk cost more CPU than the rest of the call. A 200 answer
whose body is an error object is the provider error ``error_body``
(:func:`evalkit.models.retry.error_in_body`).
"""

from __future__ import annotations

import itertools
import threading
from typing import Any, Collection

from evalkit.models.config import ModelSettings
from evalkit.models.parsing import replay_arguments
from evalkit.models.retry import (ProviderError, connection_failure, error_for_status, error_in_body, error_message,
                                  parse_body, token_count)


def wire_messages(messages: list[dict[str, Any]], *, tool_results_as: str = "tool") -> list[dict[str, Any]]:
    """The chat messages to send for the context builder's ``messages`` (module docstring).

    Args:
        messages: OpenAI-format messages from :func:`evalkit.runtime.context.build_context`.
        tool_results_as: ``tool`` (standard) or ``user``.

    Returns:
        New message dicts; the input is not changed.
    """
    out: list[dict[str, Any]] = []
    names: dict[str, str] = {}
    results: list[str] = []

    def flush() -> None:
        if results:
            out.append({"role": "user", "content": "\n\n".join(results)})
            results.clear()

    for m in messages:
        role = m.get("role")
        if role == "tool" and tool_results_as == "user":
            call_id = str(m.get("tool_call_id", ""))  # ids are not shown: servers make random ones
            results.append(f"Result of {names.get(call_id, 'the tool call')}:\n{m.get('content') or ''}")
            continue
        flush()
        if role == "assistant":
            msg: dict[str, Any] = {"role": "assistant", "content": m.get("content") or ""}
            calls = []
            for c in m.get("tool_calls") or []:
                fn = c.get("function") or {}
                name = fn.get("name") or "empty_tool_name"
                names[str(c.get("id", ""))] = name
                calls.append({"id": c.get("id"), "type": "function",
                              "function": {"name": name, "arguments": replay_arguments(fn.get("arguments"))}})
            if calls:
                msg["tool_calls"] = calls
            out.append(msg)
        elif role == "tool":
            out.append({"role": "tool", "tool_call_id": m.get("tool_call_id"), "content": m.get("content") or ""})
        else:
            out.append({"role": role, "content": m.get("content") if m.get("content") is not None else ""})
    flush()
    return out


def sent_schema(schema: Any, *, max_string_length: int | None = None, drop: Collection[str] = ()) -> Any:
    """A copy of a JSON Schema (or a list of tool definitions) as sent to a server that
    compiles schemas into a grammar: every string's ``maxLength`` capped at
    ``max_string_length``, and the keywords in ``drop`` removed (``properties`` named like
    a keyword are kept)."""
    if isinstance(schema, list):
        return [sent_schema(item, max_string_length=max_string_length, drop=drop) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if key == "properties" and isinstance(value, dict):
            out[key] = {name: sent_schema(sub, max_string_length=max_string_length, drop=drop)
                        for name, sub in value.items()}
        elif key not in drop:
            out[key] = sent_schema(value, max_string_length=max_string_length, drop=drop)
    kind = schema.get("type")
    if max_string_length and (kind == "string" or (isinstance(kind, list) and "string" in kind)):
        out["maxLength"] = min(int(schema.get("maxLength", max_string_length)), max_string_length)
    return out


def tool_choice_param(choice: str) -> Any:
    """``auto`` / ``required`` / ``none`` as is; a tool name as a named function choice."""
    if choice in ("auto", "required", "none"):
        return choice
    return {"type": "function", "function": {"name": choice}}


def _kind(value: Any) -> str:
    """The JSON type name of a parsed value (``object``, ``array``, ``string``, …)."""
    names = {dict: "object", list: "array", str: "string", bool: "boolean", int: "number", float: "number"}
    return "null" if value is None else names.get(type(value), type(value).__name__)


def _invalid(message: str) -> ProviderError:
    return ProviderError(message, code="invalid_response", retryable=True)


def normalize_openai(data: Any) -> dict[str, Any]:
    """The provider-neutral response (what the cache stores) from a chat-completion body.

    Returns:
        ``{"message": {...}, "finish_reason": str, "usage": {"input_tokens",
        "output_tokens"}, "model": str, "id": str}``; ``message`` is the first choice's
        message exactly as received.

    Raises:
        ProviderError: ``invalid_response`` (retryable) for a body that is not an object, has
            no choices, ``choices`` that is not a list of objects, a ``message`` that is not
            an object or a ``finish_reason`` that is not a string; or
            :func:`~evalkit.models.retry.error_in_body`'s error (``error_body``) when the 200
            answer carries an ``error`` object instead.
    """
    if isinstance(data, dict) and data.get("error") and not data.get("choices"):
        raise error_in_body(data)
    if not isinstance(data, dict):
        raise _invalid(f"the response is a JSON {_kind(data)}, not an object")
    choices = data.get("choices")
    if not choices:
        raise _invalid("the response holds no choices")
    if not isinstance(choices, list):
        raise _invalid(f"the response's choices is a JSON {_kind(choices)}, not an array")
    choice = choices[0]
    if not isinstance(choice, dict):
        raise _invalid(f"the response's choices[0] is a JSON {_kind(choice)}, not an object")
    message = choice.get("message")
    if message is not None and not isinstance(message, dict):
        raise _invalid(f"the response's choices[0].message is a JSON {_kind(message)}, not an object")
    finish = choice.get("finish_reason")
    if finish is not None and not isinstance(finish, str):
        raise _invalid(f"the response's choices[0].finish_reason is a JSON {_kind(finish)}, not a string")
    usage = data.get("usage")
    return {
        "message": message or {},
        "finish_reason": finish or "stop",
        "usage": {
            "input_tokens": token_count(usage, "prompt_tokens"),
            "output_tokens": token_count(usage, "completion_tokens"),
        },
        "model": data.get("model") or "",
        "id": data.get("id") or "",
    }


SHARD_CONNECTIONS = 8
"""Connections per HTTP client of a model: a model with more (``--max-connections 64``) gets
several clients, each episode thread keeping one."""


class OpenAIProvider:
    """One OpenAI-compatible endpoint.

    Args:
        settings: The model's settings (model name, sampling, timeout, tool results form).
        base_url: Endpoint, e.g. ``http://127.0.0.1:8080/v1`` (``None``: OpenAI's).
        api_key: The key sent as a bearer token.
    """

    name = "openai"

    def __init__(self, settings: ModelSettings, *, base_url: str | None, api_key: str):
        from openai import OpenAI

        from evalkit.models.transport import guarded_http_client

        self.settings = settings
        connections = max(1, int(settings.max_connections or 1))
        shards = -(-connections // SHARD_CONNECTIONS)
        per_shard = min(connections, 2 * SHARD_CONNECTIONS)  # room for an uneven spread of threads
        self._clients = [
            OpenAI(base_url=base_url, api_key=api_key, max_retries=0, timeout=settings.retry.timeout_s,
                   http_client=guarded_http_client(settings.retry.timeout_s, connections=per_shard))
            for _ in range(shards)
        ]
        self._thread = threading.local()
        self._turn = itertools.count()

    @property
    def client(self) -> Any:
        """The calling thread's client: threads are dealt to the clients in turn, so that each
        connection pool holds at most about :data:`SHARD_CONNECTIONS` connections (a pool
        looks over all of its connections for every request it places)."""
        client = getattr(self._thread, "client", None)
        if client is None:
            client = self._thread.client = self._clients[next(self._turn) % len(self._clients)]
        return client

    def request(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
        """The JSON body of one call: the chat-completion fields, then ``extra_body``'s keys
        (which win over a field of the same name)."""
        s = self.settings
        kwargs: dict[str, Any] = {
            "model": s.model,
            "messages": wire_messages(messages, tool_results_as=s.tool_results_as),
        }
        if tools:
            if s.max_string_length or s.drop_schema_keywords:
                tools = sent_schema(tools, max_string_length=s.max_string_length, drop=s.drop_schema_keywords)
            kwargs["tools"] = tools
            kwargs["tool_choice"] = tool_choice_param(s.tool_choice)
        for name in ("temperature", "top_p", "max_tokens", "seed", "stop"):
            value = getattr(s, name)
            if value is not None:
                kwargs[name] = value
        kwargs.update(s.extra_body or {})
        return kwargs

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
        """Make one call (no retry).

        Returns:
            The normalized response (:func:`normalize_openai`).

        Raises:
            ProviderError: for any failure, with its outcome code.
        """
        import httpx2
        import openai

        try:
            # a plain JSON body, not the typed ``create`` (module docstring)
            raw = self.client.post("/chat/completions", cast_to=httpx2.Response, body=self.request(messages, tools))
        except openai.APITimeoutError as exc:
            raise ProviderError(f"request timed out: {exc}", code="timeout", retryable=True) from None
        except openai.APIConnectionError as exc:
            raise connection_failure(exc) from None
        except openai.APIStatusError as exc:
            text = exc.response.text if exc.response is not None else ""
            message = error_message(exc.body, text or str(exc))
            raise error_for_status(exc.status_code, message, dict(exc.response.headers)) from None
        return normalize_openai(parse_body(raw.text))

    def close(self) -> None:
        for client in self._clients:
            client.close()
