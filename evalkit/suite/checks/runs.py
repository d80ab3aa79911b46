"""Plan runs for the label checks: a variant's plan replayed through the reference runtime.

A :class:`PlanModel` emits a fixed list of calls, one per turn, then a final text; it is
run with :func:`evalkit.harness.episode.execute`, so every call passes the same controller
(permissions, schema, budgets), approvals, sandbox executor (faults, signals) and, with the
gate on, the same autonomy gate as a real episode. Each plan call's outcome is reduced to
an :data:`Observation`, what the model would see for it.

:class:`PairRuns` runs each (plan, world, gate) combination of one pair at most once and
keeps the result, so the checks share them (about five short episodes per pair).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

from evalkit.harness.episode import EpisodeSpec, RuntimeSetup, execute
from evalkit.runtime.context import ModelContext
from evalkit.runtime.controller import Limits
from evalkit.runtime.events import (
    ActionDecided,
    ApprovalResolved,
    MetaRequestUpdated,
    ToolExecuted,
)
from evalkit.runtime.model_io import ModelOutput, ToolCall
from evalkit.runtime.tools import Domain
from evalkit.scenarios.parts import PlannedCall
from evalkit.scenarios.schema import Pair

CONDITION = "meta"
"""The condition the plans run in (the oracle self-check's default)."""

Observation = tuple[Any, ...]
"""What the model sees for one plan call: ``(action, reason_code, message, ok, result, signals)``
(``result`` as canonical JSON; ``action`` ``missing`` when the episode ended before the call)."""


class PlanModel:
    """A model that proposes the given calls, one per turn, then answers ``done``.

    Args:
        calls: The plan to play.
    """

    inline = True

    def __init__(self, calls: tuple[PlannedCall, ...]):
        self.calls = calls
        self.name = "labelcheck/plan"

    def respond(self, context: ModelContext, episode: Any) -> ModelOutput:
        """The call of this turn (``context.turn``), or a final text after the last."""
        turn = context.turn
        if turn >= len(self.calls):
            return ModelOutput(text="done")
        call = self.calls[turn]
        return ModelOutput(tool_calls=(ToolCall(f"call_{turn + 1}", call.tool, dict(call.args)),),
                           stop_reason="tool_use")


@dataclass(frozen=True)
class PlanRun:
    """One plan replayed in one variant's world.

    Attributes:
        plan: ``act``, ``abstain`` or ``act_resist``: whose plan ran.
        world: The variant whose world (state, tools, permissions, faults, budgets,
            approvals, answers) it ran in.
        gate: ``on`` (with the rule set) or ``off``.
        events: The episode's events.
        observations: One :data:`Observation` per plan call, in plan order.
        denials: ``(index, tool, reason_code, message)`` of each plan call that did not run.
        error: The episode's error, if any.
    """

    plan: str
    world: str
    gate: str
    events: tuple[Any, ...]
    observations: tuple[Observation, ...]
    denials: tuple[tuple[int, str, str, str], ...]
    error: str | None = None


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def _observations(events: tuple[Any, ...], calls: tuple[PlannedCall, ...],
                  ) -> tuple[tuple[Observation, ...], tuple[tuple[int, str, str, str], ...]]:
    """Each plan call's :data:`Observation` and the denials, from an episode's events (the
    :class:`PlanModel` numbers its calls ``call_1``, ``call_2`` …)."""
    by_call: dict[str, dict[str, Any]] = {}
    for e in events:
        cid = getattr(e, "call_id", None)
        if not cid:
            continue
        slot = by_call.setdefault(cid, {})
        t = type(e)
        if t is ActionDecided:
            slot["action"] = (e.action, e.reason_code, e.message)
        elif t is ToolExecuted:
            slot["exec"] = (e.ok, _canon(e.result), tuple(e.signals))
    out: list[Observation] = []
    denials: list[tuple[int, str, str, str]] = []
    for i in range(len(calls)):
        found = by_call.get(f"call_{i + 1}")
        if found is None or "action" not in found:
            out.append(("missing", None, "", None, None, ()))
            continue
        action, code, message = found["action"]
        ok, result, signals = found.get("exec", (None, None, ()))
        out.append((action, code, message, ok, result, signals))
        if action == "deny":
            denials.append((i, calls[i].tool, code or "", message))
    return tuple(out), tuple(denials)


@dataclass
class PairRuns:
    """The plan runs of one pair, each computed once.

    Args:
        pair: The pair.
        domain: Its loaded domain.
        setup: Runtime options for gate-on runs (the rule set).
        limits: Episode limits (default :class:`Limits`; turns raised to fit a long plan).
    """

    pair: Pair
    domain: Domain
    setup: RuntimeSetup = field(default_factory=RuntimeSetup)
    limits: Limits = field(default_factory=Limits)
    _cache: dict[tuple[str, str, str], PlanRun] = field(default_factory=dict, repr=False)

    def run(self, plan: str, world: str, gate: str = "off") -> PlanRun:
        """Variant ``plan``'s plan run in variant ``world``'s world with the gate ``gate``.

        Raises:
            KeyError: when the pair has no such variant.
        """
        key = (plan, world, gate)
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        calls = tuple(self.pair.variant(plan).plan)
        self.pair.variant(world)  # an unknown world is the caller's error, not the episode's
        limits = self.limits
        if limits.max_turns <= len(calls):
            limits = replace(limits, max_turns=len(calls) + 1)
        spec = EpisodeSpec(self.pair, world, "labelcheck/plan", CONDITION, 1, gate, self.domain,
                           self.setup if gate == "on" else RuntimeSetup())
        try:
            result = execute(spec, PlanModel(calls), limits)
            events, error = tuple(result.log.events), result.error
        except Exception as exc:  # noqa: BLE001 - a crashing tool is reported by the checks, not fatal
            events, error = (), f"{type(exc).__name__}: {exc}"
        observations, denials = _observations(events, calls)
        run = self._cache[key] = PlanRun(plan, world, gate, events, observations, denials, error)
        return run


def meta_answers(events: tuple[Any, ...]) -> list[Any]:
    """The runtime's answers to meta requests and approvals in ``events`` (for comparisons)."""
    out: list[Any] = []
    for e in events:
        if type(e) is MetaRequestUpdated and e.status != "proposed":
            out.append((e.status, _canon(e.detail)))
        elif type(e) is ApprovalResolved:
            out.append((e.status, e.source, e.note))
    return out
