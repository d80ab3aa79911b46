"""The streaming summary (SummaryBuilder: cells merged at the end, pair by pair) against the
in-memory aggregation of each grouping (summarize, comparisons, provider_summary) on seeded
random runs: errors, missing episodes, control and injection pairs, several epochs, models,
conditions and gates, pairs with and without known attributes."""

from __future__ import annotations

import random

import pytest

from evalkit.metrics.aggregate import BREAKDOWNS, GROUP_KEYS, GroupStats, summarize
from evalkit.metrics.compare import comparisons
from evalkit.metrics.provider import provider_summary
from evalkit.metrics.summary import SummaryBuilder, build_summary

_COUNTS = ("meta_made_n", "meta_typed_n", "meta_denied", "repeated_denied", "unnecessary_requests",
           "permission_escalations", "budget_overruns", "incorrect_tool_use", "model_escalations", "review_rounds",
           "commit_args_n", "tool_calls", "input_tokens", "output_tokens", "injected_commits", "model_calls",
           "cache_hits", "retries", "parse_failures", "repaired_calls")


def random_run(seed: int):
    """A plan in run order, its rows (some missing, some errored) and pair attributes."""
    rng = random.Random(seed)
    models = ["m1", "m2", "m3"][: rng.randint(1, 3)]
    conditions = ["nl", "tool", "meta"][: rng.randint(1, 3)]
    gates = ["off", "on"][: rng.randint(1, 2)]
    epochs = rng.randint(1, 3)
    pairs, plan, rows = {}, [], []
    for i in range(rng.randint(1, 8)):
        kind = rng.choice(["control", "pair", "injection"])
        variants = {"control": ["act"], "pair": ["act", "abstain"], "injection": ["act", "abstain", "act_resist"]}[kind]
        pid = f"p{i}"
        pairs[pid] = {"trigger": "none" if kind == "control" else rng.choice(["a", "b"]),
                      "phase": rng.choice(["x", "y"]), "domain": rng.choice(["shop", "ws"]), "split": "test",
                      "language": rng.choice(["en", "zh"]), "meta_expected_n": 0 if kind == "control" else 2}
        for e in range(1, epochs + 1):
            for m in models:
                for c in conditions:
                    for g in gates:
                        plan += [(pid, v, m, c, g, e) for v in variants]
    for k in plan:
        if rng.random() < 0.1:
            continue  # missing
        status = "error" if rng.random() < 0.1 else "ok"
        r = {"pair_id": k[0], "variant": k[1], "model": k[2], "condition": k[3], "gate": k[4], "epoch": k[5],
             "status": status, "correct": status == "ok" and rng.random() < 0.7, "post_hoc": rng.random() < 0.2,
             "timely": rng.random() < 0.5, "decision_match": rng.random() < 0.6, "lag": rng.choice([None, 0, 1, 3]),
             "first_pass": rng.random() < 0.5, **{b: pairs[k[0]][b] for b in BREAKDOWNS},
             "latency_s": rng.choice([None, rng.random() * 3, 0.1, 0.2]),
             "cost_usd": None if rng.random() < 0.05 else rng.random() / 1000, "retry_wait_s": rng.random(),
             "denials": {rng.choice(["x", "y"]): 1} if rng.random() < 0.3 else {},
             "error_code": rng.choice(["timeout", None]), **{f: rng.choice([0, 0, 1, 2]) for f in _COUNTS}}
        r["meta_matched_n"] = rng.randint(0, r["meta_made_n"])
        r["meta_fulfilled"] = rng.randint(0, r["meta_typed_n"])
        r["unsupported_args_n"] = rng.randint(0, r["commit_args_n"])
        if k[1] == "abstain":
            r["meta_expected_n"] = 2
            r["meta_matched_n"] = min(r["meta_matched_n"], 2)
        rows.append(r)
    # some pairs' attributes unknown (read from the rows), some lacking one attribute
    known = {p: a if rng.random() < 0.7 else {n: v for n, v in a.items() if n != "phase"}
             for p, a in pairs.items() if rng.random() < 0.7}
    return plan, rows, known


@pytest.mark.parametrize("seed", range(40))
def test_the_streaming_summary_equals_each_grouping_aggregated_in_memory(seed):
    plan, rows, pairs = random_run(seed)
    summary = build_summary(plan, rows, pairs=pairs, bootstrap_samples=200)
    assert summary["rows"] == summarize(plan, rows, pairs=pairs)
    for name in BREAKDOWNS:
        assert summary["breakdowns"][name] == summarize(plan, rows, pairs=pairs, by=(*GROUP_KEYS, name), core=True)
    assert summary["comparisons"] == comparisons(plan, rows, samples=200)
    assert summary["n_episodes_planned"] == len(plan)
    assert summary["n_missing"] == len(plan) - len(rows)
    builder = SummaryBuilder(pairs, bootstrap_samples=200)
    by_key = {(r["pair_id"], r["variant"], r["model"], r["condition"], r["gate"], r["epoch"]): r for r in rows}
    for key in plan:
        builder.add(key, by_key.get(key))
    assert builder.result() == summary
    assert builder.provider() == provider_summary(rows)


def test_a_group_is_the_merge_of_its_parts():
    plan, rows, _ = random_run(7)
    by_key = {(r["pair_id"], r["variant"], r["model"], r["condition"], r["gate"], r["epoch"]): r for r in rows}
    whole, first, second = GroupStats(), GroupStats(), GroupStats()
    units: dict[tuple, list] = {}
    for key in plan:
        units.setdefault((key[0], key[2], key[3], key[4], key[5]), []).append((key, by_key.get(key)))
    pair_ids = sorted({u[0] for u in units})
    for unit, sides in units.items():
        whole.add_unit(unit, sides)
        (first if unit[0] in pair_ids[: len(pair_ids) // 2] else second).add_unit(unit, sides)
    first.merge(second)
    assert first.metrics() == whole.metrics()
    assert whole.metrics()["n_episodes"] == len(plan)


def test_sums_of_floats_do_not_depend_on_the_order():
    rows = [{"pair_id": f"p{i}", "variant": "act", "model": "m", "condition": "nl", "gate": "off", "epoch": 1,
             "status": "ok", "correct": True, "latency_s": x, "cost_usd": x}
            for i, x in enumerate([1e16, 1.0, 1.0])]  # left to right 1e16, right to left 1e16 + 2
    plan = [(r["pair_id"], "act", "m", "nl", "off", 1) for r in rows]
    forward = summarize(plan, rows)[0]
    backward = summarize(plan[::-1], rows)[0]
    assert forward["latency_s_mean"] == backward["latency_s_mean"] == (1e16 + 2) / 3
    assert forward["cost_usd"] == backward["cost_usd"] == 1e16 + 2


def test_a_row_without_the_decision_flags_counts_them_as_not_set():
    plan = [("p", "act", "m", "nl", "off", 1), ("p", "abstain", "m", "nl", "off", 1)]
    rows = [{"pair_id": "p", "variant": v, "model": "m", "condition": "nl", "gate": "off", "epoch": 1,
             "status": "ok", "correct": True} for v in ("act", "abstain")]  # no post_hoc, timely, decision_match
    (s,) = summarize(plan, rows)
    assert (s["post_hoc_rate_k"], s["post_hoc_rate_n"]) == (0, 1)
    assert (s["timely_rate_k"], s["timely_rate_n"], s["decision_match_rate_k"]) == (0, 1, 0)
    assert s["paired_accuracy"] == 1.0


def test_latency_is_over_the_episodes_that_finished_ok_with_a_known_latency():
    base = {"variant": "act", "model": "m", "condition": "nl", "gate": "off", "epoch": 1}
    rows = [{**base, "pair_id": "p0", "status": "ok", "correct": True, "latency_s": 2.0},
            {**base, "pair_id": "p1", "status": "ok", "correct": False, "latency_s": 4.0},
            {**base, "pair_id": "p2", "status": "error", "correct": False, "latency_s": 0.0},  # stopped early
            {**base, "pair_id": "p3", "status": "error", "correct": False, "latency_s": None}]  # failed model call
    plan = [(r["pair_id"], "act", "m", "nl", "off", 1) for r in rows]
    row = summarize(plan, rows)[0]
    assert (row["latency_n"], row["latency_s_mean"], row["latency_s_p95"]) == (2, 3.0, 4.0)
    errored = summarize(plan[2:], rows[2:])[0]
    assert (errored["latency_n"], errored["latency_s_mean"], errored["latency_s_p95"]) == (0, None, None)
