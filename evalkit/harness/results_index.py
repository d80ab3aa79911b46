"""Where each episode's last record is in ``results.jsonl``, by run-plan position.

:meth:`evalkit.harness.store.RunStore.scan_results` fills a :class:`ResultIndex`;
:meth:`~evalkit.harness.store.RunStore.rewrite_results` walks it. For the run plan's keys
the index costs three arrays by plan position, not a dict entry per key, so finishing or
resuming a run of 100,000 episodes does not hold 100,000 key tuples (issue 8, target 3).
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping
from typing import Any, Iterator, NamedTuple


class RecordRef(NamedTuple):
    """Where one record is in ``results.jsonl``: byte ``offset`` and ``length``, and whether
    its status is ``ok``."""

    offset: int
    length: int
    ok: bool


class ResultIndex(Mapping):
    """Where the last record of each episode key is in ``results.jsonl``
    (:meth:`~evalkit.harness.store.RunStore.scan_results`): a mapping ``key → RecordRef``.

    Keys of the run plan are kept by plan position in three arrays (``offsets`` and
    ``lengths``, ``array('q')``, ``-1`` for no record; ``ok``, a ``bytearray``), about 17
    bytes per planned episode whatever its key; keys outside the plan (stray rows, or every
    key when there is no plan) go into the dict ``strays`` in the order first seen.
    Iteration gives the plan's keys that have a record in plan order, then the strays.

    Args:
        plan_keys: The plan's keys with ``position(key)`` (:func:`evalkit.harness.plan.key_positions`),
            or ``None``.
        source: The object the caller passed as the plan's keys (``rewrite_results`` walks
            the index itself when given the same object as its ``order``).
    """

    def __init__(self, plan_keys: Any | None, *, source: Any = None):
        self.plan_keys = plan_keys
        self.source = source
        n = 0 if plan_keys is None else len(plan_keys)
        self.offsets = array("q", [-1]) * n
        self.lengths = array("q", [-1]) * n
        self.ok = bytearray(n)
        self.strays: dict[tuple, RecordRef] = {}
        self._planned = 0

    def _position(self, key: Any) -> int | None:
        return None if self.plan_keys is None else self.plan_keys.position(key)

    def put(self, key: tuple, offset: int, length: int, ok: bool) -> bool:
        """Record that ``key``'s latest record is at ``offset`` (``length`` bytes).

        Returns:
            Whether it replaces a record that was ``ok`` (a finished episode ran again).

        Raises:
            TypeError: for a key with an unhashable part outside the plan.
        """
        position = self._position(key)
        if position is None:
            before = self.strays.get(key)
            self.strays[key] = RecordRef(offset, length, ok)
            return before is not None and before.ok
        had = self.offsets[position] >= 0
        rerun = had and bool(self.ok[position])
        self._planned += not had
        self.offsets[position], self.lengths[position], self.ok[position] = offset, length, ok
        return rerun

    def discard(self, key: tuple) -> None:
        """Forget ``key``'s record (its row is then left out by
        :meth:`~evalkit.harness.store.RunStore.rewrite_results`)."""
        position = self._position(key)
        if position is None:
            self.strays.pop(key, None)
        elif self.offsets[position] >= 0:
            self.offsets[position] = self.lengths[position] = -1
            self.ok[position] = 0
            self._planned -= 1

    def ok_bitmap(self) -> bytearray:
        """One byte per plan position: 1 where the key's last record finished ok
        (:func:`evalkit.harness.plan.pending` takes it as ``completed``)."""
        return bytearray(self.ok)

    def planned_items(self) -> Iterator[tuple[int, tuple, RecordRef]]:
        """``(position, key, RecordRef)`` of the plan's keys that have a record, in plan order."""
        if self.plan_keys is None:
            return
        offsets, lengths, ok = self.offsets, self.lengths, self.ok
        for position, key in enumerate(self.plan_keys):
            if offsets[position] >= 0:
                yield position, key, RecordRef(offsets[position], lengths[position], bool(ok[position]))

    def spans(self) -> Iterator[tuple[int, int]]:
        """``(offset, length)`` of every record in the index's order (plan, then strays)."""
        offsets, lengths = self.offsets, self.lengths
        for position in range(len(offsets)):
            if offsets[position] >= 0:
                yield offsets[position], lengths[position]
        for ref in self.strays.values():
            yield ref.offset, ref.length

    def get(self, key: Any, default: Any = None) -> Any:
        position = self._position(key)
        if position is None:
            return self.strays.get(key, default)
        if self.offsets[position] < 0:
            return default
        return RecordRef(self.offsets[position], self.lengths[position], bool(self.ok[position]))

    def __getitem__(self, key: Any) -> RecordRef:
        ref = self.get(key)
        if ref is None:
            raise KeyError(key)
        return ref

    def __contains__(self, key: object) -> bool:
        return self.get(key) is not None

    def __len__(self) -> int:
        return self._planned + len(self.strays)

    def __iter__(self) -> Iterator[tuple]:
        for _, key, _ in self.planned_items():
            yield key
        yield from self.strays

    def items(self) -> Iterator[tuple[tuple, RecordRef]]:  # type: ignore[override]
        for _, key, ref in self.planned_items():
            yield key, ref
        yield from self.strays.items()

    def values(self) -> Iterator[RecordRef]:  # type: ignore[override]
        for _, _, ref in self.planned_items():
            yield ref
        yield from self.strays.values()
