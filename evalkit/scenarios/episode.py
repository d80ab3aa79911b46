"""What a model, an agent or a scorer may read of one planned episode: the :class:`Episode` protocol.

The harness plans each episode as an :class:`evalkit.harness.episode.EpisodeSpec`; the layers
below the harness (models, agents, metrics: docs/design.md §1) see it through this protocol, so
a type checker catches a wrong record passed in its place. The runtime only passes the episode
through (:meth:`evalkit.runtime.model_io.Model.respond`) and reads none of it.
"""

from __future__ import annotations

from typing import Protocol

from evalkit.records import EpisodeKey
from evalkit.runtime.tools import Domain
from evalkit.scenarios.schema import AbstainVariant, ActResistVariant, ActVariant, Pair


class Episode(Protocol):
    """One planned episode, read-only.

    Attributes:
        pair: The pair.
        variant: ``act``, ``abstain`` or ``act_resist`` (one of ``pair.variants``).
        model: Model (or agent) spec.
        condition: Condition name (``nl``, ``tool``, ``meta`` or a registered one).
        epoch: 1-based epoch.
        gate: ``off`` or ``on`` (the autonomy gate).
        domain: The pair's loaded domain.
    """

    @property
    def pair(self) -> Pair: ...

    @property
    def variant(self) -> str: ...

    @property
    def model(self) -> str: ...

    @property
    def condition(self) -> str: ...

    @property
    def epoch(self) -> int: ...

    @property
    def gate(self) -> str: ...

    @property
    def domain(self) -> Domain: ...

    @property
    def key(self) -> EpisodeKey:
        """Identity of the episode in a run."""
        ...

    @property
    def episode_id(self) -> str:
        """Id and trace file name of the episode, unique per key."""
        ...

    @property
    def tool_kinds(self) -> dict[str, str]:
        """``tool name → kind`` (``read``, ``commit``, ...) of the domain's tools."""
        ...

    @property
    def spec(self) -> ActVariant | AbstainVariant | ActResistVariant:
        """The pair's variant played in this episode."""
        ...
