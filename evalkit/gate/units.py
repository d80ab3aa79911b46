"""A group's per-unit outcomes for one regression metric, one byte per unit.

A regression check compares two runs unit by unit (:data:`evalkit.gate.catalogue.REGRESSION_UNITS`):
for ``paired_accuracy`` a unit is ``(pair_id, epoch)``, for the episode accuracies
``(pair_id, variant, epoch)``, and its outcome is 1 when it is right (every side recorded, ok
and correct; :func:`evalkit.metrics.compare.unit_outcomes`), else 0. A run's plan is the
product pair × epoch × model × condition × gate × the pair's variants, so every model ×
condition × gate group of a run has the same units: they are laid out once per metric
(:class:`UnitLayout`: the pair / variant *slots* in plan order × the epochs) and each group
keeps a ``bytearray`` of outcomes in that order (:class:`Units`), not a dict entry per unit.

:func:`compare_counts_of` gives the counts :func:`evalkit.metrics.compare.compare_counts`
takes (common units, right under each run, discordant units) and :func:`only_in` the units
one run has and the other lacks, without building a set of either run's units.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

Slot = tuple[str, "str | None"]
"""``(pair_id, variant)``; the variant is ``None`` for a pair unit (``paired_accuracy``)."""

__all__ = ["EMPTY", "Slot", "UnitLayout", "Units", "compare_counts_of", "only_in"]


@dataclass(frozen=True)
class UnitLayout:
    """Where each unit's outcome is in a :class:`Units` byte string: ``slot × epochs + epoch - 1``.

    Attributes:
        slots: ``(pair_id, variant | None)`` in plan order.
        epochs: Epochs of the run (every slot has one unit per epoch).
    """

    slots: tuple[Slot, ...]
    epochs: int
    index: dict[Slot, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "index", {slot: i for i, slot in enumerate(self.slots)})

    def unit(self, slot: Slot, epoch: int) -> tuple:
        """The unit tuple of a slot and epoch: ``(pair_id, epoch)`` or ``(pair_id, variant, epoch)``."""
        return (slot[0], epoch) if slot[1] is None else (slot[0], slot[1], epoch)

    def locate(self, unit: Any) -> int | None:
        """The byte index of ``unit``, or ``None`` when it is not one of this layout's units."""
        if not isinstance(unit, tuple) or len(unit) not in (2, 3):
            return None
        slot = (unit[0], None) if len(unit) == 2 else (unit[0], unit[1])
        epoch = unit[-1]
        try:
            i = self.index.get(slot)
        except TypeError:
            return None
        if i is None or type(epoch) is not int or not 1 <= epoch <= self.epochs:
            return None
        return i * self.epochs + epoch - 1


class Units(Mapping):
    """``unit → 0/1`` of one model × condition × gate group for one metric (a read-only mapping).

    Args:
        layout: The run's layout of this metric's units.
        outcomes: One byte per unit (0 or 1), in layout order (``len(layout.slots) × epochs``).

    Raises:
        ValueError: when ``outcomes`` does not have one byte per unit of ``layout``.
    """

    __slots__ = ("layout", "outcomes")

    def __init__(self, layout: UnitLayout, outcomes: bytearray | bytes):
        if len(outcomes) != len(layout.slots) * layout.epochs:
            raise ValueError(f"{len(outcomes)} outcomes for {len(layout.slots)} slots × {layout.epochs} epochs")
        self.layout = layout
        self.outcomes = outcomes

    def __len__(self) -> int:
        return len(self.outcomes)

    def __iter__(self) -> Iterator[tuple]:
        unit, epochs = self.layout.unit, self.layout.epochs
        for slot in self.layout.slots:
            for epoch in range(1, epochs + 1):
                yield unit(slot, epoch)

    def __getitem__(self, unit: Any) -> int:
        i = self.layout.locate(unit)
        if i is None:
            raise KeyError(unit)
        return self.outcomes[i]

    def __contains__(self, unit: object) -> bool:
        return self.layout.locate(unit) is not None

    def values(self) -> Iterator[int]:  # type: ignore[override]
        return iter(self.outcomes)

    @property
    def k(self) -> int:
        """Units that are right."""
        return self.outcomes.count(1)

    def pair_ids(self) -> set[str]:
        """The pairs with a unit in this group."""
        return {slot[0] for slot in self.layout.slots} if self.outcomes else set()

    def __repr__(self) -> str:
        return f"Units({self.k}/{len(self)})"


EMPTY = Units(UnitLayout((), 1), b"")
"""A group without units (a group the run does not have)."""


def _as_units(units: Mapping) -> Units:
    if isinstance(units, Units):
        return units
    if not units:
        return EMPTY
    raise TypeError(f"expected Units, not {type(units).__name__}")


def _slot_pairs(a: Units, b: Units) -> Iterator[tuple[int, int | None]]:
    """``(slot index in a, slot index in b or None)`` for each slot of ``a``."""
    if a.layout.slots == b.layout.slots:
        yield from ((i, i) for i in range(len(a.layout.slots)))
        return
    index = b.layout.index
    for i, slot in enumerate(a.layout.slots):
        yield i, index.get(slot)


def compare_counts_of(a: Mapping, b: Mapping) -> tuple[int, int, int, int, int]:
    """The counts of a paired comparison of ``a`` and ``b`` on their common units.

    The same numbers :func:`evalkit.metrics.compare.compare_units` computes from two dicts.

    Args:
        a: Units of group A (the baseline), a :class:`Units` or an empty mapping.
        b: Units of group B (the run).

    Returns:
        ``(n, a_k, b_k, a_only, b_only)``: common units, those right under A and under B,
        and those right under one side only (the discordant units), for
        :func:`evalkit.metrics.compare.compare_counts`.
    """
    a, b = _as_units(a), _as_units(b)
    n = a_k = b_k = a_only = b_only = 0
    ea, eb = a.layout.epochs, b.layout.epochs
    common = min(ea, eb)
    for i, j in _slot_pairs(a, b):
        if j is None:
            continue
        xs, ys = a.outcomes[i * ea:i * ea + common], b.outcomes[j * eb:j * eb + common]
        for x, y in zip(xs, ys):
            n += 1
            a_k += x
            b_k += y
            a_only += x and not y
            b_only += y and not x
    return n, a_k, b_k, a_only, b_only


def only_in(a: Mapping, b: Mapping) -> list[tuple]:
    """The units of ``a`` that ``b`` does not have, sorted (as ``sorted(set(a) - set(b))``).

    Args:
        a: Units of one group (a :class:`Units` or an empty mapping).
        b: Units of the other.

    Returns:
        Unit tuples, sorted.
    """
    a, b = _as_units(a), _as_units(b)
    out: list[tuple] = []
    unit, eb = a.layout.unit, b.layout.epochs if len(b) else 0
    for i, j in _slot_pairs(a, b):
        slot = a.layout.slots[i]
        first = 1 if j is None or not len(b) else eb + 1
        out.extend(unit(slot, epoch) for epoch in range(first, a.layout.epochs + 1))
    return sorted(out)
