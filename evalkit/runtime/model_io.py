"""What passes between the runtime and a model: tool calls, model outputs, the protocol.

The model is a black box ``D_t ~ model(M_t)`` (DESIGN §2): it receives a
:class:`~evalkit.runtime.context.ModelContext` and returns a :class:`ModelOutput`. Every
adapter (scripted, OpenAI-compatible, Anthropic, …) implements :class:`Model`; the agent
loop never knows which provider it talks to.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, runtime_checkable

from evalkit.runtime.context import ModelContext
from evalkit.runtime.jsonsafe import SURROGATE, clean_text, json_problem, sanitize

MAX_TOKENS = 100_000_000
"""Largest token count one response may report (input or output); larger, negative or
non-integer counts make the output invalid (:func:`checked_output`)."""


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call proposed by the model.

    Attributes:
        id: Provider call id (or a generated one).
        name: Tool name as emitted (may be empty or unknown: the controller decides).
        arguments: Parsed arguments object, or ``None`` when parsing failed.
        raw_arguments: Arguments exactly as received (string form).
        parse_error: Why ``raw_arguments`` could not be parsed, or ``None``.
    """

    id: str
    name: str
    arguments: dict[str, Any] | None
    raw_arguments: str = ""
    parse_error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Form stored in :class:`~evalkit.runtime.events.ModelResponded` events."""
        return {
            "id": self.id,
            "name": self.name,
            "arguments": self.arguments if self.arguments is not None else self.raw_arguments,
            "parse_error": self.parse_error,
        }


@dataclass(frozen=True, slots=True)
class ModelOutput:
    """``D_t``: one model response.

    Attributes:
        text: Assistant text (``None`` when absent).
        tool_calls: Proposed calls, in order.
        finish_reason: Provider finish reason (``stop``, ``tool_calls``, ``length``,
            ``content_filter`` …).
        input_tokens: Prompt tokens billed (0 when unknown).
        output_tokens: Completion tokens billed.
        latency_s: Wall-clock seconds of the call, excluding retry waits.
    """

    text: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    finish_reason: str = "stop"
    input_tokens: int = 0
    output_tokens: int = 0
    latency_s: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class Model(Protocol):
    """A model under evaluation.

    Attributes:
        name: The spec it was created from (e.g. ``scripted/oracle``).
    """

    name: str

    def respond(self, context: ModelContext, episode: Any) -> ModelOutput:
        """Return the model's output for ``context``.

        Args:
            context: ``M_t`` built by the context builder.
            episode: The :class:`~evalkit.harness.episode.EpisodeSpec` being run. Live
                models must ignore it; scripted models read the pair's annotations from it.

        Raises:
            evalkit.errors.ModelError: when the provider fails (``retryable`` says whether
                a retry may help).
        """
        ...


class InvalidOutput(ValueError):
    """A :class:`ModelOutput` (or what ``respond`` returned instead) that the agent loop cannot
    use; the message is one line naming the field."""


def _count(value: Any, name: str) -> None:
    if type(value) is not int and (isinstance(value, bool) or not isinstance(value, int)):
        raise InvalidOutput(f"{name} is a {type(value).__name__}, not an integer")
    if not 0 <= value <= MAX_TOKENS:
        raise InvalidOutput(f"{name} is {value}; token counts are integers from 0 to {MAX_TOKENS:,}")


def _seconds(value: Any, name: str, *, optional: bool = False) -> None:
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < math.inf:
        raise InvalidOutput(f"{name} is {value!r}; expected a finite number >= 0")


def _string(value: Any, name: str, *, optional: bool = False) -> None:
    if not isinstance(value, str) and not (optional and value is None):
        raise InvalidOutput(f"{name} is a {type(value).__name__}, not a string" + (" or None" if optional else ""))


def _check_extra(extra: Any) -> None:
    """The bookkeeping a live adapter leaves in ``extra`` (see :mod:`evalkit.runtime.loop`)."""
    if not isinstance(extra, dict):
        raise InvalidOutput(f"extra is a {type(extra).__name__}, not a dict")
    call = extra.get("call")
    if call is not None:
        if not isinstance(call, dict):
            raise InvalidOutput(f"extra.call is a {type(call).__name__}, not a dict")
        _seconds(call.get("cost_usd"), "extra.call.cost_usd (is the model's price finite?)", optional=True)
        _seconds(call.get("wait_s", 0.0), "extra.call.wait_s")
    for key in ("retries", "tagged"):
        items = extra.get(key, ())
        if not isinstance(items, (list, tuple)) or not all(isinstance(i, dict) for i in items):
            raise InvalidOutput(f"extra.{key} is not a list of dicts")
    for retry in extra.get("retries", ()):
        _seconds(retry.get("wait_s", 0.0), "extra.retries.wait_s")


def _safe_call(call: ToolCall) -> ToolCall:
    """``call`` with JSON-safe strings; arguments that are not strict JSON (NaN, Infinity,
    other types, too deep) become a parse failure, which the controller denies."""
    raw = clean_text(call.raw_arguments)
    problem = None if call.arguments is None else json_problem(call.arguments)
    if problem is None or problem == SURROGATE:
        arguments = call.arguments if problem is None else sanitize(call.arguments)
        error = None if call.parse_error is None else clean_text(call.parse_error)
    else:
        arguments, error = None, f"invalid_json: the arguments hold {problem}"
    return ToolCall(clean_text(call.id), clean_text(call.name), arguments, raw, error)


def _plain(out: Any) -> bool:
    """Whether ``out`` is a well-typed output of exact built-in types (the fast path)."""
    if type(out) is not ModelOutput:
        return False
    text, tokens_in, tokens_out, latency = out.text, out.input_tokens, out.output_tokens, out.latency_s
    if not ((text is None or type(text) is str) and type(out.finish_reason) is str
            and type(tokens_in) is int and 0 <= tokens_in <= MAX_TOKENS
            and type(tokens_out) is int and 0 <= tokens_out <= MAX_TOKENS
            and type(latency) in (float, int) and 0 <= latency < math.inf and type(out.tool_calls) is tuple):
        return False
    for c in out.tool_calls:
        if not (type(c) is ToolCall and type(c.id) is str and type(c.name) is str and type(c.raw_arguments) is str
                and (c.parse_error is None or type(c.parse_error) is str)
                and (c.arguments is None or type(c.arguments) is dict)):
            return False
    return True


def _check_types(out: Any) -> None:
    """The field-by-field checks behind :func:`checked_output`, naming the first bad field."""
    if not isinstance(out, ModelOutput):
        raise InvalidOutput(f"respond() returned a {type(out).__name__}, not a ModelOutput")
    _string(out.text, "text", optional=True)
    _string(out.finish_reason, "finish_reason")
    _count(out.input_tokens, "input_tokens")
    _count(out.output_tokens, "output_tokens")
    _seconds(out.latency_s, "latency_s")
    calls = out.tool_calls
    if not isinstance(calls, (tuple, list)):
        raise InvalidOutput(f"tool_calls is a {type(calls).__name__}, not a tuple of ToolCall")
    for i, c in enumerate(calls):
        if not isinstance(c, ToolCall):
            raise InvalidOutput(f"tool_calls[{i}] is a {type(c).__name__}, not a ToolCall")
        _string(c.id, f"tool_calls[{i}].id")
        _string(c.name, f"tool_calls[{i}].name")
        _string(c.raw_arguments, f"tool_calls[{i}].raw_arguments")
        _string(c.parse_error, f"tool_calls[{i}].parse_error", optional=True)
        if c.arguments is not None and not isinstance(c.arguments, dict):
            raise InvalidOutput(f"tool_calls[{i}].arguments is a {type(c.arguments).__name__}, not a dict or None")


def checked_output(out: Any) -> tuple[ModelOutput, tuple[dict[str, Any], ...]]:
    """Validate a model's output at the agent loop's boundary and make it JSON-safe.

    Types are checked field by field (``text`` a string or ``None``, each call a
    :class:`ToolCall` of strings and a dict or ``None``, token counts integers in
    ``[0, MAX_TOKENS]``, ``latency_s`` and the costs in ``extra`` finite and ``>= 0``). Then one
    ``json.dumps`` checks what the log will hold; only when it fails are lone surrogates
    replaced (:mod:`evalkit.runtime.jsonsafe`), bookkeeping in ``extra`` sanitised, and a
    call whose arguments hold NaN, Infinity or a value of another type turned into a parse
    failure (``parse_error`` ``invalid_json: …``; never executed).

    Args:
        out: What ``Model.respond`` returned.

    Returns:
        ``(output, calls)``: the output to use (``out`` itself when it was already safe) and
        its calls as :meth:`ToolCall.to_dict` dicts, for the ``model_responded`` event.

    Raises:
        InvalidOutput: with a one-line message, when a field has the wrong type or range.
    """
    if not _plain(out):  # the common case costs a few type checks; the detailed ones name the field
        _check_types(out)
    calls = out.tool_calls
    extra = out.extra
    if extra:
        _check_extra(extra)
    dicts = tuple(c.to_dict() for c in calls)
    if json_problem((out.text, out.finish_reason, dicts, extra or None)) is None:
        if type(calls) is not tuple:
            out = replace(out, tool_calls=tuple(calls))
        return out, dicts
    safe_calls = tuple(_safe_call(c) for c in calls)
    out = replace(
        out,
        text=None if out.text is None else clean_text(out.text),
        finish_reason=clean_text(out.finish_reason),
        tool_calls=safe_calls,
        extra=sanitize({k: extra[k] for k in ("call", "retries", "tagged") if k in extra}) if extra else {},
    )
    return out, tuple(c.to_dict() for c in safe_calls)
