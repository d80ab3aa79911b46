"""The records of a run: a proposed tool call, the key of an episode and its result row
(DESIGN §2, §6, §7, §8).

A foundation module: it imports nothing from evalkit, so the providers' translators
(:mod:`evalkit.models`), the runtime's events, the plan (:mod:`evalkit.harness.plan`), the
results store, the metrics, the report and the gate all use the same :class:`ToolCall`,
:class:`EpisodeKey` and :class:`EpisodeResult` (pydantic is imported only when a row is validated).

An episode is one side of a pair (its *variant*) played by one model under one condition and
gate setting, in one epoch. Its key is the tuple ``(pair_id, variant, model, condition, gate,
epoch)``; the *pair unit* drops the variant, so the should-act and should-abstain episodes of a
pair, model, condition, gate and epoch form one unit (the paired metrics, DESIGN §7).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple, Optional

from typing_extensions import TypedDict

__all__ = ["EpisodeKey", "EpisodeResult", "KEY_FIELDS", "MetaMade", "NESTED_FIELDS", "ToolCall", "Unit", "as_result",
           "check_result", "table_row"]


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call proposed by the model: the one call type of every provider, from the
    translator (which parses the arguments once, :mod:`evalkit.models.parsing`) through the
    controller, the ``model_responded`` event and the trace, to the metrics.

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
        """The call as the trace holds it (``model_responded`` events): ``{"id", "name",
        "arguments", "parse_error"}``, ``arguments`` the parsed object, or the raw text when
        parsing failed."""
        return {
            "id": self.id,
            "name": self.name,
            "arguments": self.arguments if self.arguments is not None else self.raw_arguments,
            "parse_error": self.parse_error,
        }

    @classmethod
    def from_dict(cls, data: "Mapping[str, Any] | ToolCall") -> "ToolCall":
        """The call :meth:`to_dict` wrote (the form :meth:`recorded` keeps); a :class:`ToolCall`
        is returned as it is. Arguments that are neither an object nor text (a hand-edited
        trace) are kept as their JSON text.

        Raises:
            TypeError: when ``data`` is not a mapping.
        """
        if isinstance(data, ToolCall):
            return data
        if not isinstance(data, Mapping):
            raise TypeError(f"a tool call is a JSON object, not {type(data).__name__}")
        arguments = data.get("arguments")
        name = data.get("name")
        common = (str(data.get("id") or ""), name if isinstance(name, str) else "")
        if isinstance(arguments, dict):
            return cls(*common, arguments, "", data.get("parse_error"))
        raw = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False, default=str)
        return cls(*common, None, raw, data.get("parse_error"))

    def recorded(self) -> "ToolCall":
        """The call as the event log keeps it: the raw text only where parsing failed (what
        :meth:`to_dict` writes), so a log read back from its trace is equal to the original."""
        if self.arguments is None or not self.raw_arguments:
            return self
        return ToolCall(self.id, self.name, self.arguments, "", self.parse_error)


Unit = tuple[str, str, str, str, int]
"""A pair unit: ``(pair_id, model, condition, gate, epoch)`` (:meth:`EpisodeKey.unit`)."""


class EpisodeKey(NamedTuple):
    """The identity of an episode in a run: ``(pair_id, variant, model, condition, gate, epoch)``.

    A tuple (equal to, hashed and ordered like the plain tuple of its values), so sets and
    dicts of keys, ``key in plan`` and the plan's position arithmetic work with either.

    Attributes:
        pair_id: The pair's id.
        variant: ``act``, ``abstain`` or ``act_resist`` (:data:`evalkit.types.Variant`).
        model: The model spec (e.g. ``scripted/oracle``).
        condition: The condition name (``nl``, ``tool``, ``meta``).
        gate: The gate setting (``off``, ``on``, …).
        epoch: The epoch, from 1.
    """

    pair_id: str
    variant: str
    model: str
    condition: str
    gate: str
    epoch: int

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> "EpisodeKey":
        """The key of a result row (or any mapping holding the six key fields).

        Raises:
            KeyError: naming the first key field the row lacks.
        """
        return _new(cls, (row["pair_id"], row["variant"], row["model"], row["condition"], row["gate"],
                          row["epoch"]))

    def unit(self) -> Unit:
        """The pair unit of this episode: ``(pair_id, model, condition, gate, epoch)``."""
        return (self[0], self[2], self[3], self[4], self[5])

    def slug(self) -> str:
        """The key as ``pair/variant/model/condition/gate/epoch``, for messages."""
        return "/".join(map(str, self))


_new = tuple.__new__
KEY_FIELDS: tuple[str, ...] = EpisodeKey._fields
"""The result-row fields that make the episode key, in key order."""


def make_key(pair_id: str, variant: str, model: str, condition: str, gate: str, epoch: int) -> EpisodeKey:
    """:class:`EpisodeKey` from its six values, without the keyword handling of the
    constructor (the plan makes one per planned episode)."""
    return _new(EpisodeKey, (pair_id, variant, model, condition, gate, epoch))


class MetaMade(TypedDict):
    """A meta request the model made (:mod:`evalkit.metrics.behaviour`): ``type`` (a
    :data:`~evalkit.types.MetaType`), ``target`` (``None`` when it names none) and ``source``
    (``typed``: a request event; ``implied``: read from the final text)."""

    type: str
    target: Optional[str]
    source: str


class JudgeVote(TypedDict):
    """One LLM judge's vote on a final text (:class:`evalkit.conditions.judge.panel.Vote`)."""

    judge: str
    label: Optional[str]
    meta_requests: list[str]
    reason: Optional[str]
    error: Optional[str]


Number = int | float
"""A measure (seconds, USD): an integer when it is whole as computed (``0`` for none), else a float."""


class EpisodeResult(TypedDict, total=False):
    """One scored episode: a line of ``results.jsonl`` and a row of ``results.parquet``.

    Built by :func:`evalkit.metrics.scoring.score_episode` (definitions in that module's
    docstring) and checked there with :func:`check_result`; read back with :func:`as_result`
    (:mod:`evalkit.harness.run_reader`). Fields are in the order written. ``None`` marks a
    value that is unknown or undefined (never 0). The nested fields (:data:`NESTED_FIELDS`) are
    JSON values in ``results.jsonl``; in ``results.parquet`` they are JSON text
    (:func:`table_row`), and a run written before they were typed holds them as JSON text in
    both: :func:`as_result` accepts either. Other fields (``source_run``, ``source_episode`` of
    ``evalkit compare``) pass through.
    """

    # identity: the key (EpisodeKey) and the pair's attributes
    episode_id: str
    pair_id: str
    variant: str
    model: str
    condition: str
    gate: str
    epoch: int
    domain: str
    trigger: str
    phase: str
    split: str
    language: str
    pair_sha256: str
    # outcome
    status: str
    error: Optional[str]
    correct: bool
    decision: str
    decided_by: str
    stated: str
    text_label: str
    classifier_label: str
    text_rule: str
    text_lang: Optional[str]
    unjudged: bool
    text_judge: Optional[str]
    judge_votes: Optional[list[JudgeVote]]
    judge_disagrees: bool
    judge_tie: bool
    judge_errors: int
    judge_cost_usd: Optional[Number]
    expected_decision: str
    decision_match: bool
    post_hoc: bool
    act_then_refused: bool
    lag: Optional[int]
    timely: Optional[bool]
    # behaviour
    commits: int
    critical_commits: int
    injected_commits: int
    tool_calls: int
    denied_calls: int
    reason_codes: list[str]
    meta_requests: list[str]
    claimed_action_without_call: bool
    # output faults and provider
    parse_failures: int
    call_in_content: bool
    content_filter: bool
    refusal: bool
    truncated_calls: int
    truncated_output: bool
    unknown_content_blocks: int
    undecodable_text: int
    error_code: Optional[str]
    model_calls: int
    cache_hits: int
    retries: int
    retry_wait_s: Number
    repaired_calls: int
    end_reason: str
    # the autonomy gate: decision → count of gate_decision events
    gate_decisions: dict[str, int]
    gate_stops: int
    gate_reasons: list[str]
    gate_rules: list[str]
    # cost (evalkit.metrics.billing.BILLING_FIELDS)
    turns: int
    latency_s: Optional[Number]  # null: an errored episode whose failed model call took time no event records
    input_tokens: Optional[int]
    cached_input_tokens: Optional[int]
    cache_write_tokens: Optional[int]
    output_tokens: Optional[int]
    reasoning_tokens: Optional[int]
    replayed_cost_usd: Optional[Number]
    retry_input_tokens: Optional[int]
    retry_output_tokens: Optional[int]
    retry_cost_usd: Optional[Number]
    cost_usd: Optional[Number]
    # earlier rows of this episode a resumed run superseded (errored, or without a whole trace); spend in the totals
    resumed_over_error: int
    usage_missing: int
    usage_inconsistent: int
    unknown_stop_reason: int
    cost_flags: list[str]
    model_mismatch: int
    answered_models: list[str]
    model_invalid: int
    final_text: str
    # quality: meta requests, denials (reason code → count), grounding
    first_pass: bool
    meta_made: list[MetaMade]
    meta_made_n: int
    meta_expected_n: int
    meta_matched_n: int
    unnecessary_requests: int
    meta_typed_n: int
    meta_denied: int
    repeated_denied: int
    meta_fulfilled: int
    permission_escalations: int
    budget_overruns: int
    model_escalations: int
    review_rounds: int
    denials: dict[str, int]
    incorrect_tool_use: int
    commit_args_n: int
    unsupported_args_n: int
    unsupported_args: list[str]
    # follow-ups (evalkit.metrics.followup)
    followup: bool
    asked: bool
    questions: int
    repeated_questions: int
    recovered: Optional[bool]
    persona: Optional[str]
    commits_after_unhelpful: int
    failure_kind: Optional[str]


NESTED_FIELDS = ("judge_votes", "gate_decisions", "meta_made", "denials")
"""The fields of :class:`EpisodeResult` holding a JSON list or object (JSON text in
``results.parquet`` and in runs written before they were typed)."""

_loads = json.loads


def as_result(row: dict[str, Any]) -> dict[str, Any]:
    """A result row as read from a file, as an :class:`EpisodeResult`: each of
    :data:`NESTED_FIELDS` held as JSON text (``results.parquet``, an earlier run) is parsed in
    place; text that is not JSON is left as it is (the row checks report it).

    Args:
        row: A JSON object of ``results.jsonl`` or a row of ``results.parquet``.

    Returns:
        ``row`` itself (a plain dict, so that it passes wherever a row does).
    """
    for name in NESTED_FIELDS:
        value = row.get(name)
        if type(value) is str:
            try:
                row[name] = _loads(value)
            except (ValueError, RecursionError):
                pass
    return row


def table_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """A result row for ``results.parquet``: a copy with each of :data:`NESTED_FIELDS` that is a
    JSON value as JSON text (Arrow cannot hold an object whose keys vary by row as one column).
    :func:`as_result` reads it back."""
    out = dict(row)
    for name in NESTED_FIELDS:
        value = out.get(name)
        if value is not None and type(value) is not str:
            out[name] = json.dumps(value, ensure_ascii=False)
    return out


_ADAPTER: Any = None


def check_result(row: Mapping[str, Any]) -> dict[str, Any]:
    """Validate a result row against :class:`EpisodeResult` (pydantic, strict: no value is
    converted; other fields pass through).

    Returns:
        A new dict with the same fields in the same order (a plain dict, so that it passes
        wherever a row does: a ``TypedDict`` is not a ``dict[str, Any]`` to a type checker).

    Raises:
        pydantic.ValidationError: naming each field whose value does not have its type.
    """
    global _ADAPTER
    if _ADAPTER is None:
        from pydantic import TypeAdapter

        EpisodeResult.__pydantic_config__ = {"extra": "allow", "strict": True}  # type: ignore[attr-defined]
        _ADAPTER = TypeAdapter(EpisodeResult)
    result: dict[str, Any] = _ADAPTER.validate_python(row)
    return result
