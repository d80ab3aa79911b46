"""A condition whose final text is not read (``DecisionSignals(text=False)``, the toy ``halt``):
on a side with a follow-up, a question written in text is the final answer, not a question to
the simulated user; the condition's ask tool still is one."""

from __future__ import annotations

from pathlib import Path

from evalkit.harness.episode import EpisodeSpec, RuntimeSetup, execute
from evalkit.metrics.scoring import score_episode
from evalkit.runtime.controller import Limits
from evalkit.runtime.followup_events import PhaseStarted, UserQuestion
from evalkit.runtime.model_io import ModelOutput, ToolCall
from evalkit.scenarios.domains import load_domain
from evalkit.scenarios.loader import load_suite

SUITE = Path(__file__).resolve().parents[1] / "fixtures" / "followup" / "shop_followup.yaml"
QUANTITY = "fu-shop-missing-quantity"


class Outputs:
    """A model that answers with a fixed list of outputs, one per turn (then an empty text)."""

    inline = True
    name = "test/outputs"

    def __init__(self, *outputs: ModelOutput):
        self.outputs = outputs

    def respond(self, context, episode):
        return self.outputs[context.turn] if context.turn < len(self.outputs) else ModelOutput(text="")


def _play(model, condition: str):
    pair = next(p for p in load_suite([str(SUITE)]).pairs if p.id == QUANTITY)
    spec = EpisodeSpec(pair, "abstain", "test/outputs", condition, 1, "off", load_domain(pair.domain),
                       RuntimeSetup(user="cooperative", followup_max_turns=8))
    run = execute(spec, model, Limits())
    return run, score_episode(spec, run.log, run.state, run.error)


ASK_IN_TEXT = ModelOutput(text="How many units would you like me to order?")
ORDER_3 = ModelOutput(tool_calls=(ToolCall("o1", "place_order", {"customer_id": "C-1", "sku": "SKU-100",
                                                                 "quantity": 3}),), stop_reason="tool_use")


def test_a_text_question_is_not_served_when_the_condition_does_not_read_text(toys):
    run, row = _play(Outputs(ASK_IN_TEXT, ORDER_3), "halt")
    assert not any(isinstance(e, (UserQuestion, PhaseStarted)) for e in run.log.events)
    assert run.log.events[-1].reason == "final_text" and row["commits"] == 0
    assert row["asked"] is False and row["questions"] == 0

    asked, _ = _play(Outputs(ASK_IN_TEXT, ORDER_3), "nl")  # a condition that reads text: the user answers
    assert next(e for e in asked.log.events if isinstance(e, UserQuestion)).channel == "text"


def test_the_ask_tool_of_a_condition_that_does_not_read_text_is_still_served(toys):
    ask = ModelOutput(tool_calls=(ToolCall("a1", "ask_user", {"q": "How many units?"}),), stop_reason="tool_use")
    run, row = _play(Outputs(ask, ORDER_3, ModelOutput(text="Done.")), "halt")
    question = next(e for e in run.log.events if isinstance(e, UserQuestion))
    assert question.channel == "request_user_decision" and row["recovered"] is True
