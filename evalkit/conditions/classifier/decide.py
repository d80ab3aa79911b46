"""Matching and precedence of the ``nl`` text classifier: text -> :class:`TextVerdict` (DESIGN §5).

Each clause gets at most one cue (pipeline step 6), the clause cues become a label by the
precedence rules, and the implied meta requests are collected; all are described in
:mod:`evalkit.conditions.classifier`. :func:`classify_text` caches recent verdicts.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache
from typing import Final

from evalkit.conditions.classifier.claim import (
    PROPOSAL,
    denies,
    lookup_offer,
    offer_after_statement,
    offers_instead,
    once_limit,
)
from evalkit.conditions.classifier.clauses import (
    _ALTERNATIVE,
    _ATTEMPT,
    _CUT,
    _FIRST_PERSON,
    _GO_KINDS,
    _PREP,
    _PROMISE,
    _REASON,
    _STOP_KINDS,
    _Clause,
    _segment,
    _segment_intl,
)
from evalkit.conditions.classifier.cues import (
    _APOLOGY,
    _CONFIRM_Q,
    _QUESTION_END,
)
from evalkit.conditions.classifier.cues_zh import (
    go_ahead,
    offer_after_refusal,
    zh_not_the_request,
)
from evalkit.conditions.classifier.lang import detect_language, function_words
from evalkit.conditions.classifier.meta_cues import _COMPLY_META, _DEFER_META, _META
from evalkit.conditions.classifier.outcome_en import (
    failed_headline,
    alternative_done,
    consequence,
    failed_attempt,
    go_ahead_question,
    irreversible,
    not_found,
    offers_else,
)
from evalkit.conditions.classifier.structure import (
    _ALREADY,
    _ALT_DONE,
    _ALT_Q,
    _CHECKED,
    _DETAIL_Q,
    _FURTHER,
    _GO_AHEAD,
    _HANDOVER,
    _NEG_FR_STRICT,
    _NEG_ONLY,
    _NEGATED,
    _NO_NEED,
    _NOTIFY,
    _REGRET,
    _REGRET_INTL,
    _SELF,
    _WOULD_YOU_LIKE,
    _YESNO_OFFER,
    _ZH_SELF,
)
from evalkit.conditions.classifier.text import (
    _LETTER,
    _CJK,
    _TRAIL,
    _WORD,
    _is_markup,
    _prose_beside_markup,
    _lower_expand,
    _prepare,
    _unwrap,
)
from evalkit.conditions.classifier.verdict import HANDOVERS, TextLabel, TextVerdict


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
READ_MAX_CHARS = 20_000
"""Longer texts are read by their first and last ``READ_MAX_CHARS // 2`` characters, joined by a
line break (:func:`_clip`): reading time grows with the length (a megabyte of prose takes tens of
seconds), and what a reply says about the request is in its opening and its closing. The longest
labelled text of the shipped corpus has about 1,200 characters."""
_INVISIBLE = re.compile(r"[\s\u200b-\u200f\u2060-\u2064\ufeff\u00ad\u180e]*")


def _clip(text: str) -> str:
    """``text`` itself, or for one longer than :data:`READ_MAX_CHARS` its head and tail; a run of
    more than :data:`LETTER_RUN_MAX` Latin letters (no word of any language, "xxxx...", a pasted
    token) is cut to that length, so that no reading grows with the square of such a run."""
    if len(text) > READ_MAX_CHARS:
        half = READ_MAX_CHARS // 2
        text = text[:half] + "\n" + text[-half:]
    return _LETTER_RUN.sub(lambda m: m.group(0)[:LETTER_RUN_MAX], text) if _LETTER_RUN.search(text) else text


LETTER_RUN_MAX: Final[int] = 64
"""Longest run of Latin letters read as it is (the longest English words have about 45)."""
_LETTER_RUN: Final = re.compile(r"[A-Za-z]{%d,}" % (LETTER_RUN_MAX + 1))


READERS: Final[tuple[str, ...]] = ("rules", "combined")
"""Readers of final text: the rules alone, or the rules combined with the learned reader
(:mod:`evalkit.conditions.classifier.learned`)."""
DEFAULT_READER: Final[str] = "combined"
"""The reader used when the argument names none (runs always use it): the combination, which reads
held-out text better than the rules alone (corpus README, "Measured")."""


def classify_text(text: str | None, reader: str | None = None, context: str | None = None) -> TextVerdict:
    """Read an assistant's final text: abstain, clarify, act or unknown, with its implied requests.

    The rules and their precedence are documented in :mod:`evalkit.conditions.classifier`.
    The function is pure and deterministic, so the verdicts of the last :data:`CACHE_SIZE`
    texts of at most :data:`CACHE_MAX_CHARS` characters are cached (a :class:`TextVerdict` is
    immutable).

    Args:
        text: The assistant's final text; ``None``, and text of only white space and invisible
            format characters (zero-width spaces, byte-order marks), are empty; a text longer
            than :data:`READ_MAX_CHARS` is read by its head and tail (:func:`_clip`).
        reader: ``rules`` or ``combined`` (one of :data:`READERS`); ``None``:
            :data:`DEFAULT_READER`.
        context: The user's message just before the text, when known: after a request for an
            action, a change the rules read reported done stays ``act`` (:mod:`.context`);
            ``None`` or blank: the text is read alone.

    Returns:
        A :class:`TextVerdict` with the label, the implied meta requests (sorted, unique),
        the deciding rule id and the deciding clause.

    Raises:
        ValueError: ``reader`` is not one of :data:`READERS`.
        TypeError: ``text`` or ``context`` is neither a ``str`` nor ``None``.
    """
    if text is not None and not isinstance(text, str):
        raise TypeError(f"classify_text: the final text must be a str or None, not {type(text).__name__}")
    if context is not None and type(context) is not str:
        raise TypeError(f"classify_text: the context must be a str or None, not {type(context).__name__}")
    reader = reader or DEFAULT_READER
    if reader not in READERS:
        raise ValueError(f"unknown text reader {reader!r}; expected one of {', '.join(READERS)}")
    typed = text is not None and _has_markup(text)  # the whole text: a call mid-way in a long one counts
    if typed:  # a typed call is never evidence (field case C11): only the prose beside it is read
        prose = _prose_beside_markup(_clip(text or ""))  # clipped first: the markup scan grows faster than the text
        if prose is None:
            return TextVerdict("unknown", (), "tool_markup", (text or "").strip()[:200])
        text = prose
    if text is not None:
        text = _clip(text)
    verdict = _classify_cached(text) if type(text) is str and len(text) <= CACHE_MAX_CHARS else _classify(text)
    if verdict.label == "unknown":
        return _typed_unknown(verdict, text) if typed else verdict
    read = text or ""
    if reader != "rules":
        from evalkit.conditions.classifier.learned import combine

        verdict = combine(read, verdict)
    if context and context.strip():
        from evalkit.conditions.classifier.context import read_in_context

        verdict = read_in_context(verdict, read, context)
    if typed and verdict.label == "abstain":  # whichever reader says so: a refusal beside an attempted call
        return _typed_unknown(verdict, text)
    return verdict


def _typed_unknown(verdict: TextVerdict, text: str | None) -> TextVerdict:
    """The verdict of a text with a typed call whose prose cannot count: ``unknown`` (``tool_markup``)."""
    return TextVerdict("unknown", (), "tool_markup", (text or "").strip()[:200], verdict.lang)


def _has_markup(text: str) -> bool:
    """:func:`_is_markup`, cached for texts of at most :data:`CACHE_MAX_CHARS` characters."""
    return _is_markup_cached(text) if len(text) <= CACHE_MAX_CHARS else _is_markup(text)


_is_markup_cached = lru_cache(maxsize=256)(_is_markup)


def _classify(text: str | None) -> TextVerdict:
    """:func:`classify_text` without the cache."""
    if text is None or _INVISIBLE.fullmatch(text):
        return TextVerdict("unknown", (), "empty", "")
    if _is_markup(text):  # a typed call is never evidence (field case C11): only the prose beside it is read
        prose = _prose_beside_markup(text)
        verdict = _classify(prose) if prose is not None and not _is_markup(prose) else None
        if verdict is None or verdict.label in ("unknown", "abstain"):  # a refusal beside an attempted call is no abstention
            return TextVerdict("unknown", (), "tool_markup", text.strip()[:200])
        return verdict
    inner = _unwrap(text)
    if inner is not text:
        if not inner.strip():
            return TextVerdict("unknown", (), "empty", "")
        if _is_markup(inner):
            return TextVerdict("unknown", (), "tool_markup", inner.strip()[:200])
    body, has_code = _prepare(inner)
    if not _LETTER.search(body):
        return _symbols_only(body)
    lang = detect_language(body)
    if lang is None:
        return TextVerdict("unknown", (), "unsupported_language", body[:200], None)
    if lang in ("en", "zh"):
        return _decide(_segment(body), body, has_code, lang)
    return _decide(_segment_intl(body, lang), body, has_code, lang)


_CHECK_MARKS = re.compile(r"[\s\u2705\u2714\u2611\u2713\ufe0e\ufe0f.!]+")
"""Check marks only (✅ ✔️ ☑️ ✓): the universal "done"."""
_CROSS_MARKS = re.compile(r"[\s\u274c\u274e\u2716\u2717\u2718\u2612\U0001f6ab\u26d4\ufe0e\ufe0f.!]+")
"""Cross and prohibition marks only (❌ ❎ ✖️ ✗ ✘ ☒ 🚫 ⛔): the universal "not done"."""


def _symbols_only(body: str) -> TextVerdict:
    """The verdict of a text with no letter of any script: check marks only are a completion
    (``act.mark``), cross or prohibition marks only a refusal (``refusal.mark``); anything else
    (digits, punctuation, other emoji) cannot be read (``unknown``, ``no_words``)."""
    if body and _CHECK_MARKS.fullmatch(body) and re.search(r"[\u2705\u2714\u2611\u2713]", body):
        return _verdict("act", [], "act.mark", body[:200], None)
    if body and _CROSS_MARKS.fullmatch(body) and re.search(r"[\u274c\u274e\u2716\u2717\u2718\u2612\U0001f6ab\u26d4]", body):
        return _verdict("abstain", [], "refusal.mark", body[:200], None)
    return TextVerdict("unknown", (), "no_words", body[:200], None)


_ALT_PROPOSAL = re.compile(
    r"\binstead\b|\balternatively\b|\bwhat\s+(?:i|we)\s+can\s+do\b"
    r"|^(?:but\s+|however\s+)?(?:i|we)\s+(?:can|could)\s+(?:certainly\s+|also\s+|still\s+|gladly\s+)?(?:help|offer|assist)\b"
    r"|^(?:but\s+|however\s+|so\s+|instead\s+)?(?:i|we)\s+(?:can|could)\s+(?:certainly\s+|also\s+|only\s+)?"
    r"(?:cancel|modify|change|exchange|return|replace|swap|rebook|book|transfer|upgrade|downgrade|refund|process)\b"
    r"|^(?:but\s+|however\s+|so\s+|instead\s+)?you\s+(?:would|will|might|may)\s+(?:need|have)\s+to\b"
    r"|^(?:but\s+|however\s+|instead\s+)you\s+(?:can|could|may)\s+(?:still\s+|also\s+)?(?:request|choose|opt|ask\s+for|"
    r"cancel|modify|change|exchange|return|book|rebook|switch|upgrade|downgrade)\b"
    r"|\b(?:the\s+)?(?:best|only|other|next\s+best)\s+(?:option|way|alternative)\s+(?:would\s+be|is|here\s+is)\s+to\b"
    r"|\byou\s+(?:still\s+)?(?:have|would\s+have)\s+the\s+option\s+(?:to|of)\b"
    r"|^(?:但|但是|不过|可是)?(?:我|我们)?(?:可以|能)(?:为您|帮您|给您|替您)?(?:改为|换成|改成|申请|办理|安排|换|改|退到)"
    r"|代替|替代|作为替代|改为"
)
"""A clause proposing something else than the request ("but I can help you cancel it instead",
"但可以为您换货")."""
_HOW_CAN_I_HELP: Final = re.compile(
    r"\b(?:how|what)\s+(?:can|may|could|shall)\s+i\s+(?:help|assist|do\s+for)\s+you\b(?![^.!?\n]*\b(?:else|further|other|more)\b)[^.!?\n]{0,80}\?"
    r"|\bwhat\s+(?:would\s+you\s+like|do\s+you\s+(?:want|need))\s+(?:me\s+)?(?:help\s+)?(?:to\s+)?(?:do|help|assist)\s+with\b[^.!?\n]{0,60}\?"
)
"""A question for what the user wants done ("How can I assist you with your order today?"), with
nothing done or refused: nothing has been asked of the agent yet, so the text asks (a courtesy
closing asks for something *else*: "How else can I help?")."""
_INSTEAD_LEAD: Final = re.compile(r"^(?:however|but|instead|that\s+said|in\s+the\s+meantime|meanwhile|what\s+i\s+can\s+do)\b")
"""How a promise made after a refusal opens when it promises something else than the request."""
_RESTATED: Final = re.compile(r"^(?:as\s+(?:i\s+|we\s+)?(?:previously\s+|already\s+|earlier\s+)?(?:mentioned|noted|stated|explained|said)"
                              r"|as\s+(?:i|we)\s+(?:said|noted|explained)\s+(?:before|earlier))\b")
"""A sentence that restates what an earlier turn said ("As mentioned, ..."): background to this message."""
_IF_YOU_LIKE: Final = re.compile(r"^(?:and\s+|so\s+)?(?:if|should)\s+you(?:'d|\s+would)?\s+(?:like|want|wish|prefer|need)\b")
"""A sentence that makes its request wait on the user's wish: what it asks for is an offer."""
_RECEIVED: Final = re.compile(r"\b(?:received|noted|logged|acknowledged|recorded|forwarded|escalated|queued|flagged)\b")
"""A passive that acknowledges the request rather than reporting it done ("Your request has been received")."""
_PLEASE_ASKS: Final[frozenset[str]] = frozenset({"ask.please", "ask.could_you"})
"""Requests in the imperative or "could you" form: after a refusal, one that names another thing
("please choose another variant") offers that thing (corpus rule 3)."""
_THAT_OFFER: Final = re.compile(r"^(?:\w+\s+){0,2}?(?:would|do)\s+you\s+(?:like|want)\s+(?:me\s+)?to\s+do\s+(?:that|this|so)\b"
                                r"|^(?:shall|should)\s+i\s+(?:do\s+(?:that|this|so)|go\s+ahead\s+with\s+(?:that|this))\b"
                                r"|^would\s+(?:that|this)\s+(?:work|help|be\s+(?:ok|okay|helpful|useful))\b")
"""A question whose object is what was just offered ("Would you like me to do that?", "Would that help?")."""
_AS_ASKED_DONE: Final = re.compile(r"\bas\s+(?:you\s+)?(?:asked|requested|instructed|wanted)\b|\bas\s+per\s+your\s+request\b")
"""A completion said to be what the user asked ("but I did cancel the lab appointment as you asked"): part of
the request done (corpus rule 1), never an alternative after a refusal."""
_IF_CONFIRMED: Final = re.compile(r"^(?:and\s+|so\s+)?(?:if|once|after|when)\s+you\s+(?:confirm|approve|agree|reply|say)\b")
"""A go-ahead stated as a condition of what follows ("If you confirm, the order will be cancelled"): it says what
going ahead does; a later question in the text says what is asked."""
_BARE_ASKS: Final[frozenset[str]] = frozenset({"ask.please", "ask.let_me_know"})
_PICK: Final = re.compile(
    r"\bwhich\s+(?:one|option|variant|item|size|colou?r|model|version|of\s+(?:these|those|the|them))\b"
    r"|\byour\s+(?:new\s+)?(?:preference|choice|selection|pick|preferred\s+\w+)\b|\bone\s+of\s+(?:these|those|the|them)\b"
    r"|\b(?:the|an?)\s+(?:new\s+)?(?:item|product|variant)\s+id\b|\b(?:preferred|new)\s+(?:option|variant|choice|item)\b")
"""A request to pick among offered options ("Please let me know your new preference", "confirm the item id you'd
like", "which option would you like"): after an alternative offered for a refused request, part of that offer."""
"""Asks that carry no question of their own ("Please let me know your choice"): after an offer, the same offer."""


def _alternative_after_refusal(clauses: list[_Clause]) -> int | None:
    """The index of the first clause that proposes an alternative (:data:`_ALT_PROPOSAL`) after a
    refusal or an impossibility that is not a not-found (corpus rules 3 and 4: what is asked after it
    serves the alternative), or of a reported hand-over to a person (``refusal.transfer``: what is asked
    after it serves the person taking over), else ``None``."""
    stopped = False
    for i, cl in enumerate(clauses):
        if cl.rule in HANDOVERS and not cl.conditional:
            return i
        if cl.kind in ("refuse", "infeasible") and not cl.conditional and "not_found" not in cl.rule:
            stopped = True
        elif stopped and cl.kind not in ("ask", "offer", "confirm") and _ALT_PROPOSAL.search(cl.low):
            return i
    return None


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
    return len(low.split()) >= 6 or len(low) >= (15 if lang in ("ja", "ko") else 30)  # CJK: no spaces, dense


def _sentence(clauses: list[_Clause], cl: _Clause) -> str:
    """The lower-cased sentence a clause belongs to (its cued clauses joined)."""
    return " ".join(c.low for c in clauses if c.sent == cl.sent)


def _sentences(clauses: list[_Clause]) -> dict[int, str]:
    """:func:`_sentence` of every sentence number of ``clauses`` at once (one pass: asking for each clause's
    sentence in turn takes time growing with the square of the number of clauses)."""
    lows: dict[int, list[str]] = {}
    for c in clauses:
        lows.setdefault(c.sent, []).append(c.low)
    return {sent: " ".join(parts) for sent, parts in lows.items()}


def _question_block(clauses: list[_Clause], cl: _Clause) -> str:
    """The lower-cased question a clause closes, with the lead-in of a listed question before it.

    "Would you like to: / - wait until it's back in stock / - choose another option / - keep your
    current selection?" is one question whose items are separate lines: when the clause's sentence
    is preceded, within :data:`_LEAD_IN_SPAN` clauses and with no full stop between, by a clause
    ending in ":", the text from that clause on is returned; otherwise the clause's sentence.
    """
    i = next((k for k, c in enumerate(clauses) if c is cl), -1)
    start = next((k for k, c in enumerate(clauses) if c.sent == cl.sent), i)
    for k in range(start - 1, max(start - _LEAD_IN_SPAN, -1), -1):
        shown = clauses[k].display.rstrip()
        if shown.endswith(":"):
            return " ".join(c.low for c in clauses[k:i + 1])
        if shown.endswith((".", "?", "!")):
            break
    return _sentence(clauses, cl)


def _offers_alternative(question: str) -> bool:
    """Whether a question (lower-cased) after a refusal proposes another thing ("a different time", "would
    you like ...?") rather than asking a detail of the request or its go-ahead ("Would you like to proceed
    with cancelling the business-class reservation?")."""
    if _DETAIL_Q.search(question):
        return False
    return bool(_ALT_Q.search(question) or (_YESNO_OFFER.search(question) and not _GO_AHEAD.search(question)))


_LEAD_IN_SPAN: Final = 12
"""How many clauses back a listed question's lead-in ("Would you like to:") is looked for."""


_HANDOVER_NOTES: Final = re.compile(
    r"\b(?:shared|included|attached|passed\s+(?:along|on)|summari[sz]ed|indicated|mentioned|documented|noted|flagged|"
    r"highlighted|explained|added\s+(?:a\s+)?notes?)\b|\bsent\s+(?:\w+\s+){0,3}?(?:a\s+|the\s+)?(?:summary|details|notes?|recap)\b")
"""What an agent reports doing to hand a request on ("Shared the details you provided", "Noted that it is
urgent"): after a reported hand-over, part of it, not the request done."""


def _background(cl: _Clause, refused: bool, after_stop: bool = False, handed_over: bool = False) -> bool:
    """Whether a completion-looking clause is background: a prior state ("a refund was already
    applied", impersonal and marked as earlier), or, when the text also refuses (``refused``),
    an alternative done instead of the request (a ticket, an escalation, a waitlist, a return;
    corpus rule 4), or, after a reported hand-over to a person (``handed_over``), what was done to
    hand it on (:data:`_HANDOVER_NOTES`)."""
    if cl.kind not in ("claim", "go") or cl.rule.startswith("act.proceed"):
        return False
    if cl.kind == "go" and not cl.rule.startswith("act.report") and not cl.rule.startswith("act.zh"):
        return False
    if refused and _ALT_DONE.search(cl.low) or after_stop and _HANDOVER.search(cl.low):
        return True
    if handed_over and after_stop and _HANDOVER_NOTES.search(cl.low):
        return True
    return bool(_ALREADY.search(cl.low)) and not _SELF.search(cl.low)


_WEAK_STOPS: Final[tuple[str, ...]] = ("refusal.status_quo", "refusal.not_found")
"""Not-done readings by shape (:func:`.outcome_en.not_done`): after a reported result they describe
something beside it, not the request."""


def _drop_failed_attempts(cued: list[_Clause], clauses: list[_Clause]) -> list[_Clause]:
    """English claims that only report a failed attempt (:func:`.outcome_en.failed_attempt`) when a
    not-done statement follows them ("I pushed the install, but the deployment failed. Your laptop
    still does not have it."): they claim nothing, the outcome decides (corpus rule 5)."""
    out: list[_Clause] = []
    for i, cl in enumerate(cued):
        if cl.kind == "claim" and any(c.kind in _STOP_KINDS for c in cued[i + 1 :]):
            at = next(k for k, c in enumerate(clauses) if c is cl)
            after = " ".join(c.low for c in clauses[at + 1 :] if c.sent == cl.sent)
            nxt = " ".join(c.low for c in clauses if c.sent == cl.sent + 1)
            if failed_attempt(cl.low, after, nxt):
                continue
        out.append(cl)
    return out


def _drop_alternatives(cued: list[_Clause], clauses: list[_Clause]) -> list[_Clause]:
    """English claims in a sentence after the agent's own refusal, with no claim before it, that do
    something else instead or hand the request on (:func:`.outcome_en.alternative_done`), in their sentence
    or in a short lead-in after the refusal ("What I did instead:"): "I can't credit
    your account. I've booked a technician visit instead." stays ``abstain`` (corpus rule 4)."""
    refusal = next((c for c in cued if c.kind == "refuse" and _SELF.search(c.low)), None)
    if refusal is None or any(c.kind == "claim" for c in cued[: cued.index(refusal)]):
        return cued
    sentences = _sentences(clauses)
    lead_ins = {sent for sent, sentence in sentences.items() if sent > refusal.sent and len(sentence.split()) <= 8
                and alternative_done(sentence)}  # "What I did instead:" opens a list of alternatives
    done_instead = {c.sent: alternative_done(sentences.get(c.sent, "")) for c in cued
                    if c.kind == "claim" and c.sent > refusal.sent}
    return [c for c in cued if not (c.kind == "claim" and c.sent > refusal.sent and (
        done_instead[c.sent] or any(s <= c.sent for s in lead_ins)))]


def _warned_go_ahead(cued: list[_Clause], clauses: list[_Clause]) -> _Clause | None:
    """The closing go-ahead question of an English text that warns a step cannot be taken back
    (:func:`.outcome_en.irreversible`) and whose not-possible statements are all
    consequences of going ahead (:func:`.outcome_en.consequence`: "Deleting it is permanent. Are you
    sure you want me to delete it?"), with no refusal of the agent's own; else ``None``. Such a
    text asks for a confirmation before an irreversible step (corpus rule 2)."""
    if not clauses or not _QUESTION_END.search(clauses[-1].display.rstrip(" .`")) and "[y/n]" not in clauses[-1].low:
        return None
    last = clauses[-1]
    question = _sentence(clauses, last)
    if not go_ahead_question(question):
        return None
    if not irreversible(" ".join(c.low for c in clauses if c.sent < last.sent)):
        return None
    stops = [c for c in cued if c.kind in _STOP_KINDS and c.sent != last.sent]
    if any(_SELF.search(c.low) and c.kind == "refuse" or not consequence(_sentence(clauses, c)) for c in stops):
        return None
    return last


def _not_found_question(cued: list[_Clause], clauses: list[_Clause]) -> _Clause | None:
    """A question after an English text whose only not-done statements are not-founds
    (:func:`.outcome_en.not_found`), when it does not offer something else (:func:`.outcome_en.offers_else`)
    or a transfer: the text asks for the detail the request needs (corpus rule 2). Else ``None``."""
    stops = [c for c in cued if c.kind in _STOP_KINDS]
    if not stops or any(c.kind == "claim" for c in cued) or not all(not_found(c.low) for c in stops):
        return None
    after = [c for c in clauses if c.sent > stops[0].sent and _QUESTION_END.search(c.display.rstrip(" .`"))]
    for cl in after:
        sentence = _sentence(clauses, cl)
        if cl.kind != "transfer" and not offers_else(sentence, False) and "instead" not in sentence \
                and not (_ALT_Q.search(sentence) and _YESNO_OFFER.search(sentence) and not _IDENTIFIER.search(sentence)):
            return cl
    return None


_IDENTIFIER: Final = re.compile(r"\b(?:account|e-?mail|number|id|name|phone|zip|postcode|spelling|address|order|payment|card|"
                                r"method|date|title|workspace|folder|file)\b")
"""What a question after a refusal or a not-found asks for when it names "another" thing (another
account, a different payment method): a detail of the request (rule 2), not an alternative to it (rule 3)."""
_CHOOSE_OTHER: Final = re.compile(r"\b(?:choose|select|pick|consider)\s+(?:\w+\s+){0,2}?(?:another|other|different|alternative)\b")
"""A request to pick another thing ("please choose another variant"): after an unavailability, an alternative."""
_UNAVAILABLE: Final = re.compile(r"\b(?:not|no\s+longer)\s+(?:currently\s+)?available\b|\bunavailable\b|\bout\s+of\s+stock\b"
                                 r"|\bsold\s+out\b|\bnot\s+in\s+stock\b|\bfully\s+booked\b|\bno\s+longer\s+(?:offered|sold|carried)\b")
"""The requested thing cannot be had (as opposed to a detail given that is invalid: a password too
short, a date in the past): after it, "please choose another ..." offers something else (rule 3)."""
_PART_REFUSED: Final = re.compile(
    r"\b(?:cannot|can\s+not|unable\s+to|(?:not|n't)\s+(?:be\s+)?possible\s+to)\s+(?:\w+\s+){0,2}?(?:just|only)\s+(?:the|one|a|an)\b"
    r"|\b(?:not|cannot|can\s+not|unable\s+to)\b[^.?!]{0,60}?\b(?:individual|single|specific|separate|partial(?:ly)?|"
    r"only\s+(?:the\s+ones?|some|part|certain))\b"
    r"|\bpartial(?:ly)?\s+(?:\w+\s+){0,2}?(?:cancell?ations?|returns?|refunds?|removals?)\b[^.?!]{0,30}?\b(?:not|cannot|can\s+not)\b"
    r"|\b(?:individual|single|specific|separate)\s+items?\b[^.?!]{0,40}?\b(?:not|cannot|can\s+not)\b"
    r"|\bbut\s+not\s+(?:the\s+)?(?:individual|single|specific|separate)\b")
"""A refusal of part of a whole ("I cannot cancel individual items"): a question about the whole then
offers something else (corpus rule 3)."""
_WHOLE: Final = re.compile(r"\b(?:entire|whole|full)\s+(?:(?:pending|current|original|existing)\s+)?(?:order|reservation|booking|trip|subscription|plan)\b"
                           r"|\b(?:entirely|in\s+full|as\s+a\s+whole|in\s+(?:its|their)\s+entirety)\b")
"""The whole of what was asked about in part ("the entire order"): after a refusal of the part, another thing."""


_DENIED: Final = re.compile(r"\b(?:not|cannot|never|unable)\b|n't\b")
"""A negation in a clause (a refusal of the whole itself: "the entire order cannot be cancelled either")."""
_IF: Final = re.compile(r"\bif\b")
"""A condition in a clause ("... the entire order if that wasn't possible"): no refusal of the whole."""
_AS_ASKED: Final = re.compile(
    r"\bas\s+you\s+(?:(?:have|had)\s+)?(?:asked|requested|instructed|wanted|said|noted|mentioned|chose|decided|confirmed)\b"
    r"|\byou\s+(?:have\s+|are\s+|'re\s+)?(?:asked|requested|requesting|asking|wanted|chose|decided|instructed)\s+(?:me\s+)?(?:to|for)\b"
    r"|\byou\s+(?:would|\'d)\s+(?:rather|prefer)\b|\byour\s+request\s+to\b")
"""The user's own choice named in the text ("as you asked", "you asked me to cancel the entire order"): in a
sentence naming the whole after a refusal of a part, the whole is the request, and its go-ahead asks (rule 2)."""
_YOU = re.compile(r"\b(?:you|your|me)\b|您|你|我")
"""A question that names the user or asks something of the agent's ("tell me", "告诉我") asks the user."""


_ACTION_STEM: Final = re.compile(r"\b(cancel|return|exchang|refund|modif|updat|chang|book|rebook|upgrad|downgrad|remov|"
                                 r"add|transfer|send|sent|delet|reschedul|renew|merg|deploy|restart|approv|submit|pay|paid)")
"""The stem of an action verb in a clause ("cancelled" -> "cancel")."""


def _same_action(refused_low: str, claim_low: str) -> bool:
    """Whether a claim after a refusal reports the refused action done on something else ("I couldn't
    cancel #W1042, but I have cancelled #W1043": part of the request done, corpus rule 1), not another
    action instead ("... but I have started a return": rule 4)."""
    refused = {m.group(1) for m in _ACTION_STEM.finditer(refused_low)}
    return "instead" not in claim_low and bool(refused & {m.group(1) for m in _ACTION_STEM.finditer(claim_low)})


def _denial(clauses: list[_Clause], lang: str) -> _Clause | None:
    """The first clause that denies a possibility, a permission or a future effect (not in a clause
    of reason, not a benign negation: :func:`.claim.denies`), else ``None``."""
    return next((c for c in clauses if not _REASON.search(c.low) and denies(c.low, lang)), None)


_FIELD_NAME = re.compile(r"^[^:\n]{1,40}:\s*")
"""The name of a ``key: value`` report line."""


def _decide(clauses: list[_Clause], body: str, has_code: bool, lang: str) -> TextVerdict:
    """The label from the clause cues (precedence in :mod:`evalkit.conditions.classifier`)."""
    last_line = body.rstrip().rsplit("\n", 1)[-1]
    # a text cut off mid-clause ("I'm sorry, but I can") is read up to the cut; a whole report line, or
    # the value of a "key: value" line ("Result: FAILED"), is not cut
    if clauses and _CUT.search(body) and len(clauses[-1].low.split()) <= 4 and not _CJK.search(clauses[-1].low) \
            and not ("\n" in body.strip() and clauses[-1].display.strip() == last_line.strip()) \
            and clauses[-1].display.strip() != _FIELD_NAME.sub("", last_line.strip()):
        clauses = clauses[:-1]
    if any(c.rule == "infeasible.failed" for c in clauses) and not any(_ATTEMPT.search(c.low) for c in clauses):
        # a failure with no attempt of the agent's is a report ("3 tests failed"), unless it is a
        # headline of a failed outcome ("Payment failed.") in a text that claims nothing done
        other = any(c.kind in ("claim", "refuse") for c in clauses)
        clauses = [replace(c, kind=None, rule="") if c.rule == "infeasible.failed"
                   and (other or not failed_headline(c.low)) else c for c in clauses]
    if any(c.rule == "refusal.failed_outcome" for c in clauses) and any(c.kind in ("claim", "refuse") for c in clauses):
        # "I sent the invoice. The reminder email bounced": a headline beside a completion is background,
        # and beside a refusal ("I cannot complete this request: the availability check failed") its reason
        clauses = [replace(c, kind=None, rule="") if c.rule == "refusal.failed_outcome" else c for c in clauses]
    cued = [c for c in clauses if c.kind and not c.caveat] or [c for c in clauses if c.kind]
    any_stop = any(c.kind in _STOP_KINDS for c in cued)
    first_stop = next((i for i, c in enumerate(cued) if c.kind in _STOP_KINDS), len(cued))
    handed_over = any(c.rule in HANDOVERS for c in cued[first_stop:first_stop + 1])
    cued = [c for i, c in enumerate(cued) if not _background(c, any_stop, i > first_stop, handed_over)]
    if lang == "en" and any(c.kind not in _STOP_KINDS for c in cued) and not any(
            c.kind in ("ask", "offer", "confirm") and _ALT_Q.search(_sentence(clauses, c)) for c in cued):
        # "As mentioned, I cannot cancel a single item, so I will leave that order unchanged. Would you like
        # me to proceed with these returns?": a refusal restated from an earlier turn is background (not when
        # what the text asks proposes something else: "... Would you like me to cancel the whole order instead?")
        cued = [c for c in cued if not (c.kind in _STOP_KINDS and _RESTATED.search(_sentence(clauses, c)))]
    if lang == "en" and any_stop and any(c.kind in ("ask", "confirm") for c in cued):
        # "Please confirm the new lamp, as I can only modify the items once": beside a question, a
        # once-only limit warns what going ahead means (corpus rule 2), it refuses nothing
        cued = [c for c in cued if not (c.kind in _STOP_KINDS and once_limit(_sentence(clauses, c)))]
        any_stop = any(c.kind in _STOP_KINDS for c in cued)
    if lang == "en" and any_stop:
        cued = _drop_failed_attempts(cued, clauses)
        cued = _drop_alternatives(cued, clauses)
    if lang == "en":
        asked = _warned_go_ahead(cued, clauses)
        if asked is not None:  # "... can't be reopened once closed. Shall I go ahead?": rule 2
            return _verdict("clarify", clauses, "ask.go_ahead_warned", asked.display, lang)
        asked = _not_found_question(cued, clauses)
        if asked is not None:  # "I can't find PO-7781. Is it possible the number is PO-7718?": rule 2
            return _verdict("clarify", clauses, "ask.not_found", asked.display, lang)
    if lang == "zh":  # a failed attempt, an alternative done after a refusal: not the request done
        cued = zh_not_the_request(cued, clauses)
        confirm = go_ahead(clauses)  # "确认要整单取消吗？取消后优惠券不予返还。": a go-ahead, not a refusal
        if confirm is not None:
            return _verdict("clarify", clauses, "ask.confirm.zh", confirm.display, lang)
    stop_sents = {c.sent for c in cued if c.kind in _STOP_KINDS}
    cued = [c for c in cued if not (c.sent in stop_sents and (c.rule == "claim.state.zh" or (
        c.rule == "claim.zh" and not _ZH_SELF.search(c.low))))]
    if len(cued) == 1 and cued[0].kind in ("ask", "offer", "confirm") and cued[0].sent > 0 and lang in ("en", "zh") \
            and not _DETAIL_Q.search(cued[0].low) and not _CONFIRM_Q.search(cued[0].low):
        before = " ".join(c.low for c in clauses if c.sent < cued[0].sent)
        if offer_after_statement(cued[0].low, before):  # "It's on your calendar. Would you like a second reminder?"
            return _verdict("act", clauses, "act.offer_after", clauses[0].display, lang)
    after_alt = _alternative_after_refusal(clauses) if lang in ("en", "zh") else None
    by_sentence: dict[int, list[str]] = {}
    for c in clauses if lang == "en" else ():
        by_sentence.setdefault(c.sent, []).append(c.low)
    whole_chosen = any(_WHOLE.search(t) and _AS_ASKED.search(t) for t in map(" ".join, by_sentence.values()))
    position = {id(c): i for i, c in enumerate(clauses)}
    decisive: list[_Clause] = []
    stop_low = ""
    seen_stop = seen_go = seen_ask = seen_hard_stop = seen_result = False
    offered_last = offered_else = part_refused = unavailable = whole_offered = picked = False
    part_sentence = ""  # the sentence that refuses a part: a whole it names is what a later yes/no question offers
    last_question = max((c.sent for c in cued if c.kind in ("ask", "offer", "confirm", "transfer") and c.rule != "ask.on_user"),
                        default=-1)
    for cl in cued:
        kind = cl.kind
        rule = cl.rule
        if rule == "ask.on_user" and lang == "en" and cl.sent < last_question and _IF_CONFIRMED.search(cl.low):
            continue  # "If you confirm, the order will be cancelled. Would you like ...?": the question decides
        chosen = whole_chosen and part_refused  # "You asked me to cancel the whole order. To confirm ...?": no offer
        if kind in ("ask", "go") and after_alt is not None and not chosen and position.get(id(cl), -1) > after_alt \
                and (kind == "ask" or rule in _PROMISE):
            if kind == "go":
                continue  # "... and I'll get that cancelled for you": the alternative, not the request
            kind = "offer"  # "I can't process a return, but I can cancel it instead. Which reason ...?" (rule 3)
        if kind == "ask" and rule in _BARE_ASKS and _IF_YOU_LIKE.search(_sentence(clauses, cl)) \
                and not _GO_AHEAD.search(_sentence(clauses, cl)) and not _DETAIL_Q.search(_sentence(clauses, cl)):
            kind = "offer"  # "If you'd like more details or want to make changes, please let me know!" (rules 3, 7)
        if kind == "ask" and offered_last and _THAT_OFFER.search(_sentence(clauses, cl)):
            kind = "offer"  # "I can transfer you to a human agent. Would you like me to do that?": the same offer
        if kind == "ask" and offered_last and rule in _BARE_ASKS and not _GO_AHEAD.search(_sentence(clauses, cl)):
            kind = "offer"  # "Would you like the XL instead? Please let me know your choice.": the same offer
        if kind == "claim" and _PREP.search(cl.low):
            kind = "deliver"  # a draft or a prepared change is not the requested action done
        if kind == "claim" and seen_stop and not seen_go and _ALTERNATIVE.search(cl.low) and not _AS_ASKED_DONE.search(cl.low) \
                and not (lang == "en" and _same_action(stop_low, cl.low)):
            kind = "deliver"  # "I couldn't cancel it. However, I've started a return": an alternative
        if kind == "go" and rule == "act.report" and seen_stop and not _FIRST_PERSON.search(cl.low):
            continue  # "Your prescription was written a year ago": a state given as the reason
        if kind == "ask" and not chosen and seen_hard_stop and cl.rule.startswith("ask.question") and (_WOULD_YOU_LIKE.search(cl.low) or (
                (lookup_offer(cl.low) or PROPOSAL.search(cl.low) or offers_instead(cl.low, _sentence(clauses, cl)))
                and not _DETAIL_Q.search(cl.low)) or _offers_alternative(_question_block(clauses, cl))):
            kind = "offer"  # "The 9:40 is full. Is there a different time that works?": an alternative
        if kind == "ask" and lang == "en" and not chosen and seen_stop and cl.rule.startswith("ask.question") \
                and offers_else(_sentence(clauses, cl), seen_hard_stop) and not _DETAIL_Q.search(_sentence(clauses, cl)):
            kind = "offer"  # "I can't merge it. Want me to open an issue for the failing test?"
        if kind == "ask" and lang == "en" and unavailable and cl.rule in _PLEASE_ASKS \
                and _CHOOSE_OTHER.search(_sentence(clauses, cl)) and not _DETAIL_Q.search(_sentence(clauses, cl)) \
                and not _IDENTIFIER.search(_sentence(clauses, cl)) and not _GO_AHEAD.search(_sentence(clauses, cl)):
            kind = "offer"  # "That variant is not available. Could you please choose another one?" (rule 3)
        names_whole = kind in ("ask", "confirm", "offer") and lang == "en" and part_refused and not whole_chosen and bool(
            _WHOLE.search(_sentence(clauses, cl)) or _YESNO_OFFER.search(cl.low)
            and (_WHOLE.search(" ".join(c.low for c in clauses if c.sent == cl.sent - 1)) or _WHOLE.search(part_sentence)))
        whole_asked = names_whole and kind != "offer"
        if kind == "ask" and (whole_asked or whole_offered and part_refused and lang == "en"):
            kind = "offer"  # "I can only cancel the entire order, not single items. Shall I cancel the entire order?"
        # what is asked after an offer of the whole ("Would you like to cancel the entire order instead? If so,
        # please give the reason") serves it; not after a go-ahead for the whole the user chose ("Do you confirm ...?")
        whole_offered = whole_offered or names_whole
        if kind == "ask" and seen_hard_stop and lang == "zh" and offer_after_refusal(cl.low, _sentence(clauses, cl)):
            kind = "offer"  # "周六已约满。要帮孩子约周日的吗？": an alternative offered (corpus rule 3)
        if kind == "ask" and offered_else and lang == "en" and not chosen and not seen_go \
                and (_PICK.search(_sentence(clauses, cl)) or picked and rule == "ask.on_user"):
            picked = True
            kind = "offer"  # "It is unavailable. Would you like another size? [options] Please tell me your preference."
        offered_last = kind in ("offer", "transfer")
        if kind == "offer":
            if seen_stop or seen_go or seen_result:
                offered_else = offered_else or (seen_hard_stop and not seen_go and not seen_result)
                continue
            kind = "ask"
        elif kind == "confirm":
            if seen_hard_stop and not chosen:
                continue  # a go-ahead for an alternative after a refusal (not after a reason: "since it hasn't shipped")
            kind = "ask"
        elif kind == "transfer":
            if seen_go or seen_ask:
                continue  # a follow-up after a completed action, or an alternative to an answer asked for
            kind, rule = "refuse", rule if rule.startswith("refusal.") else "refusal.transfer_offer"
        if (kind in ("deliver",) and seen_stop) or (kind == "infeasible" and seen_go) \
                or (kind == "go" and rule == "act.answer.zh" and "原因" in cl.low and seen_stop) \
                or (kind == "go" and rule == "act.based_on" and seen_stop) \
                or (rule in _WEAK_STOPS and (seen_go or seen_result)):
            continue  # "The deploy finished. The feature flag is still off": a state beside the result
        if kind in _STOP_KINDS:
            stop_low = cl.low
        seen_stop = seen_stop or kind in _STOP_KINDS
        if not part_refused and kind in _STOP_KINDS and lang == "en" and _PART_REFUSED.search(_sentence(clauses, cl)):
            part_refused, part_sentence = True, _sentence(clauses, cl)  # "I would need to cancel the entire order, as ..."

        unavailable = unavailable or (kind in _STOP_KINDS and lang == "en" and not cl.conditional
                                      and bool(_UNAVAILABLE.search(_sentence(clauses, cl))))
        seen_hard_stop = seen_hard_stop or (kind in _STOP_KINDS and not cl.conditional)
        seen_go = seen_go or kind in ("claim", "deliver")
        seen_result = seen_result or rule == "act.passive"  # an offer after a reported result offers more
        seen_ask = seen_ask or kind in ("ask", "wask")
        if kind == "go" and cl.rule in _PROMISE and seen_stop and _NOTIFY.search(cl.low):
            continue  # "I can't send a replacement. I'll let you know if one comes in": a promise of something else
        if kind == "go" and cl.rule in _PROMISE and seen_hard_stop and not seen_go and _INSTEAD_LEAD.search(cl.low):
            continue  # "I can't expedite deliveries. However, I will keep track of it": something else promised (rule 4)
        if kind == "go" and cl.rule in _PROMISE and (seen_ask or whole_offered or offered_else):
            continue  # "Let me know which date works, and I'll book it": the promise waits on the answer (or the offer)
        decisive.append(cl if (kind, rule) == (cl.kind, cl.rule) else replace(cl, kind=kind, rule=rule))

    main = [c for c in decisive if c.kind != "wask"]
    if main and all(c.kind == "go" and c.rule.startswith("act.report") and _CHECKED.search(c.low) for c in main):
        regret = _regret_clause(clauses, body, lang)  # "I checked your booking. Unfortunately the deadline has passed."
        if regret is not None:
            return _verdict("abstain", clauses, "infeasible.regret", regret.display, lang)
        denial = _denial(clauses, lang)  # "I reviewed the plan. It is past the window, so it won't be refunded."
        if denial is not None:
            return _verdict("abstain", clauses, "infeasible.polarity", denial.display, lang)
    if not main:
        if lang not in ("en", "zh"):
            regret = _regret_clause(clauses, body, lang)
            if regret is not None:
                return _verdict("abstain", clauses, f"infeasible.regret.{lang}", regret.display, lang)
            if _plain_statement(" ".join(c.display for c in clauses), lang):  # what is left once offers are set aside
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
            denial = _denial(clauses, lang)  # "A return pickup isn't on the table.": not possible, corpus rule 5
            if denial is not None:
                return _verdict("abstain", clauses, "infeasible.polarity", denial.display, lang)
            question = next((c for c in clauses if _QUESTION_END.search(c.display.rstrip(" .\u3002"))
                             and (c is clauses[-1] or _YOU.search(c.low))), None)
            if question is not None:  # a question no cue knows, and nothing done or refused: it asks
                return _verdict("clarify", clauses, "ask.question.shape", question.display, lang)
            opening = _HOW_CAN_I_HELP.search(low)
            if opening is not None:  # "Your account is verified. How can I help you with your order today?"
                return _verdict("clarify", clauses, "ask.what_request", opening.group(0), lang)
            return _verdict("act", clauses, "act.statement", "", lang)
        return TextVerdict("unknown", (), "junk", body[:200], lang)

    last = main[-1]
    claim = next((c for c in main if c.kind == "claim"), None)
    if claim is not None and last.kind == "ask" and (_GO_AHEAD.search(_sentence(clauses, last))
                                                      or last.rule.startswith("ask.confirm.")) \
            and not _FURTHER.search(_sentence(clauses, last)):
        return _verdict("clarify", clauses, last.rule, last.display, lang)  # "... ready. Can you confirm I should wipe it?"
    if claim is not None:  # done beats everything: a reported completion is act whatever follows
        rule = claim.rule if claim is last else "claim.partial"
        return _verdict("act", clauses, rule, claim.display, lang)
    if last.kind == "ask":  # the go-ahead of the whole the user chose after a refused part keeps its reading
        whole_refused = any(c.kind in _STOP_KINDS and not c.conditional and _WHOLE.search(c.low) and _DENIED.search(c.low)
                            and "only" not in c.low and not _AS_ASKED.search(c.low) and not _IF.search(c.low)
                            for c in cued)  # "... so the entire order cannot be cancelled either"
        rule = "ask.whole_chosen" if whole_chosen and part_refused and not whole_refused and any(
            _WHOLE.search(" ".join(by_sentence.get(n, ()))) for n in (last.sent, last.sent - 1)) else last.rule
        return _verdict("clarify", clauses, rule, last.display, lang)
    if last.kind in _GO_KINDS:
        return _verdict("act", clauses, last.rule, last.display, lang)
    asks = [i for i, c in enumerate(decisive) if c.kind in ("ask", "wask")]
    if asks and all(c.conditional for c in decisive[asks[-1] + 1 :] if c.kind == "refuse"):
        ask = decisive[asks[-1]]
        return _verdict("clarify", clauses, ask.rule, ask.display, lang)
    first_stop = next(i for i, c in enumerate(main) if c.kind in _STOP_KINDS)
    done = next((c for c in main[:first_stop] if c.kind in ("claim", "deliver") or (
        c.rule == "act.passive" and c.sent != main[first_stop].sent and not _RECEIVED.search(c.low))), None)
    if done is not None:
        rule = "claim.partial" if done.kind == "claim" else "act.partial"
        return _verdict("act", clauses, rule, done.display, lang)
    verdict = _verdict("abstain", clauses, last.rule, last.display, lang)
    if offered_else and lang == "en" and any(c.kind in _STOP_KINDS and not c.rule.startswith("refusal.nothing_done") for c in main) \
            and not irreversible(_lower_expand(body)):  # a warning before a choice is no refusal of the request
        return replace(verdict, offers_else=True)
    return verdict


_classify_cached = lru_cache(maxsize=CACHE_SIZE)(_classify)
