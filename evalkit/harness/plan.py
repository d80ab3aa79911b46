"""The run plan as arithmetic: every episode of a run without one object per episode.

A run's plan is the product pair × epoch × model × condition × gate × variant (each pair has
its own variants, :attr:`evalkit.scenarios.schema.Pair.variants`), in that order
(:func:`evalkit.harness.run.build_plan`). :class:`RunPlan` keeps only the factors (the
pairs with their loaded domains, the epochs, models, conditions and gates) and one prefix
offset per pair, and computes an episode from its position, or a position from an episode
key, when asked. A plan of 100,000 episodes costs the same memory as one of 100
(issue 8, target 3: peak memory must not grow with the number of episodes).

* :meth:`RunPlan.keys` is the plan's keys ``(pair_id, variant, model, condition, gate,
  epoch)`` as a lazy :class:`PlanKeys` view with :meth:`PlanKeys.position`.
* :func:`check_unique_keys` refuses a plan in which two episodes share a key or a trace
  file (field case C27) without listing the plan's keys.
* :func:`pending` is what a resumed run still has to run: a lazy view over the plan and a
  bitmap of the finished positions (one byte per episode).
"""

from __future__ import annotations

import bisect
import itertools
from array import array
from collections.abc import Collection, Iterable, Iterator, Sequence
from typing import Any, Union, overload

from evalkit.errors import ConfigError
from evalkit.records import EpisodeKey, make_key
from evalkit.harness.episode import DEFAULT_SETUP, EpisodeSpec, RuntimeSetup, id_part
from evalkit.runtime.tools import Domain
from evalkit.scenarios.schema import Pair



def _same_items(left: Iterable[Any], right: Iterable[Any]) -> bool:
    sentinel = object()
    return all(a == b for a, b in itertools.zip_longest(left, right, fillvalue=sentinel))


class _LazySequence(Sequence):
    """Equality with lists, tuples and other sequences item by item (``plan == [...]``)."""

    __hash__ = None  # type: ignore[assignment]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, (str, bytes, bytearray)):
            return NotImplemented
        return len(self) == len(other) and _same_items(self, other)

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal


class RunPlan(_LazySequence):
    """Every episode of a run in execution order, computed on demand.

    Order (the same as a list built by nested loops): pair, epoch, model, condition, gate,
    variant, where the variants are each pair's own (``act``, ``abstain``, ``act_resist``;
    control pairs: ``act`` only). Holds O(pairs + models + conditions + gates + epochs)
    data: the factors, a per-pair prefix offset and small ``value → index`` dicts; an
    :class:`~evalkit.harness.episode.EpisodeSpec` is made when an item is read.

    A :class:`collections.abc.Sequence`: ``len``, ``plan[i]`` (negative ``i`` too; a slice
    gives a list), iteration, ``in``, ``index``; ``plan == list`` compares item by item;
    ``plan + other`` is a list.

    Args:
        pairs: The suite's pairs, in run order.
        domains: Each pair's loaded domain (same length as ``pairs``).
        epochs: Repetitions of every episode (``>= 1``).
        models: Model specs.
        conditions: Condition names.
        gates: Gate settings (``off`` / ``on``).
        setup: The run's shared runtime options.

    Raises:
        ValueError: when ``domains`` and ``pairs`` differ in length or ``epochs < 1``.
    """

    def __init__(self, pairs: Sequence[Pair], domains: Sequence[Domain], *, epochs: int, models: Sequence[str],
                 conditions: Sequence[str], gates: Sequence[str], setup: RuntimeSetup = DEFAULT_SETUP):
        if len(pairs) != len(domains):
            raise ValueError(f"{len(pairs)} pairs but {len(domains)} domains")
        if epochs < 1:
            raise ValueError(f"epochs must be >= 1, not {epochs}")
        self.pairs = tuple(pairs)
        self.domains = tuple(domains)
        self.epochs = int(epochs)
        self.models = tuple(models)
        self.conditions = tuple(conditions)
        self.gates = tuple(gates)
        self.setup = setup
        self._variants = tuple(p.variants for p in self.pairs)
        self._cell = len(self.models) * len(self.conditions) * len(self.gates)  # episodes per (epoch, variant)
        offsets = array("q", [0])
        for variants in self._variants:
            offsets.append(offsets[-1] + self.epochs * self._cell * len(variants))
        self._offsets = offsets
        self._keys: PlanKeys | None = None
        # value -> first index (a repeated value keeps its first index: see position())
        self._pair_index: dict[str, list[int]] = {}
        for i, pair in enumerate(self.pairs):
            self._pair_index.setdefault(pair.id, []).append(i)
        self._variant_index = tuple({v: i for i, v in reversed(list(enumerate(vs)))} for vs in self._variants)
        self._model_index = {m: i for i, m in reversed(list(enumerate(self.models)))}
        self._condition_index = {c: i for i, c in reversed(list(enumerate(self.conditions)))}
        self._gate_index = {g: i for i, g in reversed(list(enumerate(self.gates)))}

    def __len__(self) -> int:
        return self._offsets[-1]

    def __repr__(self) -> str:
        return (f"RunPlan({len(self)} episodes: {len(self.pairs)} pairs × {self.epochs} epochs × "
                f"{len(self.models)} models × {len(self.conditions)} conditions × {len(self.gates)} gates)")

    def _coordinates(self, index: int) -> tuple[int, int, int, int, int, int]:
        """``(pair, epoch - 1, model, condition, gate, variant)`` indices of position ``index``."""
        n = len(self)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError(f"plan index {index} out of range ({n} episodes)")
        p = bisect.bisect_right(self._offsets, index) - 1
        rest = index - self._offsets[p]
        n_variants = len(self._variants[p])
        per_epoch = self._cell * n_variants
        e, rest = divmod(rest, per_epoch)
        per_model = len(self.conditions) * len(self.gates) * n_variants
        m, rest = divmod(rest, per_model)
        per_condition = len(self.gates) * n_variants
        c, rest = divmod(rest, per_condition)
        g, v = divmod(rest, n_variants)
        return p, e, m, c, g, v

    def _spec(self, p: int, e: int, m: int, c: int, g: int, v: int) -> EpisodeSpec:
        return EpisodeSpec(self.pairs[p], self._variants[p][v], self.models[m], self.conditions[c], e + 1,
                           self.gates[g], self.domains[p], self.setup)

    @overload
    def __getitem__(self, index: int) -> EpisodeSpec: ...

    @overload
    def __getitem__(self, index: slice) -> list[EpisodeSpec]: ...

    def __getitem__(self, index: int | slice) -> EpisodeSpec | list[EpisodeSpec]:
        """The episode at ``index`` (negative from the end); a slice gives a list.

        Raises:
            IndexError: outside ``-len(plan) .. len(plan) - 1``.
        """
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        return self._spec(*self._coordinates(index.__index__()))

    def __iter__(self) -> Iterator[EpisodeSpec]:
        setup = self.setup
        for pair, domain, variants in zip(self.pairs, self.domains, self._variants):
            for epoch in range(1, self.epochs + 1):
                for model in self.models:
                    for condition in self.conditions:
                        for gate in self.gates:
                            for variant in variants:
                                yield EpisodeSpec(pair, variant, model, condition, epoch, gate, domain, setup)

    def __contains__(self, spec: object) -> bool:
        if not isinstance(spec, EpisodeSpec):
            return False
        position = self.keys().position(spec.key)
        return position is not None and self[position] == spec

    def __add__(self, other: Iterable[EpisodeSpec]) -> list[EpisodeSpec]:
        return [*self, *other]

    def keys(self) -> PlanKeys:
        """The keys of the plan's episodes, in order, as a lazy view (the same object each call)."""
        if self._keys is None:
            self._keys = PlanKeys(self)
        return self._keys

    def key_at(self, index: int) -> EpisodeKey:
        """The key of the episode at ``index`` (without making its spec).

        Raises:
            IndexError: outside the plan.
        """
        p, e, m, c, g, v = self._coordinates(index)
        return make_key(self.pairs[p].id, self._variants[p][v], self.models[m], self.conditions[c], self.gates[g], e + 1)

    def position(self, key: Any) -> int | None:
        """Where the episode ``key`` is in the plan, computed from the factors' indices.

        Args:
            key: ``(pair_id, variant, model, condition, gate, epoch)``; compared as a set of
                keys would (``1.0 == 1``); anything else, unhashable parts included, is absent.

        Returns:
            Its position (the first, in a plan that repeats a pair id, model, condition or
            gate), or ``None`` when the key is not in the plan (a stray result row).
        """
        try:
            pair_id, variant, model, condition, gate, epoch = key
            pairs = self._pair_index.get(pair_id)
            m = self._model_index.get(model)
            c = self._condition_index.get(condition)
            g = self._gate_index.get(gate)
        except (TypeError, ValueError):  # not a 6-tuple, or an unhashable part
            return None
        if isinstance(epoch, float) and epoch.is_integer():
            epoch = int(epoch)
        e = epoch - 1 if isinstance(epoch, int) and 1 <= epoch <= self.epochs else None
        if pairs is None or m is None or c is None or g is None or e is None:
            return None
        for p in pairs:
            try:
                v = self._variant_index[p].get(variant)
            except TypeError:
                return None
            if v is not None:
                n_variants = len(self._variants[p])
                return (self._offsets[p] + ((e * len(self.models) + m) * len(self.conditions) + c)
                        * len(self.gates) * n_variants + g * n_variants + v)
        return None

    def check_unique(self) -> None:
        """Refuse a plan in which two episodes share a key or a trace file, in
        O(plan factors) memory (see :func:`check_unique_keys`).

        Two keys are equal only when a factor repeats a value (a pair id, model, condition or
        gate given twice), so the keys are scanned, in constant memory, only then. Two trace
        files (:func:`~evalkit.harness.episode.episode_id`: readable slug + sha256 prefix of
        the key) can be equal only when their readable slugs are, which needs two values of one
        factor that slug alike (``x:y`` / ``x_y``, ids equal in their first 60 characters) or a
        slug the ``__`` separators could cut two ways; only then are the ids of all episodes
        compared (the one case that costs memory per episode).

        Raises:
            ConfigError: naming the first repeated key, or two keys that share a trace file.
        """
        repeated = (len(self._pair_index) < len(self.pairs) or len(self._model_index) < len(self.models)
                    or len(self._condition_index) < len(self.conditions) or len(self._gate_index) < len(self.gates))
        if repeated:
            for index, key in enumerate(self.keys()):
                if self.position(key) != index:
                    raise ConfigError(_twice(key))
        if not self._slugs_distinct():
            _check_trace_files(self)

    def _slugs_distinct(self) -> bool:
        """Whether distinct keys of this plan always get distinct readable id parts."""
        factors = (("pair_id", list(self._pair_index)), ("variant", sorted({v for vs in self._variants for v in vs})),
                   ("model", list(self._model_index)), ("condition", list(self._condition_index)),
                   ("gate", list(self._gate_index)))
        for field, values in factors:
            parts = [id_part(field, value) for value in values]
            if len(set(parts)) < len(parts):
                return False
            if any(not part or "__" in part or part.startswith("_") or part.endswith("_") for part in parts):
                return False  # the "__"-joined slug could be cut into components two ways
        return True


class PlanKeys(_LazySequence):
    """The keys of a :class:`RunPlan`'s episodes, in plan order, made on demand.

    Sized and re-iterable; ``keys[i]`` (negative too), ``key in keys`` and
    :meth:`position` are computed from the plan's factors without a set of keys.
    """

    def __init__(self, plan: RunPlan):
        self.plan = plan

    def __len__(self) -> int:
        return len(self.plan)

    def __repr__(self) -> str:
        return f"PlanKeys({len(self)} keys)"

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return [self.plan.key_at(i) for i in range(*index.indices(len(self)))]
        return self.plan.key_at(index.__index__())

    def __iter__(self) -> Iterator[EpisodeKey]:
        plan = self.plan
        return iter_keys(((pair.id, variants) for pair, variants in zip(plan.pairs, plan._variants)),
                         plan.epochs, plan.models, plan.conditions, plan.gates)

    def __contains__(self, key: object) -> bool:
        return self.plan.position(key) is not None

    def position(self, key: Any) -> int | None:
        """Where ``key`` is in the plan, or ``None`` (:meth:`RunPlan.position`)."""
        return self.plan.position(key)

    def index(self, key: Any, start: int = 0, stop: int | None = None) -> int:
        position = self.plan.position(key)
        if position is None or position < start or (stop is not None and position >= stop):
            raise ValueError(f"{key!r} is not in the plan")
        return position


def iter_keys(pairs: Iterable[tuple[str, Sequence[str]]], epochs: int, models: Sequence[str],
              conditions: Sequence[str], gates: Sequence[str]) -> Iterator[EpisodeKey]:
    """The episode keys of a plan in run order: pair, epoch, model, condition, gate, variant.

    Args:
        pairs: ``(pair_id, variants)`` in plan order.
        epochs: Epochs (1 to ``epochs``).
        models: Model specs.
        conditions: Condition names.
        gates: Gate settings.

    Yields:
        ``(pair_id, variant, model, condition, gate, epoch)``.
    """
    for pair_id, variants in pairs:
        for epoch in range(1, epochs + 1):
            for model in models:
                for condition in conditions:
                    for gate in gates:
                        for variant in variants:
                            yield make_key(pair_id, variant, model, condition, gate, epoch)


class KeyPositions(_LazySequence):
    """A plain list of keys with :meth:`position` (a ``key → first index`` dict).

    For callers that hold the plan's keys as a list (tests, a report built from a
    hand-made plan); costs a dict entry per key, unlike :class:`PlanKeys`.
    """

    def __init__(self, keys: Iterable[Any]):
        self.keys = list(keys)
        self._index: dict[Any, int] = {}
        for i, key in enumerate(self.keys):
            self._index.setdefault(key, i)

    def __len__(self) -> int:
        return len(self.keys)

    def __getitem__(self, index: Any) -> Any:
        return self.keys[index]

    def __iter__(self) -> Iterator[Any]:
        return iter(self.keys)

    def __contains__(self, key: object) -> bool:
        return self.position(key) is not None

    def position(self, key: Any) -> int | None:
        """The first index of ``key``, or ``None`` (also for an unhashable key)."""
        try:
            return self._index.get(key)
        except TypeError:
            return None


KeyView = Union[PlanKeys, KeyPositions]


def key_positions(keys: Iterable[Any]) -> KeyView:
    """``keys`` as a sequence with ``position(key)``: a :class:`PlanKeys` as it is, anything
    else (a list of keys) as a :class:`KeyPositions`."""
    if isinstance(keys, (PlanKeys, KeyPositions)):
        return keys
    if isinstance(keys, RunPlan):
        return keys.keys()
    return KeyPositions(keys)


def _twice(key: tuple) -> str:
    return f"the run plan holds episode {'/'.join(map(str, key))} twice (a pair id, model or condition given twice?)"


def _check_trace_files(plan: Iterable[EpisodeSpec]) -> None:
    ids: dict[str, tuple] = {}
    for spec in plan:
        other = ids.setdefault(spec.episode_id, spec.key)
        if other != spec.key:
            raise ConfigError(f"episodes {'/'.join(map(str, other))} and {'/'.join(map(str, spec.key))} would share "
                              f"the trace file {spec.episode_id}.jsonl")


def check_unique_keys(plan: Iterable[EpisodeSpec]) -> None:
    """Reject a plan in which two episodes share a key (field case C27) or a trace file
    (:attr:`~evalkit.harness.episode.EpisodeSpec.episode_id`).

    A :class:`RunPlan` is checked from its factors (:meth:`RunPlan.check_unique`, no memory
    per episode in the usual case); any other sequence of episodes (a list) by a set of its
    keys and a dict of its ids.

    Raises:
        ConfigError: naming the first repeated key, or the two keys that would share a
            trace file.
    """
    if isinstance(plan, RunPlan):
        plan.check_unique()
        return
    seen: set[tuple] = set()
    ids: dict[str, tuple] = {}
    for spec in plan:
        if spec.key in seen:
            raise ConfigError(_twice(spec.key))
        seen.add(spec.key)
        other = ids.setdefault(spec.episode_id, spec.key)
        if other != spec.key:
            raise ConfigError(f"episodes {'/'.join(map(str, other))} and {'/'.join(map(str, spec.key))} would share "
                              f"the trace file {spec.episode_id}.jsonl")


class PendingEpisodes(_LazySequence):
    """The episodes of a plan not yet finished, in plan order, read lazily.

    Holds the plan and a bitmap with one byte per plan position (non-zero: finished), or
    no bitmap when nothing is finished. ``len`` counts the zero bytes; iterating walks the
    plan once. ``pending[i]`` is supported for completeness but walks the plan (O(plan)).

    Attributes:
        plan: The whole plan.
        done: The bitmap (``None``: nothing finished).
    """

    def __init__(self, plan: Sequence[EpisodeSpec], done: bytes | bytearray | None = None):
        if done is not None and len(done) != len(plan):
            raise ValueError(f"the bitmap has {len(done)} bytes for a plan of {len(plan)} episodes")
        self.plan = plan
        self.done = done
        self._len = len(plan) if done is None else done.count(0)

    def __len__(self) -> int:
        return self._len

    def __repr__(self) -> str:
        return f"PendingEpisodes({len(self)} of {len(self.plan)} episodes)"

    def __iter__(self) -> Iterator[EpisodeSpec]:
        if self.done is None:
            yield from self.plan
            return
        for spec, finished in zip(self.plan, self.done):
            if not finished:
                yield spec

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return list(self)[index]
        index = index.__index__()
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(f"pending index {index} out of range ({len(self)} episodes)")
        return next(itertools.islice(iter(self), index, None))


Completed = Union[bytes, bytearray, Collection[tuple]]


def pending(plan: Sequence[EpisodeSpec], completed: Completed) -> PendingEpisodes:
    """The episodes of ``plan`` still to run, in plan order.

    Args:
        plan: The run plan (a :class:`RunPlan` or a list of episodes).
        completed: The finished episodes: a bitmap over plan positions (``bytes`` or
            ``bytearray`` of ``len(plan)``, non-zero = finished; what
            :func:`evalkit.harness.resume.prepare_resume` returns for a plan), or a collection
            of episode keys (keys not in the plan are ignored).

    Returns:
        A lazy :class:`PendingEpisodes` (``len`` and iteration; equal to the list of those
        episodes).

    Raises:
        ValueError: for a bitmap whose length is not ``len(plan)``.
    """
    if isinstance(completed, (bytes, bytearray)):
        return PendingEpisodes(plan, completed)
    if not completed:
        return PendingEpisodes(plan)
    done = bytearray(len(plan))
    if isinstance(plan, RunPlan):
        for key in completed:
            position = plan.position(key)
            if position is not None:
                done[position] = 1
    else:
        for i, spec in enumerate(plan):
            done[i] = spec.key in completed
    return PendingEpisodes(plan, done)
