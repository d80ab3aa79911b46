"""Matching and precedence of the ``nl`` text classifier: text -> :class:`TextVerdict` (DESIGN §5).

Each clause gets at most one cue (pipeline step 6), the clause cues become a label by the
precedence rules, and the implied meta requests are collected; all are described in
:mod:`evalkit.conditions.classifier`. :func:`classify_text` caches recent verdicts.
"""

from __future__ import annotations

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
    _OFFER_MARK,
    _OFFER_ZH,
    _PERSON,
    _PLEASANTRY,
    _QUESTION_END,
    _REFUSAL_G,
    _RHETORICAL,
    _SUGGEST_RETRY,
    _WH_START,
)
from evalkit.conditions.classifier.meta_cues import _COMPLY_META, _DEFER_META, _META
from evalkit.conditions.classifier.text import (
    _CJK,
    _CLAUSE_SPLIT,
    _SENT_SPLIT,
    _TRAIL,
    _WORD,
    _is_markup,
    _lower_expand,
    _prepare,
)
from evalkit.conditions.classifier.verdict import TextLabel, TextVerdict

_STOP_KINDS = ("refuse", "infeasible")
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
    before), ``wask`` (a bare wh-question mid-text: counts only before a conditional refusal,
    "Which account? I can't proceed without it.") or ``None``.
    """
    if not _QUESTION_END.search(sentence) or _RHETORICAL.search(sentence):
        return None
    has_cjk = bool(_CJK.search(sentence))
    addressed = bool(_ADDRESSED_EN.search(sentence)) or (has_cjk and bool(_ADDRESSED_ZH.search(sentence)))
    if not addressed:
        return "ask" if is_last_sentence else None
    if not is_last_sentence and _WH_START.match(sentence) and not _PERSON.search(sentence):
        return "wask"
    if (_OFFER_FRAME.search(sentence) and _OFFER_MARK.search(sentence)) or _OFFER_ZH.search(sentence):
        return "offer"
    return "ask"


def _cue(clause: str, question: str | None) -> tuple[str | None, str]:
    """Kind and rule id of one clause (already lower-cased and expanded)."""
    hit = _ASK_G.first(clause)
    if hit and not _SUGGEST_RETRY.search(clause):
        return "ask", hit[0]
    if question is not None:
        return question, "ask.offer" if question == "offer" else "ask.question"
    if _CONDITIONAL.search(clause):
        return None, ""
    hit = _REFUSAL_G.first(clause)
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


def _segment(text: str) -> list[_Clause]:
    """Split into clauses (pleasantry sentences dropped) and give each its cue."""
    sentences = [s.strip() for s in _SENT_SPLIT.split(text) if s and s.strip(_TRAIL)]
    clauses: list[_Clause] = []
    for si, sent in enumerate(sentences):
        low = _lower_expand(sent).strip()
        if _PLEASANTRY.search(low):
            continue
        caveat = bool(_CAVEAT.search(low))
        question = _question_kind(low.rstrip(" .\u3002"), si == len(sentences) - 1)
        parts = [p for p in _CLAUSE_SPLIT.split(sent) if p and p.strip(_TRAIL)]
        lows = [_lower_expand(p).strip(_TRAIL) for p in parts]
        conds = [bool(_COND_REFUSAL.search(pl)) for pl in lows]
        for pi in range(len(parts) - 2, -1, -1):  # a condition later in the sentence applies back
            conds[pi] = conds[pi] or conds[pi + 1]
        last = len(parts) - 1
        for pi, (part, plow) in enumerate(zip(parts, lows)):
            kind, rule = _cue(plow, question if pi == last else None)
            clauses.append(_Clause(part.strip(), plow, kind, rule, caveat, conds[pi], si))
    return clauses


def _metas(clauses: list[_Clause], label: TextLabel) -> set[str]:
    """Meta cues of all clauses; a conditional "can't proceed without X" before an ask is no block."""
    found: set[str] = set()
    wanted = [(m, p) for m, p in _META if label != "comply" or m in _COMPLY_META]
    for cl in clauses:
        for meta, pat in wanted:
            if meta in found or (meta == "declare_blocked" and label == "clarify" and cl.conditional):
                continue
            if pat.search(cl.low):
                found.add(meta)
    return found


def _verdict(label: TextLabel, clauses: list[_Clause], rule: str, evidence: str) -> TextVerdict:
    metas = _metas(clauses, label) if label != "unknown" else set()
    if label == "clarify":
        metas.add("request_user_decision")
    return TextVerdict(label, tuple(sorted(metas)), rule, evidence)  # type: ignore[arg-type]


CACHE_SIZE = 1024
"""Verdicts of this many recent texts are kept (scripted models and cached live calls repeat
the same final texts across pairs and epochs)."""
CACHE_MAX_CHARS = 4000
"""Longer texts are classified every time (they are rarely repeated; the cache stays small)."""


def classify_text(text: str | None) -> TextVerdict:
    """Classify an assistant's final text as abstain, clarify, comply or unknown.

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
    body, has_code = _prepare(text)
    clauses = _segment(body)
    cued = [c for c in clauses if c.kind and not c.caveat] or [c for c in clauses if c.kind]

    decisive: list[_Clause] = []
    seen_stop = seen_go = False
    for cl in cued:
        kind = cl.kind
        if kind == "offer":
            if seen_stop or seen_go:
                continue
            kind = "ask"
        if (kind == "deliver" and seen_stop) or (kind == "infeasible" and seen_go):
            continue
        seen_stop = seen_stop or kind in _STOP_KINDS
        seen_go = seen_go or kind in ("claim", "deliver")
        if kind == "go" and cl.rule == "comply.proceed" and any(
            d.sent == cl.sent and d.kind in ("ask", "wask") for d in decisive
        ):
            continue  # "Let me know which date works, and I'll book it": the promise waits on the answer
        decisive.append(cl if kind == cl.kind else replace(cl, kind=kind))

    main = [c for c in decisive if c.kind != "wask"]
    if not main:
        low = _lower_expand(body)
        if has_code or len(set(_WORD.findall(low))) >= 2 or len(_CJK.findall(body)) >= 2:
            own = [c for c in clauses if c.display.strip(_TRAIL)]
            if own and all(_APOLOGY.search(c.low) for c in own):
                return TextVerdict("unknown", (), "apology_only", own[0].display)
            for cl in own:  # nothing done or refused, but the task is handed to someone else
                for meta, pat in _META:
                    if meta in _DEFER_META and pat.search(cl.low):
                        return _verdict("abstain", clauses, _DEFER_META[meta], cl.display)
            return _verdict("comply", clauses, "comply.default", "")
        return TextVerdict("unknown", (), "junk", body[:200])

    last = main[-1]
    if last.kind == "ask":
        return _verdict("clarify", clauses, last.rule, last.display)
    if last.kind in _GO_KINDS:
        return _verdict("comply", clauses, last.rule, last.display)
    asks = [i for i, c in enumerate(decisive) if c.kind in ("ask", "wask")]
    if asks and all(c.conditional for c in decisive[asks[-1] + 1 :] if c.kind == "refuse"):
        ask = decisive[asks[-1]]
        return _verdict("clarify", clauses, ask.rule, ask.display)
    first_stop = next(i for i, c in enumerate(main) if c.kind in _STOP_KINDS)
    done = next((c for c in main[:first_stop] if c.kind in ("claim", "deliver")), None)
    if done is not None:
        rule = "claim.partial" if done.kind == "claim" else "comply.partial"
        return _verdict("comply", clauses, rule, done.display)
    return _verdict("abstain", clauses, last.rule, last.display)


_classify_cached = lru_cache(maxsize=CACHE_SIZE)(_classify)
