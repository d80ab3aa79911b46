"""Scoring of calls not run after the episode ended, and the paired-accuracy interval over
epochs (adversarial round 1, item 7)."""

from __future__ import annotations


import pytest

from evalkit.harness.episode import EpisodeSpec, execute
from evalkit.metrics.aggregate import summarize
from evalkit.metrics.scoring import score_episode
from evalkit.metrics.stats import wilson
from evalkit.runtime.controller import Limits
from evalkit.runtime.events import ActionDecided
from evalkit.runtime.model_io import ModelOutput, ToolCall
from evalkit.scenarios.domains import load_domain
from evalkit.scenarios.loader import load_suite


class BlockedThenMore:
    """Looks up the kiwi, then declares itself blocked and, in the same response, still
    proposes a purchase and another lookup."""

    name = "test/blocked-then-more"

    def respond(self, context, episode):
        if context.turn == 0:
            return ModelOutput(tool_calls=(ToolCall("f1", "find_item", {"name": "kiwi"}),))
        return ModelOutput(tool_calls=(
            ToolCall("m1", "meta_request", {"type": "declare_blocked", "reason": "there are no kiwis"}),
            ToolCall("b1", "buy_item", {"name": "apple", "qty": 2}),
            ToolCall("f2", "find_item", {"name": "pear"}),
        ))


def test_calls_not_run_after_the_end_count_neither_as_lag_nor_as_corrections(mini_suite, mini_tasks):
    suite = load_suite([mini_suite], tasks_dir=mini_tasks)
    pair = next(p for p in suite.pairs if p.id == "mini-missing-target")
    spec = EpisodeSpec(pair, "abstain", "test/blocked-then-more", "meta", domain=load_domain(pair.domain, mini_tasks))
    result = execute(spec, BlockedThenMore(), Limits())
    assert [e.reason_code for e in result.log if isinstance(e, ActionDecided)] == [
        None, None, "episode_ended", "episode_ended"]
    row = score_episode(spec, result.log, result.state, result.error)
    assert (row["correct"], row["decision"], row["commits"]) == (True, "abstain", 0)
    assert (row["lag"], row["timely"]) == (0, True)  # the two calls after the end were never made
    assert row["first_pass"] is True
    assert row["denials"] == {"episode_ended": 2}  # recorded, visible, not lost
    assert row["denied_calls"] == 2


def _rows(n_pairs: int, epochs: int, wrong: set[tuple[int, int]] = frozenset()):
    plan, rows = [], []
    for p in range(n_pairs):
        for e in range(1, epochs + 1):
            for variant in ("act", "abstain"):
                key = (f"p{p}", variant, "m", "nl", "off", e)
                plan.append(key)
                rows.append({"pair_id": key[0], "variant": variant, "model": "m", "condition": "nl", "gate": "off",
                             "epoch": e, "status": "ok", "correct": (p, e) not in wrong, "post_hoc": False,
                             "timely": True, "decision_match": True})
    return plan, rows


def test_the_paired_accuracy_interval_counts_pairs_not_epochs():
    (s,) = summarize(*_rows(2, 50))
    assert (s["paired_accuracy"], s["paired_accuracy_k"], s["paired_accuracy_n"]) == (1.0, 100, 100)
    assert s["paired_accuracy_ci_n"] == 2
    assert s["paired_accuracy_ci"] == pytest.approx(list(wilson(2, 2)))
    assert s["paired_accuracy_ci"][0] < 0.35  # two pairs say little, however many epochs

    # 10 pairs x 4 epochs, 6 units wrong: rate 34/40, interval as for 8.5 of 10
    wrong = {(0, 1), (0, 2), (1, 3), (2, 4), (3, 1), (4, 2)}
    (s,) = summarize(*_rows(10, 4, wrong))
    assert (s["paired_accuracy_k"], s["paired_accuracy_n"], s["paired_accuracy_ci_n"]) == (34, 40, 10)
    assert s["paired_accuracy_ci"] == pytest.approx(list(wilson(8.5, 10)))
    assert [r["paired_accuracy_n"] for r in s["epoch_paired_accuracy"]] == [10, 10, 10, 10]


def test_with_one_epoch_the_interval_is_the_usual_one():
    (s,) = summarize(*_rows(7, 1, {(3, 1)}))
    assert s["paired_accuracy_ci_n"] == 7
    assert s["paired_accuracy_ci"] == list(wilson(6, 7))
