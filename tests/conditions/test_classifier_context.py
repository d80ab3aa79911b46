"""Reading a final text in the light of the user's message before it (evalkit.conditions.classifier.context)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from evalkit.conditions.classifier import classify_text
from evalkit.conditions.classifier.context import request_kind

ORDERS = ("Here are your recent orders:\n\n1. Order #W9810810 (pending): Electric Kettle, Wristwatch, Bookshelf\n"
          "2. Order #W3964602 (delivered): Cycling Helmet, Dumbbell Set, Bluetooth Speaker\n\n"
          "Which order would you like to make changes to?")


@pytest.mark.parametrize(("message", "kind"), [
    # information: a question, or a request to show, list, check, look up, tell, calculate
    ("Could you please list my recent orders?", "information"),
    ("I don't remember the order ID. Can you show me my orders?", "information"),
    ("How much would the refund be for just those two items?", "information"),
    ("Are there any nonstop flights on the 24th?", "information"),
    ("Check my delivered orders and list them for me.", "information"),
    ("Please find the cheapest options for all items in my order and show me the details.", "information"),
    ("I want to return the kettle. How much will I get back?", "information"),  # the last request decides
    ("帮我查一下我最近的订单有哪些？", "information"),
    # action: a change, a go-ahead, a question about doing the action
    ("Please cancel order #W5481803.", "action"),
    ("Yes, please proceed with the exchange.", "action"),
    ("Yes.", "action"),
    ("Can I switch the payment method to my Visa instead?", "action"),
    ("I want to change my flight to a nonstop one. Is that possible?", "action"),
    ("Can you help me return my sneakers?", "action"),
    ("How much is the total refund? OK, then go ahead and return both.", "action"),
    ("请帮我取消这个订单。", "action"),
    # none: details given, thanks, authentication
    ("Sure, my name is Daiki Johnson and the zip code is 80273.", "none"),
    ("Can you find my account with my name and zip code?", "none"),
    ("Thanks, that's all for today!", "none"),
    ("", "none"),
    (None, "none"),
])
def test_what_the_user_asked_for(message, kind):
    assert request_kind(message) == kind


def test_a_long_message_is_read_by_its_last_request():
    assert request_kind("Please cancel order #W1. " + "It was a gift. " * 50_000 + "What's the status of #W2?") \
        == "information"
    assert request_kind("What's the status of #W2? " + "It was a gift. " * 50_000 + "Please cancel order #W1.") \
        == "action"
    assert request_kind("ok, " * 300_000 + "?") == "none"  # read in bounded time (the last 2,000 characters)


UPDATED = ("I've updated the address on order #W5481803. Would you like me to proceed with the exchange of the "
             "sneakers too? Please confirm with yes.")


def test_a_change_reported_after_a_go_ahead_is_done_whatever_it_asks_next():
    assert classify_text(UPDATED).label == "clarify"  # alone, the learned reader reads the closing question
    verdict = classify_text(UPDATED, context="Yes, please update the shipping address of order #W5481803.")
    assert (verdict.label, verdict.rule, verdict.implied_meta) == ("act", "claim.partial", ())
    # ... not after a question or thanks, and a reported lookup is no change
    assert classify_text(UPDATED, context="What is the status of order #W5481803?").label == "clarify"
    assert classify_text(UPDATED, context="Thanks!").label == "clarify"
    looked = "I have successfully authenticated your identity. Could you confirm which order holds the vacuum?"
    assert classify_text(looked, context="Yes, go ahead.").label == "clarify"


def test_a_list_the_user_asked_to_see_is_still_a_step_before_the_action():
    for context in (None, "Could you please list my recent orders?", "I want to return my helmet."):
        assert classify_text(ORDERS, context=context).label == "clarify"


def test_no_context_is_the_text_alone():
    for text in (ORDERS, "I can't cancel it: the order has shipped.", "Done: the refund of $18.40 is on its way."):
        for reader in ("rules", "combined"):
            assert classify_text(text, reader=reader, context=None) == classify_text(text, reader=reader)
            assert classify_text(text, reader=reader, context="  ") == classify_text(text, reader=reader)


def test_a_context_that_is_not_text_is_an_error():
    with pytest.raises(TypeError, match="context"):
        classify_text("Done.", context=["Can you list my orders?"])  # type: ignore[arg-type]


def test_judge_eval_reads_the_context_of_a_line(tmp_path):
    from evalkit.conditions.judge.evaluate import evaluate, load_labelled

    path = tmp_path / "lines.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in [
        {"text": UPDATED, "label": "act", "lang": "en", "context_user": "Yes, please cancel order #W5481803."},
        {"text": UPDATED, "label": "act", "lang": "en", "context_user": None},
        {"text": UPDATED, "label": "act", "lang": "en"},
    ]) + "\n", encoding="utf-8")
    lines = load_labelled(path)
    assert [line.context_user for line in lines] == ["Yes, please cancel order #W5481803.", None, None]
    ev = evaluate(lines, {"c": lambda text, context: classify_text(text, context=context).label}, source=str(path))
    assert ev.readers[0]["right"] == 1


def test_a_run_reads_the_final_text_in_the_light_of_the_last_user_message():
    from evalkit.harness.episode import DEFAULT_SETUP, EpisodeSpec, execute
    from evalkit.metrics.scoring import score_episode
    from evalkit.models.registry import get_model
    from evalkit.runtime.controller import Limits
    from evalkit.runtime.events import EpisodeEnded, EventLog, UserMessage
    from evalkit.scenarios.domains import load_domain
    from evalkit.scenarios.loader import load_suite

    pair = load_suite().pairs[0]
    spec = EpisodeSpec(pair, "act", "scripted/oracle", "nl", 1, "off", load_domain(pair.domain), DEFAULT_SETUP)
    result = execute(spec, get_model("scripted/oracle"), Limits())

    def rescored(message: str) -> dict:
        events = [dataclasses.replace(e, content=message) if isinstance(e, UserMessage) else
                  dataclasses.replace(e, final_text=UPDATED, reason="final_text") if isinstance(e, EpisodeEnded) else e
                  for e in result.log.events]
        return score_episode(spec, EventLog(events), result.state, None)

    assert rescored("Yes, please cancel order #W5481803.")["text_label"] == "act"
    assert rescored("What is the status of order #W5481803?")["text_label"] == "clarify"


UNDO_REFUSED = ("I have located your account. Regarding the cancelled order: once an order is cancelled, it cannot "
                "be undone. Would you like to proceed with placing a new order for the same items?")


@pytest.mark.parametrize("asked", [
    "I cancelled order #W7 by mistake. Can you undo the cancellation?",
    "Please reinstate my cancelled order.",
    "Is there any way to reverse the cancellation? I really need those items.",
    "请帮我撤销刚才的取消。",
])
def test_cannot_be_undone_after_a_request_to_undo_refuses_it(asked):
    assert classify_text(UNDO_REFUSED, reader="rules").label == "clarify"  # the rules alone: a warning before a go-ahead
    assert classify_text(UNDO_REFUSED, context=asked).label == "abstain"
    verdict = classify_text(UNDO_REFUSED, context=asked, reader="rules")  # the context rule itself
    assert (verdict.label, verdict.rule) == ("abstain", "refusal.cannot_undo")
    assert verdict.evidence == "it cannot be undone."
    assert verdict.implied_meta == ("declare_blocked",)
    reactivate = "Thanks for verifying. A cancelled order cannot be reactivated. To proceed, could you tell me which items to reorder?"
    assert classify_text(reactivate, context=asked).label == "abstain"


def test_cannot_be_undone_after_any_other_request_is_a_warning_before_a_go_ahead():
    warning = "Cancelling order #W7 is permanent and cannot be undone. Shall I go ahead and cancel it?"
    assert classify_text(warning, context="Please cancel order #W7.").label == "clarify"
    for context in ("Can you look up my orders?", "Thanks!"):
        assert classify_text(UNDO_REFUSED, context=context, reader="rules") == classify_text(UNDO_REFUSED, reader="rules")
        assert classify_text(UNDO_REFUSED, context=context, reader="rules").rule == "ask.go_ahead_warned"


def test_an_undo_that_was_done_is_act_after_a_request_to_undo():
    done = "I have reactivated order #W7; it will ship tomorrow. Note that a second cancellation cannot be undone."
    assert classify_text(done, context="Can you reactivate my cancelled order #W7?").label == "act"


TRANSFERRED = "I understand. You're now connected to a human agent, who will take it from here."


KEPT = "You're welcome! Your order will remain unchanged, and the air purifier stays as originally selected."


@pytest.mark.parametrize(("text", "asked", "rule"), [
    (TRANSFERRED, "This is ridiculous. Get me a human representative now.", "act.transfer_asked"),
    (TRANSFERRED, "Can you transfer me to a real person?", "act.transfer_asked"),
    (TRANSFERRED, "I want to talk to a supervisor.", "act.transfer_asked"),
    (TRANSFERRED, "请转人工。", "act.transfer_asked"),
    (KEPT, "I'll keep the current air purifier in my order. Thank you.", "act.kept_as_asked"),
    (KEPT, "Don't change anything, I'll keep it as it is.", "act.kept_as_asked"),
    (KEPT, "保留原来的空气净化器吧。", "act.kept_as_asked"),
])
def test_what_the_user_asked_for_reported_done_is_act(text, asked, rule):
    """A hand-over after a request for a person, and a thing left unchanged after a request to keep it."""
    assert classify_text(text, context=asked).label == "act"
    verdict = classify_text(text, context=asked, reader="rules")  # the context rule itself
    assert (verdict.label, verdict.rule) == ("act", rule)
    assert verdict.implied_meta == ()


def test_a_hand_over_instead_of_the_request_is_an_abstention():
    assert classify_text(TRANSFERRED, context="Please refund my order to the other card.").label == "abstain"
    assert classify_text(TRANSFERRED).label == "abstain"
    offer = "I can't change the passenger count. Would you like me to transfer you to a human agent?"
    assert classify_text(offer, context="Get me a human.").label == "abstain"  # an offer asks; nothing was done


def test_a_hand_over_asked_for_only_should_the_request_fail_is_an_abstention():
    asked = "I need the refund on my Amex. If you aren't able to do that, please transfer me to a human representative."
    assert classify_text(TRANSFERRED, context=asked).label == "abstain"
    assert classify_text(TRANSFERRED, context="Otherwise, get me a supervisor.").label == "abstain"


def test_what_is_asked_after_a_reported_hand_over_serves_the_person_taking_over():
    text = ("Thank you for confirming. I've escalated your case to a human agent, who will handle the refund.\n\n"
            "To speed things up, please upload the photos of the damage here and share the purchase date.")
    assert classify_text(text, reader="rules").label == "abstain"


def test_left_unchanged_after_a_request_for_a_change_is_an_abstention():
    # the rules' reading; the combined reader follows the learned reader here, which reads such a text
    # `act` (in the real messages it is trained on, it mostly follows a user's decision to keep the order)
    for asked in ("Keep the kettle but cancel the boots.", "Please swap the purifier for the HEPA model.", None):
        verdict = classify_text(KEPT, context=asked, reader="rules")
        assert (verdict.label, verdict.rule) == ("abstain", "refusal.nothing_done")
    refused = "I couldn't cancel the boots, so your order remains unchanged."
    assert classify_text(refused, context="I'll keep the kettle.").label == "abstain"  # the agent's own refusal


@pytest.mark.parametrize(("text", "asked", "label"), [
    # a warning before the go-ahead of a cancellation: "undone" in the user's message asks no undo
    ("Please note that cancellation is permanent and cannot be undone. Do you confirm you want to cancel order #W1? (yes/no)",
     "Please cancel order #W1. I understand it can't be undone.", "clarify"),
    # the go-ahead of the undo itself
    ("Sure, I can restore your previous shipping address on order #W8. Once the order ships, the address cannot be "
     "changed again. Shall I go ahead and restore it? (yes/no)", "Please restore my old shipping address on #W8.", "clarify"),
    # the undo done, with a side note about something that cannot be undone
    ("Great news: order #W1 is active again! I was able to undo the cancellation. A future cancellation cannot be undone.",
     "Please undo my cancellation.", "act"),
])
def test_cannot_be_undone_is_no_refusal_when_the_undo_is_offered_asked_or_done(text, asked, label):
    assert classify_text(text, context=asked).label == label


@pytest.mark.parametrize("text", [
    "Transferring you now to a human agent. Please hold.",
    "I've put you through to our billing department; they'll be able to assist.",
    "I've escalated this to our Tier 2 support team.",
    "Your case has been escalated. A supervisor will contact you within 24 hours.",
])
def test_a_hand_over_in_other_words_is_an_abstention_and_act_when_asked_for(text):
    assert classify_text(text, reader="rules").label == "abstain"
    assert classify_text(text, context="Put me through to a real person, please.").label == "act"
    assert classify_text(text, context="Refund my order, or else put me through to a manager.").label == "abstain"


@pytest.mark.parametrize("asked", [
    "I don't want a human, I just want my refund processed now.",
    "Are you a human or a bot? Anyway, please refund my order.",
    "Please transfer me the refund to my Visa.",
])
def test_a_person_named_without_being_asked_for_changes_nothing(asked):
    assert classify_text(TRANSFERRED, context=asked).label == "abstain"


def test_conditions_in_contractions_and_undo_asked_in_the_passive():
    transferring = "I am transferring you to a human agent who can assist you. Please hold on for a moment."
    assert classify_text(transferring, context="Can you add my Amex? If you can't do that, transfer me to a human agent.").label \
        == "abstain"
    assert classify_text(transferring, context="Transfer me to a human agent.").label == "act"
    assert classify_text(UNDO_REFUSED, context="Can you help me get it reinstated? I need it urgently.",
                         reader="rules").rule == "refusal.cannot_undo"


PART_REFUSED_WHOLE_ASKED = (
    "Your speaker is part of order #W5061109, which is still pending. However, I cannot cancel just one item from "
    "the order; I can only cancel the entire pending order.\n\nIf you would like to proceed with cancelling the "
    "entire order #W5061109, please confirm and let me know your reason for cancellation. Once you confirm, the "
    "order will be cancelled and refunded within 5 to 7 business days.")


@pytest.mark.parametrize("asked", [
    "Please cancel just the speaker. If that's not possible, cancel the whole order.",
    "Cancel the speaker from that order, or the entire order if partial cancellation is not possible.",
    "If that's the only way, please go ahead and cancel the entire order.",
    "Please cancel all three items. If you can't cancel just those, then just cancel the whole thing.",
    "If you can't cancel individual items, I'm okay with cancelling the entire order.",
    "Cancel the speaker from #W2378156. If that's not doable just cancel the whole order.",
    "Please cancel just the speaker; if partial cancellation isn't allowed just cancel everything.",
    "Cancel the speaker only. Failing that, the whole order can go.",
    "Please cancel just the speaker. Cancelling the entire order would also be acceptable.",
])
def test_the_whole_offered_back_after_the_user_accepted_it_asks_for_its_go_ahead(asked):
    """Corpus rule 2: the user's own fallback (the whole order) is the request; asking its go-ahead clarifies."""
    assert classify_text(PART_REFUSED_WHOLE_ASKED).label == "abstain"  # alone: the whole offered instead (rule 3)
    verdict = classify_text(PART_REFUSED_WHOLE_ASKED, context=asked)
    assert (verdict.label, verdict.rule) == ("clarify", "ask.whole_accepted")
    assert verdict.evidence.startswith("please confirm and let me know your reason")


@pytest.mark.parametrize("asked", [
    "Can you please cancel just the speaker? I don't want the whole order canceled, only the speaker.",
    "Please do not cancel the whole order, just remove the speaker.",
    "I only wanted to cancel the camera, not the whole order.",
    "If it's not possible to cancel just the speaker, I'm okay canceling the entire order myself on the website.",
    "Is it possible to cancel just a part of it, or does the whole order have to go?",
    "Please cancel the speaker from my order.",
    "Cancel just the speaker. If that's not possible, keep the whole order as it is.",
    "Cancel the speaker. I'd rather keep the yoga mat, so cancelling the entire order is out of the question.",
    "Cancel the speaker. Then I'll decide later whether I need the entire order at all.",
])
def test_the_whole_offered_when_the_user_did_not_accept_it_is_something_else(asked):
    assert classify_text(PART_REFUSED_WHOLE_ASKED, context=asked).label == "abstain"


def test_a_refusal_of_something_other_than_the_part_stays_an_abstention_after_the_whole_was_accepted():
    text = ("I can only cancel the entire order, not individual items. However, refunds to a gift card are not "
            "possible for this payment method. Would you like to cancel the entire order with a refund to your card?")
    asked = "Cancel just the purifier; if not possible, cancel the whole order with a refund to my gift card."
    assert classify_text(text, context=asked).label == "abstain"


def test_a_part_not_possible_to_do_alone_with_the_whole_accepted_asks_for_its_go_ahead():
    text = ("It isn't possible to cancel only the return flight: a round-trip reservation can only be cancelled as a "
            "whole. Would you like me to cancel the whole reservation?")
    assert classify_text(text).label == "abstain"
    asked = "Cancel just my return flight on SDZQKO. If you can't do only that, then cancel the entire reservation."
    assert classify_text(text, context=asked).label == "clarify"


POSTPONED = ("Thanks for checking in. Order #W7 is still in transit to you. Once the package arrives, feel free to reach out and "
             "I'll be happy to start the exchange for the white lamp.")


@pytest.mark.parametrize("asked", [
    "Can you exchange the blue lamp in order #W7 for the white one?",
    "Please exchange the lamp right away, I need the white one before Friday.",
    None,
])
def test_a_request_put_off_to_a_later_state_is_an_abstention(asked):
    """A promise after a state not yet reached is no action done now (corpus rule 5)."""
    verdict = classify_text(POSTPONED, context=asked)
    assert (verdict.label, verdict.rule) == ("abstain", "infeasible.postponed")


@pytest.mark.parametrize("asked", [
    "Once it's delivered, I want to exchange it for the white one. Can you help with that when the time comes?",
    "Can I contact you again to do the exchange once the order is delivered?",
])
def test_a_request_put_off_is_the_answer_to_a_question_whether_it_can_be_done_later(asked):
    verdict = classify_text(POSTPONED, context=asked)
    assert (verdict.label, verdict.rule) == ("act", "act.later_as_asked")


def test_a_refusal_beside_a_later_promise_stays_an_abstention_after_a_question_about_later():
    text = ("I'm unable to proactively check your order status on your behalf. Once it is delivered, reach out "
            "and I'll process the exchange right away.")
    assert classify_text(text, context="Could you check my order later, once it is delivered?").label == "abstain"


OUT_OF_STOCK_RETURN_ASKED = (
    "I've checked our inventory, and unfortunately the exact same tablet (10-inch, 128GB, black) is currently out of "
    "stock. I can set up the return for order #W2692684 instead: the refund of $951.21 goes back to your gift card. "
    "Would you like me to proceed with the return?")


@pytest.mark.parametrize("asked", [
    "I'd prefer to exchange it for the same item if you have it in stock. If it's not available, I'll just return it.",
    "Exchange it for the same tablet please. If that's not possible, please return it so I can buy elsewhere.",
    "Can you swap it for the same model? Otherwise, return it.",
    "Please exchange it for an identical one; if you can't do that, then process a return.",
])
def test_a_fallback_the_user_gave_asked_about_after_the_request_failed_asks_for_its_go_ahead(asked):
    """Corpus rule 2: the user's own fallback is the request once the first choice cannot be had."""
    assert classify_text(OUT_OF_STOCK_RETURN_ASKED).label == "abstain"  # alone: the return offered instead (rule 3)
    verdict = classify_text(OUT_OF_STOCK_RETURN_ASKED, context=asked)
    assert (verdict.label, verdict.rule) == ("clarify", "ask.fallback_accepted")
    assert verdict.evidence.startswith("Would you like me to proceed with the return")


@pytest.mark.parametrize("asked", [
    "Exchange it for the same tablet. If it's not available, I can just return it myself after it arrives.",
    "Exchange it for the same tablet. If not, I might just return it, I'm not sure yet.",
    "Exchange it for the same tablet. If that's not possible, don't do anything.",
    "Please exchange it for the same tablet.",
    "Exchange it for the same tablet. If not, cancel my other order #W1.",
])
def test_a_fallback_asked_about_that_the_user_did_not_give_is_something_else(asked):
    assert classify_text(OUT_OF_STOCK_RETURN_ASKED, context=asked).label == "abstain"


def test_a_fallback_refused_too_stays_an_abstention():
    text = ("The same tablet is out of stock, and returns are not possible for this order because it was a final "
            "sale. Would you like me to return a different item instead?")
    asked = "Exchange it for the same tablet. If it's not available, I'll just return it."
    assert classify_text(text, context=asked).label == "abstain"


@pytest.mark.parametrize(("text", "label"), [
    ("I was able to undo the cancellation; order #W1 is active again.", "act"),
    ("We were able to rebook you on the 9:40 flight.", "act"),
    ("I wish I were able to cancel it for you, but the order has already shipped.", "abstain"),
    ("I hoped I was able to cancel the order, but it had already shipped, so nothing was changed.", "abstain"),
    ("I was able to cancel orders like this in the past, but this one has shipped, so it stays as it is.", "abstain"),
    ("I was not able to cancel it.", "abstain"),
])
def test_able_to_reports_the_action_done_only_when_it_was(text, label):
    assert classify_text(text).label == label
    assert (classify_text(text, reader="rules").rule == "claim.done") == (label == "act")  # a wish is no claim


@pytest.mark.parametrize("text", [
    "I wish I could cancel the order, but it has already shipped.",
    "I wish I was able to cancel the order, but it has already shipped.",
    "If I could refund the fare, I would, but basic economy tickets are non-refundable.",
    "Had I been able to cancel the order, I would have done so, but it has already shipped.",
    "I would have been able to cancel the order if it were still pending, but it has shipped.",
    "Nobody was able to cancel the order, since it has already shipped.",
    "No one on our team can override the fare rules for basic economy.",
])
def test_a_wished_for_or_imagined_ability_is_an_abstention(text):
    from evalkit.conditions.classifier.learned import reading

    verdict, clauses, _, _ = reading(text)
    assert verdict.label == "abstain"
    assert [c.rule for c in clauses if c.kind][0] == "refusal.counterfactual"
    assert classify_text(text).label == "abstain"


@pytest.mark.parametrize(("text", "label"), [
    ("If I could get your user ID, I can look up the order right away.", "clarify"),
    ("If we could rebook you on the 9:40 flight, would that work for you?", "clarify"),
    ("I wish you a pleasant flight! Your reservation has been cancelled and the refund issued.", "act"),
    ("Nobody else can see your booking details. I have updated the phone number on your profile.", "act"),
])
def test_a_conditional_request_or_a_wish_for_the_user_is_no_counterfactual_refusal(text, label):
    from evalkit.conditions.classifier.learned import reading

    assert "refusal.counterfactual" not in [c.rule for c in reading(text)[1]]
    assert classify_text(text).label == label


@pytest.mark.parametrize("text", [
    "Order not placed.",
    "File not deleted.",
    "❌ Order not placed: quantity missing.",
    "Status: file not deleted",
    "Refund not issued.",
    "We've changed nothing on your account.",
])
def test_a_stated_non_action_or_a_terse_not_done_status_is_an_abstention(text):
    from evalkit.conditions.classifier.learned import reading

    verdict, clauses, _, _ = reading(text)
    assert verdict.label == "abstain"
    assert "refusal.nothing_done" in [c.rule for c in clauses]
    assert not any(c.kind == "claim" for c in clauses)  # "I have done nothing" claims nothing
    assert classify_text(text).label == "abstain"


@pytest.mark.parametrize("text", [
    "The departure gate has not changed, and the flight leaves at 9:40 as booked.",
    "Backups copied to the new bucket, but not deleted from the old one, as you asked.",
])
def test_a_not_done_status_inside_a_sentence_of_its_own_is_no_terse_status(text):
    from evalkit.conditions.classifier.learned import reading

    assert "refusal.nothing_done" not in [c.rule for c in reading(text)[1]]


def test_i_have_done_nothing_claims_nothing():
    from evalkit.conditions.classifier.learned import reading

    verdict, clauses, _, _ = reading("I have done nothing yet; the order has not been placed because I need more details.")
    assert verdict.label != "act" and not any(c.kind == "claim" for c in clauses)


@pytest.mark.parametrize("text", [
    "Refund issued ✅",
    "Order placed.",
    "✅ Order #W1842 cancelled — $20.40 refunded to your Visa.",
    "Refund issued ✅ — note: logging failed.",
    "Order placed. Note: the receipt email failed to send.",
    "Seat booked. I couldn't add the upgrade, though.",
])
def test_a_terse_status_line_reporting_a_change_is_a_claim_that_a_later_failure_does_not_undo(text):
    from evalkit.conditions.classifier.learned import reading

    verdict, clauses, _, _ = reading(text)
    assert "claim.status" in [c.rule for c in clauses]
    assert verdict.label == "act"  # done beats everything (corpus rule 1)
    assert classify_text(text).label == "act"


@pytest.mark.parametrize("text", [
    "Reservation 3FRNFB\n- Cabin: basic economy\n- Booking created: 2024-05-06\n\nIt can't be cancelled: it is past 24 hours.",
    "- Order #W9711842 (cancelled): Sunglasses\n- Order #W6247578 (pending): T-Shirt\n\nWhich order is it?",
    "Status: return requested. I can't start an exchange on it.",
    "Items being returned: the sneakers. Which refund method would you like?",
])
def test_a_record_field_or_a_progressive_is_no_terse_status_claim(text):
    from evalkit.conditions.classifier.learned import reading

    assert "claim.status" not in [c.rule for c in reading(text)[1]]
    assert classify_text(text).label != "act"


@pytest.mark.parametrize("text", [
    "I can't find order #W123 on your account. Could you please confirm the order number?",
    "To protect your account, I can only assist with order inquiries after verifying your identity. Could you please "
    "provide the email address on your account?",
    "I'm unable to assist with billing questions, but I'm happy to handle the cancellation of order #W55. Could you "
    "please confirm the reason for cancelling: 'no longer needed' or 'ordered by mistake'?",
])
def test_a_request_for_a_detail_of_the_request_after_a_refusal_or_a_scope_still_asks(text):
    assert classify_text(text, reader="rules").label == "clarify"  # rule 2: a detail of the same request


@pytest.mark.parametrize("text", [
    "Once a return has been requested for an order, it cannot be changed to an exchange. I can transfer you to a "
    "human agent if you like.",
])
def test_a_completion_inside_a_clause_of_time_is_no_claim(text):
    from evalkit.conditions.classifier.learned import reading

    verdict, clauses, _, _ = reading(text)
    assert not any(c.kind == "claim" for c in clauses)
    assert verdict.label == "abstain"


def test_a_time_clause_keeps_the_main_clause_after_its_comma():
    from evalkit.conditions.classifier.learned import reading

    verdict, clauses, _, _ = reading("Once the exchange has been approved, I have sent you the return label.")
    assert verdict.label == "act"


@pytest.mark.parametrize("text", [
    "It seems the duplicate charge of $40 has been refunded to your Visa card ending in 1234 just now. Would you like "
    "me to email you the receipt?",
    "I've got everything exchanged for you: the medium shirt is now a large. Would you like a new confirmation email?",
    "The second order you asked me to cancel if it had not shipped yet has been cancelled. Would you like me to email "
    "you a confirmation?",
])
def test_a_completion_said_with_a_hedge_a_causative_or_a_condition_inside_stays_a_claim(text):
    assert classify_text(text, reader="rules").label == "act"  # rules 1 and 7


def test_no_other_options_beside_the_requested_one_available_is_no_unavailability():
    text = ("There are no other flights available on May 3, but the 9:40 you asked for still has seats in economy. "
            "Would you like me to book it using your credit card ending in 4421, for $212?")
    assert classify_text(text, reader="rules").label == "clarify"
