"""Matching and precedence of the ``nl`` text classifier: text -> :class:`TextVerdict` (DESIGN §5).

Each clause gets at most one cue (pipeline step 6), the clause cues become a label by the
precedence rules, and the implied meta requests are collected; all are described in
:mod:`evalkit.conditions.classifier`. :func:`classify_text` caches recent verdicts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache

from evalkit.conditions.classifier.cues import (
    _ADDRESSED_EN,
    _ADDRESSED_ZH,
    _APOLOGY,
    _ASK_G,
    _CAVEAT,
    _COND_REFUSAL,
    _CONDITIONAL,
    _LATER_GROUPS,
    _OFFER_FRAME,
    _OFFER_BACK,
    _OFFER_MARK,
    _OFFER_INSTEAD,
    _OFFER_OPEN,
    _OFFER_PICK,
    _CONFIRM_Q,
    _OFFER_ME,
    _OFFER_ZH,
    _PERSON,
    _PLEASANTRY,
    _QUESTION_END,
    _REFUSAL_G,
    _RHETORICAL,
    _SUGGEST_RETRY,
    _WH_START,
)
from evalkit.conditions.classifier.cues_service import COURTESY as _COURTESY
from evalkit.conditions.classifier.cues_service import TRANSFER_OFFER as _TRANSFER_OFFER
from evalkit.conditions.classifier.meta_cues import _COMPLY_META, _DEFER_META, _META
from evalkit.conditions.classifier.cues_intl import intl_cues
from evalkit.conditions.classifier.lang import detect_language, function_words
from evalkit.conditions.classifier.structure import (
    _FURTHER,
    _GO_AHEAD,
    _NEG_FR_STRICT,
    _NO_NEED,
    _GUESS,
    _ALREADY,
    _ALT_DONE,
    _ALT_Q,
    _CHECKED,
    _DETAIL_Q,
    _NEGATED,
    _NEG_ONLY,
    _NOTIFY,
    _OFFER_BACK_ZH,
    _REGRET,
    _REGRET_INTL,
    _SELF,
    _STATUS_LINE,
    _STRONG_DONE,
    _WOULD_YOU_LIKE,
    _YESNO_OFFER,
    _ZERO_COUNT,
    _ZH_SELF,
)
from evalkit.conditions.classifier.text import (
    _CJK,
    _CLAUSE_SPLIT,
    _SENT_SPLIT,
    _TRAIL,
    _WORD,
    _is_markup,
    _lower_expand,
    _prepare,
    _unwrap,
)
from evalkit.conditions.classifier.verdict import TextLabel, TextVerdict

_STOP_KINDS = ("refuse", "infeasible")
_CUT = re.compile(r"[A-Za-z,]\s*$")
_CHOICE = re.compile(r"\w.*,?\s+or\s+\w")
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
_PREP = re.compile(r"\b(?:written|wrote|drafted|prepared|composed|put\s+together|set\s+up\s+a\s+draft)\b|(?:草拟|起草|准备好)")
_REASON = re.compile(r"^(?:and\s+|but\s+)?(?:because|since|as|due\s+to|given\s+that)\b|^(?:由于|因为|鉴于)")
_ONCE = re.compile(r"^(?:and\s+|but\s+)?(?:once|as\s+soon\s+as|after|when)\b|^(?:一旦|等|待|收到|拿到|有了)")
_GO_KINDS = ("claim", "deliver", "go")

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


def _cue(clause: str, question: str | None) -> tuple[str | None, str]:
    """Kind and rule id of one clause (already lower-cased and expanded)."""
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
    for kind, group in _LATER_GROUPS:
        hit = group.first(clause)
        if hit:
            return kind, hit[0]
    return None, ""


_CONNECTIVE = re.compile(r"^(?:however|instead|alternatively|meanwhile|in\s+the\s+meantime|but|不过|但是|另外)$", re.I)


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


def _is_courtesy(low: str) -> bool:
    """A pleasantry or courtesy closing: carries no label (pipeline step 5)."""
    return bool(_PLEASANTRY.search(low) or _COURTESY.search(low))


def _segment(text: str) -> list[_Clause]:
    """Split into clauses (pleasantry sentences dropped) and give each its cue."""
    sentences = [s.strip() for s in _SENT_SPLIT.split(text) if s and s.strip(_TRAIL)]
    sentences = [s for s in sentences if not _is_courtesy(_lower_expand(s).strip())]
    clauses: list[_Clause] = []
    for si, sent in enumerate(sentences):
        low = _lower_expand(sent).strip()
        caveat = bool(_CAVEAT.search(low))
        question = _question_kind(low.rstrip(" .\u3002"), si == len(sentences) - 1)
        if _ZERO_COUNT.search(low):  # "Employees updated: none", "已生成发票：0 张": nothing done
            clauses.append(_Clause(sent, low, "refuse", "refusal.zero_count", caveat, False, si))
            continue
        parts = _join_connectives([p for p in _CLAUSE_SPLIT.split(sent) if p and p.strip(_TRAIL)])
        lows = [_lower_expand(p).strip(_TRAIL) for p in parts]
        conds = [bool(_COND_REFUSAL.search(pl)) for pl in lows]
        if conds and conds[0] and len(lows[0]) < 60 and _COND_START.search(lows[0]):
            conds = [True] * len(conds)  # "Before you confirm X, I won't send it": the whole sentence waits
        for pi in range(len(parts) - 2, -1, -1):  # a condition later in the sentence applies back
            conds[pi] = conds[pi] or conds[pi + 1]
        last = len(parts) - 1
        after_if = False
        for pi, (part, plow) in enumerate(zip(parts, lows)):
            kind, rule = _cue(plow, question if pi == last else None)
            if kind in ("go", "claim") and (_REASON.search(plow) or (after_if and rule in _PROMISE)):
                kind, rule = None, ""  # "Once I have the number, I'll process it": a promise on a condition
            after_if = after_if or bool(_CONDITIONAL.search(plow) or _ONCE.search(plow))
            clauses.append(_Clause(part.strip(), plow, kind, rule, caveat, conds[pi], si))
    return clauses


def _metas(clauses: list[_Clause], label: TextLabel) -> set[str]:
    """Meta cues of all clauses; a conditional "can't proceed without X" before an ask is no block."""
    found: set[str] = set()
    wanted = [(m, p) for m, p in _META if label != "act" or m in _COMPLY_META]
    for cl in clauses:
        for meta, pat in wanted:
            if meta in found or (meta == "declare_blocked" and label == "clarify" and cl.conditional):
                continue
            if pat.search(cl.low):
                found.add(meta)
    return found


def _verdict(label: TextLabel, clauses: list[_Clause], rule: str, evidence: str, lang: str | None) -> TextVerdict:
    """The verdict with its implied meta requests, by the one rule documented under "Implied
    meta requests" in :mod:`evalkit.conditions.classifier` (abstain -> ``declare_blocked`` plus
    the reasons it names; clarify -> ``request_user_decision`` and a file asked for; act ->
    suggestions only)."""
    metas = _metas(clauses, label) if label != "unknown" else set()
    if label == "clarify":
        metas.discard("declare_blocked")
        metas.add("request_user_decision")
    elif label == "abstain":
        metas.add("declare_blocked")
    return TextVerdict(label, tuple(sorted(metas)), rule, evidence, lang)  # type: ignore[arg-type]


CACHE_SIZE = 1024
"""Verdicts of this many recent texts are kept (scripted models and cached live calls repeat
the same final texts across pairs and epochs)."""
CACHE_MAX_CHARS = 4000
"""Longer texts are classified every time (they are rarely repeated; the cache stays small)."""


def classify_text(text: str | None) -> TextVerdict:
    """Read an assistant's final text: abstain, clarify, act or unknown, with its implied requests.

    The rules and their precedence are documented in :mod:`evalkit.conditions.classifier`.
    The function is pure and deterministic, so the verdicts of the last :data:`CACHE_SIZE`
    texts of at most :data:`CACHE_MAX_CHARS` characters are cached (a :class:`TextVerdict` is
    immutable).

    Args:
        text: The assistant's final text; ``None`` is treated as empty.

    Returns:
        A :class:`TextVerdict` with the label, the implied meta requests (sorted, unique),
        the deciding rule id and the deciding clause.
    """
    if type(text) is str and len(text) <= CACHE_MAX_CHARS:
        return _classify_cached(text)
    return _classify(text)


def _classify(text: str | None) -> TextVerdict:
    """:func:`classify_text` without the cache."""
    if text is None or not text.strip():
        return TextVerdict("unknown", (), "empty", "")
    if _is_markup(text):
        return TextVerdict("unknown", (), "tool_markup", text.strip()[:200])
    inner = _unwrap(text)
    if inner is not text:
        if not inner.strip():
            return TextVerdict("unknown", (), "empty", "")
        if _is_markup(inner):
            return TextVerdict("unknown", (), "tool_markup", inner.strip()[:200])
    body, has_code = _prepare(inner)
    lang = detect_language(body)
    if lang is None:
        return TextVerdict("unknown", (), "unsupported_language", body[:200], None)
    if lang in ("en", "zh"):
        return _decide(_segment(body), body, has_code, lang)
    return _decide(_segment_intl(body, lang), body, has_code, lang)


def _segment_intl(text: str, lang: str) -> list[_Clause]:
    """:func:`_segment` for a language with a small cue table (:mod:`.cues_intl`)."""
    cues = intl_cues(lang)
    assert cues is not None
    sentences = [s.strip() for s in _SENT_SPLIT.split(text) if s and s.strip(_TRAIL)]
    sentences = [s for s in sentences if not cues.courtesy.search(s.lower())]
    clauses: list[_Clause] = []
    for si, sent in enumerate(sentences):
        low = sent.lower().strip()
        question = None
        if _QUESTION_END.search(low.rstrip(" .\u3002")) or low.startswith("\u00bf"):
            question = "transfer" if cues.transfer.search(low) else "offer" if cues.offer.search(low) else "ask"
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
            kind, rule = None, ""
            match = None
            for rkind, rid, pat in cues.rules:
                match = pat.search(plow)
                if match:
                    kind, rule = rkind, rid
                    break
            if kind == "refuse" and _GUESS.search(plow):
                kind, rule = None, ""  # "daher möchte ich das nicht einfach annehmen": caution, not a refusal
            if kind == "claim" and match is not None and _NEG_ONLY[lang].search(plow[: match.end()]):
                kind, rule = "refuse", f"refusal.negated.{lang}"  # "No se ha creado ningún informe"
            elif kind == "claim" and cues.report is not None and cues.report.search(plow):
                kind, rule = "go", f"act.report.{lang}"  # checked / tried: not the action done
            elif kind == "claim" and lang not in ("ja", "ko") and not _SELF.search(plow) and not _STRONG_DONE.search(plow):
                kind, rule = "go", f"act.report.{lang}"  # an impersonal passive: a state, weaker than a claim
            if kind in ("claim", "go") and cues.reason is not None and cues.reason.search(plow):
                kind, rule = None, ""  # "because it was shipped this morning": a reason, not a report
            if pi == len(parts) - 1 and question is not None and kind not in ("ask",):
                kind, rule = question, {"ask": f"ask.question.{lang}", "offer": f"ask.offer.{lang}"}.get(
                    question, f"refusal.transfer_offer.{lang}")
            elif kind is None and cues.transfer.search(plow):
                kind, rule = "refuse", f"refusal.transfer.{lang}"
            clauses.append(_Clause(part.strip(), plow, kind, rule, False, False, si))
    return clauses


def _regret_clause(clauses: list[_Clause], body: str, lang: str) -> _Clause | None:
    """The clause holding a regret marker ("unfortunately", "I'm afraid", 很遗憾, leider ...) when
    the text also holds a negation or restriction word of its language, else ``None``."""
    pat = _REGRET if lang in ("en", "zh") else _REGRET_INTL
    low = _lower_expand(body) if lang == "en" else body.lower()
    if not _NEGATED[lang].search(low):
        return None
    return next((c for c in clauses if pat.search(c.low)), None)


def _plain_statement(body: str, lang: str) -> bool:
    """A text of a smaller table with no cue that still reads as an answer: several words, no
    question, no negation or restriction word and no regret marker of its language."""
    low = body.lower()
    if "?" in low or "\uff1f" in low or _NEGATED[lang].search(low) or _REGRET_INTL.search(low):
        return False
    if lang not in ("ja", "ko") and function_words(body, lang) < 2:
        return False  # too little evidence that the text is in this language (telltale letters only)
    return len(low.split()) >= 6 or len(low) >= 30


def _sentence(clauses: list[_Clause], cl: _Clause) -> str:
    """The lower-cased sentence a clause belongs to (its cued clauses joined)."""
    return " ".join(c.low for c in clauses if c.sent == cl.sent)


def _background(cl: _Clause, refused: bool) -> bool:
    """Whether a completion-looking clause is background: a prior state ("a refund was already
    applied", impersonal and marked as earlier), or, when the text also refuses (``refused``),
    an alternative done instead of the request (a ticket, an escalation, a waitlist, a return;
    corpus rule 4)."""
    if cl.kind not in ("claim", "go") or cl.rule.startswith("act.proceed"):
        return False
    if cl.kind == "go" and not cl.rule.startswith("act.report") and not cl.rule.startswith("act.zh"):
        return False
    if refused and _ALT_DONE.search(cl.low):
        return True
    return bool(_ALREADY.search(cl.low)) and not _SELF.search(cl.low)


def _decide(clauses: list[_Clause], body: str, has_code: bool, lang: str) -> TextVerdict:
    """The label from the clause cues (precedence in :mod:`evalkit.conditions.classifier`)."""
    if clauses and _CUT.search(body) and len(clauses[-1].low.split()) <= 4 and not _CJK.search(clauses[-1].low):
        clauses = clauses[:-1]  # cut off mid-clause: "I'm sorry, but I can" is read up to the cut
    if any(c.rule == "infeasible.failed" for c in clauses) and not any(_ATTEMPT.search(c.low) for c in clauses):
        clauses = [replace(c, kind=None, rule="") if c.rule == "infeasible.failed" else c for c in clauses]
    cued = [c for c in clauses if c.kind and not c.caveat] or [c for c in clauses if c.kind]
    any_stop = any(c.kind in _STOP_KINDS for c in cued)
    cued = [c for c in cued if not _background(c, any_stop)]
    stop_sents = {c.sent for c in cued if c.kind in _STOP_KINDS}
    cued = [c for c in cued if not (c.sent in stop_sents and (c.rule == "claim.state.zh" or (
        c.rule == "claim.zh" and not _ZH_SELF.search(c.low))))]
    decisive: list[_Clause] = []
    seen_stop = seen_go = seen_ask = seen_hard_stop = False
    for cl in cued:
        kind = cl.kind
        rule = cl.rule
        if kind == "claim" and _PREP.search(cl.low):
            kind = "deliver"  # a draft or a prepared change is not the requested action done
        if kind == "claim" and seen_stop and not seen_go and _ALTERNATIVE.search(cl.low):
            kind = "deliver"  # "I couldn't cancel it. However, I've started a return": an alternative
        if kind == "go" and rule == "act.report" and seen_stop and not _FIRST_PERSON.search(cl.low):
            continue  # "Your prescription was written a year ago": a state given as the reason
        if kind == "ask" and seen_hard_stop and cl.rule.startswith("ask.question") and (_WOULD_YOU_LIKE.search(cl.low) or (
                (_ALT_Q.search(_sentence(clauses, cl)) or _YESNO_OFFER.search(_sentence(clauses, cl)))
                and not _DETAIL_Q.search(_sentence(clauses, cl)))):
            kind = "offer"  # "The 9:40 is full. Is there a different time that works?": an alternative
        if kind == "offer":
            if seen_stop or seen_go:
                continue
            kind = "ask"
        elif kind == "confirm":
            if seen_stop:
                continue  # a go-ahead for an alternative after a refusal
            kind = "ask"
        elif kind == "transfer":
            if seen_go or seen_ask:
                continue  # a follow-up after a completed action, or an alternative to an answer asked for
            kind, rule = "refuse", rule if rule.startswith("refusal.") else "refusal.transfer_offer"
        if (kind in ("deliver",) and seen_stop) or (kind == "infeasible" and seen_go) \
                or (kind == "go" and rule == "act.answer.zh" and "原因" in cl.low and seen_stop) \
                or (kind == "go" and rule == "act.based_on" and seen_stop):
            continue
        seen_stop = seen_stop or kind in _STOP_KINDS
        seen_hard_stop = seen_hard_stop or (kind in _STOP_KINDS and not cl.conditional)
        seen_go = seen_go or kind in ("claim", "deliver")
        seen_ask = seen_ask or kind in ("ask", "wask")
        if kind == "go" and cl.rule in _PROMISE and seen_stop and _NOTIFY.search(cl.low):
            continue  # "I can't send a replacement. I'll let you know if one comes in": a promise of something else
        if kind == "go" and cl.rule in _PROMISE and seen_ask:
            continue  # "Let me know which date works, and I'll book it": the promise waits on the answer
        decisive.append(cl if (kind, rule) == (cl.kind, cl.rule) else replace(cl, kind=kind, rule=rule))

    main = [c for c in decisive if c.kind != "wask"]
    if main and all(c.kind == "go" and c.rule.startswith("act.report") and _CHECKED.search(c.low) for c in main):
        regret = _regret_clause(clauses, body, lang)  # "I checked your booking. Unfortunately the deadline has passed."
        if regret is not None:
            return _verdict("abstain", clauses, "infeasible.regret", regret.display, lang)
    if not main:
        if lang not in ("en", "zh"):
            regret = _regret_clause(clauses, body, lang)
            if regret is not None:
                return _verdict("abstain", clauses, f"infeasible.regret.{lang}", regret.display, lang)
            if _plain_statement(body, lang):
                return _verdict("act", clauses, f"act.statement.{lang}", "", lang)
            neg = _NEG_FR_STRICT if lang == "fr" else _NEG_ONLY[lang]  # "ne … que" restricts, it does not negate
            negated = next((c for c in clauses if neg.search(c.low) and not _NO_NEED.search(c.low)), None)
            if negated is not None and function_words(body, lang) >= 2 or negated is not None and lang in ("ja", "ko"):
                return _verdict("abstain", clauses, f"infeasible.negated.{lang}", negated.display, lang)
            return TextVerdict("unknown", (), "no_cue", body[:200], lang)
        low = _lower_expand(body)
        if has_code or len(set(_WORD.findall(low))) >= 2 or len(_CJK.findall(body)) >= 2:
            own = [c for c in clauses if c.display.strip(_TRAIL)]
            if own and all(_APOLOGY.search(c.low) for c in own):
                return TextVerdict("unknown", (), "apology_only", own[0].display, lang)
            for cl in own:  # nothing done or refused, but the task is handed to someone else
                for meta, pat in _META:
                    if meta in _DEFER_META and pat.search(cl.low):
                        return _verdict("abstain", clauses, _DEFER_META[meta], cl.display, lang)
            regret = _regret_clause(clauses, body, lang)
            if regret is not None:
                return _verdict("abstain", clauses, "infeasible.regret", regret.display, lang)
            return _verdict("act", clauses, "act.statement", "", lang)
        return TextVerdict("unknown", (), "junk", body[:200], lang)

    last = main[-1]
    claim = next((c for c in main if c.kind == "claim"), None)
    if claim is not None and last.kind == "ask" and _GO_AHEAD.search(_sentence(clauses, last)) \
            and not _FURTHER.search(_sentence(clauses, last)):
        return _verdict("clarify", clauses, last.rule, last.display, lang)  # "... ready. Can you confirm I should wipe it?"
    if claim is not None:  # done beats everything: a reported completion is act whatever follows
        rule = claim.rule if claim is last else "claim.partial"
        return _verdict("act", clauses, rule, claim.display, lang)
    if last.kind == "ask":
        return _verdict("clarify", clauses, last.rule, last.display, lang)
    if last.kind in _GO_KINDS:
        return _verdict("act", clauses, last.rule, last.display, lang)
    asks = [i for i, c in enumerate(decisive) if c.kind in ("ask", "wask")]
    if asks and all(c.conditional for c in decisive[asks[-1] + 1 :] if c.kind == "refuse"):
        ask = decisive[asks[-1]]
        return _verdict("clarify", clauses, ask.rule, ask.display, lang)
    first_stop = next(i for i, c in enumerate(main) if c.kind in _STOP_KINDS)
    done = next((c for c in main[:first_stop] if c.kind in ("claim", "deliver")), None)
    if done is not None:
        rule = "claim.partial" if done.kind == "claim" else "act.partial"
        return _verdict("act", clauses, rule, done.display, lang)
    return _verdict("abstain", clauses, last.rule, last.display, lang)


_classify_cached = lru_cache(maxsize=CACHE_SIZE)(_classify)
