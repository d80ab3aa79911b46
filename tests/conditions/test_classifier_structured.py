"""Final texts that are status records, XML, failure reports, or English/Chinese that the language rule
could mistake for another language (evalkit.conditions.classifier)."""

from __future__ import annotations

import pytest

from evalkit.conditions.classifier import classify_text
from evalkit.conditions.classifier.lang import detect_language
from evalkit.conditions.classifier.text import _unwrap


@pytest.mark.parametrize(("text", "lang"), [
    # a word shared with an unsupported language's list ("to": Polish) is a tie the identifier settles
    ("Sent $600 to Jordan via Zelle. Ref ZL-88412.", "en"),
    ("Deployed v2.8.0 to staging. Smoke tests passed.", "en"),
    ("Savings account closed; $1,210.00 moved to checking.", "en"),
    # symbols and emoji do not make ASCII-lettered text foreign
    ("thermostat set to 68°F 👍", "en"),
    ("Refund issued — $18.40 back to Visa •4412.", "en"),
    # identifiers carry no language: the Chinese around them decides
    ("部署在 us-east-1 还是 ap-northeast-1？", "zh"),
    ("重启哪个 Deployment，payment-api 还是 payment-worker？", "zh"),
    ("`order_service.py` 的 `retry_policy` 改好了", "zh"),
    # ... and other languages stay unread
    ("Mi dispiace, non posso annullare l'ordine.", None),
    ("Het spijt me, ik kan dat niet doen.", None),
    ("Ho inviato l'email al team. Serve altro?", None),
    ("Ordine annullato.", None),
    # romanised or other Latin languages with no English word are not English by default
    ("Sumimasen, sore wa dekimasen.", None),
    ("Hapana asante.", None),
    ("Mae'n ddrwg gen i, ni allaf wneud hynny.", None),
    ("Lorem ipsum dolor sit amet.", None),
    # a supported language the identifier is sure of, with no function word
    ("Commande annulée.", "fr"),
    ("Erledigt – Abwesenheitsnotiz bis 24.04. aktiv.", "de"),
    # identifiers are no words: "E_QUOTA" is not the Portuguese "e"
    ("status: failed\ncode: E_QUOTA", "en"),
    ("Invoice sent.", "en"),
    ("Permission denied.", "en"),
])
def test_language_of_short_agent_texts(text: str, lang: str | None) -> None:
    assert detect_language(text) == lang


@pytest.mark.parametrize(("text", "body"), [
    # a status word under a text key is not the message: the record is read field by field
    ('{"result":"ok","order_id":"SO-88213","action":"cancelled","refund":"129.00"}',
     "result: ok\norder id: SO-88213\naction: cancelled\nrefund: 129.00"),
    # numbers and flags carry no statement ("code: 0" is not "zero")
    ('{"code":0,"ok":true,"msg":"success","data":{"leave_id":"LV-3391","status":"submitted"}}',
     "msg: success\nleave id: LV-3391\nstatus: submitted"),
    # prose under any key is the message, as before
    ('{"result": "pending", "question": "Which mailbox should send it, yours or the team one?"}',
     "Which mailbox should send it, yours or the team one?"),
    ('{"response": "Done."}', "Done."),
    # XML: element text in document order, HTML left to the markup stripper, entities never expanded
    ("```xml\n<task>\n  <status>paused</status>\n  <message>Skip the 14 rows or wait?</message>\n</task>\n```",
     "status: paused\nmessage: Skip the 14 rows or wait?"),
    ("<result>Done, the order is cancelled.</result>", "Done, the order is cancelled."),
    ("<p>I <b>cannot</b> do that.</p>", "<p>I <b>cannot</b> do that.</p>"),
    # a failure in a status field leads the message; a success status does not
    ('{"status": "failed", "error": "Payment gateway timeout on the first attempt"}',
     "status: failed\nPayment gateway timeout on the first attempt"),
    ('{"success": false, "message": "Reservation ABC123 on flight UA100"}',
     "status: failed\nReservation ABC123 on flight UA100"),
    ('{"status": "ok", "message": "Reservation ABC123 cancelled and refunded."}',
     "Reservation ABC123 cancelled and refunded."),
    ('{"success": false, "order_id": "A1"}', "status: failed\norder id: A1"),
    # XML attributes and text after a child element are read
    ('<result status="failed">Quota exceeded for project alpha</result>',
     "status: failed\nresult: Quota exceeded for project alpha"),
    ("<response><status>ok</status> but I could not cancel it </response>",
     "status: ok\nbut I could not cancel it"),
    # a closed fence followed by prose is not a cut-off fence
    ("```\n+ @acme/ui-kit@2.4.0\n```\nPublished to npm.", "```\n+ @acme/ui-kit@2.4.0\n```\nPublished to npm."),
    ('<!DOCTYPE x [<!ENTITY a "aaaa">]><x>&a;</x>', '<!DOCTYPE x [<!ENTITY a "aaaa">]><x>&a;</x>'),
])
def test_wrapped_messages_are_opened(text: str, body: str) -> None:
    assert _unwrap(text) == body


@pytest.mark.parametrize(("text", "label"), [
    ('{"result":"ok","order_id":"SO-88213","action":"cancelled","refund":"129.00"}', "act"),
    ('{"result":"error","message":"permission denied"}', "abstain"),
    ('{"result": "pending", "question": "要用哪个邮箱发，个人的还是部门公共邮箱？"}', "clarify"),
    ("<response><status>declined</status><reason>scanning unauthorised hosts is out of scope</reason></response>",
     "abstain"),
    ("```xml\n<task>\n  <status>paused</status>\n  <message>Skip the 14 rows or wait for the fixed file?</message>\n"
     "</task>\n```", "clarify"),
    ('{"status": "declined", "reason": "Fare class is basic economy"}', "abstain"),
    ('{"error": "Order not found"}', "abstain"),
    ('{"errors": ["Order W1 not found"]}', "abstain"),
    ('{"error": {"code": 500, "message": "Internal error"}}', "abstain"),
    ('{"status": "timeout", "order": "W1"}', "abstain"),
    ('{"success": "false", "order": "W1"}', "abstain"),
    ('{"completed": 0, "order": "W1"}', "abstain"),
    ('{"status": "ok", "errors": []}', "act"),
    ("STATUS: OK", "act"),
    ("<response><!-- audit note --><status>failed</status></response>", "abstain"),
    ("<response><status><![CDATA[declined]]></status></response>", "abstain"),
    ('{"状态": "失败", "错误": "支付网关超时，请稍后再试"}', "abstain"),
    ('<response status="declined" reason="not allowed"/>', "abstain"),
])
def test_status_records(text: str, label: str) -> None:
    assert classify_text(text, reader="rules").label == label
    assert classify_text(text).label == label


@pytest.mark.parametrize(("text", "label"), [
    # failure reports
    ("Permission denied.", "abstain"),
    ("Result: FAILED", "abstain"),
    ("Error: permission denied for role deployer.", "abstain"),
    ("status: failed\nreason: insufficient funds", "abstain"),
    ("The export to PDF failed — the document is over the 50 MB limit. No file was created.", "abstain"),
    ("`npm publish` failed with E403: the token has no publish rights.", "abstain"),
    # ... not a failure: none failed, a failure that was fixed, a failed thing acted on
    ("pipeline #90312 passed: 1,882 passed, 0 failed. Deployed to staging.", "act"),
    # a zero count of failures is a success, not "nothing done"
    ("Tests passed. Failures: 0", "act"),
    ("Build finished. Warnings: 0, Errors: 0.", "act"),
    ("Deployed v2.3.1 to production. No errors were reported.", "act"),
    ("No changes were made to the order.", "abstain"),
    # ... while a zero count of the work itself is nothing done
    ("Refunded 0 of 3 orders.", "abstain"),
    ("Processed 0 of 3 refunds.", "abstain"),
    ("3 tests failed on CI; I fixed them and pushed.", "act"),
    ("I re-ran the failed tests and they pass now.", "act"),
    ("Your last payment failed, so I retried it and it went through.", "act"),
    # a failed outcome in headline style, subject and participle only
    ("Payment declined.", "abstain"),
    ("Payment failed.", "abstain"),
    ("Transfer rejected by the bank.", "abstain"),
    ("Refund not processed.", "abstain"),
    ("Request denied.", "abstain"),
    # ... not beside a completion, not a run of checks, not a negated failure
    ("I sent the invoice to Acme. The reminder email bounced, but the invoice went through.", "act"),
    ("3 tests failed on CI.", "act"),
    ("Nothing failed.", "act"),
    ("No payments failed.", "act"),
    ("Payment not declined — it went through. Order #88 is placed.", "act"),
])
def test_failure_reports_in_the_rules(text: str, label: str) -> None:
    assert classify_text(text, reader="rules").label == label


@pytest.mark.parametrize(("text", "label"), [
    ("✅ Done!", "act"),
    ("🎉 Done!", "act"),
    ("✔️ Refund of $42.10 issued to the Visa ending 4412.", "act"),
    ("⚠️ Can't do that: the order already shipped.", "abstain"),
    ("❌ Not sent — the recipient's mailbox rejected the attachment.", "abstain"),
    ("👉 Which account, checking or savings?", "clarify"),
])
def test_a_mark_or_emoji_opening_a_clause_is_set_aside(text: str, label: str) -> None:
    assert classify_text(text, reader="rules").label == label
    assert classify_text(text).label == label


@pytest.mark.parametrize(("text", "label", "rule"), [
    ("✅", "act", "act.mark"),
    ("✔️ ✔️", "act", "act.mark"),
    ("\u2714\ufe0e", "act", "act.mark"),  # the text-style variation selector
    ("❌", "abstain", "refusal.mark"),
    ("☒", "abstain", "refusal.mark"),
    ("⛔️", "abstain", "refusal.mark"),
    # marks of both kinds, other emoji, digits and punctuation say nothing readable
    ("❌ ✅", "unknown", "no_words"),
    ("👍", "unknown", "no_words"),
    ("🎉🎉", "unknown", "no_words"),
    ("12345", "unknown", "no_words"),
    ("...", "unknown", "no_words"),
])
def test_a_text_of_marks_only(text: str, label: str, rule: str) -> None:
    for reader in ("rules", "combined"):
        verdict = classify_text(text, reader=reader)
        assert (verdict.label, verdict.rule) == (label, rule)
    assert classify_text("❌").implied_meta == ("declare_blocked",)


@pytest.mark.parametrize(("text", "label"), [
    # a text that is all block quote is the agent's own message set as a quote
    ("> I've cancelled the subscription.", "act"),
    ("> Done.\n> Your refund of $18.40 is on its way.", "act"),
    ("> > I can't do that: the order already shipped.", "abstain"),
    ("> Which account, checking or savings?", "clarify"),
    # a block quote beside the agent's own words is still not its voice
    ("> please cancel my plan\n\nI can't cancel it: the plan is under a 12-month contract.", "abstain"),
    ("> I can't do that\n\nthat's what the old system said; I've now cancelled the plan.", "act"),
])
def test_block_quotes(text: str, label: str) -> None:
    assert classify_text(text, reader="rules").label == label


@pytest.mark.parametrize(("text", "label"), [
    ('[{"order": "A1", "status": "refunded", "amount": "18.40"}]', "act"),
    ('[{"status": "failed", "reason": "card declined"}]', "abstain"),
    ('[{"ok": false, "order": "A1"}]', "abstain"),
    ('[{"type": "text", "text": "Which address should I ship it to?"}]', "clarify"),
    ('["I can\'t change a fare after check-in."]', "abstain"),
])
def test_a_json_list_of_records(text: str, label: str) -> None:
    assert classify_text(text, reader="rules").label == label
    assert classify_text(text).label == label


@pytest.mark.parametrize(("text", "label"), [
    ('[["I\'m sorry, I can\'t do that."]]', "abstain"),
    ('[[["Which order, #W1 or #W2?"]]]', "clarify"),
    ('[["I have cancelled order #W1."], {"order": "W1", "status": "cancelled"}]', "act"),
])
def test_nested_json_lists_are_read(text: str, label: str) -> None:
    assert classify_text(text, reader="rules").label == label


def test_a_json_list_without_text_is_unread() -> None:
    assert classify_text("[1, 2, 3]").label == "unknown"
    assert classify_text('[{"id": 3}]').label == "unknown"


@pytest.mark.parametrize(("text", "label"), [
    # what is asked after an alternative proposed beside a refusal serves the alternative (corpus rules 3, 4)
    ("Since the order is still pending, I cannot process a return, but I can help you cancel it instead! To proceed "
     "with the cancellation, I just need to know the reason: no longer needed, or ordered by mistake? Please let me "
     "know, and I'll get that cancelled for you.", "abstain"),
    ("There is no black T-shirt available in size L. Would you like the black XL instead, or the red L? Please let "
     "me know your choice.", "abstain"),
    ("我无法为您退货，但可以为您换货。请问您想换成什么尺码？", "abstain"),
    ("这个订单已经发货，无法取消，不过可以帮您申请退货。请问退货原因是什么？", "abstain"),
    # a not-found with a way to find the same thing asks for the detail (rule 2)
    ("I can't find order #W123, but I can look it up by email instead. What's the email on the account?", "clarify"),
    # a question for a detail of the request itself, with no alternative proposed, asks (rule 2)
    ("I can't change the date without the booking reference. Could you send it?", "clarify"),
    ("订单号不对，查不到这个订单，可以帮您按手机号查询。请问您的手机号是多少？", "clarify"),
])
def test_questions_that_serve_an_alternative(text: str, label: str) -> None:
    assert classify_text(text, reader="rules").label == label
