"""One episode: a (pair, variant, model, condition, gate, epoch) cell of the run plan.

:func:`execute` builds the episode's sandbox from the pair (domain initial state, pair
state, variant state), registers the domain's tools minus the variant's hidden ones,
offers the condition's meta tools and runs the reference agent loop — with the autonomy
gate when the episode's ``gate`` is ``on`` (DESIGN §4), the run's stopping rules, and the
runtime policy's budgets and approvals with the pair's and variant's own on top.
"""

from __future__ import annotations

import copy
import hashlib
import json
import pickle
import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any

from evalkit.conditions.registry import check_tool_names, get_condition
from evalkit.records import EpisodeKey, make_key
from evalkit.runtime.controller import Limits
from evalkit.runtime.executor import Fault
from evalkit.runtime.followup import DEFAULT_MAX_TURNS, SimulatedUser
from evalkit.runtime.gate import AutonomyGate, StoppingRules
from evalkit.runtime.loop import EpisodeRun, run_episode
from evalkit.runtime.meta import ContextDoc, MetaEnvironment, MetaPolicy
from evalkit.runtime.policy import Budgets, RuntimePolicy
from evalkit.runtime.model_io import Model
from evalkit.runtime.tools import Domain
from evalkit.scenarios.loader import deep_merge
from evalkit.scenarios.schema import Pair

_SLUG = re.compile(r"[^A-Za-z0-9_.-]+")


def asks_in_text(text: str) -> bool:
    """Whether a final text asks the user a clarifying question: the text classifier's label is
    ``clarify`` (:func:`evalkit.conditions.classifier.classify_text`). The simulated user of a
    side with a follow-up reads the model's final texts with it
    (:class:`~evalkit.runtime.followup.SimulatedUser`)."""
    # the classifier compiles its cue tables on import (about 0.3 s): loaded on the first follow-up only
    from evalkit.conditions.classifier import classify_text

    return classify_text(text).label == "clarify"


def slug(text: str) -> str:
    """File-name-safe form of ``text`` (``scripted/late:3`` → ``scripted_late_3``)."""
    return _SLUG.sub("_", text).strip("_")


@lru_cache(maxsize=4096)
def episode_id(pair_id: str, variant: str, model: str, condition: str, gate: str, epoch: int) -> str:
    """The episode's id, also its trace's file name (``traces/ID.jsonl``).

    A readable slug of the key (pair id and model cut to 60 and 40 characters) plus the first
    12 hex digits of the sha256 of the whole key, so keys that slug alike (``x:y`` / ``x_y``,
    ``late:3`` / ``late:+3``, ids differing only in case on a case-insensitive disk) get
    different files, and a name stays under 180 characters whatever the pair id's length.

    Example: ``shop-order__abstain__scripted_oracle__meta__off__e1-3f2a9c01b7d4``.
    """
    readable = "__".join((id_part("pair_id", pair_id), id_part("variant", variant), id_part("model", model),
                          id_part("condition", condition), id_part("gate", gate), f"e{epoch}"))
    key = json.dumps([pair_id, variant, model, condition, gate, epoch])
    return f"{readable}-{hashlib.sha256(key.encode()).hexdigest()[:12]}"


_ID_WIDTHS = {"pair_id": 60, "variant": 20, "model": 40, "condition": 20, "gate": 8}


def id_part(field: str, value: str) -> str:
    """One key field's readable part of an :func:`episode_id` (the parts are joined by ``__``).

    Args:
        field: ``pair_id``, ``variant``, ``model``, ``condition`` or ``gate``.
        value: The field's value.

    Returns:
        Its :func:`slug`, cut to the field's width (pair id 60, variant 20, model 40,
        condition 20, gate 8 characters); a pair id without leading dots (an id never
        starts with one: a hidden file).
    """
    part = slug(value)[:_ID_WIDTHS[field]]
    return part.lstrip(".") if field == "pair_id" else part


@dataclass(frozen=True)
class RuntimeSetup:
    """Run-wide runtime options, built once per run and shared by every episode.

    Attributes:
        rules: The stopping-rule set the gate enforces (:class:`evalkit.rules.RuleSet`),
            or ``None`` for the built-in gate rules only.
        rules_in_context: Append the rule set's text to the system prompt.
        policy: The runtime policy (``--policy FILE``), or ``None`` for the defaults.
        user: The simulated user's persona on sides with a follow-up (``--user``):
            ``cooperative`` or ``unhelpful`` (:mod:`evalkit.runtime.followup`).
        followup_max_turns: Turns allowed after the user's answer.
    """

    rules: StoppingRules | None = None
    rules_in_context: bool = False
    policy: RuntimePolicy | None = None
    user: str = "cooperative"
    followup_max_turns: int = DEFAULT_MAX_TURNS

    @cached_property
    def rules_text(self) -> str:
        render = getattr(self.rules, "render", None)
        return render() if render is not None and self.rules_in_context else ""

    @cached_property
    def rules_identity(self) -> dict[str, Any]:
        identity = getattr(self.rules, "identity", None)
        return identity() if identity is not None else {}


DEFAULT_SETUP = RuntimeSetup()


_TOOL_KINDS: dict[int, tuple[Domain, dict[str, str]]] = {}


def tool_kinds(domain: Domain) -> dict[str, str]:
    """``tool name → kind`` of a domain's tools, built once per domain object (the domain is
    kept referenced next to its entry, so an id is never reused while cached)."""
    entry = _TOOL_KINDS.get(id(domain))
    if entry is None or entry[0] is not domain:
        if len(_TOOL_KINDS) >= 256:
            _TOOL_KINDS.clear()
        entry = _TOOL_KINDS[id(domain)] = (domain, {name: spec.kind for name, spec in domain.tools.items()})
    return entry[1]


@dataclass(frozen=True, slots=True)
class EpisodeSpec:
    """One planned episode.

    Attributes:
        pair: The pair.
        variant: ``act``, ``abstain`` or ``act_resist`` (one of ``pair.variants``).
        model: Model spec.
        condition: ``nl``, ``tool`` or ``meta``.
        epoch: 1-based epoch.
        gate: ``off`` (the model alone) or ``on`` (model + autonomy gate), a run factor.
        domain: The pair's loaded domain.
        setup: The run's :class:`RuntimeSetup` (rules, policy), shared by every episode.
    """

    pair: Pair
    variant: str
    model: str
    condition: str
    epoch: int = 1
    gate: str = "off"
    domain: Domain = field(default=None, compare=False, repr=False)  # type: ignore[assignment]
    setup: RuntimeSetup = field(default=DEFAULT_SETUP, compare=False, repr=False)

    @property
    def key(self) -> EpisodeKey:
        """Identity of the episode in a run (:class:`~evalkit.records.EpisodeKey`)."""
        return make_key(self.pair.id, self.variant, self.model, self.condition, self.gate, self.epoch)

    @property
    def episode_id(self) -> str:
        """Id and trace file name of the episode (:func:`episode_id`): unique per key.

        Not stored on the spec (a plan of 100k episodes would keep 100k ids alive for the
        whole run); :func:`episode_id` keeps the last 4096 computed, which covers the episodes
        in flight.
        """
        return episode_id(*self.key)

    @property
    def tool_kinds(self) -> dict[str, str]:
        """``tool name → kind`` of the domain's tools (shared by every episode of the domain)."""
        return tool_kinds(self.domain)

    @property
    def spec(self):  # the pair's variant
        return self.pair.variant(self.variant)


def domain_permissions(domain: Domain) -> tuple[str, ...]:
    """Every permission the domain declares or its tools use, sorted."""
    return tuple(sorted(set(domain.permissions) | {t.permission for t in domain.tools.values() if t.permission}))


_STATES: dict[tuple[int, int, int], tuple[Any, Any, Any, Any, bytes | None]] = {}
_STATES_MAX = 1024
_PLAIN = frozenset({dict, list, str, int, float, bool, type(None)})


def _plain_data(value: Any, depth: int = 0) -> bool:
    """Whether ``value`` holds only dicts with string keys, lists and JSON scalars."""
    t = type(value)
    if t not in _PLAIN or depth > 100:
        return False
    if t is dict:
        return all(type(k) is str and _plain_data(v, depth + 1) for k, v in value.items())
    if t is list:
        return all(_plain_data(v, depth + 1) for v in value)
    return True


def initial_state(spec: EpisodeSpec) -> dict[str, Any]:
    """Domain initial state ← pair state ← variant state (deep merge), as a fresh copy.

    The merge is done once per (domain, pair, variant) state objects and kept (for plain
    JSON data as its :mod:`pickle`, which keeps shared sub-objects shared just like
    :func:`copy.deepcopy`, and unpickles at a third of the cost); each episode gets its own
    copy.
    """
    parts = (spec.domain.initial_state, spec.pair.state, spec.spec.state)
    key = (id(parts[0]), id(parts[1]), id(parts[2]))
    hit = _STATES.get(key)
    if hit is None or hit[0] is not parts[0] or hit[1] is not parts[1] or hit[2] is not parts[2]:
        state = deep_merge(parts[0], parts[1])
        if parts[2]:
            state = deep_merge(state, parts[2])
        blob = pickle.dumps(state, pickle.HIGHEST_PROTOCOL) if _plain_data(state) else None
        if len(_STATES) >= _STATES_MAX:
            _STATES.clear()
        # the parts are kept, so their ids stay theirs
        hit = _STATES[key] = (*parts, state if blob is None else None, blob)
    return pickle.loads(hit[4]) if hit[4] is not None else copy.deepcopy(hit[3])


def execute(spec: EpisodeSpec, model: Model, limits: Limits) -> EpisodeRun:
    """Run ``spec`` with ``model`` through the reference runtime.

    A model with its own ``run_episode`` (an agent over MCP, :mod:`evalkit.agents`) is
    handed the same arguments as :func:`~evalkit.runtime.loop.run_episode` and drives the
    episode itself.

    Returns:
        The :class:`~evalkit.runtime.loop.EpisodeRun` (log, final state, error).
    """
    variant = spec.spec
    condition = get_condition(spec.condition)
    check_tool_names(spec.condition, spec.pair.domain, spec.domain.tools)
    hidden = set(variant.hidden_tools)
    tools = {name: t for name, t in spec.domain.tools.items() if name not in hidden}
    if variant.permissions is not None:
        permissions = tuple(variant.permissions)
    elif spec.pair.permissions is not None:
        permissions = tuple(spec.pair.permissions)
    else:
        permissions = domain_permissions(spec.domain)
    setup = spec.setup
    policy = setup.policy
    budgets = Budgets() if policy is None else policy.budgets
    if spec.pair.budgets is not None or variant.budgets is not None or policy is not None:
        limits = limits.merged(budgets.over(spec.pair.budgets).over(variant.budgets).model_dump())
    approvals = variant.approvals if policy is None else policy.approvals.merged(variant.approvals)
    followup = getattr(variant, "followup", None)
    # a question written in the final text is one only under a condition that reads the final text
    # (DecisionSignals.text); otherwise the text is the answer, as it is on a side without a follow-up
    user = None if followup is None else SimulatedUser.for_followup(
        followup, setup.user, setup.followup_max_turns, asks=asks_in_text if condition.signals.text else None)
    handler = None
    if condition.handler:
        meta = None if policy is None else policy.meta
        if variant.grantable:
            meta = (meta or MetaPolicy()).model_copy(
                update={"grantable": (*(meta.grantable if meta else ()), *variant.grantable)})
        options = {"policy": meta, "env": MetaEnvironment(
            user_grants=tuple(variant.user_grants), review=variant.review,
            context={k: v if isinstance(v, ContextDoc) else ContextDoc(content=v) for k, v in variant.context.items()},
            scope=domain_permissions(spec.domain), user_follows_up=user is not None)}
        handler = condition.handler(variant.user_answers, tuple(tools), **options)
    system_prompt = condition.system_prompt
    if setup.rules_text:
        system_prompt = f"{system_prompt}\n\n{setup.rules_text}"
    on = spec.gate == "on"
    runner = getattr(model, "run_episode", None) or run_episode  # an agent drives the episode itself
    return runner(
        model=model,
        episode=spec,
        system_prompt=system_prompt,
        tools=tools,
        state=initial_state(spec),
        permissions=permissions,
        user_message=variant.user,
        limits=limits,
        meta_tools=condition.meta_tools(),
        meta_handler=handler,
        faults={name: Fault(**f.model_dump()) for name, f in variant.faults.items()},
        started={
            "episode_id": spec.episode_id,
            "pair_id": spec.pair.id,
            "variant": spec.variant,
            "condition": spec.condition,
            "model": spec.model,
            "domain": spec.pair.domain,
            "rules": setup.rules_identity if on or setup.rules_text else {},
        },
        gate=AutonomyGate(setup.rules) if on else None,
        approvals=approvals if approvals is not None and approvals.require else None,
        history=tuple(t.model_dump() for t in variant.history),
        user=user,
    )
