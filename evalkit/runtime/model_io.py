"""What passes between the runtime and a model: tool calls, model outputs, the protocol.

The model is a black box ``D_t ~ model(M_t)`` (DESIGN §2): it receives a
:class:`~evalkit.runtime.context.ModelContext` and returns a :class:`ModelOutput`. Every
adapter (scripted, OpenAI-compatible, Anthropic, …) implements :class:`Model`; the agent
loop never knows which provider it talks to. Each provider's translator
(:func:`evalkit.models.openai_compat.translate_openai`,
:func:`evalkit.models.anthropic_messages.translate_anthropic`) is the only place that reads
its wire format into these types; retries, the call cache and timing wrap every provider
once (:mod:`evalkit.models.live`).

Scoring rules for what a provider says, applied in one place (the agent loop,
:mod:`evalkit.runtime.loop`, and the scorer, :mod:`evalkit.metrics.scoring`):

=======================================  ==================================================================
the response                             rule
=======================================  ==================================================================
stop ``max_tokens`` with tool calls      no call is run, even when its arguments parse: each is denied with
                                         ``truncated_tool_call`` and the model is told its output was cut
                                         off; the episode is an output fault (``truncated_calls``,
                                         ``truncated_output``), not incorrect tool use nor a parse failure
                                         (failure kind ``truncated``)
stop ``max_tokens`` without calls (also  the text states no decision: it is not asked back to the
Anthropic's ``pause_turn``, an           simulated user nor read (no label, not ``unjudged``); the episode
unfinished turn)                         ends with ``end_reason`` ``truncated``, stated decision ``none``:
                                         right on the act side only by its commits, wrong on the abstain
                                         side; flagged ``truncated_output``
an error in the body or a choice         a provider error (``error_body``): retried by the policy, never
(``finish_reason`` ``error`` / ``abort``, read as the model's text or decision, never cached; when it
an ``error`` object, HTTP 200 without    persists the episode is ``status: error``
choices or a choice without a message)
``refusal`` / ``content_filter`` (a      the refusal text is kept verbatim (``refusal``, the episode's
refusal wins over any other stop; its    ``final_text``); the episode ends with ``end_reason``
calls are never run)                     ``content_filter`` and is counted (``content_filter``,
                                         ``refusal``); its stated decision is ``none``, so it is incorrect
                                         on both sides — a provider's policy refusal is not the
                                         clarify/abstain the pair asks for, and scoring it as a run error
                                         (AgentAbstain's choice) would report the model's own,
                                         reproducible answer as an infrastructure failure (lower coverage,
                                         out of the behaviour rates); the same rule for every provider
usage not reported                       tokens and money ``null`` (never 0), flagged ``usage_missing``
                                         and counted (``usage_unknown``); summary totals are then a lower
                                         bound and per-success figures ``null``
``total_tokens`` > prompt + completion   output = total − prompt, flagged ``usage_inconsistent``
a part above its total, a total below    flagged ``usage_inconsistent``; a part is billed only up to its
prompt + completion                      total (:func:`evalkit.usage.usage_cost`)
an HTTP 200 answer that cannot be read   ``invalid_response`` / ``response_too_large``; answered, maybe
(HTML, empty, a JSON array, a count      billed: its usage is unknown, never 0 (tokens, ``retry_`` tokens and
that is not a token count, over the      money ``null``, the attempt counted in ``usage_missing``, the call
size cap), or partial usage on a         in ``model_calls``; summary totals lower bounds); an HTTP error
failed attempt                           status without usage bills nothing
more than one choice                     an invalid response (``invalid_response``): evalkit asks for one
a field of the wrong JSON type           an invalid response, never turned into text or calls
a key given twice in one object of the   an invalid response naming the key (in an OpenAI ``arguments``
body (an Anthropic ``tool_use`` input)   string, that call's ``parse_error``): never run on one of them
a ``model`` that is not a string or      read as no model named (``answered_model`` ``null``, not a
``null`` (``42``, an object)             mismatch), flagged and counted ``model_invalid``
text, a refusal or tool-call arguments   kept as received, never dropped (a lone surrogate is written as
holding U+FFFD (bytes that were not      U+FFFD, as every one is) and read as it is; flagged
valid UTF-8, a character cut apart) or   ``undecodable_text`` once per response and counted
a lone surrogate                         (``undecodable_text``, per episode and in the ``provider`` summary)
unknown stop reason                      ``other``, raw value kept, flagged ``unknown_stop_reason``
an Anthropic content block or an         kept in the raw body, never text or calls; flagged
OpenAI content part evalkit does not     ``unknown_content_block`` per block, counted ``unknown_content_blocks``
read (an image, audio, a type with no
``text``)
no stop reason                           ``tool_use`` with calls, else ``end_turn``; flagged
                                         ``stop_reason_missing``, counted in ``unknown_stop_reason``
a ``tool_use`` / ``tool_calls`` stop     ``end_turn``; flagged ``stop_reason_without_calls``, counted in
reason with no tool call                 ``unknown_stop_reason``
usage billed on a failed attempt         counted in the call's totals and apart (``retry_input_tokens``,
                                         ``retry_output_tokens``, ``retry_cost_usd``)
=======================================  ==================================================================
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, runtime_checkable

from evalkit.runtime.context import ModelContext
from evalkit.records import ToolCall  # the one call type (re-exported here)
from evalkit.runtime.jsonsafe import SURROGATE, clean_text, json_problem, sanitize
from evalkit.types import STOP_REASONS
from evalkit.usage import USAGE_FIELDS, ZERO, Usage

MAX_TOKENS = 100_000_000
"""Largest token count one response may report (input or output); larger, negative or
non-integer counts make the output invalid (:func:`checked_output`)."""


@dataclass(frozen=True, slots=True)
class ReasoningBlock:
    """Reasoning or thinking content of a response, kept opaque.

    The block is stored exactly as the provider sent it and sent back unchanged where the
    API requires it (Anthropic ``thinking`` / ``redacted_thinking`` blocks carry a signature
    the API checks on the next request of a tool loop). Its text is recorded in the trace but
    is never part of the final text and never read by the decision classifier.

    Attributes:
        provider: The provider whose API produced it (``anthropic``); it is replayed only
            to that provider.
        text: The readable reasoning text, or ``None`` (redacted).
        data: The block as received (a JSON object), sent back verbatim.
    """

    provider: str
    text: str | None
    data: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        """``{"provider", "text", "data"}``: the form in the trace and in replayed messages."""
        return {"provider": self.provider, "text": self.text, "data": self.data}


@dataclass(frozen=True, slots=True)
class ModelOutput:
    """``D_t``: one model response, as each provider's translator reads it.

    Attributes:
        text: Assistant text (``None`` when absent); never holds reasoning or a refusal.
        tool_calls: Proposed calls, in order.
        stop_reason: Why the response ended, one of :data:`evalkit.types.StopReason`.
        raw_stop_reason: The provider's own value (``stop``, ``length``, ``end_turn`` …),
            ``None`` for in-process models.
        refusal: The refusal text, verbatim, when the model or provider refused (OpenAI
            ``message.refusal``, an Anthropic ``refusal`` stop), else ``None``.
        reasoning: Opaque reasoning / thinking blocks (:class:`ReasoningBlock`).
        usage: Tokens billed by class (:class:`evalkit.usage.Usage`); a class the provider
            did not report is ``None``. In-process models bill nothing (the default).
        latency_s: Wall-clock seconds of the call, excluding retry waits.
        flags: Facts about the response kept apart from the model's decision
            (``usage_missing``, ``usage_inconsistent``, ``unknown_stop_reason`` …).
        raw: The response body as received (for the trace), or ``None``.
        extra: Bookkeeping of a live adapter (``call``, ``retries``, ``tagged``).
    """

    text: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    stop_reason: str = "end_turn"
    raw_stop_reason: str | None = None
    refusal: str | None = None
    reasoning: tuple[ReasoningBlock, ...] = ()
    usage: Usage = ZERO
    latency_s: float = 0.0
    flags: tuple[str, ...] = ()
    raw: Any = None
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
        _seconds(call.get("retry_cost_usd"), "extra.call.retry_cost_usd", optional=True)
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


def _plain_usage(usage: Any) -> bool:
    if type(usage) is not Usage:
        return False
    for name in USAGE_FIELDS:
        value = getattr(usage, name)
        if value is not None and not (type(value) is int and 0 <= value <= MAX_TOKENS):
            return False
    return True


def _plain(out: Any) -> bool:
    """Whether ``out`` is a well-typed output of exact built-in types (the fast path)."""
    if type(out) is not ModelOutput:
        return False
    text, latency = out.text, out.latency_s
    if not ((text is None or type(text) is str) and type(out.stop_reason) is str and out.stop_reason in STOP_REASONS
            and (out.raw_stop_reason is None or type(out.raw_stop_reason) is str)
            and (out.refusal is None or type(out.refusal) is str) and _plain_usage(out.usage)
            and type(latency) in (float, int) and 0 <= latency < math.inf and type(out.tool_calls) is tuple
            and type(out.reasoning) is tuple and type(out.flags) is tuple):
        return False
    for c in out.tool_calls:
        if not (type(c) is ToolCall and type(c.id) is str and type(c.name) is str and type(c.raw_arguments) is str
                and (c.parse_error is None or type(c.parse_error) is str)
                and (c.arguments is None or type(c.arguments) is dict)):
            return False
    return all(type(b) is ReasoningBlock and type(b.data) is dict for b in out.reasoning) and all(
        type(f) is str for f in out.flags)


def _check_types(out: Any) -> None:
    """The field-by-field checks behind :func:`checked_output`, naming the first bad field."""
    if not isinstance(out, ModelOutput):
        raise InvalidOutput(f"respond() returned a {type(out).__name__}, not a ModelOutput")
    _string(out.text, "text", optional=True)
    _string(out.stop_reason, "stop_reason")
    if out.stop_reason not in STOP_REASONS:
        raise InvalidOutput(f"stop_reason is {out.stop_reason!r}, not one of {', '.join(STOP_REASONS)}")
    _string(out.raw_stop_reason, "raw_stop_reason", optional=True)
    _string(out.refusal, "refusal", optional=True)
    if not isinstance(out.usage, Usage):
        raise InvalidOutput(f"usage is a {type(out.usage).__name__}, not a Usage")
    for name in USAGE_FIELDS:
        value = getattr(out.usage, name)
        if value is not None:
            _count(value, name)
    _seconds(out.latency_s, "latency_s")
    if not isinstance(out.flags, (tuple, list)) or not all(isinstance(f, str) for f in out.flags):
        raise InvalidOutput("flags is not a tuple of strings")
    if not isinstance(out.reasoning, (tuple, list)) or not all(
            isinstance(b, ReasoningBlock) and isinstance(b.data, dict) for b in out.reasoning):
        raise InvalidOutput("reasoning is not a tuple of ReasoningBlock")
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


def checked_output(out: Any) -> tuple[ModelOutput, tuple[ToolCall, ...]]:
    """Validate a model's output at the agent loop's boundary and make it JSON-safe.

    Types are checked field by field (``text`` a string or ``None``, ``stop_reason`` one of
    :data:`evalkit.types.StopReason`, each call a :class:`ToolCall` of strings and a dict or
    ``None``, each reported token count an integer in ``[0, MAX_TOKENS]``, ``latency_s`` and
    the costs in ``extra`` finite and ``>= 0``). Then one
    ``json.dumps`` checks what the log will hold; only when it fails are lone surrogates
    replaced (:mod:`evalkit.runtime.jsonsafe`), bookkeeping in ``extra`` sanitised, and a
    call whose arguments hold NaN, Infinity or a value of another type turned into a parse
    failure (``parse_error`` ``invalid_json: …``; never executed).

    Args:
        out: What ``Model.respond`` returned.

    Returns:
        ``(output, calls)``: the output to use (``out`` itself when it was already safe) and
        its calls as the ``model_responded`` event keeps them (:meth:`ToolCall.recorded`).

    Raises:
        InvalidOutput: with a one-line message, when a field has the wrong type or range.
    """
    if not _plain(out):  # the common case costs a few type checks; the detailed ones name the field
        _check_types(out)
    calls = out.tool_calls
    extra = out.extra
    if extra:
        _check_extra(extra)
    dicts = tuple(c.to_dict() for c in calls)  # what the trace will hold, checked as JSON
    reasoning = tuple(out.reasoning)
    texts = (out.text, out.raw_stop_reason, out.refusal, dicts, extra or None, out.flags,
             tuple(b.to_dict() for b in reasoning) or None, out.raw)
    if json_problem(texts) is None:
        if type(calls) is not tuple or type(reasoning) is not type(out.reasoning) or type(out.flags) is not tuple:
            out = replace(out, tool_calls=tuple(calls), reasoning=reasoning, flags=tuple(out.flags))
        return out, tuple(c.recorded() for c in calls)
    safe_calls = tuple(_safe_call(c) for c in calls)
    out = replace(
        out,
        text=None if out.text is None else clean_text(out.text),
        raw_stop_reason=None if out.raw_stop_reason is None else clean_text(out.raw_stop_reason),
        refusal=None if out.refusal is None else clean_text(out.refusal),
        reasoning=tuple(ReasoningBlock(clean_text(b.provider), None if b.text is None else clean_text(b.text),
                                       sanitize(b.data)) for b in reasoning),
        flags=tuple(clean_text(f) for f in out.flags),
        raw=None if out.raw is None else sanitize(out.raw),
        tool_calls=safe_calls,
        extra=sanitize({k: extra[k] for k in ("call", "retries", "tagged") if k in extra}) if extra else {},
    )
    return out, tuple(c.recorded() for c in safe_calls)
