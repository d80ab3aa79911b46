"""Typed events and the append-only event log ``L_t`` (DESIGN §2, seed 001).

Every fact the runtime learns during an episode is an event appended to the log: the
user message, each context the builder produced, each model response, each controller
action, each autonomy-gate decision, each tool execution (with its raw result and
signals), permission changes, approvals asked and answered, budget charges, meta requests
and every one of their state transitions, questions to the simulated user and the start of
an episode's follow-up phase (:mod:`evalkit.runtime.followup`), errors, and the episode's end.
Nothing is ever edited or removed; the effective view ``V_t`` (:mod:`evalkit.runtime.view`) is a
pure fold of the log.

Events are small frozen dataclasses. On disk a log is JSON Lines, one event per line, each
line an object with a ``"type"`` key naming the event class; :meth:`EventLog.load`
rebuilds the identical list of events.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, ClassVar, Iterable, Iterator

from evalkit.errors import RunError
from evalkit.records import ToolCall
from evalkit.runtime.jsonsafe import json_default as _json_default
from evalkit.runtime.jsonsafe import json_problem, sanitize
from evalkit.runtime.jsonsafe import line_encoder as _line_encoder

EVENT_TYPES: dict[str, type["Event"]] = {}
_TUPLE_FIELDS: dict[type, frozenset[str]] = {}  # per event class, its fields typed as tuples


@dataclass(frozen=True, slots=True)
class Event:
    """Base of all events.

    Attributes:
        seq: Position in the log (0-based), assigned by :meth:`EventLog.append`.
        turn: Agent-loop turn the event belongs to (0 before the first model call).
    """

    type: ClassVar[str] = "event"
    seq: int
    turn: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict with a ``type`` key (inverse of :func:`event_from_dict`)."""
        cls = type(self)
        make = _TO_DICT.get(cls)
        if make is None:
            make = _TO_DICT[cls] = _dict_maker(cls)
        return make(self)


_FIELDS: dict[type, tuple[str, ...]] = {}
_TO_DICT: dict[type, Any] = {}


def _dict_maker(cls: type) -> Any:
    """``to_dict`` for ``cls`` as one dict display (``{"type": ..., "seq": e.seq, ...}``),
    generated once per event class: a trace writes every event, so this is on the hot path."""
    names = _field_names(cls)
    if not all(name.isidentifier() for name in names):  # pragma: no cover - dataclass fields always are
        return lambda event: {"type": event.type, **{n: getattr(event, n) for n in names}}
    body = ", ".join(f"{n!r}: [c.to_dict() for c in e.{n}]" if n == "tool_calls" else f"{n!r}: e.{n}" for n in names)
    namespace: dict[str, Any] = {}
    exec(f"def to_dict(e):\n    return {{'type': e.type, {body}}}\n", namespace)  # noqa: S102
    return namespace["to_dict"]


def _field_names(cls: type) -> tuple[str, ...]:
    names = _FIELDS.get(cls)
    if names is None:
        names = tuple(f.name for f in fields(cls))
        _FIELDS[cls] = names
    return names


@dataclass(frozen=True, slots=True)
class EpisodeStarted(Event):
    """First event of every episode: what was run and under which limits."""

    type: ClassVar[str] = "episode_started"
    episode_id: str = ""
    pair_id: str = ""
    variant: str = ""
    condition: str = ""
    model: str = ""
    domain: str = ""
    tools: tuple[str, ...] = ()
    permissions: tuple[str, ...] = ()
    limits: dict[str, Any] = field(default_factory=dict)
    gate: str = "off"
    rules: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class UserMessage(Event):
    """A message from the (simulated) user; ``history``: the earlier turns a scenario replays
    before it (:class:`evalkit.scenarios.schema.EarlierTurn` dicts), shown to the model, not run."""

    type: ClassVar[str] = "user_message"
    content: str = ""
    history: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True, slots=True)
class ContextBuilt(Event):
    """What the context builder ``S_B`` put into ``M_t`` this turn and what it left out.

    ``included``/``compacted``/``dropped``/``truncated`` hold the ``seq`` of the source
    events (in full / as a one-line digest / left out / cut with a marker).
    """

    type: ClassVar[str] = "context_built"
    tokens: int = 0
    budget: int = 0
    n_messages: int = 0
    included: tuple[int, ...] = ()
    dropped: tuple[int, ...] = ()
    truncated: tuple[int, ...] = ()
    compacted: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class ModelResponded(Event):
    """The model's output ``D_t``: text and proposed tool calls, with usage and latency.

    ``tool_calls``: :class:`~evalkit.records.ToolCall` objects as recorded (``ToolCall.recorded``;
    the trace's dicts are read back with ``ToolCall.from_dict``). The other fields are those of
    :class:`~evalkit.runtime.model_io.ModelOutput` (``finish_reason`` its ``raw_stop_reason``, else
    its ``stop_reason``; ``usage`` as a dict; ``input_tokens`` / ``output_tokens`` the usage's totals).
    """

    type: ClassVar[str] = "model_responded"
    text: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    finish_reason: str = "stop"
    input_tokens: int | None = 0
    output_tokens: int | None = 0
    latency_s: float = 0.0
    stop_reason: str = "end_turn"
    refusal: str | None = None
    reasoning: tuple[dict[str, Any], ...] = ()
    usage: dict[str, Any] = field(default_factory=dict)
    flags: tuple[str, ...] = ()
    raw: Any = None

    def __post_init__(self) -> None:
        if any(type(c) is not ToolCall for c in self.tool_calls):  # the trace's dicts
            object.__setattr__(self, "tool_calls", tuple(map(ToolCall.from_dict, self.tool_calls)))


@dataclass(frozen=True, slots=True)
class ActionDecided(Event):
    """The controller's verdict ``a_t`` on one proposed call.

    ``action`` is ``execute``, ``deny`` or ``meta``; a denial carries a reason code
    (DESIGN §2) and the message the model sees as the observation.
    """

    type: ClassVar[str] = "action_decided"
    call_id: str = ""
    tool: str = ""
    action: str = "execute"
    reason_code: str | None = None
    message: str = ""


@dataclass(frozen=True, slots=True)
class GateDecided(Event):
    """The autonomy gate's decision on one call the controller would execute (DESIGN §4).

    ``decision`` is ``gather`` / ``act`` (the call may run) or ``clarify`` / ``abstain``
    (it is stopped, and so is a ``gather`` on a commit); ``reason`` is a
    :data:`evalkit.types.GateReason`; ``rule_id`` names the stopping rule that matched.
    """

    type: ClassVar[str] = "gate_decision"
    call_id: str = ""
    tool: str = ""
    kind: str = "lookup"
    decision: str = "gather"
    reason: str = "gathering"
    rule_id: str | None = None
    message: str = ""


@dataclass(frozen=True, slots=True)
class ApprovalRequested(Event):
    """A call needs approval before it may run; the approval is bound to the call's tool,
    its exact arguments and the state version it was asked at."""

    type: ClassVar[str] = "approval_requested"
    approval_id: str = ""
    call_id: str = ""
    tool: str = ""
    arguments: dict[str, Any] = field(default_factory=dict)
    state_version: int = 0


@dataclass(frozen=True, slots=True)
class ApprovalResolved(Event):
    """An approval was ``granted``, ``denied`` or ``expired`` (the state changed first).

    ``source`` is ``policy`` (a policy file), ``user`` (the simulated user) or ``runtime``.
    """

    type: ClassVar[str] = "approval_resolved"
    approval_id: str = ""
    status: str = "granted"
    source: str = "user"
    note: str = ""


@dataclass(frozen=True, slots=True)
class BudgetCharged(Event):
    """A charge against an episode budget that no other event carries (e.g. the price of an
    accepted model escalation or independent review). ``budget`` is ``money``."""

    type: ClassVar[str] = "budget_charged"
    budget: str = "money"
    amount: float = 0.0
    source: str = ""


@dataclass(frozen=True, slots=True)
class ToolExecuted(Event):
    """A tool ran in the sandbox: raw result, success, and the signals observed."""

    type: ClassVar[str] = "tool_executed"
    call_id: str = ""
    tool: str = ""
    kind: str = "lookup"
    arguments: dict[str, Any] = field(default_factory=dict)
    ok: bool = True
    result: Any = None
    signals: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PermissionChanged(Event):
    """A permission was granted (``granted=True``) or revoked; both stay in the log."""

    type: ClassVar[str] = "permission_changed"
    permission: str = ""
    granted: bool = True
    source: str = "policy"


@dataclass(frozen=True, slots=True)
class MetaRequestUpdated(Event):
    """A meta request entered a new state of the protocol (DESIGN §3).

    ``status`` is one of ``proposed``, ``validating``, ``accepted``, ``modified``,
    ``denied``, ``needs_user``, ``fulfilled``, ``failed``, ``expired``.
    """

    type: ClassVar[str] = "meta_request"
    request_id: str = ""
    meta_type: str = ""
    status: str = "proposed"
    reason: str = ""
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ErrorRaised(Event):
    """An error ``ε_t`` in the runtime, the controller, a tool or the model provider."""

    type: ClassVar[str] = "error"
    source: str = "runtime"
    message: str = ""
    retryable: bool = False
    code: str | None = None
    """Machine-readable outcome of a provider error (``context_length_exceeded``,
    ``rate_limited``, ``provider_rejects_history`` …; see :mod:`evalkit.models.retry`)."""
    usage: dict[str, Any] | None = None
    """Tokens the failed provider answer reported billing (``None``: none reported)."""
    cost_usd: float | None = None


@dataclass(frozen=True, slots=True)
class EpisodeEnded(Event):
    """Last event: why the loop stopped and the agent's final text.

    ``reason`` is ``final_text``, ``meta_terminal``, ``gate_stop``, ``loop_limit``,
    ``content_filter`` (the provider withheld the answer, field case C17), ``truncated`` (a text
    answer cut off at the token limit or paused unfinished: no decision) or ``error``;
    ``terminal`` is the typed decision (``abstain``/``clarify``) when a meta request or meta
    tool ended the episode (``meta_terminal``) or the autonomy gate did (``gate_stop``),
    else ``None``. ``partial_output`` is the safe partial output of a
    ``declare_blocked`` request.
    """

    type: ClassVar[str] = "episode_ended"
    reason: str = "final_text"
    final_text: str | None = None
    terminal: str | None = None
    partial_output: str | None = None


@dataclass(frozen=True, slots=True)
class ProviderRetry(Event):
    """A provider call failed transiently and is retried (recorded before the response).

    ``attempt`` is the 1-based attempt that failed; ``wait_s`` the seconds slept before the
    next one. Waits are not charged to the episode's latency (DESIGN §7 cost). ``usage``
    is what the failed attempt's answer reported it billed (``None``: nothing reported, as
    with an HTTP error status, taken as not billed) and ``cost_usd`` its price.
    """

    type: ClassVar[str] = "provider_retry"
    attempt: int = 1
    code: str = ""
    status: int | None = None
    message: str = ""
    wait_s: float = 0.0
    usage: dict[str, Any] | None = None
    cost_usd: float | None = None


@dataclass(frozen=True, slots=True)
class ModelCall(Event):
    """Bookkeeping of one model call: provider, cache hit, attempts, retry waits, cost.

    ``flags`` name output faults kept apart from the model's decision, e.g.
    ``call_in_content`` (a tool call written as text, field case C04) or ``content_filter``
    (field case C17), ``usage_missing``, ``model_mismatch`` (the response named another model
    than ``model``: ``answered_model``, :mod:`evalkit.models.identity`). Tokens and cost are
    the call's totals, failed attempts included (their share also in the ``retry_`` fields);
    ``None`` when unknown. ``answered_model`` is the response's ``model`` (``None`` when it
    named none).
    """

    type: ClassVar[str] = "model_call"
    provider: str = ""
    model: str = ""
    answered_model: str | None = None
    cached: bool = False
    attempts: int = 1
    wait_s: float = 0.0
    cost_usd: float | None = None
    flags: tuple[str, ...] = ()
    input_tokens: int | None = None
    output_tokens: int | None = None
    retry_input_tokens: int | None = 0
    retry_output_tokens: int | None = 0
    retry_cost_usd: float | None = None


@dataclass(frozen=True, slots=True)
class ToolCallTagged(Event):
    """How one tool call was read from the provider's output, when not verbatim.

    ``tags`` holds e.g. ``{"recovered": "trailing_quotes"}``, ``{"double_encoded": true}``,
    ``{"arguments_encoding": "object"}``, ``{"synthetic_id": true}`` or
    ``{"source": "content", "format": "hermes"}``; ``repaired`` is true when an opt-in
    repair changed what strict parsing would have produced. ``raw_arguments`` keeps the
    arguments exactly as received.
    """

    type: ClassVar[str] = "tool_call_tagged"
    call_id: str = ""
    tool: str = ""
    repaired: bool = False
    tags: dict[str, Any] = field(default_factory=dict)
    raw_arguments: str = ""


EVENT_TYPES.update(
    (cls.type, cls)
    for cls in (
        ProviderRetry,
        ModelCall,
        ToolCallTagged,
        EpisodeStarted,
        UserMessage,
        ContextBuilt,
        ModelResponded,
        ActionDecided,
        GateDecided,
        ApprovalRequested,
        ApprovalResolved,
        BudgetCharged,
        ToolExecuted,
        PermissionChanged,
        MetaRequestUpdated,
        ErrorRaised,
        EpisodeEnded,
    )
)


def event_from_dict(data: dict[str, Any]) -> Event:
    """Rebuild an event from :meth:`Event.to_dict` output.

    Raises:
        RunError: for an unknown ``type`` or unexpected fields.
    """
    kind = data.get("type")
    cls = EVENT_TYPES.get(kind)  # type: ignore[arg-type]
    if cls is None:
        raise RunError(f"unknown event type {kind!r}")
    kwargs = {k: v for k, v in data.items() if k != "type"}
    tuples = _TUPLE_FIELDS.get(cls)
    if tuples is None:
        tuples = _TUPLE_FIELDS[cls] = frozenset(f.name for f in fields(cls) if str(f.type).startswith("tuple"))
    for name in _field_names(cls):
        value = kwargs.get(name)
        if isinstance(value, list) and name in tuples:
            kwargs[name] = tuple(value)
    try:
        return cls(**kwargs)
    except TypeError as exc:
        raise RunError(f"bad {kind} event: {exc}") from None


class EventLog:
    """Append-only list of events, with JSON Lines persistence.

    Appending assigns ``seq``; events are never changed or removed.
    """

    __slots__ = ("_events",)

    def __init__(self, events: Iterable[Event] = ()):
        self._events: list[Event] = list(events)

    def append(self, cls: type[Event], turn: int, **data: Any) -> Event:
        """Create an event of type ``cls`` with the next ``seq`` and append it."""
        event = cls(seq=len(self._events), turn=turn, **data)
        self._events.append(event)
        return event

    @property
    def events(self) -> tuple[Event, ...]:
        """The events so far, in log order (a snapshot)."""
        return tuple(self._events)

    def __len__(self) -> int:
        return len(self._events)

    def __iter__(self) -> Iterator[Event]:
        return iter(self._events)

    def of_type(self, cls: type[Event]) -> list[Event]:
        """The events of exactly type ``cls``, in log order."""
        return [e for e in self._events if type(e) is cls]

    def to_jsonl(self) -> str:
        """The log as JSON Lines text (strict JSON, non-ASCII kept), always encodable as UTF-8.

        Values are made JSON-safe where they enter the log; should one still not be (a lone
        surrogate in a scenario's text, a NaN in a handler's detail), the events that fail
        are written sanitised (:func:`evalkit.runtime.jsonsafe.sanitize`: surrogates
        replaced, NaN and other types as marked strings) instead of failing the trace.
        """
        try:
            encode = _line_encoder()
            text = "".join([encode(e.to_dict()) for e in self._events])
            text.encode("utf-8")
            return text
        except (ValueError, TypeError, RecursionError):  # UnicodeEncodeError is a ValueError
            return "".join(_safe_line(e) for e in self._events)

    @classmethod
    def from_jsonl(cls, text: str, *, source: str = "<log>") -> "EventLog":
        """Parse JSON Lines written by :meth:`to_jsonl`.

        Raises:
            RunError: naming ``source`` and the line number of a malformed line.
        """
        events: list[Event] = []
        # split on "\n" only: JSON escapes it inside strings, but not U+0085 or U+2028, which
        # str.splitlines() would also treat as line breaks
        for lineno, line in enumerate(text.split("\n"), 1):
            if not line.strip():
                continue
            try:
                events.append(event_from_dict(json.loads(line)))
            except (ValueError, RunError) as exc:
                raise RunError(f"{source}:{lineno}: {exc}") from None
        return cls(events)

    @classmethod
    def load(cls, path: str | Path) -> "EventLog":
        """Load a saved log from a ``.jsonl`` file."""
        p = Path(path)
        return cls.from_jsonl(p.read_text(encoding="utf-8"), source=str(p))


def _safe_line(event: Event) -> str:
    """One event as a JSON line, sanitised when it is not strict JSON in UTF-8."""
    data = event.to_dict()
    if json_problem(data) is not None:
        data = sanitize(data)
    return json.dumps(data, ensure_ascii=False, allow_nan=False, default=_json_default) + "\n"


import evalkit.runtime.followup_events  # noqa: E402,F401 - registers the follow-up events (questions, phases)
