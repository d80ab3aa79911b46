"""A stratified sample of pairs: ``evalkit run --sample N [--seed S]``.

Taking the first N pairs of a suite (``--limit``) follows the files' order, which groups pairs
by domain and trigger: the first 20 pairs of the built-in library cover 7 of its 12 triggers
and 3 of its 12 domains. :func:`stratified_sample` draws N pairs so that every stratum is
represented as evenly as N allows:

1. the strata are trigger × domain × split (:attr:`~evalkit.scenarios.schema.Pair.trigger`,
   ``domain``, ``split``); the pairs of each stratum are shuffled;
2. triggers take turns, in a shuffled order: each turn takes one pair of that trigger, from
   the domain (among the trigger's domains with pairs left) that the sample holds fewest
   pairs of so far, then from the split of that trigger and domain the sample holds fewest
   of; ties go to the shuffled order;
3. turns go on until N pairs are taken or the suite is exhausted (N at or above the number of
   pairs takes every pair).

So with N at least the number of triggers every trigger is in the sample, triggers differ by
at most one pair until a trigger runs out of pairs, and domains spread across the draws.
Every shuffle comes from one ``random.Random(seed)`` over the pairs in suite order, so the
sample is a function of the suite and the seed: the same on every machine and on
``--resume``. The sample is returned in suite order (the run plan's order).
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Sequence

from evalkit.scenarios.schema import Pair

__all__ = ["stratified_sample", "strata_counts"]


def _stratum(pair: Pair) -> tuple[str, str, str]:
    return (str(pair.trigger), pair.domain, pair.split)


def stratified_sample(pairs: Sequence[Pair], n: int, seed: int = 0) -> list[Pair]:
    """Draw ``n`` pairs stratified by trigger × domain × split (see the module docstring).

    Args:
        pairs: The pairs to draw from, in suite order (ids unique).
        n: How many to draw (≥ 1); all of them when ``n >= len(pairs)``.
        seed: Seed of the draw.

    Returns:
        The drawn pairs, in the order of ``pairs``.

    Raises:
        ValueError: when ``n`` is below 1.
    """
    if n < 1:
        raise ValueError(f"a sample needs at least 1 pair, got {n}")
    if n >= len(pairs):
        return list(pairs)
    rng = random.Random(seed)
    cells: dict[str, dict[str, dict[str, list[int]]]] = {}
    for index, pair in enumerate(pairs):
        trigger, domain, split = _stratum(pair)
        cells.setdefault(trigger, {}).setdefault(domain, {}).setdefault(split, []).append(index)
    rank: dict[tuple[str, ...], float] = {}  # the shuffled order of triggers, domains and splits (tie-breaks)
    for trigger, domains in cells.items():
        rank[(trigger,)] = rng.random()
        for domain, splits in domains.items():
            rank[(trigger, domain)] = rng.random()
            for split, members in splits.items():
                rank[(trigger, domain, split)] = rng.random()
                rng.shuffle(members)
    order = sorted(cells, key=lambda t: rank[(t,)])
    per_domain: Counter[str] = Counter()
    per_cell: Counter[tuple[str, str, str]] = Counter()
    chosen: list[int] = []
    while len(chosen) < n:
        took = False
        for trigger in order:
            domains = {d: s for d, s in cells[trigger].items() if any(s.values())}
            if not domains:
                continue
            domain = min(domains, key=lambda d: (per_domain[d], sum(per_cell[(trigger, d, s)] for s in domains[d]),
                                                 rank[(trigger, d)]))
            splits = {s: m for s, m in domains[domain].items() if m}
            split = min(splits, key=lambda s: (per_cell[(trigger, domain, s)], rank[(trigger, domain, s)]))
            chosen.append(splits[split].pop())
            per_domain[domain] += 1
            per_cell[(trigger, domain, split)] += 1
            took = True
            if len(chosen) == n:
                break
        if not took:
            break
    return [pairs[i] for i in sorted(chosen)]


def strata_counts(pairs: Sequence[Pair]) -> dict[str, dict[str, int]]:
    """How many of ``pairs`` each trigger, domain and split holds (for the run manifest):
    ``{"trigger": {...}, "domain": {...}, "split": {...}}``, names sorted."""
    out: dict[str, dict[str, int]] = {}
    for i, name in enumerate(("trigger", "domain", "split")):
        counts = Counter(_stratum(p)[i] for p in pairs)
        out[name] = dict(sorted(counts.items()))
    return out
