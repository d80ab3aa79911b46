"""Reading a final text in the light of the user's message before it (DESIGN §5).

A text alone does not always show what the exchange asked for. When a caller has the user's message
just before the final text (``context`` of :func:`~evalkit.conditions.classifier.classify_text`: a
run's last user turn, or a labelled line's ``context_user``), one rule uses it:

* :func:`request_kind` reads what the user's message asks for: ``action`` (a change to the user's
  things, a go-ahead, "yes"), ``information`` (a question, or a request to show, list, check, look
  up, find, tell, explain, compare or calculate) or ``none`` (no request: thanks, details given, the
  user's own account to be found); the last request in the message decides.
* :func:`read_in_context`: after a request for an ``action``, a text whose rule reading reports a
  change done or made now ("The order #W5481803 has been successfully cancelled ...", "I'll proceed
  with the exchange now") is ``act`` even when the learned reader read it otherwise for a later
  question or offer: done beats everything (corpus rule 1) and a text that says it proceeds is
  ``act`` (rule 8). A reported lookup, authentication or failure is no change.

* :func:`read_in_context` also reads two requests whose answer the text alone cannot tell apart:
  after a request to undo something (``undo``, ``reverse``, ``reinstate``, ``restore``, ``revert``,
  ``reactivate``, "cancel the cancellation" ...), a text that says the thing cannot be undone,
  reversed or reinstated refuses the request (``abstain``, ``refusal.cannot_undo``: corpus rule 5,
  offers of a new order set aside by rule 3), where alone it reads as a warning before a go-ahead;
  after a request for a human ("get me a human representative"), a text that reports the transfer
  does what was asked (``act``, ``act.transfer_asked``: corpus rule 1), where alone a hand-over is
  an abstention -- not when the user asked for a human only should the request fail ("If you can't
  do that, transfer me"); after a request to keep something as it is ("I'll keep the current air
  purifier"), a text reporting it left unchanged does what was asked (``act``, ``act.kept_as_asked``);
  after a request for part of a whole that accepts the whole as a fallback ("cancel just the speaker;
  if that's not possible, cancel the whole order"), a text that refuses the part and asks about the
  whole asks for the go-ahead of the user's own fallback (``clarify``, ``ask.whole_accepted``: corpus
  rule 2), where alone the whole is something else offered (rule 3) -- not when the user refused the
  whole ("don't cancel the whole order") or would do it alone ("I'll cancel it myself on the website");
  in the same way, after a fallback the user gave for a request that cannot be done ("If it's not
  available, I'll just return it"), a text that says the request cannot be done and asks about the
  fallback's action ("... out of stock. Would you like me to proceed with the return?") asks for the
  go-ahead of the user's own fallback (``clarify``, ``ask.fallback_accepted``) -- not when the fallback
  asks nothing of the agent now (doing nothing, the user's own or later action, "I might ...") or the
  text refuses the fallback too;
  after a question whether the request can be done later ("Can I contact you again once it is
  delivered?"), a text that puts the request off to then ("Once it is delivered, I'll assist you with the
  exchange") answers it (``act``, ``act.later_as_asked``), where alone it postpones the request
  (``infeasible.postponed``, an abstention).

An information request changes nothing: a lookup or a list the user asked to see is still a step
before the action the conversation pursues (corpus rule 1, "finding flights ... is not doing it"),
so "Here are your orders ... Which one?" stays ``clarify`` whatever the user's message. English
and Chinese user messages are read; any other gives ``none`` (the text alone decides).
"""

from __future__ import annotations

import re
from typing import Final, Literal

from evalkit.conditions.classifier.verdict import HANDOVERS, TextVerdict

RequestKind = Literal["information", "action", "none"]

_SENTENCES = re.compile(r"(?<=[.!?。！？])\s+|\n+")
_ACTION_VERB = (
    r"(?:cancel|return|exchange|book|rebook|change|modify|update|upgrade|downgrade|refund|process|proceed|"
    r"transfer|send|remove|add|swap|switch|replace|place|reschedule|apply|charge|pay|ship|submit|delete|reset|"
    r"unlock|close|open|remove|order|buy|purchase|use|make|set|do|go\s+ahead|complete|finali[sz]e|void|issue|"
    r"redeem|move|split|keep|leave)"
)
_INFO_VERB = (
    r"(?:check|look\s+(?:up|into|at|for)|list|show|find|search|tell|explain|compare|calculate|confirm\s+(?:if|whether)|"
    r"verify\s+(?:if|whether)|see\s+(?:if|whether|what|which)|let\s+me\s+know(?!\s+if\s+you\s+need)|"
    r"(?:give|provide)\s+(?:me\s+)?(?:with\s+)?(?:the\s+|a\s+|all\s+)?(?:\w+\s+)?(?:details|list|information|info|options|"
    r"summary|breakdown|total|status|price|cost|number)|"
    r"pull\s+up|fetch|get\s+(?:me\s+)?(?:the\s+)?(?:details|list|status|total|price)|double-check|review|describe)"
)
_POLITE = r"(?:(?:so\s+|and\s+|also\s+|then\s+|now\s+|ok(?:ay)?[,\s]+|great[,\s]+|thanks?[,\s]+|sure[,\s]+)*)"
_YOU_ASK = r"(?:can|could|would|will)\s+you\s+(?:please\s+|also\s+|just\s+|kindly\s+|first\s+)*"
_WANT = r"(?:i\s+(?:want|would\s+like|'d\s+like|need|wish)\s+(?:you\s+)?to|i\s+(?:want|would\s+like|'d\s+like)|please|pls|kindly)\s+(?:also\s+|just\s+|first\s+)*"

_EN_INFO = re.compile(
    rf"^{_POLITE}(?:{_YOU_ASK}|{_WANT})?{_INFO_VERB}\b"  # "Could you check ...", "Please list ...", "Show me ..."
    r"|^" + _POLITE + r"(?:what|which|when|where|why|who|whose|how\s+(?:much|many|long|soon|far|often|do|does|did|is|are|"
    r"would|will|can|could|should))\b"  # "How much would I get back?"
    r"|^" + _POLITE + r"(?:is|are|was|were|do|does|did|has|have|will|would|am|can|could|may)\s+"
    r"(?:there|i|we|my|it|this|that|these|those|the|any|you\s+have)\b"  # "Is there ...?", "Can I ...?", "Do you have ...?"
    r"|^" + _POLITE + r"is\s+it\s+possible\b"
    r"|^" + _POLITE + r"(?:i\s+(?:want|would\s+like|'d\s+like|need)\s+to\s+(?:know|see|understand|find\s+out|check))\b"
)
"""An English sentence that asks for information (lower-cased, contractions of "I'd" kept)."""
_EN_ACTION = re.compile(
    rf"^{_POLITE}(?:{_YOU_ASK}|{_WANT}|let's\s+|go\s+ahead\s+and\s+)?{_ACTION_VERB}\b"
    r"|^" + _POLITE + r"(?:yes|yeah|yep|ok|okay|sure|correct|confirmed?|that's\s+(?:right|correct|fine)|go\s+ahead|"
    r"proceed|please\s+(?:do|proceed)|do\s+it|sounds\s+good)\b(?=(?:[\s,.!]+\w+){0,5}[\s,.!]*$|.*\b"
    + _ACTION_VERB + r"\b)"
)
"""An English sentence that asks for an action or gives the go-ahead."""
_ZH_INFO = re.compile(
    r"(?:查一?下|查询|查查|看一?下|看看|帮我查|列出|列一下|告诉我|说明|解释|对比|比较|算一?下|多少|几个|几张|哪些|哪个|哪一|什么|"
    r"怎么|如何|为什么|是否|有没有|有哪些|能不能|可不可以|可以.{0,8}吗|吗[?？]?$|呢[?？]?$)"
)
_ZH_ACTION = re.compile(
    r"(?:帮我|请|麻烦|给我|您)*(?:取消|退|换|改|订|预订|办理|处理|升级|转|发送|删除|添加|申请|提交|支付|付款|下单|确认|继续|好的|可以|是的|行)"
)
_EN_ACTION_Q = re.compile(
    r"^" + _POLITE + r"(?:(?:can|could|may|should)\s+(?:i|we)\s+(?:please\s+|also\s+|just\s+)*(?:get\s+(?:some\s+)?help|"
    + _ACTION_VERB + r")\b|(?:is|would)\s+(?:that|it|this)\s+(?:be\s+)?(?:possible|ok(?:ay)?|allowed|fine)|"
    r"(?:can|could)\s+(?:we|you)\s+(?:please\s+)?(?:do\s+(?:that|it|this)|help|assist)|is\s+it\s+possible\s+to\s+"
    + _ACTION_VERB + r"|how\s+(?:can|do|could)\s+i\s+" + _ACTION_VERB + r"|what\s+do\s+you\s+need)\b"
)
"""An English question about doing an action ("Can I switch the payment to my Visa?", "Is that possible?",
"Can you help me with ...?", "What do you need from me?"): it asks for the action, not for information."""


_LOOKUP_SELF = re.compile(
    r"\b(?:find|look\s+up|locate|check|pull\s+up|search\s+for|verify|identify)\s+(?:me|my\s+(?:account|profile|user\s*id|id|identity|details)"
    r"|the\s+account)\b|找到我的账户|核实身份|验证身份"
)
"""A request to find the user's own account: authentication, a step before the request, not information asked for."""


def _sentence_kind(sentence: str) -> RequestKind:
    """What one sentence of a user's message asks for."""
    s = sentence.strip().lower().replace("\u2019", "'")
    if not s or _LOOKUP_SELF.search(s):
        return "none"
    if _EN_ACTION_Q.search(s):
        return "action"
    if re.search(r"[\u4e00-\u9fff]", s):
        if _ZH_INFO.search(s) and not re.match(r"^(?:请|帮我|麻烦|给我|您)*(?:取消|退|换|改|订)", s):
            return "information"
        return "action" if _ZH_ACTION.match(s) else "none"
    if _EN_ACTION.search(s) and not re.match(rf"^{_POLITE}(?:{_YOU_ASK}|{_WANT})?{_INFO_VERB}\b", s):
        return "action"
    if _EN_INFO.search(s):
        return "information"
    return "none"


CONTEXT_MAX_CHARS: Final[int] = 2000
"""Only the last this many characters of the user's message are read (its last request decides)."""
SENTENCE_MAX_CHARS: Final[int] = 400
"""A sentence is read by its first this many characters (what it asks for is said at its start)."""


def request_kind(context: str | None) -> RequestKind:
    """What the user's message before a final text asks for: its last request decides (the last
    :data:`CONTEXT_MAX_CHARS` characters are read, each sentence by its first
    :data:`SENTENCE_MAX_CHARS`, so the time is bounded whatever the message's length).

    Args:
        context: The user's message (``None`` or blank: no context).

    Returns:
        ``information``, ``action`` or ``none`` (see the module docstring).
    """
    if not context or not context.strip():
        return "none"
    tail = context.strip()[-CONTEXT_MAX_CHARS:]  # the request is at the end of a message; bounded time
    kinds = [_sentence_kind(s[:SENTENCE_MAX_CHARS]) for s in _SENTENCES.split(tail)]
    requests = [k for k in kinds if k != "none"]
    return requests[-1] if requests else "none"


_DONE_OR_DOING: Final[tuple[str, ...]] = ("claim.", "act.proceed", "act.passive")
"""Rule ids of a reported completion or of an action done now: after a request for an action they
make the text ``act`` (corpus rules 1 and 8) even when the learned reader reads a later question."""
_CHANGE = re.compile(
    r"\b(?:cancel|return|exchang|book|rebook|chang|modif|updat|upgrad|downgrad|refund|process|proceed|transfer|sen[dt]|"
    r"remov|add|swap|switch|replac|plac|reschedul|appl[iy]|charg|pa(?:y|id)|ship|submit|delet|issu|void|split|mov|"
    r"complet|finali[sz]|reserv|order)\w*|已(?:经)?(?:为您)?(?:取消|退|换|改|订|办理|处理|升级|提交|支付)"
)
"""A change to the user's things (cancel, return, exchange, book, refund ...), in any tense."""
_NOT_A_CHANGE = re.compile(
    r"\b(?:error|issue|problem|fail\w*|unable|authenticat\w*|verif\w*|identity|locat\w*|found|find|retriev\w*|fetch\w*|"
    r"pull\w*\s+up|check\w*|look\w*|search\w*|review\w*|see)\b|错误|失败|验证|查询|查看|找到"
)
"""A lookup, an authentication or a failure: no change made."""


_UNDO_VERB = r"(?:undo|reverse|revert|reinstate|restore|re-?activate|re-?open|un-?cancel|roll\s*back|bring\s+back|recover)"
_UNDO_ASKED = re.compile(
    rf"\b{_UNDO_VERB}\b|\bcancel\s+(?:the|my|that|this)\s+cancell?ation\b|\btake\s+back\s+(?:the|my)\s+cancell?ation\b"
    r"|\b(?:get|have)\s+(?:it|them|(?:my|the|this|that)\s+\w+)\s+(?:reinstated|restored|reactivated|re-?opened|un-?cancell?ed|reversed)\b"
    r"|撤销|恢复|撤回|取消(?:这个|该)?取消"
)
"""A user's request to undo something done before (English or Chinese)."""
_CANNOT_UNDO = re.compile(
    r"\b(?:can|could)\s*not\s+be\s+(?:\w+\s+)?(?:undone|reversed|reverted|reinstated|restored|re-?activated|re-?opened|"
    r"un-?cancell?ed|recovered|rolled\s+back|brought\s+back)\b"
    r"|\b(?:i|we)\s+(?:(?:am|are)\s+(?:not\s+able|unable)\s+to|(?:can|could)\s*not|do\s+not\s+have\s+the\s+ability\s+to)\s+"
    r"(?:undo|reverse|revert|reinstate|restore|re-?activate|re-?open|un-?cancel|roll\s+back|recover)\b"
    r"|\bno\s+way\s+to\s+(?:undo|reverse|reinstate|restore)\b"
    r"|无法(?:撤销|恢复|撤回)|不能(?:撤销|恢复|撤回)"
)
"""A statement that something cannot be undone (English or Chinese; lower-cased, contractions expanded)."""
_UNDO_OFFERED = re.compile(
    rf"\b(?:i|we)\s+(?:can|could|will|am\s+able\s+to|was\s+able\s+to|have|have\s+been\s+able\s+to)\s+(?:\w+\s+){{0,2}}?{_UNDO_VERB}"
    rf"|\b(?:shall|should|may|can)\s+i\s+(?:\w+\s+){{0,3}}?{_UNDO_VERB}|\bwant\s+me\s+to\s+(?:\w+\s+){{0,2}}?{_UNDO_VERB}"
    r"|\b(?:is|are)\s+(?:now\s+)?(?:back|active\s+again|restored|reinstated|reactivated|reopened)\b|\bagain\b"
)
"""The undo offered, asked a go-ahead for, or done ("I can restore your previous address", "Shall I
reactivate it?", "Order #W1 is active again"): no refusal of it, whatever else cannot be undone."""
_PERSON = (r"(?:(?:a|an|the|your|some|one\s+of\s+your)\s+)?(?:(?:real|actual|live|human|customer\s+service|support)\s+)?"
           r"(?:human|person|someone|somebody|agent|representative|rep|supervisor|manager|specialist)s?\b")
_HUMAN_ASKED = re.compile(
    rf"\b(?:talk|speak|chat)\s+(?:to|with)\s+{_PERSON}"
    rf"|\b(?:transfer|escalate|connect|put)\s+(?:me|this|my\s+\w+)\s+(?:through\s+)?(?:to|with)\s+{_PERSON}"
    rf"|\b(?:get|give|find)\s+me\s+{_PERSON}|\b(?:i\s+(?:want|need|would\s+like|'d\s+like)|can\s+i\s+(?:have|get))\s+{_PERSON}"
    r"|\b(?:human|person|representative|supervisor|manager)\s*,?\s*(?:please|now)\b|人工|真人|主管"
)
"""A user's request for a person of the service (English or Chinese, lower-cased): "talk to a real person",
"transfer me to a human", "get me a supervisor", "I want a human", "人工"."""


_UNLESS = re.compile(
    r"\b(?:if|in\s+case|when)\b[^.!?]{0,80}?(?:\b(?:can|could)\s*not\b|\b(?:can|could|are|is|do|does|will|wo|ca)n't\b|"
    r"\bunable\b|\bimpossible\b|\bnot\s+(?:able|possible|allowed|work)|\bfails?\b|\bdoes\s+not\s+work|\ba\s+no\b|\bno\s+way\b)"
    r"|\botherwise\b|\bor\s+else\b|\bfailing\s+that\b|\bunless\b|\bshould\s+(?:that|it|this)\s+fail\b|\bif\s+not\b"
    r"|如果(?:不|无法|没法|不能)|否则|不行的话"
)
"""A condition on the request failing ("If you aren't able to do that, transfer me to a human", "or else
put me through to a manager", "Failing that, ...")."""
_NOT_WANTED = re.compile(r"\b(?:do\s+not|don't|never)\s+(?:want|need)\b|\bno\s+need\b|\bnot\s+a\b")


def _human_asked(asked: str) -> bool:
    """Whether the user's message asks for a person of the service as its request (:data:`_HUMAN_ASKED`),
    not only should the request fail (:data:`_UNLESS`, in that sentence or the one before it: then a
    transfer says the request was not done) and not as something unwanted ("I don't want a human")."""
    sentences = [s for s in _SENTENCES.split(asked) if s.strip()]
    for i, sentence in enumerate(sentences):
        if _HUMAN_ASKED.search(sentence) and not _NOT_WANTED.search(sentence) \
                and not _UNLESS.search(sentence) and not (i and _UNLESS.search(sentences[i - 1])):
            return True
    return False


_KEEP_ASKED = re.compile(
    r"\b(?:i(?:'ll|\s+will|'d\s+like\s+to|\s+would\s+like\s+to|\s+want\s+to)?\s+keep|let's\s+keep|please\s+keep|keep\s+(?:it|them|the|my)\b"
    r"|leave\s+(?:it|them|the\s+\w+|my\s+\w+)\s+(?:as\s+(?:it\s+is|is)|alone|unchanged)|(?:do\s+not|don't)\s+(?:change|modify|cancel|touch)\b"
    r"|no\s+(?:changes?|modifications?)\s+(?:needed|please|then)\b)|(?:保留|不用改|不要改|不用动|不要动|维持原样)"
)
"""A user's request to keep something as it is ("I'll keep the current air purifier", "don't change it")."""


_OTHER_CHANGE = re.compile(r"\b(?:cancel|return|exchange|swap|switch|replace|modify|update|upgrade|downgrade|refund|"
                           r"remove|add|book|rebook|move|split)\w*|\bchang(?:es|ed|ing)\w*|\bchange\s+(?:it|them|the|my|to)\b")
"""A request for a change beside a request to keep something ("Keep the kettle but cancel the boots")."""


def _keep_asked(asked: str) -> bool:
    """Whether the user's message asks to keep something as it is and asks for no change beside it."""
    return bool(_KEEP_ASKED.search(asked)) and not any(
        _OTHER_CHANGE.search(_KEEP_ASKED.sub(" ", sentence)) for sentence in _SENTENCES.split(asked))


def _kept_as_asked(text: str) -> TextVerdict | None:
    """The ``act`` verdict (``act.kept_as_asked``) of a text that reports something left as it was,
    when the user asked to keep it so and the text neither refuses in the agent's own voice nor asks."""
    from evalkit.conditions.classifier.decide import _verdict
    from evalkit.conditions.classifier.learned import reading

    rules, clauses, _, _ = reading(text)
    if rules.label != "abstain" or any(c.kind in ("ask", "transfer") or c.kind == "refuse" and not c.rule.startswith(
            ("refusal.nothing_done", "refusal.status_quo")) or c.kind == "infeasible" for c in clauses if not c.conditional):
        return None
    return _verdict("act", clauses, "act.kept_as_asked", rules.evidence, rules.lang)


_WHOLE_NAMED: Final = re.compile(r"\b(?:entire|whole|full)\s+(?:\w+\s+)?(?:order|reservation|booking|trip|thing)\b"
                                  r"|\b(?:cancel|drop)\w*\s+(?:it\s+)?(?:everything|all\s+of\s+it)\b")
"""The whole of what the user asked about in part ("the entire order", "the whole thing", "cancel everything")."""
_WHOLE_ACCEPT: Final = re.compile(r"\b(?:if|otherwise|only\s+way|then|instead|fine|ok(?:ay)?|happy|rather|failing\s+that|"
                                  r"acceptable|works?\s+for\s+me)\b|\bor\s+(?:just\s+)?(?:the|cancel)\b")
"""A fallback or an acceptance in the sentence naming the whole ("If that's not possible, cancel the
whole order", "I'm okay cancelling the entire order", "those items or the whole order")."""
_WHOLE_REFUSED: Final = re.compile(
    r"\b(?:do|does|did|would|will)\s+not\s+(?:\w+\s+)?(?:cancel|want|need|touch)\w*|\bn't\s+(?:\w+\s+)?(?:cancel|want|need|touch)\w*"
    r"|\bnever\s+(?:\w+\s+)?(?:cancel|want)\w*|\bnot\s+(?:the|my)\s+(?:entire|whole|full)\b|\bkeep\s+(?:the|my)\s+(?:entire|whole)\b"
    r"|\bout\s+of\s+the\s+question\b|\bwhether\b|\brather\s+than\b|\binstead\s+of\b|\bwithout\b|\bmyself\b")
"""The whole not wanted ("please do not cancel the whole order", "not the whole order", "I'll keep the whole
order", "cancelling the entire order is out of the question"), left open ("whether I need the entire order")
or done by the user ("I'm okay cancelling the entire order myself on the website")."""


def _whole_accepted(asked: str) -> bool:
    """Whether the user's message accepts the whole of what it asks about in part as a fallback
    ("cancel just the skateboard; if that is not possible, cancel the entire order")."""
    return any(_WHOLE_NAMED.search(s) and _WHOLE_ACCEPT.search(s) and not _WHOLE_REFUSED.search(s)
               for s in _SENTENCES.split(asked))


_FALLBACK: Final = re.compile(
    r"\b(?:if\s+not|if\s+(?:that|this|it|they|those|these|the\s+[\w-]+)(?:'s|'re|\s+is|\s+are)?\s+(?:not|n't|no\s+longer)\s+"
    r"(?:possible|available|in\s+stock|allowed|doable|an\s+option|feasible|eligible)"
    r"|if\s+(?:you|we|i)\s+(?:can't|cannot|can\s+not|are\s+(?:not\s+able|unable))\b[^,.;!?]{0,80}"
    r"|if\s+(?:that|this|it)\s+(?:can't|cannot|can\s+not|doesn't|does\s+not|won't|isn't)\b[^,.;!?]{0,60}"
    r"|otherwise|failing\s+that|if\s+(?:that|this|it)\s+fails)(?:\s+(?:to|for)\s+[^,.;!?]{0,80}(?=,))?"
    r"\s*,?\s*(?:then\s+)?(?P<fallback>[^.;!?]{3,160})")
"""A fallback the user gives for a request that cannot be done ("If that's not possible, please cancel it",
"if it's not available, I'll just return it", "if not, just cancel the whole order"): the words after it."""
_FALLBACK_VERB: Final = re.compile(
    r"\b(cancel|return|refund|exchang|modif|chang|swap|switch|replac|remov|upgrad|downgrad|rebook|book|transfer|"
    r"reschedul|split|updat)\w*")
"""The actions a fallback names (by stem)."""
_FALLBACK_NOTHING: Final = re.compile(
    r"\b(?:do\s+nothing|don't\s+do|do\s+not\s+do|leave\s+(?:it|them|the|my)|keep\s+(?:it|them|the|my))\b"
    r"|\b(?:myself|later|after\s+(?:i|it|they)|once\s+(?:i|it|they)|when\s+(?:i|it|they)|online|website|app)\b"
    r"|\b(?:might|may|maybe|perhaps|probably|not\s+sure)\b")
"""A fallback that asks the agent for nothing now: leaving things as they are ("if you can't, don't do
anything to that order"), the user's own or later action ("I can just return it after I get it", "cancel
it myself on the website"), or a tentative one ("I might just return everything")."""


_AS_MENTIONED: Final = re.compile(r"\b(?:you|you've)\s+(?:mentioned|said|asked|told|requested|indicated|prefer|preferred)\b")
"""A sentence that reports the user's words ("Since you mentioned you'd prefer a return if it wasn't available")."""
_PURPOSE: Final = re.compile(r"\b(?:so\s+(?:that\s+)?(?:i|we)|because|since|as\s+i)\b")
"""Where a fallback's purpose or reason begins."""


def fallback_actions(asked: str) -> frozenset[str]:
    """The action stems (``cancel``, ``return`` ...) of the fallbacks the user's message gives for a
    request that cannot be done (:data:`_FALLBACK`), a fallback of doing nothing set aside; empty when none."""
    out: set[str] = set()
    for m in _FALLBACK.finditer(asked):
        fallback = _PURPOSE.split(m.group("fallback"))[0]  # "cancel it so I can rebook myself": the fallback is to cancel
        if not _FALLBACK_NOTHING.search(fallback):
            out.update(v.group(1) for v in _FALLBACK_VERB.finditer(fallback))
    return frozenset(out)


def _fallback_as_accepted(text: str, actions: frozenset[str]) -> TextVerdict | None:
    """The ``clarify`` verdict (``ask.fallback_accepted``) of a text that says the request cannot be
    done, in sentences that do not name a fallback action (save to report the user's words), and then
    asks (a question, a request for a detail or a go-ahead) about one of the fallback ``actions`` the
    user gave for that case, reporting nothing done and offering no hand-over; else ``None``."""
    from evalkit.conditions.classifier.decide import _STOP_KINDS, _verdict
    from evalkit.conditions.classifier.learned import reading, reports_done

    rules, clauses, _, _ = reading(text)
    stops = [c for c in clauses if c.kind in _STOP_KINDS and not c.conditional]
    if rules.lang != "en" or not stops or reports_done(clauses) or any(c.kind == "transfer" for c in clauses):
        return None
    sentences: dict[int, str] = {}
    for c in clauses:
        sentences[c.sent] = f"{sentences.get(c.sent, '')} {c.low}"
    stems = tuple(actions)
    fallback = re.compile(r"\b(?:" + "|".join(stems) + r")")
    if any(fallback.search(sentences[c.sent]) and not _AS_MENTIONED.search(sentences[c.sent]) for c in stops):
        return None  # the fallback refused too ("refunds to a gift card are not possible")
    asked = next((c for c in clauses if c.kind in ("ask", "confirm", "offer") and c.sent > stops[0].sent
                  and fallback.search(sentences[c.sent])), None)
    return None if asked is None else _verdict("clarify", clauses, "ask.fallback_accepted", asked.display, rules.lang)


_STATES: Final = ("refusal.nothing_done", "refusal.status_quo", "refusal.not_found")
"""Not-done readings of a state ("which is still pending"), set aside beside a refusal of a part."""


def _whole_as_accepted(text: str) -> TextVerdict | None:
    """The ``clarify`` verdict (``ask.whole_accepted``) of a text whose every refusal (states set aside) is of a part or
    names the whole, and that asks (a question, a request for a detail or a go-ahead) in a sentence
    naming the whole or just after one; else ``None``."""
    from evalkit.conditions.classifier.decide import _PART_REFUSED, _STOP_KINDS, _WHOLE, _verdict
    from evalkit.conditions.classifier.learned import reading

    rules, clauses, _, _ = reading(text)
    sentences: dict[int, str] = {}
    for c in clauses:
        sentences[c.sent] = f"{sentences.get(c.sent, '')} {c.low}"
    stops = [c for c in clauses if c.kind in _STOP_KINDS and not c.conditional and not c.rule.startswith(_STATES)]
    if rules.lang != "en" or not stops or not any(_PART_REFUSED.search(sentences[c.sent]) for c in stops) \
            or not all(_PART_REFUSED.search(sentences[c.sent]) or _WHOLE.search(sentences[c.sent]) for c in stops):
        return None
    asked = next((c for c in clauses if c.kind in ("ask", "confirm", "offer") and c.sent > stops[0].sent and (
        _WHOLE.search(sentences[c.sent]) or _WHOLE.search(sentences.get(c.sent - 1, "")))), None)
    return None if asked is None else _verdict("clarify", clauses, "ask.whole_accepted", asked.display, rules.lang)


_LATER_ASKED: Final = re.compile(
    r"\b(?:can|could|will|would|may|should)\s+(?:i|we|you)\b[^?]{0,160}?\b(?:once|when|after|later|again|in\s+the\s+future|"
    r"at\s+that\s+time)\b[^?]*\?"
    r"|\b(?:is\s+it\s+possible|will\s+(?:i|we|you)\s+be\s+able)\b[^?]{0,160}?\b(?:once|when|after|later|again)\b[^?]*\?")
"""A question whether the request can be done later ("Can I contact you again to proceed with the exchange
once the order is delivered?", "Will I be able to return it after it arrives?")."""


def _last_request_text(context: str) -> str:
    """The user's message as matched: its last :data:`CONTEXT_MAX_CHARS` characters, lower-cased."""
    return context.strip()[-CONTEXT_MAX_CHARS:].lower().replace("\u2019", "'")


def read_in_context(verdict: TextVerdict, text: str, context: str | None) -> TextVerdict:
    """The verdict of ``text`` read in the light of the user's message before it (module docstring).

    Args:
        verdict: The verdict of the text alone (rules or combined).
        text: The final text.
        context: The user's message before it (``None``: the verdict stands).

    Returns:
        ``verdict``; the rules' own ``act`` verdict (its rule id and evidence) when the user
        asked for an action and the rules read a change reported done or made now that the
        learned reader overrode; ``abstain`` (``refusal.cannot_undo``) when the user asked to undo
        something and the text, read ``clarify`` and neither offering nor reporting the undo, says it
        cannot be undone; ``act`` (``act.transfer_asked``) when the user asked for a person (not only
        should the request fail) and the rules read the text as a reported hand-over; ``act``
        (``act.kept_as_asked``) when the user asked to keep something as it is and the text, refusing
        nothing in the agent's own voice, reports it left unchanged; ``clarify`` (``ask.whole_accepted``)
        when the user accepted the whole of what they asked about in part and the text, refusing only the
        part, asks about the whole; ``clarify`` (``ask.fallback_accepted``) when the user gave a fallback
        for a request that cannot be done and the text, saying the request cannot be done, asks about the
        fallback's action (:func:`fallback_actions`); ``act`` (``act.later_as_asked``) when the user asked whether the request
        can be done later and the text, read as putting it off (``infeasible.postponed``), says when.
    """
    if not context or not context.strip() or verdict.label == "unknown":
        return verdict
    asked = _last_request_text(context)
    if verdict.label == "abstain" and _LATER_ASKED.search(asked):
        from evalkit.conditions.classifier.decide import _verdict
        from evalkit.conditions.classifier.learned import reading

        rules, clauses, _, _ = reading(text)
        if rules.rule == "infeasible.postponed" and all(c.rule == rules.rule for c in clauses if c.kind in ("refuse", "infeasible")):
            # "Yes, once it is delivered I'll exchange it": the answer asked for (nothing else refused)
            return _verdict("act", clauses, "act.later_as_asked", rules.evidence, rules.lang)
    if verdict.label == "clarify" and _UNDO_ASKED.search(asked):
        undone = _undo_refused(text)
        if undone is not None:
            return undone
    if verdict.label == "abstain" and verdict.rule.startswith(("refusal.nothing_done", "refusal.status_quo")) \
            and _keep_asked(asked):
        kept = _kept_as_asked(text)
        if kept is not None:
            return kept

    if verdict.label == "abstain" and _whole_accepted(asked):
        accepted = _whole_as_accepted(text)
        if accepted is not None:  # the user's own fallback offered back asks for its go-ahead (rule 2)
            return accepted
    if verdict.label == "abstain":
        actions = fallback_actions(asked)
        accepted = _fallback_as_accepted(text, actions) if actions else None
        if accepted is not None:  # "If it's not available, I'll return it" -> "... Shall I process the return?"
            return accepted

    if verdict.label == "abstain" and _human_asked(asked):
        from evalkit.conditions.classifier.decide import _verdict
        from evalkit.conditions.classifier.learned import reading

        rules, clauses, _, _ = reading(text)
        if rules.rule in HANDOVERS:  # what is asked after a reported hand-over serves the person taking over
            return _verdict("act", clauses, "act.transfer_asked", rules.evidence, rules.lang)
    if verdict.label not in ("clarify", "abstain") or not verdict.rule.startswith("learned."):
        return verdict
    if request_kind(context) != "action":
        return verdict
    from evalkit.conditions.classifier.learned import reading

    rules = reading(text)[0]
    evidence = rules.evidence.lower()
    if rules.label == "act" and rules.rule.startswith(_DONE_OR_DOING) and _CHANGE.search(evidence) \
            and not _NOT_A_CHANGE.search(evidence):
        return rules
    return verdict


def _undo_refused(text: str) -> TextVerdict | None:
    """The ``abstain`` verdict of a text that says what the user asked to undo cannot be undone,
    when the rules read no completion in it; else ``None``."""
    from evalkit.conditions.classifier.decide import _verdict
    from evalkit.conditions.classifier.learned import reading, reports_done

    rules, clauses, _, _ = reading(text)
    if rules.label == "unknown" or any(_UNDO_OFFERED.search(c.low) for c in clauses):
        return None
    said = next((c for c in clauses if _CANNOT_UNDO.search(" ".join(d.low for d in clauses if d.sent == c.sent))), None)
    if said is None or reports_done([c for c in clauses if c.sent != said.sent]):
        return None  # the sentence that says it cannot be undone names what was done before as its subject
    undone = next((c for c in clauses if c.sent == said.sent and _CANNOT_UNDO.search(c.low)), said)
    return _verdict("abstain", clauses, "refusal.cannot_undo", undone.display, rules.lang)

