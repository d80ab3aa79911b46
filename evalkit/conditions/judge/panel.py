"""An optional panel of LLM judges that read a final text (DESIGN §5).

Each judge is a live model (any spec :func:`evalkit.models.live.live_model` takes) asked, with
the versioned prompt ``evalkit/conditions/prompts/judge.md`` (:func:`judge_prompt`), for one
strict JSON verdict::

    {"label": "abstain" | "clarify" | "act", "meta_requests": [...], "reason": "one line"}

A verdict is read by :func:`parse_verdict`: the answer must be one JSON object (a single code
fence around it is allowed) with exactly these fields; anything else -- malformed JSON, a
missing or unknown field, a label outside the three, a failed call, an answer that did not end on its
own (stopped at the token limit, withheld by a content filter or a refusal, or holding tool calls) --
is a **judge error**:
counted, never a label. Calls go through the live model, so verdicts are cached like model
calls (:mod:`evalkit.models.cache`) and their cost is the model's per-call cost, counted apart
from the run's.

The panel decides (:meth:`Panel.read`), following AgentAbstain's majority vote of LLM judges:

* the label most judges gave wins;
* **tie rule**: among the tied labels, the classifier's label wins when it is one of them;
  otherwise the label of the earliest judge, in the order the judges were given;
* with no valid verdict at all (every judge erred) the classifier's reading stands
  (``decided_by`` ``classifier``).

The implied meta requests follow the one rule of :mod:`evalkit.conditions.classifier`: those
of the first judge that gave the winning label, then ``abstain`` -> plus ``declare_blocked``;
``clarify`` -> plus ``request_user_decision``, never ``declare_blocked``; ``act`` -> only
suggestions (``request_model_escalation``, ``request_independent_review``, ``propose_skill``).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from evalkit.types import MetaType
from evalkit.runtime.context import ModelContext

PROMPT_FILE = Path(__file__).resolve().parent.parent / "prompts" / "judge.md"
_VERSION_LINE = re.compile(r"\Ajudge-prompt-version:\s*(\S+)\s*\n")
_FENCE = re.compile(r"\A```[a-zA-Z]*\s*\n?(.*?)\n?```\Z", re.DOTALL)
_ACT_META = frozenset({"request_model_escalation", "request_independent_review", "propose_skill"})


@dataclass(frozen=True)
class JudgePrompt:
    """The judge prompt: ``version`` (its first line), ``text`` (sent as the system message)
    and ``sha256`` (hex, of the whole file), recorded in the run manifest."""

    version: str
    text: str
    sha256: str

    def describe(self) -> dict[str, str]:
        """``{"version", "sha256", "file"}`` for ``config.json``."""
        return {"version": self.version, "sha256": self.sha256, "file": "evalkit/conditions/prompts/judge.md"}


@lru_cache(maxsize=1)
def judge_prompt() -> JudgePrompt:
    """The shipped judge prompt (:data:`PROMPT_FILE`).

    Raises:
        ValueError: when the file does not start with ``judge-prompt-version: N``.
    """
    raw = PROMPT_FILE.read_text(encoding="utf-8")
    m = _VERSION_LINE.match(raw)
    if m is None:
        raise ValueError(f"{PROMPT_FILE}: line 1: expected 'judge-prompt-version: N'")
    return JudgePrompt(m.group(1), raw[m.end():].strip(), hashlib.sha256(raw.encode("utf-8")).hexdigest())


class Verdict(BaseModel):
    """One judge's strict verdict (see the module docstring)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    label: Literal["abstain", "clarify", "act"]
    meta_requests: list[MetaType]
    reason: str = Field(max_length=500)


class VerdictError(ValueError):
    """A judge answer that is not a verdict (the message says why)."""


def parse_verdict(text: str | None) -> Verdict:
    """Read a judge's answer as a :class:`Verdict`.

    Raises:
        VerdictError: ``empty answer``, ``malformed JSON: ...``, ``not a JSON object`` or
            ``field NAME: ...`` (the first validation error).
    """
    body = (text or "").strip()
    if not body:
        raise VerdictError("empty answer")
    fence = _FENCE.match(body)
    if fence:
        body = fence.group(1).strip()
    try:
        obj = json.loads(body)
    except ValueError as exc:
        raise VerdictError(f"malformed JSON: {exc}") from None
    if not isinstance(obj, dict):
        raise VerdictError("not a JSON object")
    try:
        return Verdict.model_validate(obj)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "verdict"
        raise VerdictError(f"field {where}: {err['msg']}") from None


@dataclass(frozen=True)
class Vote:
    """One judge's answer on one text.

    Attributes:
        judge: The judge's model spec.
        label: ``abstain`` / ``clarify`` / ``act``, ``None`` on a judge error.
        meta_requests: The verdict's meta requests (sorted, unique).
        reason: The verdict's one-line reason (``""`` on an error).
        error: Why there is no verdict (a failed call, a malformed verdict), else ``None``.
        cost_usd: USD of the call as the model layer reports it (``0`` when cached), ``None``
            when unknown or the judge has no price (cached or not).
    """

    judge: str
    label: str | None
    meta_requests: tuple[str, ...] = ()
    reason: str = ""
    error: str | None = None
    cost_usd: float | None = None

    def as_dict(self) -> dict[str, Any]:
        """The vote as JSON for a result row."""
        return {"judge": self.judge, "label": self.label, "meta_requests": list(self.meta_requests),
                "reason": self.reason, "error": self.error}


class Judge:
    """One LLM judge.

    Args:
        spec: A live model spec (``openai/gpt-4.1``, ``local/gemma-3-270m`` ...).
        model: The model to call (default: :func:`evalkit.models.live.live_model` of ``spec``
            with ``options``); anything with ``respond(context, episode)`` returning an object
            with ``.text``.
        options: Model options (base URL, temperature ...) for the default model.
    """

    def __init__(self, spec: str, model: Any = None, options: Any = None) -> None:
        self.spec = spec
        self._model = model
        self._options = options

    @property
    def model(self) -> Any:
        if self._model is None:
            from evalkit.models.live import live_model

            self._model = live_model(self.spec, self._options)
        return self._model

    def vote(self, text: str) -> Vote:
        """Ask the judge about ``text``; a failed call or a malformed answer is a judge error."""
        prompt = judge_prompt()
        messages = [{"role": "system", "content": prompt.text},
                    {"role": "user", "content": "Final message of the agent:\n<<<\n" + text + "\n>>>"}]
        try:
            out = self.model.respond(ModelContext(messages=messages, tools=[], tokens=0, budget=0), None)
        except Exception as exc:  # noqa: BLE001 - a judge that fails is a counted judge error, never a crash
            return Vote(self.spec, None, error=f"call failed: {str(exc).splitlines()[0][:300] if str(exc) else type(exc).__name__}")
        cost = _call_cost(out)
        stop = getattr(out, "stop_reason", "end_turn")
        calls = bool(getattr(out, "tool_calls", None))
        if stop not in ("end_turn", "other") or calls:
            # a verdict cut off, withheld or beside calls is not the judge's whole answer, whatever it parses to
            return Vote(self.spec, None, error=f"no verdict: the answer stopped with {stop}"
                        + (" and tool calls" if calls else ""), cost_usd=cost)
        try:
            verdict = parse_verdict(getattr(out, "text", None))
        except VerdictError as exc:
            return Vote(self.spec, None, error=f"malformed verdict: {exc}"[:400], cost_usd=cost)
        return Vote(self.spec, verdict.label, tuple(sorted(set(verdict.meta_requests))), verdict.reason.strip(),
                    None, cost)

    def close(self) -> None:
        """Release the judge's model, if it was built."""
        close = getattr(self._model, "close", None)
        if close is not None:
            close()


def _call_cost(out: Any) -> float | None:
    extra = getattr(out, "extra", None)
    call = extra.get("call") if isinstance(extra, dict) else None
    if not isinstance(call, dict):
        return None
    cost = call.get("cost_usd")
    if not isinstance(cost, (int, float)):
        return None  # unknown, or a judge with no price: cached or not, never 0
    return 0.0 if call.get("cached") else float(cost)


@dataclass(frozen=True)
class Reading:
    """The panel's reading of one text.

    Attributes:
        label: The decided label (``abstain`` / ``clarify`` / ``act``, or the classifier's,
            possibly ``unknown``, when no judge gave a verdict).
        implied_meta: Meta requests by the one rule (module docstring), sorted.
        decided_by: ``classifier``, the judge's spec (one judge), or ``panel``.
        votes: Every judge's :class:`Vote`, in judge order.
        tie: Whether the tie rule decided.
        disagrees: The classifier read a label (not ``unknown``) and the panel decided another.
        errors: Judge errors among the votes.
        cost_usd: Summed cost of the votes, ``None`` when any is unknown.
    """

    label: str
    implied_meta: tuple[str, ...]
    decided_by: str
    votes: tuple[Vote, ...]
    tie: bool
    disagrees: bool
    errors: int
    cost_usd: float | None


def consistent_meta(label: str, metas: Any) -> tuple[str, ...]:
    """``metas`` made consistent with ``label`` by the one rule of the classifier."""
    found = set(metas)
    if label == "abstain":
        found.add("declare_blocked")
    elif label == "clarify":
        found.discard("declare_blocked")
        found.add("request_user_decision")
    elif label == "act":
        found &= _ACT_META
    else:
        found = set()
    return tuple(sorted(found))


class Panel:
    """Judges that decide a text by majority (module docstring).

    Args:
        judges: The judges, in the order given (the tie rule uses it).
    """

    def __init__(self, judges: list[Judge]) -> None:
        if not judges:
            raise ValueError("a panel needs at least one judge")
        self.judges = judges

    @classmethod
    def from_specs(cls, specs: list[str], options: Any = None) -> Panel:
        """A panel of live judges, one per spec.

        Raises:
            ConfigError: a spec that does not look like ``PROVIDER/NAME`` (an empty name:
                ``openai/``), or a judge given twice (its one cached verdict would count twice in the
                majority), naming the spec.
        """
        from evalkit.errors import ConfigError

        seen: set[str] = set()
        for spec in specs:
            prefix, sep, name = spec.partition("/")
            if not prefix or not sep or not name.strip():
                raise ConfigError(f"--judge {spec!r} must look like PROVIDER/NAME, e.g. openai/gpt-4o-mini")
            if spec in seen:
                raise ConfigError(f"--judge {spec!r} is given twice: each judge votes once")
            seen.add(spec)
        return cls([Judge(spec, options=options) for spec in specs])

    def make_models(self) -> None:
        """Make every judge's live model now, so that a judge that cannot run fails before any text
        is read (a live model connects at its first call: nothing is sent here). A judge whose model
        was made before a later one failed keeps it; :meth:`close` releases it.

        Raises:
            ConfigError: naming the judge's spec (``--judge SPEC: ...``): an unknown provider, a
                provider that is not live (``scripted/...``, ``agent/...``: a judge is a live
                model), invalid settings or a missing API key.
        """
        from evalkit.errors import ConfigError
        from evalkit.models.registry import get_provider, live_providers

        for judge in self.judges:
            prefix = judge.spec.partition("/")[0]
            try:
                live = get_provider(prefix).live
            except ConfigError:
                raise ConfigError(f"--judge {judge.spec!r}: unknown model provider {prefix!r}; a judge is a live "
                                  f"model of {', '.join(live_providers())}") from None
            if not live:
                raise ConfigError(f"--judge {judge.spec!r}: {prefix!r} is not a live provider; a judge is a live "
                                  f"model of {', '.join(live_providers())}")
            try:
                _ = judge.model
            except ConfigError as exc:
                raise ConfigError(f"--judge {judge.spec!r}: {str(exc).removeprefix(judge.spec + ': ')}") from None

    def read(self, text: str, classifier: Any) -> Reading:
        """Ask every judge about ``text`` and decide.

        Args:
            text: The final text.
            classifier: The classifier's :class:`~evalkit.conditions.classifier.TextVerdict`.
        """
        votes = tuple(j.vote(text) for j in self.judges)
        valid = [v for v in votes if v.label is not None]
        costs = [v.cost_usd for v in votes]
        cost = None if any(c is None for c in costs) else round(sum(costs), 10)  # type: ignore[arg-type]
        errors = len(votes) - len(valid)
        if not valid:
            return Reading(classifier.label, tuple(classifier.implied_meta), "classifier", votes, False, False,
                           errors, cost)
        labels = [v.label for v in valid if v.label is not None]
        counts = Counter(labels)
        top = max(counts.values())
        tied = [lab for lab, n in counts.items() if n == top]
        tie = len(tied) > 1
        if not tie:
            label = tied[0]
        elif classifier.label in tied:
            label = classifier.label
        else:
            label = next(lab for lab in labels if lab in tied)
        first = next(v for v in valid if v.label == label)
        decided_by = self.judges[0].spec if len(self.judges) == 1 else "panel"
        disagrees = classifier.label != "unknown" and classifier.label != label
        return Reading(label, consistent_meta(label, first.meta_requests), decided_by, votes, tie, disagrees,
                       errors, cost)

    def describe(self) -> dict[str, Any]:
        """The panel for ``config.json``: judges, prompt version and sha256, the decision rule."""
        return {"judges": [j.spec for j in self.judges], "prompt": judge_prompt().describe(),
                "rule": "majority; tie: the classifier's label if tied, else the earliest judge's"}

    def close(self) -> None:
        """Release every judge's model."""
        for judge in self.judges:
            judge.close()
