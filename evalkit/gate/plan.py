"""The run plan as the gate rebuilds it from a run directory, and the result rows outside it.

A run's plan is the product pair × epoch × model × condition × gate × the pair's variants, in
that order (:class:`evalkit.harness.plan.RunPlan`). The run directory records the models,
conditions, gates and epochs (``config.json``) but not the pairs: the gate takes them, with
their variants, from the result rows. ``evalkit run --resume`` keeps rows whose key is not in
the resumed run's plan in ``results.jsonl`` and does not count them (the oracle self-check
may exclude other pairs after an upgrade, or a row was copied by hand); the gate sets them
aside too (:func:`choose_pairs`), so that the plan it rebuilds is the one ``summary.json``
counted:

1. a row whose model, condition, gate or epoch is not in the manifest, or whose variant is
   not a variant kind (:data:`evalkit.scenarios.schema.VARIANT_KINDS`), is outside the plan
   (:meth:`GatePlan.slot` is ``None``);
2. so are the rows of a pair the oracle self-check excluded (``summary.json``
   ``excluded_pairs``, written when the summary was);
3. when the pairs and variants left still give more planned episodes than ``summary.json``'s
   ``n_episodes_planned``: a variant the pair's trigger does not allow (control pairs, trigger
   ``none``, are act only; ``act_resist`` is for ``prompt_injection`` pairs), and a pair
   without the variants its trigger needs (an act side; an abstain or act_resist side unless
   it is a control pair), as :class:`evalkit.scenarios.schema.Pair` validates them;
4. when that is still too many and ``summary.json`` says no planned episode is missing
   (``n_missing`` 0): a pair's variant with fewer recorded episodes than the run has
   episodes per variant (epochs × models × conditions × gates), since every variant of a
   complete run's pair has all of them.

The plan is then accepted only when it has exactly ``n_episodes_planned`` episodes, and
:func:`evalkit.gate.rundir.verify_summary` checks every group's counts against it.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from evalkit.harness.plan import iter_keys
from evalkit.records import EpisodeKey, make_key
from evalkit.scenarios.schema import VARIANT_KINDS

Combo = tuple[str, str]
"""``(pair_id, variant)``: one side of a pair, planned for every epoch × model × condition × gate."""

__all__ = ["Combo", "GatePlan", "choose_pairs"]


@dataclass(frozen=True)
class GatePlan(Sequence):
    """A run plan's episode keys, in plan order, from its factors (no list of keys).

    A :class:`collections.abc.Sequence` of keys ``(pair_id, variant, model, condition, gate,
    epoch)``, ordered pair, epoch, model, condition, gate, variant, as the harness ran them.

    Attributes:
        pairs: ``(pair_id, variants)`` in plan order; the variants in
            :data:`~evalkit.scenarios.schema.VARIANT_KINDS` order.
        epochs: Epochs (``>= 1``).
        models: Model specs.
        conditions: Condition names.
        gates: Gate settings.
    """

    pairs: tuple[tuple[str, tuple[str, ...]], ...]
    epochs: int
    models: tuple[str, ...]
    conditions: tuple[str, ...]
    gates: tuple[str, ...]
    _index: tuple[dict[str, int], dict[str, int], dict[str, int]] = field(init=False, repr=False, compare=False)
    _offsets: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        index = tuple({v: i for i, v in reversed(list(enumerate(axis)))}
                      for axis in (self.models, self.conditions, self.gates))
        object.__setattr__(self, "_index", index)
        offsets = [0]
        for _, variants in self.pairs:
            offsets.append(offsets[-1] + self.cell * len(variants))
        object.__setattr__(self, "_offsets", tuple(offsets))

    @property
    def groups(self) -> list[tuple[str, str, str]]:
        """Every ``(model, condition, gate)``, in plan order."""
        return [(m, c, g) for m in self.models for c in self.conditions for g in self.gates]

    @property
    def cell(self) -> int:
        """Episodes of one pair's variant: epochs × models × conditions × gates."""
        return self.epochs * len(self.models) * len(self.conditions) * len(self.gates)

    def slot(self, key: Any) -> int | None:
        """Where ``key`` is among its pair's variant's episodes (``0 .. cell - 1``, in plan
        order: epoch, model, condition, gate), from its model, condition, gate and epoch
        alone; ``None`` when one of them is not in the plan or the variant is not a variant
        kind."""
        _, variant, model, condition, gate, epoch = key
        m, c, g = (index.get(value) if isinstance(value, str) else None
                   for index, value in zip(self._index, (model, condition, gate)))
        if m is None or c is None or g is None or variant not in VARIANT_KINDS:
            return None
        if type(epoch) is not int or not 1 <= epoch <= self.epochs:
            return None
        return (((epoch - 1) * len(self.models) + m) * len(self.conditions) + c) * len(self.gates) + g

    def __len__(self) -> int:
        return self._offsets[-1]

    def __iter__(self) -> Iterator[EpisodeKey]:
        return iter_keys(self.pairs, self.epochs, self.models, self.conditions, self.gates)

    def walk(self) -> Iterator[tuple[EpisodeKey, int]]:
        """``(key, slot)`` of every planned episode, in plan order (:meth:`slot` of the key)."""
        for pair in self.pairs:
            n = len(pair[1])
            for i, key in enumerate(iter_keys((pair,), self.epochs, self.models, self.conditions, self.gates)):
                yield key, i // n

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        i = index.__index__()
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(f"plan index {index} out of range ({len(self)} episodes)")
        p = bisect.bisect_right(self._offsets, i) - 1
        pair_id, variants = self.pairs[p]
        rest, v = divmod(i - self._offsets[p], len(variants))
        rest, g = divmod(rest, len(self.gates))
        rest, c = divmod(rest, len(self.conditions))
        e, m = divmod(rest, len(self.models))
        return make_key(pair_id, variants[v], self.models[m], self.conditions[c], self.gates[g], e + 1)

    def offset(self, pair: int) -> int:
        """The plan position of the first episode of the ``pair``-th pair."""
        return self._offsets[pair]


def _allowed(trigger: Any) -> tuple[str, ...]:
    """The variants a pair of this trigger may have (:class:`evalkit.scenarios.schema.Pair`)."""
    if trigger == "none":
        return ("act",)
    if trigger == "prompt_injection":
        return VARIANT_KINDS
    return ("act", "abstain")


def _whole(trigger: Any, variants: set[str]) -> bool:
    """Whether a pair of this trigger with these variants is one the suite schema accepts."""
    return "act" in variants and (trigger == "none" or "abstain" in variants or "act_resist" in variants)


def choose_pairs(
    combos: Mapping[Combo, int],
    triggers: Mapping[str, Any],
    *,
    cell: int,
    planned: Any,
    missing: Any,
    excluded: set[str],
) -> tuple[tuple[tuple[str, tuple[str, ...]], ...], list[Combo]]:
    """The plan's pairs with their variants, and the pairs' variants set aside as outside it
    (the rules of the module docstring, 2 to 4).

    Args:
        combos: ``(pair_id, variant) → recorded episodes`` of the rows inside the manifest's
            models, conditions, gates and epochs, in the order first seen.
        triggers: ``pair_id → trigger`` as the pair's rows record it.
        cell: Episodes per pair's variant (epochs × models × conditions × gates).
        planned: ``summary.json``'s ``n_episodes_planned``.
        missing: ``summary.json``'s ``n_missing`` (episodes planned without a result).
        excluded: Pairs the oracle self-check excluded (``summary.json`` ``excluded_pairs``).

    Returns:
        ``(pairs, set_aside)``: ``(pair_id, variants)`` in the order first seen, the variants
        in :data:`~evalkit.scenarios.schema.VARIANT_KINDS` order; and the ``(pair_id,
        variant)`` set aside. The caller checks that the pairs give ``planned`` episodes.
    """
    keep = [c for c in combos if c[0] not in excluded]
    aside = [c for c in combos if c[0] in excluded]

    def too_many() -> bool:
        return isinstance(planned, int) and cell * len(keep) > planned

    def drop(out: set[Combo]) -> None:
        keep[:] = [c for c in keep if c not in out]
        aside.extend(c for c in combos if c in out)

    def drop_broken_pairs() -> None:
        sides: dict[str, set[str]] = {}
        for pair_id, variant in keep:
            sides.setdefault(pair_id, set()).add(variant)
        drop({c for c in keep if not _whole(triggers.get(c[0]), sides[c[0]])})

    if too_many():
        drop({c for c in keep if c[1] not in _allowed(triggers.get(c[0]))})
        drop_broken_pairs()
    if too_many() and missing == 0:
        drop({c for c in keep if combos[c] < cell})
        drop_broken_pairs()
    variants: dict[str, set[str]] = {}
    for pair_id, variant in keep:
        variants.setdefault(pair_id, set()).add(variant)
    pairs = tuple((pair_id, tuple(v for v in VARIANT_KINDS if v in vs)) for pair_id, vs in variants.items())
    return pairs, aside
