"""Paired comparisons of paired accuracy: condition vs condition, model vs model, gate on vs off.

DESIGN §7: "condition and model comparisons on the same pairs use paired tests". The unit is
a pair in one epoch; its outcome is 1 when all of its episodes are ok and correct, else 0
(the same rule as ``paired_accuracy``, so an incomplete pair counts as wrong on its side;
control pairs, with one variant, take no part).
Two groups are compared on the units planned in both. For each comparison:

* ``diff`` = accuracy of B − accuracy of A on those units;
* ``ci`` = the seeded paired-bootstrap 95% percentile interval of ``diff``
  (:func:`evalkit.metrics.stats.paired_bootstrap`);
* ``p_value`` = the exact McNemar test on the discordant units ``a_only`` (right only
  under A) and ``b_only`` (right only under B) (:func:`evalkit.metrics.stats.mcnemar_exact`).

Kinds: ``condition`` (same model and gate, every two conditions in run order), ``model``
(same condition and gate, every two models), ``gate`` (same model and condition, gate
``off`` vs ``on``).
"""

from __future__ import annotations

from collections import defaultdict
from itertools import combinations
from typing import Any, Iterable

from evalkit.records import EpisodeKey
from evalkit.metrics.stats import DEFAULT_BOOTSTRAP_SAMPLES, DEFAULT_SEED, mcnemar_exact, paired_bootstrap_counts

Group = tuple[str, str, str]  # model, condition, gate


def unit_outcomes(plan: Iterable[EpisodeKey], rows: Iterable[dict[str, Any]]) -> dict[Group, dict[tuple[str, int], int]]:
    """``(model, condition, gate) → {(pair_id, epoch): 0/1}`` for every planned pair unit.

    A unit is 1 when every one of its variants is recorded, ok and correct; units with a
    single variant (control pairs) take no part.
    """
    by_key = {EpisodeKey.of(r): r for r in rows}
    sides: dict[Group, dict[tuple[str, int], list[bool]]] = defaultdict(lambda: defaultdict(list))
    for key in plan:
        r = by_key.get(key)
        sides[(key[2], key[3], key[4])][(key[0], key[5])].append(
            r is not None and r["status"] == "ok" and bool(r["correct"])
        )
    return {g: {u: int(all(v)) for u, v in units.items() if len(v) >= 2} for g, units in sides.items()}


def compare_units(
    a: dict[tuple[str, int], int],
    b: dict[tuple[str, int], int],
    *,
    samples: int = DEFAULT_BOOTSTRAP_SAMPLES,
    seed: int = DEFAULT_SEED,
) -> dict[str, Any]:
    """Compare two groups on their common units.

    Returns:
        ``{"n", "a_k", "b_k", "a_rate", "b_rate", "diff", "ci", "se", "a_only", "b_only",
        "p_value"}``; rates, ``diff``, ``ci`` and ``p_value`` are ``None`` when ``n == 0``.
    """
    common = set(a) & set(b)
    a_k = sum(a[u] for u in common)
    b_k = sum(b[u] for u in common)
    a_only = sum(1 for u in common if a[u] and not b[u])
    b_only = sum(1 for u in common if b[u] and not a[u])
    return compare_counts(len(common), a_k, b_k, a_only, b_only, samples=samples, seed=seed)


def compare_counts(
    n: int,
    a_k: int,
    b_k: int,
    a_only: int,
    b_only: int,
    *,
    samples: int = DEFAULT_BOOTSTRAP_SAMPLES,
    seed: int = DEFAULT_SEED,
) -> dict[str, Any]:
    """:func:`compare_units` from its counts: ``n`` common units, ``a_k`` / ``b_k`` right
    under A / B, ``a_only`` / ``b_only`` right under one side only (the discordant units)."""
    boot = paired_bootstrap_counts(n, a_only, b_only, samples=samples, seed=seed)
    return {
        "n": n,
        "a_k": a_k,
        "b_k": b_k,
        "a_rate": a_k / n if n else None,
        "b_rate": b_k / n if n else None,
        "diff": boot["diff"],
        "ci": boot["ci"],
        "se": boot["se"],
        "a_only": boot["a_only"],
        "b_only": boot["b_only"],
        "p_value": mcnemar_exact(boot["a_only"], boot["b_only"]) if n else None,
    }


def comparisons(
    plan: Iterable[EpisodeKey],
    rows: Iterable[dict[str, Any]],
    *,
    samples: int = DEFAULT_BOOTSTRAP_SAMPLES,
    seed: int = DEFAULT_SEED,
) -> list[dict[str, Any]]:
    """Every condition, model and gate comparison of paired accuracy in a run.

    Args:
        plan: Planned episode keys, in run order (it fixes the order of models, conditions
            and gates).
        rows: Result rows.
        samples: Bootstrap samples per comparison.
        seed: Bootstrap seed (each comparison starts from it, so results do not depend on
            how many comparisons a run has).

    Returns:
        Dicts with ``kind`` (``condition``/``model``/``gate``), ``metric``
        (``paired_accuracy``), the fixed factors (``model``, ``condition``, ``gate``: the
        varying one is ``None``), ``a`` and ``b`` (the compared levels) and the fields of
        :func:`compare_units`.
    """
    by_key = {EpisodeKey.of(r): r for r in rows}
    blocks: dict[tuple[str, int], list[EpisodeKey]] = defaultdict(list)
    counter = PairedCounts()
    for key in plan:
        counter.see(key)
        blocks[(key[0], key[5])].append(key)
    for keys in blocks.values():
        sides: dict[Group, list[bool]] = defaultdict(list)
        for key in keys:
            r = by_key.get(key)
            sides[(key[2], key[3], key[4])].append(r is not None and r["status"] == "ok" and bool(r["correct"]))
        counter.add_block(sides)
    return counter.result(samples=samples, seed=seed)


class PairedCounts:
    """The counts every comparison of a run needs, gathered one (pair, epoch) at a time.

    For each two groups that differ in one factor (model, condition or gate) it keeps the
    number of common units, the units right under each and the discordant units: five
    integers per compared two groups, whatever the number of episodes.
    """

    def __init__(self) -> None:
        self.models: dict[str, None] = {}  # first-seen order (a dict as an ordered set)
        self.conditions: dict[str, None] = {}
        self.gates: dict[str, None] = {}
        self.groups: set[Group] = set()
        self._counts: dict[tuple[Group, Group], list[int]] = {}  # (a, b), a < b → [n, a_k, b_k, a_only, b_only]

    def see(self, key: EpisodeKey) -> None:
        """Note a planned episode's model, condition and gate (they fix the comparisons' order)."""
        group = (key[2], key[3], key[4])
        if group not in self.groups:
            self.groups.add(group)
            self.models.setdefault(key[2])
            self.conditions.setdefault(key[3])
            self.gates.setdefault(key[4])

    def add_block(self, sides: dict[Group, list[bool]]) -> None:
        """Count one pair in one epoch.

        Args:
            sides: Group → whether each of its planned episodes of this pair and epoch is
                right (recorded, ok and correct); a group with fewer than two (a control
                pair) takes no part.
        """
        outcomes = {g: all(v) for g, v in sides.items() if len(v) >= 2}
        ordered = sorted(outcomes)
        for i, a in enumerate(ordered):
            xa = outcomes[a]
            for b in ordered[i + 1:]:
                if (a[0] != b[0]) + (a[1] != b[1]) + (a[2] != b[2]) != 1:
                    continue
                xb = outcomes[b]
                counts = self._counts.get((a, b))
                if counts is None:
                    counts = self._counts[(a, b)] = [0, 0, 0, 0, 0]
                counts[0] += 1
                counts[1] += xa
                counts[2] += xb
                counts[3] += xa and not xb
                counts[4] += xb and not xa

    def compare(self, a: Group, b: Group, *, samples: int, seed: int) -> dict[str, Any]:
        """:func:`compare_counts` of group ``a`` against group ``b`` on their common units."""
        if a < b:
            n, a_k, b_k, a_only, b_only = self._counts.get((a, b), (0, 0, 0, 0, 0))
        else:
            n, b_k, a_k, b_only, a_only = self._counts.get((b, a), (0, 0, 0, 0, 0))
        return compare_counts(n, a_k, b_k, a_only, b_only, samples=samples, seed=seed)

    def result(self, *, samples: int = DEFAULT_BOOTSTRAP_SAMPLES, seed: int = DEFAULT_SEED,
               metric: str = "paired_accuracy") -> list[dict[str, Any]]:
        """Every comparison, as :func:`comparisons` returns them; ``metric`` names what the
        units' outcomes are (``timely_paired_accuracy`` when a unit is right only with every
        abstention timely: :class:`evalkit.metrics.summary.SummaryBuilder`)."""
        models, conditions, gates = list(self.models), list(self.conditions), list(self.gates)
        out: list[dict[str, Any]] = []

        def add(kind: str, fixed: dict[str, Any], a: Group, b: Group, la: str, lb: str) -> None:
            if a in self.groups and b in self.groups:
                out.append({"kind": kind, "metric": metric, **fixed, "a": la, "b": lb,
                            **self.compare(a, b, samples=samples, seed=seed)})

        for m in models:
            for g in gates:
                for c1, c2 in combinations(conditions, 2):
                    add("condition", {"model": m, "condition": None, "gate": g}, (m, c1, g), (m, c2, g), c1, c2)
        for c in conditions:
            for g in gates:
                for m1, m2 in combinations(models, 2):
                    add("model", {"model": None, "condition": c, "gate": g}, (m1, c, g), (m2, c, g), m1, m2)
        if len(gates) > 1:
            ordered = sorted(gates, key=lambda x: (x != "off", x))
            for m in models:
                for c in conditions:
                    for g1, g2 in combinations(ordered, 2):
                        add("gate", {"model": m, "condition": c, "gate": None}, (m, c, g1), (m, c, g2), g1, g2)
        return out
