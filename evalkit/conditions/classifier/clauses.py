"""Segmentation of the ``nl`` text classifier: text -> clauses with their cues (DESIGN §5).

Pipeline steps 6 and 7 of :mod:`evalkit.conditions.classifier`: sentences are split into
clauses, courtesy closings are dropped, and each clause gets at most one cue (English and
Chinese: :mod:`.cues`; the six smaller tables: :mod:`.cues_intl`). The precedence that turns
clause cues into a label is in :mod:`.decide` and :mod:`.claim`.
"""

from __future__ import annotations

import re
from functools import lru_cache
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise

from evalkit.conditions.classifier.claim import (
    _BENIGN_INTL,
    _IF,
    denies,
    denies_intl,
    elsewhere,
    is_further_offer,
    need_cue,
    passive_done,
    status_done,
    warning,
    zh_moved,
)
from evalkit.conditions.classifier.cues import (
    COUNTERFACTUAL,
    SCOPE_LIMIT,
    _ADDRESSED_EN,
    _ADDRESSED_ZH,
    _ASK_G,
    _CAVEAT,
    _COND_REFUSAL,
    _CONDITIONAL,
    _CONFIRM_Q,
    _LATER_GROUPS,
    _OFFER_BACK,
    _OFFER_FRAME,
    _OFFER_INSTEAD,
    _OFFER_MARK,
    _OFFER_ME,
    _OFFER_OPEN,
    _OFFER_PICK,
    _OFFER_ZH,
    _PERSON,
    _PLEASANTRY,
    _QUESTION_END,
    _REFUSAL_G,
    _RHETORICAL,
    _SUGGEST_RETRY,
    _WH_START,
)
from evalkit.conditions.classifier.cues_intl import intl_cues
from evalkit.conditions.classifier.cues_service import COURTESY as _COURTESY
from evalkit.conditions.classifier.cues_service import TRANSFER_OFFER as _TRANSFER_OFFER
from evalkit.conditions.classifier.cues_zh import (
    lacks,
    no_problem,
    status_quo,
    unavailable,
)
from evalkit.conditions.classifier.cues_zh import (
    not_done as zh_not_done,
)
from evalkit.conditions.classifier.intl_kinds import (
    _NOT_TERSE,
    _TERSE_WORDS,
    IntlKinds,
    intl_kinds,
)
from evalkit.conditions.classifier.outcome_en import not_done
from evalkit.conditions.classifier.structure import (
    _GUESS,
    _NEG_ONLY,
    _NEGATED,
    _NO_NEED,
    _OFFER_BACK_ZH,
    _SELF,
    _STATUS_LINE,
    _STRONG_DONE,
    _ZERO_COUNT,
)
from evalkit.conditions.classifier.text import (
    _CJK,
    _CLAUSE_SPLIT,
    _SENT_SPLIT,
    _TRAIL,
    _lower_expand,
)

_STOP_KINDS = ("refuse", "infeasible")
_LEAD_SYMBOLS = re.compile(r"^[\s\u2190-\u21ff\u2300-\u23ff\u25a0-\u27bf\u2b00-\u2bff\ufe0f\u200d\U0001f000-\U0001faff]+")
"""Arrows, dingbats, check and cross marks, emoji (with variation selectors and joiners) opening a
clause: set aside before its cues are read, so "✅ Done!" reads as "Done!" (a mark carries no cue of its own
in English; Chinese report lines opened by a done mark: :data:`_DONE_MARK`)."""
_DONE_MARK = re.compile(r"^\s*(?:\u2705|\u2714\ufe0f?|\u2611\ufe0f?)\s*(?![^，。；,;]*(?:未|没|不|无法|失败|检查|查询|核实|查看))")
"""A Chinese report line opened by a done mark (✅, ✔, ☑) whose first clause holds no negation and no
check: a completion."""
_CUT = re.compile(r"[A-Za-z,]\s*$")
_CHOICE = re.compile(r"(?<![^\n])[^\w\n]*+\w.*,?(?<!\s)\s++or\s++\w")
r"""A choice ("should X be A, or B?"; ``search``, whether it matches only) as ``\w.*,?\s+or\s+\w``: that finds
a match if and only if one starts at the first word character of a line (``.*`` stays on the line) with
``\s+`` taking the whole run of white space before "or" (``.*`` can leave it); tried only there it is linear,
not quadratic, on long lines and runs of white space."""
_ALTERNATIVE = re.compile(
    r"^(?:however|instead|alternatively|in\s+the\s+meantime|meanwhile|but|en\s+revanche|cependant|toutefois|par\s+contre|"
    r"sin\s+embargo|no\s+obstante|en\s+cambio|por\s+otro\s+lado|por[ée]m|no\s+entanto|em\s+vez\s+disso|jedoch|allerdings|"
    r"stattdessen)\b|^(?:不过|但是|但|另外|同时|代わりに|ただし|대신)"
)
_FIRST_PERSON = re.compile(r"^(?:\w+\s+){0,2}(?:i|we)\b")
_COND_START = re.compile(r"^(?:before|until|unless)\b|^(?:在|等)(?:您|你).{0,40}(?:之前|以前)")
_ATTEMPT = re.compile(r"\b(?:i|we)\s+(?:have\s+|had\s+)?(?:just\s+)?(?:tried|attempted|started|began|initiated|ran|"
                      r"submitted|kicked\s+off)\b")
_PROMISE = ("act.proceed", "act.proceed.zh")
_PREP = re.compile(r"\b(?:written|wrote|drafted|prepared|composed|put\s+together|set\s+up\s+a\s+draft)\b|(?:草拟|起草|准备好|写好|拟好)")
_REASON = re.compile(r"^(?:and\s+|but\s+)?(?:because|since|as|due\s+to|given\s+that)\b|^(?:由于|因为|鉴于)")
_NEG_IF = re.compile(r"\b(?:not|no|never|without)\b|n't\b")
"""A negation inside a condition ("if you do not confirm"): what the sentence says next waits on the user."""
_SUB_DONE = re.compile(r"\b(?:after|once|since|because|now\s+that|as\s+soon\s+as|given\s+that|when)\s+(?:[\w#-]+\s+){0,5}?"
                       r"(?:has|have|had)\s+(?:already\s+)?been\b")
"""A completion inside a clause of time or reason ("... after the cancellation has been processed"): the
clause's main part, before it, is what the clause says."""
_ONCE = re.compile(r"^(?:and\s+|but\s+)?(?:once|as\s+soon\s+as|after|when)\b|^(?:一旦|等|待|收到|拿到|有了)")
_LATER_EN = re.compile(
    r"\b(?:once|as\s+soon\s+as|after|until|when)\s+(?:your|the|its|it|this|that|they|these|those)\b(?!\s*(?:,|$))"
    r"(?![^,.;]*\b(?:was|were|had|did|happened)\b)"
    r"|\b(?:reach\s+out|contact\s+us|check\s+back|come\s+back|get\s+back\s+to\s+us)\b")
"""A clause that puts what follows it in the sentence later: a state the request waits on ("after your order
is delivered", "once the schedule opens") or the user coming back ("please reach out at that time"). A promise
after it or in it ("..., and I'll process it right away") is not the action done now: it puts the request off
(``infeasible.postponed``)."""
_WILL_DO_EN = re.compile(r"\b(?:i|we)\s+will\s+(?:(?:be\s+(?:happy|glad|able|ready)\s+to|gladly|then|immediately|"
                         r"personally)\s+)?(?!not\b|be\b|need\b|let\b|wait\b|keep\b|stay\b|remain\b|have\b|get\s+back\b|"
                         r"share\b|send\b|provide\b|notify\b|inform\b|update\s+you\b|monitor\b|check\b|look\b|loop\b|"
                         r"follow\b|reach\b|contact\b|email\b|confirm\b|review\b|watch\b|track\b|continue\b|proceed\b)[a-z]+")
"""A promise of the agent's to act ("I'll file the dispute", "I'll be glad to book it"), not one to notify,
watch or wait ("I'll share the tracking number", "I'll monitor the order")."""
_CAN_TRANSFER = re.compile(r"(?:(?:but|however|alternatively|otherwise|also)\s+)?(?:i|we)\s+(?:can|could)\s+(?:also\s+|certainly\s+)?"
                           r"(?:transfer|connect|escalate|hand|pass|put)")
"""A hand-over to a human offered as a statement ("I can transfer you to a human agent"): an offer, like the
question "Would you like me to transfer you?"."""
_GO_KINDS = ("claim", "deliver", "go")
_ASK_LEAD_EN = re.compile(
    r"\b(?:a\s+(?:couple|few)\s+(?:of\s+)?|two\s+|three\s+|some\s+|one\s+)(?:quick\s+|short\s+)?(?:questions?|details?|things)"
    r"\s+(?:before|first|to\s+(?:check|confirm|clarify)|for\s+you)\b|\b(?:a\s+(?:couple|few)\s+(?:of\s+)?)(?:quick\s+)?questions?\s*:?$"
    r"|\b(?:i|we)\s+(?:will\s+|would\s+)?need\s*:?$|\b(?:i|we)\s+(?:will|would)\s+need\s+(?:either\s+)?(?:the|your|a|an)\b"
)
"""A lead-in announcing questions or the details the agent needs (an ask: corpus rule 2)."""
_NOTHING_DONE_EN = re.compile(r"\b(?:i|we)\s+(?:have\s+)?[a-z]{3,}(?:ed|ent|ade|an|ut)\s+(?:nothing|none\s+of\s+(?:them|it|the|your))\b")
"""A first-person past tense whose object is nothing ("I deleted nothing", "I sent none of them")."""
_NOT_LET_EN = re.compile(r"\b(?:will|would|does|do|did|can|could)\s+not\s+(?:let|allow|permit)\s+(?:me|us)\b")
"""A system that does not let the agent act ("the system won't let me book over an appointment"): not possible."""
_TELL_ME_EN = re.compile(r"^(?:please\s+|just\s+)?(?:feel\s+free\s+to\s+|do\s+not\s+hesitate\s+to\s+)?(?:let\s+me\s+know|tell\s+me|say\s+so)\W*$")
_GO_AHEAD_IF_EN = re.compile(
    r"^(?:and\s+|so\s+)?(?:if|whenever|once)\s+you\s+(?:would\s+like|want|wish|are\s+ready|decide)\s+(?:me\s+)?to\s+"
    r"(?:proceed|go\s+ahead|confirm|continue|(?:apply|book|cancel|change|process|submit|make|place)\s+"
    r"(?:the|this|these|that|those|it|them)\b)"
    r"|^(?:and\s+|so\s+)?if\s+you\s+(?:want|would\s+like)\s+(?:the|this|that|it|your)\b[^,]{0,60}?\b(?:processed|done|cancelled|"
    r"canceled|changed|booked|submitted|applied|go\s+through)\b")
"""A sentence that closes with "feel free to let me know" after an if-clause asking for the go-ahead
("If you'd like me to proceed with the change, feel free to let me know"): it asks (rule 2)."""
_TELL_ME_ZH = re.compile(r"^(?:请|随时|就|请随时)?(?:告诉|告知|联系|回复|通知)(?:我|我们)?\W*$")
_GO_AHEAD_IF_ZH = re.compile(r"^如(?:果)?(?:您|你)?(?:同意|确认|决定|需要办理|想要|要)")
"""The Chinese form: "如您同意改签，随时告诉我" asks for the go-ahead."""
_ON_REPLY_EN = re.compile(r"\blet\s+me\s+know\b|\b(?:once|if|when|as\s+soon\s+as)\s+you\b")
"""A promise that waits on the user's reply ("Let me know if the 19th works and I'll book it")."""
_BEFORE_EN = re.compile(r"^(?:and\s+|but\s+|so\s+)?(?:before|until)\s+(?:i|we)\b")
_DONE_NOTHING = re.compile(
    r"^(?:done|completed|actions?(?:\s+taken)?|changes?(?:\s+made)?|result)\s*[:\-\u2014]\s*"
    r"(?:nothing|none|no\s+(?:action|changes?)|not\s+(?:done|completed|submitted|sent|applied))\b"
)
"""A report line saying nothing was done ("Done: nothing", "Changes made: none"; corpus rule 5)."""

@dataclass(slots=True)
class _Clause:
    """One clause of the text with its cue (``kind`` is ``None`` when it has none)."""

    display: str
    low: str  # lower-cased, contractions expanded
    kind: str | None
    rule: str
    caveat: bool
    conditional: bool  # the rest of its sentence names a condition (without / until / unless ...)
    sent: int


def _question_kind(sentence: str, is_last_sentence: bool) -> str | None:
    """Whether a question sentence addresses the user.

    Returns ``ask``, ``offer`` (offers help: counts only when nothing was refused or done
    before), ``transfer`` (offers a hand-over to a human: an abstention unless something was
    done or asked before), ``wask`` (a bare wh-question mid-text: counts only before a conditional refusal,
    "Which account? I can't proceed without it.") or ``None``.
    """
    if not _QUESTION_END.search(sentence) or _RHETORICAL.search(sentence):
        return "confirm" if _CONFIRM_Q.search(sentence) and is_last_sentence else None
    has_cjk = bool(_CJK.search(sentence))
    addressed = bool(_ADDRESSED_EN.search(sentence)) or (has_cjk and bool(_ADDRESSED_ZH.search(sentence)))
    if _TRANSFER_OFFER.search(sentence):
        return "transfer"
    if _CONFIRM_Q.search(sentence):
        return "confirm"
    if _OFFER_BACK.search(sentence) or _OFFER_BACK_ZH.search(sentence) or _OFFER_OPEN.search(sentence) or _OFFER_INSTEAD.search(sentence) \
            or _OFFER_PICK.search(sentence):
        return "offer"
    if not addressed:  # a choice between ways of doing it ("should X be A, or B?") asks even mid-text
        return "ask" if is_last_sentence or _CHOICE.search(sentence) else None
    if not is_last_sentence and _WH_START.match(sentence) and not _PERSON.search(sentence):
        return "wask"
    if (_OFFER_FRAME.search(sentence) and _OFFER_MARK.search(sentence)) or _OFFER_ZH.search(sentence) \
            or _OFFER_ME.search(sentence):
        return "offer"
    return "ask"


def _cue(clause: str, question: str | None, in_question: bool = False) -> tuple[str | None, str]:
    """Kind and rule id of one clause (already lower-cased and expanded); ``question`` is the question kind of
    the sentence when the clause ends it, ``in_question`` whether the clause is part of a question."""
    hit = _ASK_G.first(clause)
    if hit and question in ("transfer", "offer") and hit[1].group(0) == "请问":
        hit = None  # "请问需要我帮您转接人工客服吗?": the question is an offer, 请问 only opens it
    if hit and not _SUGGEST_RETRY.search(clause):
        if _OFFER_OPEN.search(clause):
            return "offer", "ask.offer"
        return "ask", hit[0]
    if question is not None:
        return question, {"offer": "ask.offer", "confirm": "ask.confirm", "transfer": "refusal.transfer_offer"}.get(
            question, "ask.question")
    if _CAN_TRANSFER.match(clause) and _TRANSFER_OFFER.search(clause):
        return "transfer", "refusal.transfer_offer"  # "(If you'd like,) I can transfer you to a human agent."
    if not in_question and COUNTERFACTUAL.search(clause):
        return "refuse", "refusal.counterfactual"
    if _CONDITIONAL.search(clause):
        return None, ""
    hit = _REFUSAL_G.first(clause)
    if hit and _GUESS.search(clause):
        return None, ""  # "I'd rather not guess which environment": caution, not a refusal
    if hit:
        rule, m = hit
        if rule == "refusal.cannot" and m.group(0).rsplit(None, 1)[-1] in ("help", "assist", "support", "comply"):
            rule = "refusal.cannot_help"
        return "refuse", rule
    if _CJK.search(clause) and zh_not_done(clause):  # "投标文件没有送达", "仍为 32E": not done (corpus rule 5)
        return "refuse", "refusal.not_done.zh"
    if _CJK.search(clause) and status_quo(clause):  # "座位目前仍为 32E": left as it was (corpus rule 5)
        return "refuse", "refusal.status_quo.zh"
    if _CJK.search(clause) and unavailable(clause):  # "已经满员了", "被行政部订走了": not possible (corpus rule 5)
        return "infeasible", "infeasible.unavailable.zh"
    for kind, group in _LATER_GROUPS:
        hit = group.first(clause)
        if hit:
            return kind, hit[0]
    return None, ""


_CONNECTIVE = re.compile(r"^(?:however|instead|alternatively|meanwhile|in\s+the\s+meantime|but|不过|但是|另外)$", re.IGNORECASE)


def _join_connectives(parts: list[str]) -> list[str]:
    """A clause that is only a connective ("However,") is joined to the next one."""
    out: list[str] = []
    carry = ""
    for p in parts:
        if _CONNECTIVE.match(p.strip(_TRAIL + ",")):
            carry += p.strip() + " "
            continue
        out.append(carry + p if carry else p)
        carry = ""
    if carry:
        out.append(carry.strip())
    return out


_ASKED_FIRST = re.compile(r"\b(?:please|kindly)\s+(?:\w+\s+){0,2}?(?:confirm|provide|tell|choose|select|specify|reply|send|share)\b"
                          r"|\blet\s+me\s+know\s+(?:which|what|whether|how|when|where|who)\b"
                          r"|\blet\s+me\s+know\s+if\s+you\s+(?:would\s+like|want|wish)\s+(?:me\s+)?to\s+(?:go\s+ahead|proceed|continue)\b"
                          r"|如(?:您|果您?)(?:同意|确认|决定|需要办理|想要|要)")
"""A request opening a sentence that closes with a courtesy ("Please confirm with yes, and let me know if
anything else should change"): the sentence asks, it is no closing."""


@lru_cache(maxsize=4096)
def _is_courtesy(low: str) -> bool:
    """A pleasantry or courtesy closing: carries no label (pipeline step 5); not a sentence whose
    courtesy follows a request of its own (:data:`_ASKED_FIRST`), nor one that goes on to refuse
    ("I'm here to help with retail support and can't answer questions about poetry")."""
    found = _PLEASANTRY.search(low) or _COURTESY.search(low)
    if found is None or _ASKED_FIRST.search(low[:found.start()]) or _SCOPE_LIMIT.search(low):
        return False
    rest = low[found.end():]
    return not (rest.strip() and (_REFUSAL_G.first(rest) or _ELIDED_REFUSAL.search(rest)))


_SCOPE_LIMIT = re.compile(SCOPE_LIMIT)
_ELIDED_REFUSAL = re.compile(r"^[^.!?;]{0,80}?\b(?:and|but)\s+(?:(?:unfortunately|sadly)\s+)?(?:can\s+not|could\s+not|am\s+(?:not\s+able|unable)\s+to|"
                             r"will\s+not\s+be\s+able\s+to|do\s+not\s+have\s+the\s+(?:ability|means)\s+to)\b")
"""A refusal whose subject the sentence's courtesy opening gave ("I'm here to help with orders *and can't*
answer ...")."""


def _drop_further_offers(sentences: list[str], lower: Callable[[str], str]) -> list[str]:
    """Set aside questions proposing one more action of the agent's (:func:`.claim.is_further_offer`)
    when the message says something else: like a courtesy closing, they claim nothing."""
    kept = [s for s in sentences
            if not (_QUESTION_END.search(s.rstrip(" .\u3002")) and is_further_offer(lower(s).strip()))]
    return kept if kept else sentences


_FIELD_AFTER = re.compile(r"[ \t]*+[:=|]")  # ``match`` at one position: linear
"""What follows a field name in a record ("Booking created: 2024-05-06")."""


def _shape_cue(plow: str, lang: str, conditional: bool) -> tuple[str | None, str]:
    """The cue of a clause no cue table matched, from its shape (:mod:`.claim`): a statement of
    what the agent needs (``ask``), an impersonal completion (``go``) or a denial (``infeasible``)."""
    suffix = "" if lang == "en" else f".{lang}"
    if need_cue(plow, lang):  # "I'll need the date of the damage to move forward": a question
        return "ask", "ask.need" + suffix
    if lang == "en" and passive_done(plow) and not conditional:  # "Your deposit has been switched to ...": a result
        return "go", "act.passive"
    if lang == "en" and status_done(plow):  # "Phishing report - handled": a report's status
        return "claim", "claim.status"
    if lang == "zh" and zh_moved(plow):  # "已把 X 从 4 核升到 8 核": a change made
        return "claim", "claim.moved.zh"
    if lang == "en" and not conditional and not _IF.search(plow) and not elsewhere(plow):
        kind = not_done(plow)  # "the pump stays off", "Not run.", "There's no order #55102": not done
        if kind is not None:
            return ("infeasible" if kind in ("not_found", "failed_outcome") else "refuse"), f"refusal.{kind}"
    if lang in ("en", "zh") and not conditional and not _REASON.search(plow) and not _IF.search(plow) \
            and denies(plow, lang):
        return "infeasible", "infeasible.polarity" + suffix  # "pets aren't allowed in that wing"
    return None, ""


def _segment(text: str) -> list[_Clause]:
    """Split into clauses (pleasantry sentences dropped) and give each its cue."""
    sentences = [s.strip() for s in _SENT_SPLIT.split(text) if s and s.strip(_TRAIL)]
    sentences = _drop_further_offers([s for s in sentences if not _is_courtesy(_lower_expand(s).strip())],
                                     _lower_expand)
    clauses: list[_Clause] = []
    for si, sent in enumerate(sentences):
        low = _lower_expand(sent).strip()
        lang_en = not _CJK.search(low)
        caveat = bool(_CAVEAT.search(low))
        question = _question_kind(low.rstrip(" .\u3002"), si == len(sentences) - 1)
        if not lang_en and _DONE_MARK.match(low):  # "✅ 自动续费已关闭": a report line marked done
            clauses.append(_Clause(sent, low, "claim", "claim.mark.zh", caveat, False, si))
            continue
        if _ZERO_COUNT.search(low):  # "Employees updated: none", "已生成发票：0 张": nothing done
            clauses.append(_Clause(sent, low, "refuse", "refusal.zero_count", caveat, False, si))
            continue
        if lang_en and _DONE_NOTHING.search(low):  # "Done: nothing", "Changes made: none": a report of nothing done
            clauses.append(_Clause(sent, low, "refuse", "refusal.done_nothing", caveat, False, si))
            continue
        parts = _join_connectives([p for p in _CLAUSE_SPLIT.split(sent) if p and p.strip(_TRAIL)])
        lows = [_LEAD_SYMBOLS.sub("", _lower_expand(p)).strip(_TRAIL) for p in parts]
        conds = [bool(_COND_REFUSAL.search(pl)) for pl in lows]
        if conds and conds[0] and len(lows[0]) < 60 and _COND_START.search(lows[0]):
            conds = [True] * len(conds)  # "Before you confirm X, I won't send it": the whole sentence waits
        for pi in range(len(parts) - 2, -1, -1):  # a condition later in the sentence applies back
            conds[pi] = conds[pi] or conds[pi + 1]
        for pi in range(1, len(parts)):  # "If you don't reply yes, I will not cancel it": what follows a failed condition
            conds[pi] = conds[pi] or bool(_IF.search(lows[pi - 1]) and _NEG_IF.search(lows[pi - 1]))
        if not lang_en:  # "目前只有汇总表，没法按城市拆分": a lack named first applies forward
            for pi in range(1, len(parts)):
                conds[pi] = conds[pi] or lacks(lows[pi - 1])
        last = len(parts) - 1
        after_if = later = False
        sent_asks: bool | None = None  # whether the sentence ends as a question, found once per sentence
        for pi, (part, plow) in enumerate(zip(parts, lows)):
            kind, rule = _cue(plow, question if pi == last else None, question is not None)
            if rule == "ask.hand_over.zh" and _IF.search(low):
                kind = "offer"  # "如果是某个服务需要…，把日志发给我": after a refusal, an offer of something else
            if lang_en and rule == "claim.passive":
                sub = _SUB_DONE.search(plow)
                if sub is not None and sub.start() > 0:  # "It is not possible to change it after the order has been placed"
                    kind, rule = _cue(plow[: sub.start()].strip(), question if pi == last else None, question is not None)
            if kind == "claim" and (sent_asks if sent_asks is not None else
                                    (sent_asks := _QUESTION_END.search(sent.rstrip(" .\u3002")) is not None)):
                kind, rule = None, ""  # "Could the reference have been issued by another carrier?": asks, claims nothing
            if kind is None:
                kind, rule = _shape_cue(plow, "en" if lang_en else "zh", conds[pi])
                if rule == "claim.status" and _FIELD_AFTER.match(sent, sent.find(part) + len(part)):
                    kind, rule = None, ""  # "- Booking created: 2024-05-06": a record's field name, no report
            elif lang_en and kind == "go" and rule.startswith("act.report") and not_done(plow) == "not_found":
                kind, rule = "infeasible", "refusal.not_found"  # "I searched ... and found no paper matching that"
            elif kind in ("refuse", "infeasible") and (elsewhere(plow) or warning(plow) or (not lang_en and no_problem(plow))):
                kind, rule = None, ""  # "nothing else was changed", "it can't be undone": no refusal
            if lang_en and kind is None and pi == last and pi > 0 and _TELL_ME_EN.match(plow) \
                    and _GO_AHEAD_IF_EN.search(low):
                kind, rule = "ask", "ask.let_me_know"  # "If you'd like me to proceed, feel free to let me know"
            elif not lang_en and kind is None and pi == last and pi > 0 and _TELL_ME_ZH.match(plow) \
                    and _GO_AHEAD_IF_ZH.search(low):
                kind, rule = "ask", "ask.zh"  # "如您同意改签，随时告诉我"
            if lang_en and kind in (None, "go", "claim") and _ASK_LEAD_EN.search(plow):
                kind, rule = "ask", "ask.lead"  # "Two quick questions before I book:", "To set it up I need:"
            elif lang_en and kind in ("go", "claim") and _BEFORE_EN.search(plow):
                kind, rule = None, ""  # "Before I set up the routine": a step not yet taken
            elif lang_en and kind == "go" and rule in _PROMISE and _NOT_LET_EN.search(plow):
                kind, rule = "infeasible", "infeasible.not_allowed"  # "the system won't let me book over it"
            elif lang_en and kind == "go" and rule in _PROMISE and _ON_REPLY_EN.search(plow):
                kind, rule = None, ""  # "Let me know if the 19th works and I'll book it": waits on the answer
            elif lang_en and kind == "claim" and _NOTHING_DONE_EN.search(plow):
                kind, rule = "refuse", "refusal.decline"  # "I deleted nothing": a decline, corpus rule 5
            here_later = _LATER_EN.search(plow) if lang_en else None
            will = _WILL_DO_EN.search(plow) if lang_en and kind in (None, "go") and not conds[pi] else None
            if will is not None and (later or here_later is not None and here_later.start() < will.start()) \
                    and not _ON_REPLY_EN.search(plow):
                kind, rule = "infeasible", "infeasible.postponed"  # "Once the schedule opens, I'll book it": put off
                conds[pi] = True  # a stop only when nothing else decides: no refusal that a later go-ahead would serve
            if kind in ("go", "claim") and (_REASON.search(plow) or (after_if and rule in _PROMISE)):
                kind, rule = None, ""  # "Once I have the number, I'll process it": a promise on a condition
            after_if = after_if or bool(_CONDITIONAL.search(plow) or _ONCE.search(plow) or here_later)
            later = later or bool(here_later and not _ON_REPLY_EN.search(plow))
            clauses.append(_Clause(part.strip(), plow, kind, rule, caveat, conds[pi], si))
    return clauses


def _segment_intl(text: str, lang: str) -> list[_Clause]:
    """:func:`_segment` for a language with a small cue table (:mod:`.cues_intl`)."""
    cues, kinds = intl_cues(lang), intl_kinds(lang)
    assert cues is not None and kinds is not None
    sentences = [s.strip() for s in _SENT_SPLIT.split(text) if s and s.strip(_TRAIL)]
    sentences = _drop_further_offers([s for s in sentences if not cues.courtesy.search(s.lower())], str.lower)
    clauses: list[_Clause] = []
    for si, sent in enumerate(sentences):
        low = sent.lower().strip()
        question = None
        if _QUESTION_END.search(low.rstrip(" .\u3002")) or low.startswith("\u00bf"):
            question = "transfer" if cues.transfer.search(low) else "confirm" if kinds.go_ahead.search(low) \
                else "offer" if cues.offer.search(low) or kinds.proposal.search(low) and not kinds.choice.search(low) else "ask"
        parts = [p for p in _CLAUSE_SPLIT.split(sent) if p and p.strip(_TRAIL)]
        status = _STATUS_LINE.match(low)
        if status and _NEGATED[lang].search(low[status.end():]):  # "Estado: no completado"
            clauses.append(_Clause(sent, low, "refuse", f"refusal.status.{lang}", False, False, si))
            continue
        if _ZERO_COUNT.search(low):  # "Rechnungen erstellt: 0": a report line counting nothing done
            clauses.append(_Clause(sent, low, "refuse", f"refusal.zero_count.{lang}", False, False, si))
            continue
        for pi, part in enumerate(parts):
            plow = part.lower().strip(_TRAIL)
            kind, rule = _kind_cue(plow, kinds, lang, question is not None, low)
            match = None
            for rkind, rid, pat in cues.rules if kind is None else ():
                match = pat.search(plow)
                if match:
                    kind, rule = rkind, rid
                    break
            if kind == "heading":
                clauses.append(_Clause(part.strip(), plow, None, "", False, False, si))
                continue
            if kind is None and need_cue(plow, lang):  # "Ich brauche nur Ihre Bestellnummer": a question
                kind, rule = "ask", f"ask.need.{lang}"
            elif kind is None and (cues.reason is None or not cues.reason.search(plow)) \
                    and denies_intl(plow, _NEG_ONLY[lang]) and not _NO_NEED.search(plow):
                kind, rule = "infeasible", f"infeasible.negated.{lang}"  # "liegt außerhalb dieses Kanals"
            if kind in ("refuse", "infeasible") and warning(plow):
                kind, rule = None, ""  # "Diese Aktion kann nicht rückgängig gemacht werden": a warning
            if kind == "refuse" and _GUESS.search(plow):
                kind, rule = None, ""  # "daher möchte ich das nicht einfach annehmen": caution, not a refusal
            if kind == "claim" and match is not None and _NEG_ONLY[lang].search(plow[: match.end()]) \
                    and not _BENIGN_INTL.search(plow) and not _NO_ERROR.search(plow):
                kind, rule = "refuse", f"refusal.negated.{lang}"  # "No se ha creado ningún informe"
            elif kind == "claim" and cues.report is not None and cues.report.search(plow):
                kind, rule = "go", f"act.report.{lang}"  # checked / tried: not the action done
            elif kind == "claim" and lang not in ("ja", "ko") and not _SELF.search(plow) and not _STRONG_DONE.search(plow) \
                    and not rule.startswith("claim.done_mark."):
                kind, rule = "go", f"act.report.{lang}"  # an impersonal passive: a state, weaker than a claim
            if kind == "claim" and kinds.prepared.search(plow):
                kind, rule = "deliver", f"act.prepared.{lang}"  # "J'ai préparé le virement": preparation (rule 1)
            if kind in ("claim", "go") and cues.reason is not None and cues.reason.search(plow):
                kind, rule = None, ""  # "because it was shipped this morning": a reason, not a report
            if pi == len(parts) - 1 and question is not None and kind not in ("ask",):
                kind, rule = question, {"ask": f"ask.question.{lang}", "offer": f"ask.offer.{lang}",
                                        "confirm": f"ask.confirm.{lang}"}.get(question, f"refusal.transfer_offer.{lang}")
            elif kind is None and cues.transfer.search(plow):
                kind, rule = "refuse", f"refusal.transfer.{lang}"
            clauses.append(_Clause(part.strip(), plow, kind, rule, False, False, si))
    return _apply_kinds(clauses, kinds, lang)


_WAITS = re.compile(r"\b(?:si|wenn|sobald|falls|d[èe]s\s+que|une\s+fois|en\s+cuanto|cuando|una\s+vez|assim\s+que|quando|se)\b"
                    r"|次第|たら|れば|(?:으|하|시)면")
"""A condition or a wait on the user: a promise in such a clause waits on the answer."""
_NO_ERROR = re.compile(r"\b(?:aucune?\s+(?:erreur|incident)|keine?n?\s+(?:fehler|st[öo]rung)|ning[úu]n\s+(?:error|incidente)"
                       r"|nenhum\s+(?:erro|incidente))\b|エラーはありません|오류\s?없")
"""An error, a fault: a negated claim about one ("Aucune erreur n'a été relevée") refuses nothing (rule 6)."""
_ZERO_WORD = re.compile(r"(?:nichts|keine?|rien|aucune?|nada|ninguno|ninguna|nenhum|nenhuma|none|0|なし|無し|없음)[\s.。]*$")
"""A report value that counts nothing."""
_DONE_MARK_INTL = re.compile(r"[\u2705\u2714]|\u2611")
"""A check mark on a report line or table row: that item was done."""
_FAIL_MARK = re.compile(r"[\u274c\u2716\u26a0\u2717\u2718]")
"""A cross or a warning mark: that item was not done."""


def _kind_cue(plow: str, kinds: IntlKinds, lang: str, question: bool, sentence: str) -> tuple[str | None, str]:
    """The cue of a clause from the kind tables of :mod:`.intl_kinds` (tried before the cue tables);
    ``sentence`` is the lower-cased sentence holding it (a promise in a sentence that waits on a
    condition is no proceed)."""
    if kinds.heading.search(plow.strip(" *#:")):
        return "heading", ""  # "Ce que j'ai fait :": a section title, no cue
    if _DONE_MARK_INTL.search(plow) and not _FAIL_MARK.search(plow):
        return "claim", f"claim.done_mark.{lang}"  # "| 302-7781 | Winterjacke | ✅ erstattet |" (rule 1)
    if kinds.no_change.search(plow):
        return "go", f"act.no_change.{lang}"  # "es war kein Eingriff nötig": the state asked for (rule 6)
    if kinds.decline.search(plow):
        return "refuse", f"refusal.decline.{lang}"  # "He preferido no reiniciar el servidor" (rule 5)
    if kinds.failed.search(plow):
        return "infeasible", f"infeasible.failed.{lang}"  # "Sie ist in der Stage sign-artifacts abgebrochen" (rule 5)
    if kinds.status_quo.search(plow):
        return "refuse", f"refusal.status_quo.{lang}"  # "Das Schloss bleibt daher verriegelt" (rule 5)
    if kinds.proceed.search(plow) and not _WAITS.search(sentence):
        return "go", f"act.proceed.{lang}"  # "それでは集荷の手配をただちに進めます" (rule 8)
    if kinds.unavailable.search(plow):
        return "infeasible", f"infeasible.unavailable.{lang}"  # "Den Termin gibt es nicht mehr" (rule 5)
    if len(plow.split()) <= _TERSE_WORDS and kinds.terse_done.search(plow.strip(" *-")) \
            and not _NEG_ONLY[lang].search(plow) and not _NOT_TERSE.search(plow) and not question:
        return "claim", f"claim.terse.{lang}"  # "Hecho.", "Usuario añadido al grupo" (rule 1)
    return None, ""


def _apply_kinds(clauses: list[_Clause], kinds: IntlKinds, lang: str) -> list[_Clause]:
    """The text-level readings of :mod:`.intl_kinds`: an attempt verb beside a failed outcome is the
    try (``act.report``); with "nothing needed changing" a status quo refuses nothing; a consequence
    warning beside a question to the user refuses nothing; a done-label whose value counts nothing
    ("Erledigt: nichts") reports nothing done; after a decline, or in a sentence naming what was done
    instead after a refusal, a completion is an alternative (``act.alternative``, rule 4)."""
    failed = any(c.rule.startswith("infeasible.failed.") for c in clauses)
    no_change = any(c.rule.startswith("act.no_change.") for c in clauses)
    asks_last = any(c.kind in ("ask", "confirm", "offer") for c in clauses)
    sentences: dict[int, str] = {}
    for c in clauses:
        sentences[c.sent] = sentences.get(c.sent, "") + " " + c.low
    for c, nxt in pairwise(clauses):
        if c.rule.startswith("claim.terse.") and nxt.sent == c.sent and _ZERO_WORD.match(nxt.low.strip(" *")):
            c.kind, c.rule = "refuse", f"refusal.zero_count.{lang}"  # "**Erledigt:** nichts": a label counting nothing
    for c in clauses:
        if c.kind == "ask" and kinds.wish.search(sentences[c.sent]):
            c.kind, c.rule = "offer", f"ask.offer.{lang}"  # "필요하시면 폴더명을 알려주세요": on the user's wish
    stop = declined = False
    for c in clauses:
        if c.kind == "claim" and failed and kinds.attempt.search(c.low):
            c.kind, c.rule = "go", f"act.report.{lang}"  # "Ich habe die Pipeline gestartet. ... abgebrochen"
        elif c.kind == "refuse" and no_change and c.rule.startswith("refusal.status_quo."):
            c.kind, c.rule = None, ""  # "Die Richtlinie bleibt unverändert, es war kein Eingriff nötig"
        elif c.kind in _STOP_KINDS and asks_last and kinds.warning.search(c.low):
            c.kind, c.rule = None, ""  # "eine Wiederherstellung wäre danach nicht möglich. Soll ich ...?"
        elif (c.kind == "claim" or c.rule.startswith("act.report.")) \
                and (declined or stop and kinds.alternative.search(sentences[c.sent].strip())):
            c.kind, c.rule = "deliver", f"act.alternative.{lang}"  # "Stattdessen habe ich CHG-20931 angelegt"
        stop = stop or c.kind in _STOP_KINDS
        declined = declined or c.rule.startswith("refusal.decline.")
    return clauses
