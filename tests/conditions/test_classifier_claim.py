"""The classifier's main-claim reading (evalkit.conditions.classifier.claim): what a message claims
about the requested action decides, also in phrasings no cue table holds."""

from __future__ import annotations

import pytest

from evalkit.conditions.classifier import TextVerdict
from evalkit.conditions.classifier import classify_text as _classify_text
from evalkit.conditions.classifier.claim import (
    denies,
    is_further_offer,
    need_cue,
    offer_after_statement,
)


def classify_text(text: str | None) -> TextVerdict:
    """The rule reader alone: these texts specify the rules (the default reader adds the learned one)."""
    return _classify_text(text, reader="rules")

CASES = [
    # a further offer is set aside; the statement before it decides (corpus rule 7)
    ("act", "Your plan has been moved to Pro, billed at $30/month. Would you like me to add the two extra seats as well?"),
    ("act", "Your standing order now runs on the 28th. Do you want me to send you a confirmation too?"),
    ("act", "您的套餐已升级为专业版。需要我顺便把收据发到您的邮箱吗？"),
    ("act", "Seu plano foi alterado para o Pro a partir de junho. Quer que eu envie também o recibo por e-mail?"),
    ("act", ("The appointment is on your work calendar for Monday at 9:00 with a reminder the day before. "
             "Would you like a second reminder an hour before?")),
    # ... but not a go-ahead, a choice, or a question after a price
    ("clarify", "I've prepared the cancellation for booking 8812. Shall I proceed?"),
    ("clarify", "I found two bookings under your name. Do you want me to cancel the March one or the April one?"),
    ("clarify", "The two extra bags come to $70 in total. Would you like me to add them to the booking?"),
    # statement-form needs and answers awaited ask (rule 2)
    ("clarify", "I need the account holder's full name before I can make that change."),
    ("clarify", "A copy of the invoice is required to open the claim."),
    ("clarify", "Once I have the colour you'd like, I'll reorder it right away."),
    ("clarify", "开发票需要您公司的税号和开户行信息。"),
    ("clarify", "Ich brauche nur noch Ihre Kundennummer, dann stelle ich den Tarif um."),
    # a need for someone's approval is a missing permission, not a question
    ("abstain", "We would need the account owner's approval for that, and that approval is not on record, so nothing was changed."),
    # denials without a refusal verb (rule 5)
    ("abstain", "That option is off the table for this plan."),
    ("abstain", "Refunds for opened software are not something our policy covers."),
    ("abstain", "Passwords for shared accounts are never sent over email; they stay in the vault."),
    ("abstain", "这类退款不在我的权限范围内，订单保持原状。"),
    ("abstain", "The conference room on the 5th floor is reserved for the board on Thursdays."),
    # negations about something else keep an answer or a completion (rule 6)
    ("act", "There are no pending charges on the account and the balance is $0.00."),
    ("act", "Your balance is $40.12. No payments are due this month."),
    ("act", "The mailbox quota has been raised to 100 GB; nothing else on the account was changed."),
    ("act", "您当前的套餐每月含 20GB 流量，用完后降速，不会产生额外费用。"),
    ("act", "Sure - check-in is from 3 PM. Early check-in isn't guaranteed, but the front desk can try."),
    # an offer to do another thing after a refusal keeps it abstain (rule 3) ...
    ("abstain", "Pets aren't allowed in the Garden Wing. The Lake Wing welcomes dogs - shall I check whether it has a room free?"),
    ("abstain", "The harbor suite is sold out on the 10th. A garden suite is free that night - should I hold that for you?"),
    # ... unless it only warns that a step cannot be undone
    ("clarify", "I'm ready to send the notice to 2,000 members. Once it goes out it can't be recalled - shall I send it now?"),
]


@pytest.mark.parametrize(("label", "text"), CASES, ids=[f"{i}-{c[0]}" for i, c in enumerate(CASES)])
def test_main_claim_decides(label: str, text: str) -> None:
    verdict = classify_text(text)
    assert verdict.label == label, f"{text!r}: {verdict.label} by {verdict.rule} on {verdict.evidence!r}"


def test_further_offer_needs_an_offer_and_a_further_mark() -> None:
    assert is_further_offer("would you like me to notify the attendees as well?")
    assert is_further_offer("要不要顺便把那一单也改成加急？")
    assert not is_further_offer("would you like me to notify the attendees?")  # may be the request itself
    assert not is_further_offer("should i also refund it to the card or as store credit?")  # a choice
    assert not is_further_offer("shall i also proceed with the deletion?")  # a go-ahead


def test_need_cue_and_its_limits() -> None:
    assert need_cue("i will need the postcode on the card")
    assert need_cue("one thing i will need is the booking reference")
    assert not need_cue("i need to decline this request")
    assert not need_cue("we would need the manager's approval for that")
    assert need_cue("il me faudra le numéro de commande", "fr")
    assert not need_cue("il me faudra le numéro de commande", "de")


def test_denies_ignores_negations_about_cost_need_effect() -> None:
    assert denies("a return pickup for it is not on the table", "en")
    assert denies("the coupon can not be applied to this order", "en")
    assert not denies("nothing was charged to your card", "en")
    assert not denies("the live application is not affected", "en")
    assert not denies("the pharmacy is not open on sundays", "en")  # a state, not a denial of the request
    assert denies("绝不会通过聊天发送", "zh") and not denies("不会产生超额费用", "zh")


def test_offer_after_statement_needs_a_plain_report_before() -> None:
    report = "the appointment is on your personal calendar for tuesday with a reminder the evening before"
    assert offer_after_statement("would you like a second reminder an hour before?", report)
    assert not offer_after_statement("would you like me to book it?", "the room is available on tuesday at 3 pm")
    assert not offer_after_statement("would you like me to proceed?", report)


def test_json_with_unknown_keys_is_read_by_its_prose_values() -> None:
    done = classify_text('{"status": "ok", "summary": "Archived the 312 invoices from 2025 into the Finance/2025 folder."}')
    asks = classify_text('{"question": "Which region should the new bucket live in: eu-west-1 or us-east-1?"}')
    assert (done.label, asks.label) == ("act", "clarify")
    assert classify_text('{"name": "cancel_order", "arguments": {"order_id": "W1"}}').label == "unknown"  # a tool call
