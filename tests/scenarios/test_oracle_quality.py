"""The oracle's meta requests and commit arguments on the built-in suite are exact (DESIGN §6-§7).

DESIGN §6 makes the scripted oracle the suite's consistency check; beyond accuracy (pinned in
``tests/harness/test_scripted_models.py`` and the self-check in ``test_library.py``) that
covers the quality metrics too: in every condition its meta requests are exactly the
expected ones (precision and recall 1.0: on ``tool_gap`` pairs a ``request_tool`` for the
missing tool, then ``declare_blocked``, seed ``000`` §3.2 and §9.4), and every commit argument
it sends is grounded in the user's message or an observation (unsupported-assumption rate 0,
seed ``000`` §9.1). A model that only declares itself blocked on a ``tool_gap`` pair still
misses the ``request_tool`` expectation.

The episodes run in memory (no run directory), about 2 s for the whole suite.
"""

from __future__ import annotations


import pytest

from evalkit.harness.episode import DEFAULT_SETUP, EpisodeSpec, execute
from evalkit.metrics.aggregate import summarize
from evalkit.metrics.keys import pair_attributes
from evalkit.metrics.scoring import score_episode
from evalkit.models.registry import get_model
from evalkit.runtime.controller import Limits
from evalkit.scenarios.domains import load_domain
from evalkit.scenarios.loader import load_suite

CONDITIONS = ("nl", "tool", "meta")


def _run(model_spec, pairs):
    model = get_model(model_spec)
    plan, rows = [], []
    for pair in pairs:
        domain = load_domain(pair.domain)
        for condition in CONDITIONS:
            for variant in pair.variants:
                spec = EpisodeSpec(pair, variant, model_spec, condition, 1, "off", domain, DEFAULT_SETUP)
                result = execute(spec, model, Limits())
                rows.append(score_episode(spec, result.log, result.state, result.error))
                plan.append((pair.id, variant, model_spec, condition, "off", 1))
    summary = {r["condition"]: r for r in summarize(plan, rows, pairs=pair_attributes(pairs))}
    assert set(summary) == set(CONDITIONS)
    return summary, rows


@pytest.fixture(scope="module")
def suite():
    return load_suite()


@pytest.fixture(scope="module")
def oracle_run(suite):
    return _run("scripted/oracle", suite.pairs)


@pytest.mark.parametrize("condition", CONDITIONS)
def test_oracle_meta_requests_are_exactly_the_expected_ones(oracle_run, suite, condition):
    summary, rows = oracle_run
    row = summary[condition]
    expected = sum(len(p.abstain.expected.meta_requests) for p in suite.pairs if p.abstain is not None)
    off = [(r["pair_id"], r["variant"], r["meta_made"]) for r in rows if r["condition"] == condition
           and (r["meta_matched_n"] != r["meta_made_n"] or r["meta_matched_n"] != r["meta_expected_n"])]
    assert off == []
    assert (row["meta_precision"], row["meta_recall"]) == (1.0, 1.0)
    assert row["meta_recall_n"] == expected == row["meta_recall_k"]
    assert row["meta_precision_n"] == expected == row["meta_precision_k"]
    assert row["unnecessary_request_rate"] == 0.0


@pytest.mark.parametrize("condition", CONDITIONS)
def test_oracle_commit_arguments_are_all_grounded(oracle_run, condition):
    summary, rows = oracle_run
    row = summary[condition]
    flagged = [(r["pair_id"], r["variant"], r["unsupported_args"]) for r in rows
               if r["condition"] == condition and r["unsupported_args_n"]]
    assert flagged == []
    assert row["unsupported_assumption_rate"] == 0.0
    assert row["unsupported_assumption_rate_k"] == 0 and row["unsupported_assumption_rate_n"] > 700


def test_oracle_asks_for_the_missing_tool_and_then_declares_blocked(oracle_run, suite):
    _, rows = oracle_run
    gaps = {p.id: p for p in suite.pairs if p.trigger == "tool_gap"}
    assert len(gaps) >= 20
    seen = 0
    for r in rows:
        if r["pair_id"] not in gaps or r["variant"] != "abstain":
            continue
        seen += 1
        want = next(m.target for m in gaps[r["pair_id"]].abstain.expected.meta_requests if m.type == "request_tool")
        made = r["meta_made"]
        assert [m["type"] for m in made] == (["declare_blocked", "request_tool"] if r["condition"] == "nl"
                                             else ["request_tool", "declare_blocked"]), r["pair_id"]
        if r["condition"] != "nl":  # typed: the request names the missing tool
            assert made[0]["target"] == want and made[0]["source"] == "typed"
        assert r["decision"] == "abstain" and r["correct"] and r["commits"] == 0
    assert seen == 3 * len(gaps)


def test_declaring_blocked_without_asking_for_the_tool_misses_the_request(suite):
    """always_abstain declares itself blocked at once: on a tool_gap pair that is the right
    decision but half the expected requests (the ``request_tool`` is missed)."""
    gaps = [p for p in suite.pairs if p.trigger == "tool_gap"]
    summary, rows = _run("scripted/always_abstain", gaps)
    abstain = [r for r in rows if r["variant"] == "abstain"]
    assert abstain and all(r["correct"] for r in abstain)
    assert {(r["meta_expected_n"], r["meta_matched_n"]) for r in abstain} == {(2, 1)}
    for condition in CONDITIONS:
        row = summary[condition]
        assert (row["meta_recall_k"], row["meta_recall_n"]) == (len(gaps), 2 * len(gaps))
        assert row["meta_recall"] == 0.5
