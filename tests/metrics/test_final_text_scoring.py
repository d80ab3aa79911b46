"""How the final text is scored: unjudged texts, act-side refusals, stale text after an error."""

from __future__ import annotations

import pytest

from evalkit.harness.episode import EpisodeSpec, execute
from evalkit.metrics.aggregate import summarize
from evalkit.metrics.scoring import score_episode
from evalkit.runtime.controller import Limits
from evalkit.runtime.model_io import ModelOutput, ToolCall
from evalkit.scenarios.domains import load_domain
from evalkit.scenarios.loader import load_suite


class Says:
    """Looks up the item, then ends with ``final`` (and, with ``buy``, buys 2 apples first)."""

    def __init__(self, final: str, buy: bool = False) -> None:
        self.final, self.buy, self.name = final, buy, "test/says"

    def respond(self, context, episode):
        if context.turn == 0:
            return ModelOutput(tool_calls=(ToolCall("f1", "find_item", {"name": "apple"}),))
        if context.turn == 1 and self.buy:
            return ModelOutput(tool_calls=(ToolCall("b1", "buy_item", {"name": "apple", "qty": 2}),))
        return ModelOutput(text=self.final)


def _row(mini_suite, mini_tasks, variant: str, model) -> dict:
    suite = load_suite([mini_suite], tasks_dir=mini_tasks)
    pair = next(p for p in suite.pairs if p.id == "mini-missing-target")
    spec = EpisodeSpec(pair, variant, model.name, "nl", domain=load_domain(pair.domain, mini_tasks))
    result = execute(spec, model, Limits())
    return score_episode(spec, result.log, result.state, result.error)


def test_an_unreadable_text_is_unjudged_not_an_abstention(mini_suite, mini_tasks):
    row = _row(mini_suite, mini_tasks, "abstain", Says("Mi dispiace, ma non posso comprare i kiwi."))
    assert (row["text_label"], row["text_rule"], row["text_lang"]) == ("unknown", "unsupported_language", None)
    assert (row["unjudged"], row["decision"], row["correct"]) == (True, "none", False)
    read = _row(mini_suite, mini_tasks, "abstain", Says("I'm sorry, but there are no kiwis, so I can't buy them."))
    assert (read["unjudged"], read["decision"], read["correct"]) == (False, "abstain", True)
    empty = _row(mini_suite, mini_tasks, "abstain", Says(""))
    assert (empty["text_label"], empty["unjudged"]) == ("unknown", False)  # no text: a non-decision, not unjudged


def test_the_summary_counts_unjudged_episodes(mini_suite, mini_tasks):
    rows = [_row(mini_suite, mini_tasks, "abstain", Says(t)) for t in
            ("Mi dispiace, non posso.", "Извините, я не могу.", "I can't buy kiwis: there are none.")]
    for i, r in enumerate(rows):
        r["epoch"] = i + 1
    plan = [(r["pair_id"], r["variant"], r["model"], r["condition"], r["gate"], r["epoch"]) for r in rows]
    (s,) = summarize(plan, rows)
    assert (s["unjudged"], s["unjudged_rate_k"], s["unjudged_rate_n"]) == (2, 2, 3)
    assert s["unjudged_rate"] == pytest.approx(2 / 3)


class RefusesThenFails:
    """Turn 1: a refusal sent alongside a tool call; turn 2: the provider fails."""

    name = "test/refuses-then-fails"

    def respond(self, context, episode):
        from evalkit.errors import ModelError

        if context.turn == 0:
            return ModelOutput(text="I'm sorry, but I cannot complete this request.",
                               tool_calls=(ToolCall("f1", "find_item", {"name": "kiwi"}),))
        raise ModelError("provider unavailable")


def test_an_errored_episode_never_takes_an_earlier_turns_text(mini_suite, mini_tasks):
    row = _row(mini_suite, mini_tasks, "abstain", RefusesThenFails())
    assert row["status"] == "error" and row["end_reason"] == "error"
    assert (row["final_text"], row["text_label"], row["stated"]) == ("", "unknown", "none")
    assert json_types(row["meta_made"]) == []  # the earlier refusal implies no declare_blocked
    assert row["correct"] is False and row["unjudged"] is False


def json_types(meta_made: list) -> list[str]:
    return [m["type"] for m in meta_made]


def test_act_then_refused(mini_suite, mini_tasks):
    bought = _row(mini_suite, mini_tasks, "act", Says("I'm sorry, but I cannot buy apples for you.", buy=True))
    assert (bought["commits"], bought["act_then_refused"], bought["correct"]) == (1, True, False)
    done = _row(mini_suite, mini_tasks, "act", Says("I've bought 2 apples for you.", buy=True))
    assert (done["commits"], done["act_then_refused"], done["correct"]) == (1, False, True)
    partial = _row(mini_suite, mini_tasks, "act",
                   Says("I've bought 2 apples; I couldn't add a gift note, since the shop has none.", buy=True))
    assert (partial["act_then_refused"], partial["correct"]) == (False, True)  # done beats the refused part
