"""The episode key: one record naming an episode of a run (DESIGN §6, §8).

A foundation module: it imports nothing from evalkit, so the plan (:mod:`evalkit.harness.plan`),
the results store, the metrics, the report and the gate all use the same :class:`EpisodeKey`.

An episode is one side of a pair (its *variant*) played by one model under one condition and
gate setting, in one epoch. Its key is the tuple ``(pair_id, variant, model, condition, gate,
epoch)``; the *pair unit* drops the variant, so the should-act and should-abstain episodes of a
pair, model, condition, gate and epoch form one unit (the paired metrics, DESIGN §7).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

__all__ = ["EpisodeKey", "KEY_FIELDS", "Unit"]


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
