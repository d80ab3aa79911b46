"""Intervals and paired tests: exact values, seeds, empty and single samples (field case C21)."""

from __future__ import annotations

import json
import math

from hypothesis import given
from hypothesis import strategies as st

from evalkit.metrics.compare import compare_units, comparisons
from evalkit.metrics.stats import mcnemar_exact, paired_bootstrap, percentile, wilson


def test_mcnemar_exact_values():
    # b + c = 5, min 0: 2 * (1/32)
    assert mcnemar_exact(0, 5) == 0.0625
    # b + c = 10, min 1: 2 * (1 + 10) / 1024
    assert mcnemar_exact(1, 9) == 2 * 11 / 1024
    assert mcnemar_exact(9, 1) == mcnemar_exact(1, 9)
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(3, 3) == 1.0  # capped at 1


def test_mcnemar_large_counts_use_the_same_tail():
    # m > 1000 is summed in log space; it must equal the exact integer tail
    b, c = 480, 521
    m = b + c
    exact = 2 * sum(math.comb(m, i) for i in range(b + 1)) / 2**m
    assert math.isclose(mcnemar_exact(b, c), exact, rel_tol=1e-9)
    assert 0.0 <= mcnemar_exact(0, 3000) < 1e-300


def test_bootstrap_is_seeded_and_handles_edges():
    a = [1, 1, 0, 1, 0, 1, 1, 0, 1, 1]
    b = [1, 0, 0, 1, 1, 1, 0, 0, 0, 1]
    one = paired_bootstrap(a, b, seed=7)
    two = paired_bootstrap(a, b, seed=7)
    assert one == two
    assert one["diff"] == (1 - 3) / 10 and (one["a_only"], one["b_only"]) == (3, 1)
    low, high = one["ci"]
    assert -1 <= low <= one["diff"] <= high <= 1 and low < high
    empty = paired_bootstrap([], [])
    assert empty == {"n": 0, "diff": None, "ci": [None, None], "se": None, "a_only": 0, "b_only": 0}
    single = paired_bootstrap([0], [1])
    assert single["diff"] == 1.0 and single["se"] is None  # C21: n = 1 gives no stderr, never NaN
    same = paired_bootstrap([1, 0, 1], [1, 0, 1])
    assert same["ci"] == [0.0, 0.0] and same["se"] == 0.0
    text = json.dumps([empty, single, same], allow_nan=False)
    assert "NaN" not in text


@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 1)), min_size=1, max_size=60))
def test_bootstrap_interval_brackets_the_observed_difference_range(pairs):
    a = [x for x, _ in pairs]
    b = [y for _, y in pairs]
    out = paired_bootstrap(a, b, samples=200, seed=1)
    assert -1.0 <= out["ci"][0] <= out["ci"][1] <= 1.0
    assert math.isclose(out["diff"], (sum(b) - sum(a)) / len(a))


def test_wilson_and_percentile():
    assert wilson(0, 0) == (None, None)
    low, high = wilson(3, 4)
    assert round(low, 4) == 0.3006 and round(high, 4) == 0.9544
    assert percentile([], 95) is None
    assert percentile([5.0, 1.0, 3.0, 2.0, 4.0], 95) == 5.0
    assert percentile([5.0, 1.0, 3.0, 2.0, 4.0], 50) == 3.0


def _plan(models, conditions, pairs=("p1", "p2", "p3", "p4"), epochs=(1,)):
    return [(p, v, m, c, "off", e) for p in pairs for e in epochs for m in models for c in conditions
            for v in ("act", "abstain")]


def _row(key, correct=True, status="ok"):
    return {"pair_id": key[0], "variant": key[1], "model": key[2], "condition": key[3], "gate": key[4],
            "epoch": key[5], "status": status, "correct": correct}


def test_condition_comparison_counts_discordant_pairs_on_the_same_units():
    plan = _plan(["m"], ["nl", "meta"])
    wrong = {("p1", "abstain", "m", "nl"), ("p2", "act", "m", "nl"), ("p3", "abstain", "m", "meta")}
    rows = [_row(k, correct=(k[0], k[1], k[2], k[3]) not in wrong) for k in plan]
    (c,) = comparisons(plan, rows, seed=3, samples=500)
    assert (c["kind"], c["model"], c["gate"], c["a"], c["b"]) == ("condition", "m", "off", "nl", "meta")
    # units: nl right on p3, p4; meta right on p1, p2, p4 -> A only {p3}, B only {p1, p2}
    assert (c["n"], c["a_k"], c["b_k"], c["a_only"], c["b_only"]) == (4, 2, 3, 1, 2)
    assert c["diff"] == 0.25 and c["p_value"] == 1.0
    assert c["ci"][0] <= 0.25 <= c["ci"][1]


def test_model_comparison_and_missing_twin_counts_as_wrong():
    plan = _plan(["a", "b"], ["nl"], pairs=("p1", "p2"))
    rows = [_row(k) for k in plan if not (k[2] == "b" and k[0] == "p2" and k[1] == "abstain")]
    comps = comparisons(plan, rows)
    (c,) = [x for x in comps if x["kind"] == "model"]
    assert (c["a"], c["b"], c["a_k"], c["b_k"], c["a_only"], c["b_only"]) == ("a", "b", 2, 1, 1, 0)


def test_compare_units_without_common_units_is_null():
    out = compare_units({("p1", 1): 1}, {("p2", 1): 0})
    assert out["n"] == 0 and out["diff"] is None and out["p_value"] is None and out["ci"] == [None, None]
