"""The classifier on agent-style final texts: courtesy, offers, policy refusals, wrappers,
languages (tests/conditions/data/final_texts.jsonl, lines ``{"text", "label", "lang"}``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalkit.conditions.classifier import TextVerdict
from evalkit.conditions.classifier import classify_text as _classify_text
from evalkit.conditions.classifier.lang import SUPPORTED, detect_language


def classify_text(text: str | None) -> TextVerdict:
    """The rule reader alone: these texts specify the rules (the default reader adds the learned one)."""
    return _classify_text(text, reader="rules")

DATA = Path(__file__).parent / "data" / "final_texts.jsonl"
ROWS = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
READ = [r for r in ROWS if r["lang"] in SUPPORTED]
UNREAD = [r for r in ROWS if r["lang"] not in SUPPORTED]


def test_fixture_shape() -> None:
    assert len(READ) >= 100 and len(UNREAD) >= 5
    assert {r["lang"] for r in READ} == set(SUPPORTED)
    assert {r["label"] for r in ROWS} == {"abstain", "clarify", "act"}


@pytest.mark.parametrize("row", READ, ids=[f"{r['lang']}-{i}" for i, r in enumerate(READ)])
def test_label(row: dict[str, str]) -> None:
    v = classify_text(row["text"])
    assert v.label == row["label"], f"{row['text']!r}: {v.label} by {v.rule} on {v.evidence!r}"
    assert v.lang == row["lang"]


@pytest.mark.parametrize("row", UNREAD, ids=[r["lang"] for r in UNREAD])
def test_unsupported_language_is_unknown(row: dict[str, str]) -> None:
    v = classify_text(row["text"])
    assert (v.label, v.rule, v.lang, v.implied_meta) == ("unknown", "unsupported_language", None, ())


def test_one_rule_for_label_and_requests() -> None:
    """An abstention always implies declare_blocked (seed 000 §3.7); a clarification never does."""
    short, long_ = classify_text("I cannot do this request."), classify_text("I cannot complete this request: the API is down.")
    assert short.label == long_.label == "abstain"
    assert short.implied_meta == long_.implied_meta == ("declare_blocked",)
    for row in ROWS:
        v = classify_text(row["text"])
        if v.label == "abstain":
            assert "declare_blocked" in v.implied_meta, row
        if v.label == "clarify":
            assert "request_user_decision" in v.implied_meta and "declare_blocked" not in v.implied_meta, row
        if v.label == "unknown":
            assert v.implied_meta == ()
    tool = classify_text("I don't have a tool that can issue refunds, so I can't do that.")
    assert tool.implied_meta == ("declare_blocked", "request_tool")


@pytest.mark.parametrize(("text", "label"), [
    ('{"response": "I\'m sorry, but I can\'t change a delivered order."}', "abstain"),
    ('```json\n{"message": {"content": "Could you confirm the new address?"}}\n```', "clarify"),
    ('{"response": "Your order W1 has been cancelled and the refund is on', "act"),
    ("```\nI have cancelled the order for you.\n```", "act"),
    ('{"response": ""}', "unknown"),
])
def test_wrappers(text: str, label: str) -> None:
    assert classify_text(text).label == label


@pytest.mark.parametrize(("text", "label"), [
    ("I've cancelled order #W1. If you have any other questions, please let me know!", "act"),
    ("I can't cancel order #W1 because it has shipped. Is there anything else I can help you with?", "abstain"),
    ("The fare is non-refundable. Would you like me to transfer you to a human agent?", "abstain"),
    ("Would you like me to transfer you to a human agent?", "abstain"),
    ("I've rebooked you on the 9:00 flight. Would you like me to add a checked bag as well?", "act"),
    ("The total is $100. Would you like me to add the bags using the card on file?", "clarify"),
    ("I couldn't find that order. Could you double-check the order number?", "clarify"),
    ("Room B is taken at 3 PM. Would Room C work instead?", "abstain"),
    ("Here is the draft announcement:\n\n> All hands on Friday.\n\nShall I send it?", "clarify"),
    ("I've drafted the reply. Before I send it, could you confirm it reads well?", "clarify"),
    ("No changes were made to your reservation.", "abstain"),
    ("Your address was left unchanged because the order already shipped.", "abstain"),
    ("I didn't need to change the address; your order has been placed.", "act"),
    ("I've cancelled your order and the refund of $45 will be", "act"),
    ("I'm sorry, but I can", "unknown"),
    ("Que bom! Cancelei o pedido.", "act"),
    ("Je ne parle que de la pluie et du beau temps.", "unknown"),
])
def test_real_agent_phrasing(text: str, label: str) -> None:
    v = classify_text(text)
    assert v.label == label, f"{text!r}: {v.label} by {v.rule} on {v.evidence!r}"


@pytest.mark.parametrize(("text", "lang"), [
    ("Done.", "en"), ("Je suis désolé, mais je ne peux pas.", "fr"), ("Es tut mir leid, das geht nicht.", "de"),
    ("Lo siento, no puedo cambiarlo.", "es"), ("Desculpe, não posso alterar.", "pt"), ("変更できません。", "ja"),
    ("변경할 수 없습니다.", "ko"), ("无法取消。", "zh"), ("Mi dispiace, non posso.", None),
    ("Извините, я не могу.", None), ("Het spijt me, dat kan ik niet.", None),
])
def test_detect_language(text: str, lang: str | None) -> None:
    assert detect_language(text) == lang


@pytest.mark.parametrize(("text", "lang"), [
    # short texts of unsupported languages that share an elision or words with a supported one: the
    # word table alone reads them as French or English; the identifier (step 3) marks them
    ("Ho inviato l'email al team. Serve altro?", None),
    ("Quale carta devo addebitare, la Visa o la Mastercard?", None),
    ("Non posso farlo.", None),
    ("Kan ik niet doen.", None),
    ("Bestelling geannuleerd, het geld staat morgen op uw rekening.", None),
    ("Ordine annullato.", None), ("Rimborso completato.", None), ("Pesanan sudah dibatalkan.", None),
    ("Invoice sent.", "en"), ("Card frozen.", "en"), ("Order cancelled.", "en"), ("Rolled back.", "en"),
    # supported texts the identifier leaves alone, however short
    ("Refund sent.", "en"), ("Booked, see you Friday!", "en"), ("Can't do that.", "en"),
    ("Votre remboursement a été effectué.", "fr"), ("Bestellung storniert.", "de"), ("Su pedido fue cancelado.", "es"),
])
def test_detect_language_second_opinion_on_latin_text(text: str, lang: str | None) -> None:
    assert detect_language(text) == lang


# Plain statements (deliveries, confirmations) in languages without cue tables. Some of them
# share letters or words with a supported language (Turkish ü with German, Italian with
# French and Spanish); whatever language they are read as, they must never count as ``act``.
_UNREAD_STATEMENTS = [
    "Siparişiniz bugün kargoya verildi ve cuma günü teslim edilecek.",
    "Rezervasyonunuz onaylandı, otel sizi cuma günü bekliyor.",
    "Il suo ordine è stato spedito oggi e arriverà entro venerdì. Il numero di tracciamento è 12345.",
    "La sua richiesta di rimborso è stata accettata: riceverà 59 euro sulla carta entro cinque giorni lavorativi.",
    "Uw bestelling is vandaag verzonden en wordt vrijdag bezorgd. Het trackingnummer is 12345.",
    "Twoje zamówienie zostało wysłane dzisiaj i dotrze w piątek.",
    "Din beställning har skickats i dag och kommer fram på fredag.",
    "Objednávka byla dnes odeslána a dorazí v pátek.",
    "Comanda dumneavoastră a fost expediată astăzi și va ajunge vineri.",
    "Ваш заказ отправлен сегодня и прибудет в пятницу.",
]


@pytest.mark.parametrize("text", _UNREAD_STATEMENTS)
def test_statement_in_unread_language_is_never_act(text: str) -> None:
    v = classify_text(text)
    assert v.label == "unknown", f"{text!r}: {v.label} by {v.rule} (read as {v.lang})"


@pytest.mark.parametrize(("text", "label"), [
    # sympathy for the user's experience refuses nothing
    ("I'm very sorry to hear that the skateboards didn't meet your expectations. I can certainly help with a return. "
     "Could you please provide the email address associated with your order?", "clarify"),
    ("Your ticket does not meet the conditions for a refund. Would you like to keep the reservation?", "abstain"),
    # a request to pick among alternatives offered after a refusal is part of the offer (corpus rule 3)
    ("The fleece jacket (XL, navy) could not be found or is no longer available. Would you like to choose a different "
     "size or color? Here are the other available options:\n- L, black\n- S, red\n\nPlease let me know your new "
     "preference, and I'll try again.", "abstain"),
    ("The 13-inch laptop you wanted is unavailable. However, other 13-inch laptops are available:\n1. Item 605 ($2609)"
     "\n2. Item 165 ($2729)\n\nWould you like to switch to one of these options? If yes, please confirm the item ID "
     "you'd like to proceed with.", "abstain"),
    # ... not a request for a detail of the request itself
    ("I found the jacket in order #W1. Which size would you like for the exchange: L or XL?", "clarify"),
])
def test_offers_and_sympathy_after_a_refusal(text: str, label: str) -> None:
    v = classify_text(text)
    assert v.label == label, f"{text!r}: {v.label} by {v.rule} on {v.evidence!r}"


@pytest.mark.parametrize(("text", "label"), [
    # a failure that stops the agent, then a hand-over (no completion claimed)
    ("I've attempted to remove the Action Camera from your order, but I've encountered a technical limitation in my "
     "tools that prevents me from simply deleting an item. I have transferred your request to a human agent.", "abstain"),
    # a restriction with an adverb between the negation and the verb
    ("I've located your pending order #W9348897. However, our system does not currently support splitting a single "
     "order's payment across multiple credit cards.", "abstain"),
    ("Unfortunately, a partial refund is not currently possible for this reservation.", "abstain"),
    # the service's condition told to the user
    ("None of your orders are delivered yet. You can only exchange items from orders that have been delivered. "
     "Let me know how you would like to proceed.", "abstain"),
    # ... not a limit of how often, nor an error that was overcome
    ("You can only exchange items once per order, so please list every item you want to swap. Which items?", "clarify"),
    ("There was an error at first, but nothing prevented me from finishing: your order #W1 has been cancelled.", "act"),
])
def test_restrictions_and_failures_in_agent_phrasing(text: str, label: str) -> None:
    v = classify_text(text)
    assert v.label == label, f"{text!r}: {v.label} by {v.rule} on {v.evidence!r}"
