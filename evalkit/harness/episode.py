"""One episode: a (pair, variant, model, condition, gate, epoch) cell of the run plan.

:func:`execute` builds the episode's sandbox from the pair (domain initial state, pair
state, variant state), registers the domain's tools minus the variant's hidden ones,
offers the condition's meta tools and runs the reference agent loop.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from evalkit.conditions.registry import get_condition
from evalkit.runtime.controller import Limits
from evalkit.runtime.executor import Fault
from evalkit.runtime.loop import EpisodeRun, run_episode
from evalkit.runtime.model_io import Model
from evalkit.runtime.tools import Domain
from evalkit.scenarios.loader import deep_merge
from evalkit.scenarios.schema import Pair

_SLUG = re.compile(r"[^A-Za-z0-9_.-]+")


def slug(text: str) -> str:
    """File-name-safe form of ``text`` (``scripted/late:3`` → ``scripted_late_3``)."""
    return _SLUG.sub("_", text).strip("_")


@dataclass(frozen=True)
class EpisodeSpec:
    """One planned episode.

    Attributes:
        pair: The pair.
        variant: ``act`` or ``abstain``.
        model: Model spec.
        condition: ``nl``, ``tool`` or ``meta``.
        epoch: 1-based epoch.
        gate: ``off`` (the autonomy gate is a later run factor).
        domain: The pair's loaded domain.
    """

    pair: Pair
    variant: str
    model: str
    condition: str
    epoch: int = 1
    gate: str = "off"
    domain: Domain = field(default=None, compare=False, repr=False)  # type: ignore[assignment]

    @property
    def key(self) -> tuple[str, str, str, str, str, int]:
        """Identity of the episode in a run: (pair, variant, model, condition, gate, epoch)."""
        return (self.pair.id, self.variant, self.model, self.condition, self.gate, self.epoch)

    @cached_property
    def episode_id(self) -> str:
        return slug(f"{self.pair.id}__{self.variant}__{self.model}__{self.condition}__{self.gate}__e{self.epoch}")

    @cached_property
    def tool_kinds(self) -> dict[str, str]:
        return {name: spec.kind for name, spec in self.domain.tools.items()}

    @property
    def spec(self):  # the pair's variant
        return self.pair.variant(self.variant)


def domain_permissions(domain: Domain) -> tuple[str, ...]:
    """Every permission the domain declares or its tools use, sorted."""
    return tuple(sorted(set(domain.permissions) | {t.permission for t in domain.tools.values() if t.permission}))


def initial_state(spec: EpisodeSpec) -> dict[str, Any]:
    """Domain initial state ← pair state ← variant state (deep merge), as a fresh copy."""
    state = deep_merge(spec.domain.initial_state, spec.pair.state)
    if spec.spec.state:
        state = deep_merge(state, spec.spec.state)
    return copy.deepcopy(state)


def execute(spec: EpisodeSpec, model: Model, limits: Limits) -> EpisodeRun:
    """Run ``spec`` with ``model`` through the reference runtime.

    Returns:
        The :class:`~evalkit.runtime.loop.EpisodeRun` (log, final state, error).
    """
    variant = spec.spec
    condition = get_condition(spec.condition)
    hidden = set(variant.hidden_tools)
    tools = {name: t for name, t in spec.domain.tools.items() if name not in hidden}
    if variant.permissions is not None:
        permissions = tuple(variant.permissions)
    elif spec.pair.permissions is not None:
        permissions = tuple(spec.pair.permissions)
    else:
        permissions = domain_permissions(spec.domain)
    handler = condition.handler(variant.user_answers, tuple(tools)) if condition.handler else None
    return run_episode(
        model=model,
        episode=spec,
        system_prompt=condition.system_prompt,
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
        },
    )
