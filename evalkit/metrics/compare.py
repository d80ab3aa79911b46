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

from evalkit.metrics.aggregate import Key, row_key
from evalkit.metrics.stats import DEFAULT_BOOTSTRAP_SAMPLES, DEFAULT_SEED, mcnemar_exact, paired_bootstrap

Group = tuple[str, str, str]  # model, condition, gate


def unit_outcomes(plan: Iterable[Key], rows: Iterable[dict[str, Any]]) -> dict[Group, dict[tuple[str, int], int]]:
    """``(model, condition, gate) → {(pair_id, epoch): 0/1}`` for every planned pair unit.

    A unit is 1 when every one of its variants is recorded, ok and correct; units with a
    single variant (control pairs) take no part.
    """
    by_key = {row_key(r): r for r in rows}
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
    common = sorted(set(a) & set(b))
    xa = [a[u] for u in common]
    xb = [b[u] for u in common]
    boot = paired_bootstrap(xa, xb, samples=samples, seed=seed)
    n = len(common)
    return {
        "n": n,
        "a_k": sum(xa),
        "b_k": sum(xb),
        "a_rate": sum(xa) / n if n else None,
        "b_rate": sum(xb) / n if n else None,
        "diff": boot["diff"],
        "ci": boot["ci"],
        "se": boot["se"],
        "a_only": boot["a_only"],
        "b_only": boot["b_only"],
        "p_value": mcnemar_exact(boot["a_only"], boot["b_only"]) if n else None,
    }


def comparisons(
    plan: Iterable[Key],
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
    plan = list(plan)
    outcomes = unit_outcomes(plan, rows)
    models = list(dict.fromkeys(k[2] for k in plan))
    conditions = list(dict.fromkeys(k[3] for k in plan))
    gates = list(dict.fromkeys(k[4] for k in plan))
    out: list[dict[str, Any]] = []

    def add(kind: str, fixed: dict[str, Any], a: Group, b: Group, la: str, lb: str) -> None:
        if a in outcomes and b in outcomes:
            out.append({"kind": kind, "metric": "paired_accuracy", **fixed, "a": la, "b": lb,
                        **compare_units(outcomes[a], outcomes[b], samples=samples, seed=seed)})

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
