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
whose body or choice reports an error is the provider error ``error_body``
(:func:`translate_openai`).
"""

from __future__ import annotations

import itertools
import threading
from typing import Any, Collection

from evalkit.models.config import ModelSettings
from evalkit.models.parsing import replay_arguments
from evalkit.models.reply import (ProviderReply, count, error_usage, model_flags, stop_reason, text_flags, tier_flags,
                                  usage_object, usage_part)
from evalkit.models.reply import invalid as _invalid, json_kind as _kind
from evalkit.models.retry import (ProviderError, connection_failure, error_for_status, error_in_body, error_message,
                                  parse_body, timeout_failure)
from evalkit.runtime.model_io import ReasoningBlock
from evalkit.usage import UNKNOWN, Usage
from evalkit.models.transport import guarded_http_client


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
    out: dict[str, Any] = {}
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


FINISH_REASONS = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "length": "max_tokens",
    "model_length": "max_tokens",
    "content_filter": "content_filter",
    "error": "error",
    "abort": "error",
    "eos_token": "end_turn",
    "stop_sequence": "end_turn",
    "insufficient_system_resource": "error",
    "safety": "content_filter",
    "recitation": "content_filter",
    "prohibited_content": "content_filter",
    "blocklist": "content_filter",
    "spii": "content_filter",
    "guardrail_intervened": "content_filter",
}
"""Chat-completions ``finish_reason`` values (the ``openai`` SDK's ``Choice.finish_reason``
literal; ``error`` sent by gateways such as OpenRouter and by vLLM; ``abort``, vLLM's and
SGLang's value for a generation the engine aborted, whose text is partial; DeepSeek's
``insufficient_system_resource``, a generation cut off for lack of server resources; ``eos_token`` and
``stop_sequence`` of Hugging Face TGI; Mistral's ``model_length``, the context window filled; the
safety stops of Gemini's (``safety``, ``recitation``, ``prohibited_content``, ``blocklist``, ``spii``)
and of Bedrock's guardrails (``guardrail_intervened``), an answer withheld) → :data:`evalkit.types.StopReason`.
Values are matched without regard to case (``SAFETY`` is ``safety``). A value that maps to ``error`` is
a provider error, never the model's answer."""


def openai_usage(body: Any) -> tuple[Usage, tuple[str, ...]]:
    """The :class:`~evalkit.usage.Usage` a chat-completion body reports, and its flags.

    ``prompt_tokens`` is every input token (``prompt_tokens_details.cached_tokens``, or
    DeepSeek's ``prompt_cache_hit_tokens``, and ``cache_write_tokens`` are parts of it); ``completion_tokens`` every output token
    (``completion_tokens_details.reasoning_tokens`` a part). When ``total_tokens`` is larger
    than prompt + completion (servers that leave reasoning out of ``completion_tokens``),
    output is ``total_tokens - prompt_tokens``; without a total, reasoning tokens larger than
    ``completion_tokens`` are added to it; either is flagged ``usage_inconsistent``. When one of
    prompt and completion is left out but ``total_tokens`` is given (servers that omit a zero
    count), it is the total minus the other, flagged ``usage_derived``; these are flagged, as are a
    total below prompt + completion and cached tokens above ``prompt_tokens`` (billed only up
    to it, :func:`evalkit.usage.usage_cost`). A ``service_tier`` other than ``default``
    (``flex``, ``priority`` …) is flagged ``service_tier_unpriced``: the price table holds
    list prices. An absent or
    null ``usage`` is unknown (flag ``usage_missing``), never 0.

    Raises:
        ProviderError: ``invalid_response`` for a count of the wrong type, a details object
            that is not an object (:func:`~evalkit.models.reply.usage_part`), or a
            ``service_tier`` (a field of the body, read with or without ``usage``) that is not
            a string.
    """
    tier = tier_flags(body.get("service_tier") if isinstance(body, dict) else None, "service_tier")
    usage, flags = usage_object(body)
    if usage is None:
        return UNKNOWN, tuple(flags)
    prompt, completion = count(usage, "prompt_tokens"), count(usage, "completion_tokens")
    total = count(usage, "total_tokens")
    prompt_details = usage_part(usage, "prompt_tokens_details")
    completion_details = usage_part(usage, "completion_tokens_details")
    cached = count(prompt_details, "cached_tokens", "usage.prompt_tokens_details")
    if cached is None:  # DeepSeek's fields: prompt_tokens = prompt_cache_hit_tokens + prompt_cache_miss_tokens
        cached = count(usage, "prompt_cache_hit_tokens")
    written = count(prompt_details, "cache_write_tokens", "usage.prompt_tokens_details")
    reasoning = count(completion_details, "reasoning_tokens", "usage.completion_tokens_details")
    if total is not None and (prompt is None) != (completion is None):  # one class left out: total − the other
        known = prompt if completion is None else completion
        if known is not None and total >= known:
            prompt, completion = (prompt, total - known) if completion is None else (total - known, completion)
            flags.append("usage_derived")
    if prompt is None or completion is None:
        flags.append("usage_missing")
    if prompt is not None and completion is not None and total is not None and total > prompt + completion:
        completion = total - prompt
        flags.append("usage_inconsistent")
    elif total is None and completion is not None and reasoning is not None and reasoning > completion:
        completion += reasoning  # reasoning reported outside completion_tokens, and no total to tell
        flags.append("usage_inconsistent")
    elif prompt is not None and completion is not None and total is not None and total < prompt + completion:
        flags.append("usage_inconsistent")  # the classes are billed; the total is kept in the raw body
    out = Usage(prompt, cached, written, completion, reasoning)
    if out.inconsistent and "usage_inconsistent" not in flags:
        flags.append("usage_inconsistent")
    flags.extend(tier)
    return out, tuple(flags)


def translate_openai(data: Any) -> ProviderReply:
    """The :class:`~evalkit.models.reply.ProviderReply` of a chat-completion body.

    Rules (the scoring table in :mod:`evalkit.runtime.model_io`): ``finish_reason`` is
    normalised by :data:`FINISH_REASONS`; ``message.refusal`` is the refusal (stop reason
    ``refusal`` unless the provider's filter stopped it, ``content_filter``); usage by
    :func:`openai_usage`; a ``model`` that is not a string or ``null`` is flagged
    ``model_invalid`` (:func:`~evalkit.models.reply.model_flags`); an answer whose text, refusal or
    tool-call arguments (:func:`_answer_texts`) hold U+FFFD or a lone surrogate is kept as received
    and flagged ``undecodable_text`` once (:func:`~evalkit.models.reply.text_flags`); a content part
    evalkit does not read (:func:`_unread_parts`: an image, audio, a type of its own with no
    ``text``) is kept in the raw body and flagged ``unknown_content_block`` once per part, as for
    Anthropic.

    Raises:
        ProviderError: with the failed attempt's usage in ``usage`` (billed tokens are
            counted even when the answer is unusable):

            * ``error_body`` (:func:`~evalkit.models.retry.error_in_body`) for an ``error``
              object in the body or in the choice, or ``finish_reason: "error"``;
            * ``invalid_response`` (retryable) for a body that is not an object, has no
              choices, ``choices`` that is not a list of objects, a ``message`` that is not
              an object or a ``finish_reason`` that is not a string; not retryable for more
              than one choice (evalkit asks for one and never drops one silently).
    """
    if not isinstance(data, dict):
        raise _invalid(f"the response is a JSON {_kind(data)}, not an object")
    try:
        usage, usage_flags = openai_usage(data)
    except ProviderError:
        if data.get("error"):
            usage, usage_flags = UNKNOWN, ()
        else:
            raise
    if data.get("error"):  # an error object next to choices still means the answer failed
        error = error_in_body(data)
        error.usage = usage
        raise error
    choices = data.get("choices")
    if not choices:
        raise _invalid("the response holds no choices", usage)
    if not isinstance(choices, list):
        raise _invalid(f"the response's choices is a JSON {_kind(choices)}, not an array", usage)
    if len(choices) > 1:
        raise _invalid(f"the response holds {len(choices)} choices; evalkit asks for one and reads exactly one",
                       usage, retryable=False)
    choice = choices[0]
    if not isinstance(choice, dict):
        raise _invalid(f"the response's choices[0] is a JSON {_kind(choice)}, not an object", usage)
    finish = choice.get("finish_reason")
    if finish is not None and not isinstance(finish, str):
        raise _invalid(f"the response's choices[0].finish_reason is a JSON {_kind(finish)}, not a string", usage)
    if (finish is not None and FINISH_REASONS.get(finish.lower()) == "error") or choice.get("error"):
        error = error_in_body({"error": choice.get("error") or {"message": f"finish_reason is {finish}"}})
        error.usage = usage
        raise error
    message = choice.get("message")
    if message is None:  # a streaming chunk (``delta``) or a legacy completion (``text``) is not an answer
        shape = next((key for key in ("delta", "text") if key in choice), None)
        raise _invalid("the response's choices[0] has no message"
                       + (f" (it holds {shape!r}: not a chat completion)" if shape else ""), usage)
    if not isinstance(message, dict):
        raise _invalid(f"the response's choices[0].message is a JSON {_kind(message)}, not an object", usage)
    problem = _message_problem(message)
    if problem is not None:
        raise _invalid(f"the response's choices[0].message.{problem}", usage)
    message, refusal = _split_refusal(message)
    flags = (list(usage_flags) + model_flags(data) + text_flags(refusal, *_answer_texts(message))
             + ["unknown_content_block"] * len(_unread_parts(message)))
    stop = stop_reason(finish, FINISH_REASONS, bool(message.get("tool_calls") or message.get("function_call")),
                       flags)
    if refusal is not None and stop != "content_filter":
        stop = "refusal"  # a refused answer is withheld whatever else it holds (its calls are never run)
    return ProviderReply(message=message, stop_reason=stop, raw_stop_reason=finish, refusal=refusal,
                         reasoning=_reasoning(message), usage=usage, flags=tuple(flags))


def _message_problem(message: dict[str, Any]) -> str | None:
    """What makes ``message`` unreadable as an assistant message, or ``None``: ``content`` a
    string, ``null`` or an array of part objects whose ``text`` / ``refusal`` are strings;
    ``refusal`` and each reasoning field a string or ``null``; ``tool_calls`` an array or
    ``null``; ``function_call`` an object or ``null``. A value of another JSON type is never
    turned into text (``42`` → ``"42"``) or into calls (a string iterated character by
    character)."""
    content = message.get("content")
    if content is not None and not isinstance(content, (str, list)):
        return f"content is a JSON {_kind(content)}, not a string or an array of parts"
    for i, part in enumerate(content if isinstance(content, list) else ()):
        if not isinstance(part, dict):
            return f"content[{i}] is a JSON {_kind(part)}, not a content part object"
        for key in ("text", "refusal"):
            if part.get(key) is not None and not isinstance(part[key], str):
                return f"content[{i}].{key} is a JSON {_kind(part[key])}, not a string"
    for key in ("refusal", *REASONING_FIELDS):
        if message.get(key) is not None and not isinstance(message[key], str):
            return f"{key} is a JSON {_kind(message[key])}, not a string"
    if message.get("tool_calls") is not None and not isinstance(message["tool_calls"], list):
        return f"tool_calls is a JSON {_kind(message['tool_calls'])}, not an array"
    if message.get("function_call") is not None and not isinstance(message["function_call"], dict):
        return f"function_call is a JSON {_kind(message['function_call'])}, not an object"
    return None


def _answer_texts(message: dict[str, Any]) -> list[Any]:
    """The texts of ``message`` that are its answer, as :func:`~evalkit.models.parsing.parse_message`
    reads them: ``content`` (a string, or the ``text`` of its parts other than reasoning parts) and
    the raw arguments of each tool call (``function.arguments``; ``input`` or ``arguments`` of a call
    of another type; the whole entry when it is not an object; a legacy ``function_call``'s
    ``arguments`` when there are no tool calls). Reasoning fields are not the answer. The refusal
    is read apart (:func:`_split_refusal`)."""
    content = message.get("content")
    texts: list[Any] = [content] if isinstance(content, str) else [
        p.get("text") for p in content or () if isinstance(p, dict) and p.get("type") not in ("thinking", "reasoning")]
    calls = message.get("tool_calls") or []
    legacy = message.get("function_call")
    if not calls and isinstance(legacy, dict) and legacy.get("name"):
        calls = [{"function": legacy}]
    for call in calls:
        if not isinstance(call, dict):
            texts.append(call)
            continue
        kind = call.get("type")
        if kind is not None and kind != "function":
            body = call.get(kind) if isinstance(kind, str) else None  # ``{"type": "custom", "custom": {…}}``
            if not isinstance(body, dict):
                body = call.get("function")
            other = body if isinstance(body, dict) else {}
            texts.append(other.get("input", other.get("arguments")))
        else:
            fn = call.get("function")
            texts.append(fn.get("arguments") if isinstance(fn, dict) else None)
    return texts


READ_PARTS: frozenset[str] = frozenset({"text", "output_text", "refusal", "thinking", "reasoning"})
"""Content part types evalkit reads: text (``text``, the Responses-style ``output_text``), refusals and reasoning."""


def _unread_parts(message: dict[str, Any]) -> list[dict[str, Any]]:
    """The content parts of ``message`` that give evalkit nothing to read: a type not in :data:`READ_PARTS`
    with no string ``text`` (``{"type": "image_url", ...}``, ``{"type": "output_audio", ...}``)."""
    content = message.get("content")
    return [p for p in (content if isinstance(content, list) else ())
            if isinstance(p, dict) and p.get("type") not in READ_PARTS and not isinstance(p.get("text"), str)]


REASONING_FIELDS = ("reasoning_content", "reasoning")
"""Message fields in which OpenAI-compatible servers return reasoning text apart from the
answer: ``reasoning_content`` (DeepSeek, llama.cpp's server, vLLM before 0.10) and
``reasoning`` (vLLM, OpenRouter)."""


def _part_text(value: Any) -> str:
    """The text of a reasoning content part's value: a string, or a list of text parts."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(p.get("text") or "" for p in value if isinstance(p, dict) and isinstance(p.get("text"), str))
    return ""


def _reasoning(message: dict[str, Any]) -> tuple[ReasoningBlock, ...]:
    """The message's reasoning text as opaque blocks (never part of the text, never sent back):
    the :data:`REASONING_FIELDS`, and ``thinking`` / ``reasoning`` content parts (Mistral's
    reasoning models: ``{"type": "thinking", "thinking": [{"type": "text", "text": …}]}``)."""
    blocks: list[ReasoningBlock] = []
    for name in REASONING_FIELDS:
        value = message.get(name)
        if isinstance(value, str) and value.strip() and all(b.text != value for b in blocks):  # servers may send both
            blocks.append(ReasoningBlock("openai", value, {"type": name, name: value}))
    content = message.get("content")
    for part in content if isinstance(content, list) else ():
        kind = part.get("type") if isinstance(part, dict) else None
        if kind in ("thinking", "reasoning"):
            text = _part_text(part.get(kind)) or _part_text(part.get("text"))
            if text.strip():
                blocks.append(ReasoningBlock("openai", text, dict(part)))
    return tuple(blocks)


def _split_refusal(message: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """``(message, refusal)``: the refusal text from ``message.refusal`` or from ``refusal``
    content parts (``[{"type": "refusal", "refusal": …}]``, as compatible servers send the
    request-side shape); the parts are taken out of the content so they are never read as
    text."""
    texts = []
    refusal = message.get("refusal")
    if isinstance(refusal, str) and refusal.strip():
        texts.append(refusal)
    content = message.get("content")
    if isinstance(content, list):
        parts = [p for p in content if isinstance(p, dict) and p.get("type") == "refusal"]
        if parts:
            texts.extend(str(p.get("refusal") or p.get("text") or "") for p in parts)
            message = {**message, "content": [p for p in content if not (isinstance(p, dict)
                                                                         and p.get("type") == "refusal")]}
    refusal = "\n".join(t for t in texts if t.strip())
    return message, refusal or None


def filtered_request(status: int, text: str) -> dict[str, Any] | None:
    """The answer to record for a request the provider's content filter refused, or ``None``.

    Azure OpenAI (and gateways in front of it) answer a prompt its content filter blocks with
    HTTP 400 and ``{"error": {"code": "content_filter", "message": …}}``. That is the
    provider's policy acting on the request, reproducibly, not a fault of the run, so it is
    read like a ``finish_reason: "content_filter"`` answer (:func:`translate_openai`): no text,
    stop reason ``content_filter``, usage unknown; the error body is kept under
    ``filtered_request`` for the trace.

    Args:
        status: The HTTP status of the error answer.
        text: Its body.

    Returns:
        A chat-completion body, or ``None`` when the answer is not a content-filter refusal.
    """
    import json

    if not 400 <= status < 500:
        return None
    try:
        body = json.loads(text) if text else None
    except (ValueError, RecursionError):
        return None
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict) or "content_filter" not in (error.get("code"), error.get("type")):
        return None
    return {"object": "chat.completion", "filtered_request": {"status": status, "body": body},
            "choices": [{"index": 0, "finish_reason": "content_filter",
                         "message": {"role": "assistant", "content": None}}]}


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

    translate = staticmethod(translate_openai)

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Any:
        """Make one call (no retry) and check it with :func:`translate_openai`.

        Returns:
            The response body as received (the cache stores it; :meth:`translate` reads it).

        Raises:
            ProviderError: for any failure, with its outcome code.
        """
        import httpx2
        import openai

        try:
            # a plain JSON body, not the typed ``create`` (module docstring)
            raw = self.client.post("/chat/completions", cast_to=httpx2.Response, body=self.request(messages, tools))
        except openai.APITimeoutError as exc:
            raise timeout_failure(exc) from None
        except openai.APIConnectionError as exc:
            raise connection_failure(exc) from None
        except openai.APIStatusError as exc:
            text = exc.response.text if exc.response is not None else ""
            filtered = filtered_request(exc.status_code, text)
            if filtered is not None:
                return filtered
            message = error_message(exc.body, text or str(exc))
            error = error_for_status(exc.status_code, message, dict(exc.response.headers))
            error.usage = error_usage(text, openai_usage)
            raise error from None
        body = parse_body(raw.text, status=raw.status_code, content_type=raw.headers.get("content-type"))
        translate_openai(body)  # an error the body reports is raised here, inside the retry policy
        return body

    def close(self) -> None:
        for client in self._clients:
            client.close()
