"""The typed record each provider's translator makes of one response body.

:func:`evalkit.models.openai_compat.translate_openai` and
:func:`evalkit.models.anthropic_messages.translate_anthropic` read a response body into a
:class:`ProviderReply` (or raise :class:`~evalkit.models.retry.ProviderError` for an error
the body reports). They are pure functions of the body: the call cache stores the body as
received and a cache hit is translated again, so thinking blocks, refusals and usage come
back exactly as on the first call. :class:`~evalkit.models.live.LiveModel` then reads the
tool calls (:func:`evalkit.models.parsing.parse_message`) and builds the
:class:`~evalkit.runtime.model_io.ModelOutput`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from evalkit.runtime.model_io import MAX_TOKENS, ReasoningBlock
from evalkit.usage import UNKNOWN, Usage
from evalkit.models.retry import ProviderError


@dataclass(frozen=True, slots=True)
class ProviderReply:
    """One response, read by its provider's translator.

    Attributes:
        message: The assistant message in OpenAI form, tool calls as sent (``{"content",
            "tool_calls"}``), for :func:`~evalkit.models.parsing.parse_message`.
        stop_reason: The normalised :data:`evalkit.types.StopReason`.
        raw_stop_reason: The provider's own value, or ``None`` when it sent none.
        refusal: The refusal text, verbatim, or ``None``.
        reasoning: Reasoning blocks, verbatim.
        usage: Tokens billed by class; unreported classes are ``None``.
        flags: ``usage_missing``, ``usage_inconsistent``, ``unknown_stop_reason``,
            ``stop_reason_missing``, ``model_invalid`` (:func:`model_flags`), ``undecodable_text``
            (:func:`text_flags`).
    """

    message: dict[str, Any]
    stop_reason: str
    raw_stop_reason: str | None
    refusal: str | None
    reasoning: tuple[ReasoningBlock, ...]
    usage: Usage
    flags: tuple[str, ...] = ()


def stop_reason(raw: Any, table: dict[str, str], has_calls: bool, flags: list[str]) -> str:
    """The normalised stop reason for the provider value ``raw`` (a string or ``None``).

    A value missing from ``table`` is ``other`` and flagged ``unknown_stop_reason``; a
    missing value is ``tool_use`` when the response holds tool calls, else ``end_turn``, and
    flagged ``stop_reason_missing``; ``tool_use`` (OpenAI ``tool_calls``) on a response that holds no
    tool call is ``end_turn``, flagged ``stop_reason_without_calls``. All three count in a row's
    ``unknown_stop_reason``.
    """
    if raw is None or raw == "":
        flags.append("stop_reason_missing")
        return "tool_use" if has_calls else "end_turn"
    normal = table.get(raw) if not isinstance(raw, str) else table.get(raw, table.get(raw.lower()))
    if normal is None:
        flags.append("unknown_stop_reason")
        return "other"
    if normal == "tool_use" and not has_calls:  # says it called a tool and called none
        flags.append("stop_reason_without_calls")
        return "end_turn"
    return normal


def count(usage: dict[str, Any] | None, name: str, where: str = "usage") -> int | None:
    """A reported token count: an integer from 0 to
    :data:`~evalkit.runtime.model_io.MAX_TOKENS`, or ``None`` when absent or null. A JSON
    number with a zero fraction (``12.0``) is that integer: JSON does not tell ``12`` from
    ``12.0``.

    Raises:
        ProviderError: ``invalid_response`` (not retryable) for a bool, a fractional number, a
            string, a negative count or one above ``MAX_TOKENS``: a count is never guessed from
            a wrong value (and a body the agent loop would refuse is never cached).
    """
    if not isinstance(usage, dict):
        return None
    value = usage.get(name)
    if value is None:
        return None
    if type(value) is float and value.is_integer():
        value = int(value)
    if type(value) is not int or not 0 <= value <= MAX_TOKENS:
        raise ProviderError(f"{where}.{name} is {usage.get(name)!r}, not a token count (an integer from 0 to "
                            f"{MAX_TOKENS:,})", code="invalid_response")
    return value


def usage_object(body: Any) -> tuple[dict[str, Any] | None, list[str]]:
    """``(usage, flags)``: the body's ``usage`` object, or ``None`` flagged ``usage_missing``.

    Raises:
        ProviderError: ``invalid_response`` when ``usage`` is present but not an object.
    """
    usage = body.get("usage") if isinstance(body, dict) else None
    if usage is None:
        return None, ["usage_missing"]
    if not isinstance(usage, dict):
        raise ProviderError(f"usage is a JSON {json_kind(usage)}, not an object", code="invalid_response")
    return usage, []


def usage_part(usage: dict[str, Any], name: str) -> dict[str, Any] | None:
    """A nested object of a ``usage`` object (``prompt_tokens_details``, ``output_tokens_details`` ...):
    the object, or ``None`` when absent or null (its counts unknown).

    Raises:
        ProviderError: ``invalid_response`` when it is present but not an object: its counts
            are never read as absent from a value of the wrong type.
    """
    part = usage.get(name)
    if part is None or isinstance(part, dict):
        return part
    raise ProviderError(f"usage.{name} is a JSON {json_kind(part)}, not an object", code="invalid_response")


def error_usage(text: str, read: Any) -> Usage | None:
    """The usage an HTTP error answer's body reports billing, read by the provider's usage
    function ``read`` (``body -> (Usage, flags)``): ``None`` when the body is not JSON or holds
    no ``usage`` (an error answer usually bills nothing); a ``usage`` that is there but cannot be
    read whole (a count of the wrong type, a details object that is not an object, a class left
    out) is unknown (:data:`~evalkit.usage.UNKNOWN`, or the classes it gave with the others
    ``None``): the answer said it billed something, so it is never read as 0."""
    import json

    try:
        body = json.loads(text) if text else None
    except (ValueError, RecursionError):
        return None
    if not isinstance(body, dict) or body.get("usage") is None:
        return None
    try:
        usage = read(body)[0]
    except ProviderError:
        return UNKNOWN
    return usage


def json_kind(value: Any) -> str:
    """The JSON type name of a parsed value (``object``, ``array``, ``string``, …)."""
    names = {dict: "object", list: "array", str: "string", bool: "boolean", int: "number", float: "number"}
    return "null" if value is None else names.get(type(value), type(value).__name__)


def invalid(message: str, usage: Usage | None = None, *, retryable: bool = True) -> Any:
    """The :class:`~evalkit.models.retry.ProviderError` ``invalid_response`` for a body of the
    wrong shape, carrying the usage it reported (billed even though the answer is unusable)."""
    error = ProviderError(message, code="invalid_response", retryable=retryable)
    error.usage = usage
    return error


STANDARD_TIERS = frozenset({"default", "standard", "auto"})
"""``service_tier`` values billed at a model's list price (OpenAI ``default``, Anthropic
``standard``); another tier (``flex``, ``priority``, ``batch``, ``scale`` …) has its own prices."""


def tier_flags(tier: Any, where: str) -> list[str]:
    """``["service_tier_unpriced"]`` when a response reports a ``service_tier`` billed at
    other rates than the list price the model's price gives, else ``[]`` (also when it
    reports none: absent or null).

    Args:
        tier: The reported ``service_tier`` (a string, or ``None``).
        where: Its place in the body, for the error (``usage.service_tier``).

    Raises:
        ProviderError: ``invalid_response`` when it is present but not a string: a tier is
            never read as the list price's from a value of the wrong type.
    """
    if tier is None:
        return []
    if not isinstance(tier, str):
        raise ProviderError(f"{where} is a JSON {json_kind(tier)}, not a string", code="invalid_response")
    return ["service_tier_unpriced"] if tier.lower() not in STANDARD_TIERS else []


MODEL_INVALID = "model_invalid"
"""The flag of a response whose top-level ``model`` is present but neither a string nor ``null``
(``42``, ``{"id": "gpt-4o"}``): the model that answered is read as unknown (``answered_model``
``null``, :func:`evalkit.models.identity.response_model`), never a name made from the value, and
the flag is counted per episode and in the ``provider`` summary so the unknown is visible."""

UNDECODABLE_TEXT = "undecodable_text"
"""The flag of a response whose answer holds characters that stand for text that could not be
decoded: U+FFFD (the replacement character a UTF-8 decoder puts for bytes that are not valid
UTF-8, such as a multi-byte character cut apart) or a lone surrogate (half of a UTF-16 pair, from a
JSON escape such as ``"\\ud83d"`` without its other half, written as U+FFFD in the trace by
:func:`evalkit.runtime.jsonsafe.clean_text`). The answer is its assistant text, its refusal text and
the raw arguments of each of its tool calls (reasoning is not: it is never read as the answer). The
text is kept as received, never dropped or repaired; the flag is set once per response
(:func:`text_flags`) and counted per episode (``undecodable_text``, :mod:`evalkit.metrics.scoring`)
and per model × condition in the ``provider`` summary, so that a final text the classifier read
with characters missing is visible."""


def model_flags(body: Any) -> list[str]:
    """``[MODEL_INVALID]`` when a response body's top-level ``model`` is present but not a
    string or ``null``, else ``[]``.

    A missing or ``null`` ``model`` (a server that names no model) is not flagged: it names no
    model, as :mod:`evalkit.models.identity` reads it, and is not counted (nor is a string that
    names nothing once compared, such as ``""``). Unlike a ``service_tier`` of the wrong type
    (:func:`tier_flags`), which would decide the price, the response's ``model`` only says which
    model answered, so a wrong-typed one is not an error: the answer is still read and billed at
    the requested model's price.

    Args:
        body: The parsed response body (any JSON value; only an object has a ``model``).

    Returns:
        ``["model_invalid"]`` or ``[]``.
    """
    value = body.get("model") if isinstance(body, dict) else None
    return [] if value is None or isinstance(value, str) else [MODEL_INVALID]


_UNDECODABLE = re.compile("[\ufffd\ud800-\udfff]")


def _undecodable(value: Any) -> bool:
    """Whether a string in ``value`` (a string, or one anywhere in a JSON array or object, keys
    included, however deeply nested) holds U+FFFD or a lone surrogate."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _UNDECODABLE.search(item) is not None:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return False


def text_flags(*texts: Any) -> list[str]:
    """``[UNDECODABLE_TEXT]`` when any of ``texts`` holds U+FFFD or a lone surrogate, else ``[]``.

    Args:
        texts: The answer's texts as the translator read them: strings, ``None`` (absent), or a
            JSON value whose strings are the text (tool-call arguments sent as an object).

    Returns:
        ``["undecodable_text"]`` (once, however many texts hold such characters) or ``[]``.
    """
    return [UNDECODABLE_TEXT] if any(_undecodable(t) for t in texts) else []
