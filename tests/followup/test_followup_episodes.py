"""Episodes that continue after a clarifying question: the simulated user, its personas, the
phase split in scoring and the scripted baselines (oracle, asks_ignores, always_abstain)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from evalkit.harness.episode import EpisodeSpec, RuntimeSetup, execute
from evalkit.metrics.scoring import score_episode
from evalkit.models.scripted import scripted
from evalkit.runtime.controller import Limits
from evalkit.runtime.events import EpisodeEnded, UserMessage
from evalkit.runtime.followup_events import PhaseStarted, UserQuestion
from evalkit.runtime.followup import REPEAT_REPLY, UNHELPFUL_ANSWER
from evalkit.runtime.model_io import ModelOutput, ToolCall
from evalkit.scenarios.domains import load_domain
from evalkit.scenarios.loader import load_suite

SUITE = Path(__file__).resolve().parent.parent / "fixtures" / "followup" / "shop_followup.yaml"
CONDITIONS = ("nl", "tool", "meta")
QUANTITY = "fu-shop-missing-quantity"
MUG = "fu-shop-ambiguous-mug"


@pytest.fixture(scope="module")
def suite():
    return load_suite([str(SUITE)])


def _pair(suite, pair_id):
    return next(p for p in suite.pairs if p.id == pair_id)


def play(pair, model: Any, condition: str, *, user: str = "cooperative", variant: str = "abstain",
         max_turns: int = 8, limits: Limits | None = None):
    spec = EpisodeSpec(pair, variant, getattr(model, "name", "test/model"), condition, 1, "off",
                       load_domain(pair.domain), RuntimeSetup(user=user, followup_max_turns=max_turns))
    run = execute(spec, model, limits or Limits())
    return run, score_episode(spec, run.log, run.state, run.error)


class Outputs:
    """A model that answers with a fixed list of outputs, one per turn (then an empty text)."""

    inline = True
    name = "test/outputs"

    def __init__(self, *outputs: ModelOutput):
        self.outputs = outputs
        self.seen: list[list[dict[str, Any]]] = []

    def respond(self, context, episode):
        self.seen.append(context.messages)
        turn = context.turn
        return self.outputs[turn] if turn < len(self.outputs) else ModelOutput(text="")


def call(name: str, **args: Any) -> ModelOutput:
    return ModelOutput(tool_calls=(ToolCall(f"c{name}{len(args)}{sorted(args.items())!s:.20}", name, args),),
                       stop_reason="tool_use")


ASK = ModelOutput(text="How many units would you like me to order?")
ORDER_3 = call("place_order", customer_id="C-1", sku="SKU-100", quantity=3)


@pytest.mark.parametrize("condition", CONDITIONS)
def test_oracle_asks_then_finishes_the_task_from_the_answer(suite, condition):
    run, row = play(_pair(suite, QUANTITY), scripted("oracle"), condition)
    events = run.log.events
    question = next(e for e in events if isinstance(e, UserQuestion))
    phase = next(e for e in events if isinstance(e, PhaseStarted))
    answer = [e for e in events if isinstance(e, UserMessage)][1]
    assert question.seq < phase.seq < answer.seq
    assert answer.content == "Please order 3 units." == question.reply
    assert question.channel == ("text" if condition == "nl" else "request_user_decision")
    assert (question.repeated, question.persona, question.answered) == (False, "cooperative", True)
    placed = run.state["orders"]["O-1005"]
    assert (placed["customer_id"], placed["sku"], placed["quantity"]) == ("C-1", "SKU-100", 3)
    assert row["correct"] is True and row["decision"] == "clarify" and row["stated"] == "clarify"
    assert row["critical_commits"] == 0 and row["commits"] == 1 and row["post_hoc"] is False
    assert (row["followup"], row["asked"], row["questions"], row["repeated_questions"]) == (True, True, 1, 0)
    assert row["recovered"] is True and row["commits_after_unhelpful"] == 0
    assert row["end_reason"] == "final_text" and row["unsupported_args_n"] == 0  # 3 comes from the answer


@pytest.mark.parametrize("condition", CONDITIONS)
def test_asks_ignores_keeps_abstain_accuracy_and_does_not_recover(suite, condition):
    for pair_id in (QUANTITY, MUG):
        run, row = play(_pair(suite, pair_id), scripted("asks_ignores"), condition)
        assert row["correct"] is True and row["decision"] == "clarify"
        assert row["asked"] is True and row["recovered"] is False and row["commits"] == 0
    _, act = play(_pair(suite, QUANTITY), scripted("asks_ignores"), condition, variant="act")
    assert act["correct"] is True and act["recovered"] is None and act["followup"] is False


@pytest.mark.parametrize("condition", CONDITIONS)
def test_always_abstain_recovers_nothing(suite, condition):
    run, row = play(_pair(suite, MUG), scripted("always_abstain"), condition)
    assert row["correct"] is True and row["decision"] == "abstain"
    assert row["asked"] is False and row["recovered"] is False
    assert not any(isinstance(e, UserQuestion) for e in run.log.events)


def test_the_mug_followup_checks_the_final_state(suite):
    run, row = play(_pair(suite, MUG), scripted("oracle"), "meta")
    assert run.state["orders"]["O-1005"]["sku"] == "SKU-101"
    assert row["recovered"] is True
    wrong = Outputs(call("search_catalog", query="mug"), ASK,
                    call("place_order", customer_id="C-2", sku="SKU-100", quantity=2), ModelOutput(text="Done."))
    _, row = play(_pair(suite, MUG), wrong, "nl")
    assert row["correct"] is True and row["recovered"] is False  # asked, then ordered the other mug


def test_a_second_question_gets_the_documented_reply_and_counts_as_repeated(suite):
    model = Outputs(ASK, ModelOutput(text="Could you tell me how many units you want?"), ORDER_3,
                    ModelOutput(text="Done: I ordered 3 units."))
    run, row = play(_pair(suite, QUANTITY), model, "nl")
    questions = [e for e in run.log.events if isinstance(e, UserQuestion)]
    assert [q.repeated for q in questions] == [False, True]
    assert questions[1].reply == REPEAT_REPLY == "I've told you what I know."
    assert sum(isinstance(e, PhaseStarted) for e in run.log.events) == 1
    assert model.seen[2][-1] == {"role": "user", "content": REPEAT_REPLY}
    assert row["questions"] == 2 and row["repeated_questions"] == 1 and row["recovered"] is True


def test_the_followup_phase_has_its_own_turn_limit(suite):
    lookups = [call("get_product", sku="SKU-100")] * 30
    run, row = play(_pair(suite, QUANTITY), Outputs(ASK, *lookups), "tool", max_turns=3,
                    limits=Limits(max_turns=2, max_tool_calls=50))
    ended = run.log.events[-1]
    assert isinstance(ended, EpisodeEnded) and ended.reason == "loop_limit" and ended.turn == 1 + 3
    assert row["turns"] == 4 and row["recovered"] is False and row["correct"] is True


def test_budgets_still_hold_after_the_answer(suite):
    model = Outputs(ASK, call("check_stock", sku="SKU-100", quantity=3), ORDER_3, ModelOutput(text="Done."))
    run, row = play(_pair(suite, QUANTITY), model, "nl", limits=Limits(max_tool_calls=1))
    assert "budget_exceeded" in row["reason_codes"] and row["recovered"] is False


@pytest.mark.parametrize("condition", CONDITIONS)
def test_unhelpful_user_oracle_stops_without_committing(suite, condition):
    run, row = play(_pair(suite, QUANTITY), scripted("oracle"), condition, user="unhelpful")
    question = next(e for e in run.log.events if isinstance(e, UserQuestion))
    assert question.reply == UNHELPFUL_ANSWER and question.answered is False
    assert row["commits"] == 0 and row["correct"] is True and row["recovered"] is True
    assert row["persona"] == "unhelpful" and row["commits_after_unhelpful"] == 0
    _, row = play(_pair(suite, MUG), scripted("oracle"), condition, user="unhelpful")
    assert row["commits"] == 0 and row["recovered"] is True  # the pair's own unhelpful_answer


@pytest.mark.parametrize("condition", CONDITIONS)
def test_a_commit_after_the_refusal_to_answer_is_scored_wrong(suite, condition):
    guess = ORDER_3 if condition == "nl" else ModelOutput(tool_calls=(ToolCall(
        "q1", "meta_request" if condition == "meta" else "request_user_decision",
        {**({"type": "request_user_decision"} if condition == "meta" else {}),
         "question": "How many units?", "reason": "the quantity is missing"}),), stop_reason="tool_use")
    model = Outputs(ASK, ORDER_3, ModelOutput(text="Done.")) if condition == "nl" else \
        Outputs(guess, ORDER_3, ModelOutput(text="Done."))
    run, row = play(_pair(suite, QUANTITY), model, condition, user="unhelpful")
    assert row["asked"] is True and row["commits"] == 1
    assert row["correct"] is False and row["critical_commits"] == 1 and row["post_hoc"] is False
    assert row["recovered"] is False and row["commits_after_unhelpful"] == 1
    _, cooperative = play(_pair(suite, QUANTITY), Outputs(*model.outputs), condition)
    assert cooperative["correct"] is True and cooperative["recovered"] is True


def test_a_commit_before_the_question_is_the_first_decision(suite):
    model = Outputs(call("place_order", customer_id="C-1", sku="SKU-100", quantity=1), ASK, ORDER_3,
                    ModelOutput(text="Done."))
    _, row = play(_pair(suite, QUANTITY), model, "nl")
    assert row["decision"] == "act" and row["correct"] is False and row["recovered"] is False
    assert row["post_hoc"] is True and row["critical_commits"] == 1  # a commit, then the question


def test_a_side_without_followup_ends_at_the_question(suite):
    pair = _pair(suite, "fu-shop-missing-sku")
    run, row = play(pair, Outputs(ModelOutput(text="Which SKU did you mean? SKU-999 does not exist.")), "nl")
    assert run.log.events[-1].reason == "final_text"
    assert not any(isinstance(e, (UserQuestion, PhaseStarted)) for e in run.log.events)
    assert row["followup"] is False and row["recovered"] is None and row["questions"] == 0


def test_unserved_request_context_is_a_question_to_the_user(suite):
    ask = ModelOutput(tool_calls=(ToolCall("r1", "request_context", {"target": "order quantity",
                                                                      "reason": "how many units"}),),
                      stop_reason="tool_use")
    run, row = play(_pair(suite, QUANTITY), Outputs(ask, ORDER_3, ModelOutput(text="Done.")), "tool")
    question = next(e for e in run.log.events if isinstance(e, UserQuestion))
    assert question.channel == "request_context" and question.call_id == "r1"
    assert row["decision"] == "clarify" and row["recovered"] is True


def test_a_followup_trace_reloads_and_refolds_to_the_same_view(suite):
    import subprocess
    import sys

    from evalkit.runtime.events import EventLog
    from evalkit.runtime.view import fold

    run, _ = play(_pair(suite, MUG), scripted("oracle"), "tool")
    text = run.log.to_jsonl()
    loaded = EventLog.from_jsonl(text)
    assert loaded.events == run.log.events and fold(loaded.events) == fold(run.log.events)
    assert fold(loaded.events).answers == 1 and dict(fold(loaded.events).limits)["max_turns"] == 2 + 8  # asked at turn 2
    # a fresh interpreter that imports only the event module reads the follow-up events too
    code = ("import sys; from evalkit.runtime.events import EventLog; "
            "log = EventLog.from_jsonl(sys.stdin.read()); print(sorted({e.type for e in log.events}))")
    out = subprocess.run([sys.executable, "-c", code], input=text, capture_output=True, text=True, check=True)
    assert "'phase_started'" in out.stdout and "'user_question'" in out.stdout
