"""A learned second reader of final text and its combination with the rules (DESIGN §5).

The rule reader (:func:`~evalkit.conditions.classifier.classify_text`) knows particular
phrasings; this module adds a learned model that reads the words of the text together with what
the rules found, and one rule that combines the two.

Model: a neural network with one hidden layer (:data:`HIDDEN` rectified linear units, a softmax
over the three labels) over hashed binary features (CRC-32 of the feature string modulo
:data:`N_BUCKETS`; each row is scaled to unit L2 norm): the first layer is an embedding of each
feature, summed, so a text costs one row lookup per feature. The sentences the rules read as
courtesy closings ("Let me know if you have any other questions!") are left out of every group
(when something else remains), so a closing carries no label here either. Feature groups
:data:`FEATURE_GROUPS`:
    * the language the rules read (``lang=en`` ...) and whether the text holds code;
    * word unigrams and bigrams of the normalised text (lower-cased, contractions expanded);
      for Chinese, Japanese and Korean character bigrams and trigrams of each CJK/Hangul run;
      the same n-grams of the first and of the last sentence again, marked ``F:`` and ``L:``;
    * character 4-grams of the words of Latin-script languages (``C:``: inflections, compounds);
    * the words in the scope of a negation (``N:``, up to :data:`SCOPE` words after not, pas,
      nicht, no, não ...; for CJK the two characters after and before 不/没/未/ない/못 ...);
    * shape: the number of questions and sentences, whether the last sentence asks, the order
      of the rules' clause cues;
    * the rules' clause cues (:func:`reading`): the set of cue kinds found (refuse, claim,
      ask, offer, transfer, infeasible, deliver, go, none), the cue of the first and of the
      last clause, and cues in conditional clauses or caveats.
    The rules' own label and rule id are not used: on the tuning part, which the rules were
    written on, the model would learn to copy them and add nothing on unseen text.

Weights are trained on the tuning part of the shipped corpus, the rules' specification texts and the
labelled real messages of the external samples H to X (:mod:`.train`: seeded mini-batch Adam with
dropout, deterministic; never a test part, nor a sample drawn after X) and shipped
as ``learned_weights.npz`` (float16); numpy is imported on first use. Retrain after any rule
change: the clause cues are features. The hidden layer replaced a linear model (multinomial
logistic regression over the same features) when 5-fold cross-validation on the tuning lines the
rules were not written on gave 93.2% for the combination against 91.7% (corpus README, "Measured");
the number of buckets was raised from 2^15 to 2^17 when the tuning part grew from 10,264 to 17,694
lines and collisions began to cost accuracy (:data:`N_BUCKETS`).

Combination (the default reader, ``classify_text(text)``; :func:`combine`, :func:`choose`), one
rule: what the rules cannot read stays ``unknown`` (an unsupported language, empty text, tool
markup, no cue); over a fallback rule reading (:data:`WEAK_RULES`) the learned label
wins; over any other it wins at :data:`STRONG_MIN` (0.6 over ``act``, 0.7 over ``abstain``, 0.8 over
``clarify``; ``abstain`` over ``clarify`` when its learned probability is at least :data:`CLARIFY_ABSTAIN_MIN`,
0.45, first label or not, unless ``act`` reaches 0.8), a rule reading that the agent proceeds is never made ``clarify`` and one of an
explicit request for a confirmation or a choice (:data:`EXPLICIT_ASKS`) never ``act`` unless the
text also reports a completion. When the label stays, the rule verdict is kept
as it is (rule id, evidence); otherwise the rule id is ``learned.<label>`` and the implied meta
requests are those of the new label by the one rule of :mod:`evalkit.conditions.classifier`
(abstain -> ``declare_blocked``, clarify -> ``request_user_decision``), computed from the same
clauses, so a label and its requests never disagree. The thresholds were chosen by 5-fold
cross-validation on tuning lines the rules had not been written on (corpus README, "Measured").
"""

from __future__ import annotations

import itertools
import re
import zlib
from functools import lru_cache
from pathlib import Path
from typing import Any, Final

from evalkit.conditions.classifier.verdict import HANDOVERS, TextLabel, TextVerdict

N_BUCKETS: Final[int] = 1 << 17
"""Hashed feature space size (the rows of the first layer). Chosen by 5-fold cross-validation on the
tuning lines the rules were not written on (corpus README, "Measured"): 2^15 94.3%, 2^16 95.0%,
2^17 95.5%, 2^18 95.7% at twice the size of the weights."""
HIDDEN: Final[int] = 64
"""Units of the hidden layer."""
LABELS: Final[tuple[TextLabel, ...]] = ("abstain", "clarify", "act")
"""Row order of the model's classes."""
FEATURE_GROUPS: Final[frozenset[str]] = frozenset({"text", "last", "first", "char", "neg", "shape", "clauses"})
"""Feature groups the shipped model uses (see :func:`features`)."""
WEIGHTS_PATH: Final[Path] = Path(__file__).with_name("learned_weights.npz")
"""The shipped weights (float16 ``w1``, ``b1``, ``w2``, ``b2``: :data:`Weights`)."""

_TOKEN = re.compile(r"[a-z\u00c0-\u024f0-9]+(?:'[a-z]+)?")
_CJK_CLASS: Final[str] = "[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]"
"""Kana, CJK ideographs and Hangul: the characters read as n-grams of characters, counted twice by :func:`size`."""
_CJK_RUN = re.compile(_CJK_CLASS + "+")
_LETTER = re.compile(r"[^\W\d_]")
"""A letter of any script: a sentence without one (an emoji, a rule line) says nothing to the learned reader."""
_SENT_END = re.compile(r"(?<=[.!?\u3002\uff01\uff1f])\s*|\n+")


def _ngrams(text: str, prefix: str, out: list[str]) -> None:
    """Append word uni/bigrams and CJK char bi/trigrams of ``text`` (already lower-cased)."""
    words = _TOKEN.findall(text)
    out.extend(prefix + w for w in words)
    out.extend(f"{prefix}{a}_{b}" for a, b in itertools.pairwise(words))
    for run in _CJK_RUN.findall(text):
        if len(run) == 1:
            out.append(prefix + run)
        out.extend(prefix + run[i : i + 2] for i in range(len(run) - 1))
        out.extend(prefix + run[i : i + 3] for i in range(len(run) - 2))


def reading(text: str, verdict: TextVerdict | None = None) -> tuple[TextVerdict, list[Any], str, bool]:
    """The rule reader's verdict with the clauses it read.

    Args:
        text: The final text (longer than ``READ_MAX_CHARS``: its head and tail are read, as
            the rules read it).
        verdict: The rules' verdict of ``text`` when already known (not computed again).

    Returns:
        ``(verdict, clauses, body, has_code)``; ``clauses`` is empty when the text was not
        read (unknown before segmentation).
    """
    from evalkit.conditions.classifier.clauses import _segment, _segment_intl
    from evalkit.conditions.classifier.decide import _clip, classify_text
    from evalkit.conditions.classifier.text import _prepare, _unwrap

    text = _clip(text)
    if verdict is None:
        verdict = classify_text(text, reader="rules")
    if verdict.lang is None or not text or not text.strip():
        return verdict, [], "", False
    body, has_code = _prepare(_unwrap(text))
    clauses = _segment(body) if verdict.lang in ("en", "zh") else _segment_intl(body, verdict.lang)
    return verdict, clauses, body, has_code


_WORD4 = re.compile(r"[a-z\u00c0-\u024f]{4,}")
_SCOPE_TOKEN = re.compile(r"[a-z\u00c0-\u024f0-9]+(?:'[a-z]+)?|" + _CJK_CLASS)
_NEG_WORD = re.compile(
    r"^(?:not|no|never|nothing|none|cannot|unable|ne|pas|jamais|rien|aucun\w*|nicht|kein\w*|nie|nichts|nunca|nada|"
    r"ningun\w*|n[ãa]o|nem|nenhum\w*|nunca)$")
_NEG_CJK = re.compile(r"不|没|未|无|非|ない|ません|できず|못|않|없")
SCOPE: Final[int] = 4
"""Words after a negation word that get a negated copy (``N:word``)."""


def features(verdict: TextVerdict, clauses: list[Any], body: str, has_code: bool,
             groups: frozenset[str] = FEATURE_GROUPS) -> list[str]:
    """Feature strings of one reading (see the module docstring).

    Args:
        verdict, clauses, body, has_code: A :func:`reading`.
        groups: Which groups to emit: ``text`` (n-grams), ``last`` (n-grams of the last
            sentence), ``first`` (of the first sentence), ``char`` (character 4-grams of the
            words of Latin-script languages), ``neg`` (the words in the scope of a negation),
            ``shape`` (questions, sentences and the order of the clause cues), ``label`` (the
            rule label), ``rule`` (rule family and id), ``clauses`` (clause cues); the language
            and code flag always.
    """
    from evalkit.conditions.classifier.clauses import _is_courtesy
    from evalkit.conditions.classifier.text import _lower_expand

    low = _lower_expand(body)
    sentences = [s for s in _SENT_END.split(low.strip()) if s.strip()]
    kept = [s for s in sentences if not _is_courtesy(s.strip()) and _LETTER.search(s)]  # nor an emoji alone
    if kept and len(kept) < len(sentences):  # courtesy closings carry no label (corpus rules)
        sentences, low = kept, " ".join(kept)
    feats = [f"lang={verdict.lang}", f"code={has_code}"]
    if "label" in groups:
        feats.append(f"R:label={verdict.label}")
    if "rule" in groups:
        feats += [f"R:fam={verdict.rule.split('.')[0]}", f"R:rule={verdict.rule}"]
    if "text" in groups:
        _ngrams(low, "", feats)
    if sentences and "last" in groups:
        _ngrams(sentences[-1], "L:", feats)
        feats.append(f"L:q={sentences[-1].rstrip().endswith(('?', '？'))}")
    if sentences and "first" in groups:
        _ngrams(sentences[0], "F:", feats)
    if "char" in groups:
        for word in _WORD4.findall(low):
            word = f"<{word}>"
            feats.extend("C:" + word[i : i + 4] for i in range(len(word) - 3))
    if "neg" in groups:
        for sentence in sentences:
            scope = 0
            for token in _SCOPE_TOKEN.findall(sentence):
                if _NEG_WORD.match(token):
                    scope = SCOPE
                elif scope:
                    feats.append("N:" + token)
                    scope -= 1
            for m in _NEG_CJK.finditer(sentence):
                feats.append("NC:" + sentence[m.end() : m.end() + 2])
                feats.append("NCb:" + sentence[max(0, m.start() - 2) : m.start()])
    if "shape" in groups:
        questions = sum(s.rstrip().endswith(("?", "？")) for s in sentences)
        feats += [f"S:nq={min(questions, 3)}", f"S:ns={min(len(sentences) // 3, 4)}",
                  f"S:lastq={bool(sentences) and sentences[-1].rstrip().endswith(('?', '？'))}"]
        cues = [c.kind for c in clauses if c.kind]
        feats.extend(f"S:seq={a}>{b}" for a, b in itertools.pairwise(cues))
    if "clauses" not in groups:
        return feats
    kinds = {c.kind or "none" for c in clauses}
    feats.extend(f"K:{k}" for k in sorted(kinds))
    if clauses:
        feats.append(f"K:last={clauses[-1].kind}")
        feats.append(f"K:first={clauses[0].kind}")
    feats.extend(f"K:{c.kind}:cond" for c in clauses if c.conditional and c.kind)
    feats.extend(f"K:caveat={c.kind}" for c in clauses if c.caveat and c.kind)
    return feats


def hashed(feats: list[str]) -> list[int]:
    """Unique bucket ids of the feature strings (CRC-32 of their UTF-8, deterministic across
    runs; a lone surrogate in a text is encoded as itself, ``surrogatepass``)."""
    return sorted({zlib.crc32(f.encode("utf-8", "surrogatepass")) % N_BUCKETS for f in feats})


Weights = tuple[Any, Any, Any, Any]
"""The model's arrays ``(w1, b1, w2, b2)``: ``N_BUCKETS x HIDDEN``, ``HIDDEN``, ``HIDDEN x 3``, ``3``."""


@lru_cache(maxsize=1)
def _weights() -> Weights:
    """The shipped weights as float32 arrays, loaded on first use.

    Raises:
        ConfigError: naming the file :data:`WEIGHTS_PATH` when it is missing, unreadable or
            damaged (a bad zip, a corrupt compressed member), not an ``.npz`` archive (e.g. a
            single ``.npy`` array), lacks one of ``w1`` (``N_BUCKETS`` x ``HIDDEN``), ``b1``
            (``HIDDEN``), ``w2`` (``HIDDEN`` x 3) and ``b2`` (3) as a ``.npy`` array, holds an
            array (named) whose dtype is not floating point, or values that are not finite.
    """
    import lzma
    import zipfile

    import numpy as np
    from numpy.lib.npyio import NpzFile

    from evalkit.errors import ConfigError

    retrain = "reinstall evalkit or retrain: python -m evalkit.conditions.classifier.train"
    names = ("w1", "b1", "w2", "b2")
    unreadable = (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile, zlib.error, lzma.LZMAError,
                  NotImplementedError, RuntimeError, MemoryError)  # RuntimeError: an encrypted member
    try:
        loaded = np.load(WEIGHTS_PATH, allow_pickle=False)
        if not isinstance(loaded, NpzFile):
            raise ConfigError(f"{WEIGHTS_PATH}: the learned reader's weights cannot be read (a single "
                              f"{type(loaded).__name__}, not an .npz archive of {', '.join(names)}); {retrain}")
        with loaded as data:
            raw = {name: data[name] for name in names}
    except unreadable as exc:
        raise ConfigError(f"{WEIGHTS_PATH}: the learned reader's weights cannot be read "
                          f"({type(exc).__name__}: {exc}); {retrain}") from None
    for name, value in raw.items():
        if not isinstance(value, np.ndarray):
            raise ConfigError(f"{WEIGHTS_PATH}: the learned reader's weights cannot be read (member {name!r} "
                              f"is not a .npy array but {type(value).__name__}); {retrain}")
        if not np.issubdtype(value.dtype, np.floating):
            raise ConfigError(f"{WEIGHTS_PATH}: array {name!r} of dtype {value.dtype}, expected floating point; "
                              f"{retrain}")
    w1, b1, w2, b2 = (raw[name].astype(np.float32) for name in names)
    arrays = (w1, b1, w2, b2)
    expected = ((N_BUCKETS, HIDDEN), (HIDDEN,), (HIDDEN, len(LABELS)), (len(LABELS),))
    shapes = tuple(a.shape for a in arrays)
    if shapes != expected:
        raise ConfigError(f"{WEIGHTS_PATH}: weights of shapes {shapes}, expected {expected}; {retrain}")
    if not all(np.isfinite(a).all() for a in arrays):
        raise ConfigError(f"{WEIGHTS_PATH}: weights that are not finite numbers; {retrain}")
    return arrays


def probabilities(buckets: list[int], weights: Weights | None = None) -> list[float]:
    """Class probabilities (order :data:`LABELS`) of one hashed, unit-norm feature row.

    Args:
        buckets: The row's bucket ids (:func:`hashed`), each feature of value ``1/sqrt(len)``.
        weights: ``(w1, b1, w2, b2)`` (default: the shipped weights).

    Returns:
        Three probabilities summing to 1: ``softmax(relu(x @ w1 + b1) @ w2 + b2)``.
    """
    import numpy as np

    w1, b1, w2, b2 = weights if weights is not None else _weights()
    hidden = w1[buckets].sum(axis=0) / np.sqrt(len(buckets)) + b1 if buckets else b1.copy()
    z = np.maximum(hidden, 0.0) @ w2 + b2
    z = z - z.max()
    e = np.exp(z)
    return [float(x) for x in e / e.sum()]


WEAK_RULES: Final[tuple[str, ...]] = ("act.statement", "act.report", "act.answer", "act.proceed", "ask.question.shape",
                                      "claim.partial", "claim.done")
"""Rule ids (prefixes) the rules reach by a fallback rather than a cue that names the outcome: a
statement with no cue read as an answer, a report of looking something up, a completion claimed
next to a refusal. On unseen corpus lines these are the rules' least reliable readings; every
``claim.*`` and ``act.*`` reading of a language other than English and Chinese (smaller cue
tables) counts as weak too."""
STRONG_MIN: Final[dict[str, float]] = {"act": 0.6, "abstain": 0.7, "clarify": 0.8}
"""Over a rule reading that is not weak, the learned label wins only with at least this probability,
by the rule label it would replace: a rule reading of a question to the user (``clarify``) or of a
refusal (``abstain``) rests on a cue of its own and needs a surer learned reading to be overturned
than one of ``act``. Chosen on the tuning part's 5-fold cross-validation and a design set of real
messages together (corpus README, "Measured", version 11)."""
WEAK_ACT_ABSTAIN_MIN: Final[float] = 0.8
"""Over a weak rule reading of ``act`` (a statement or an answer no cue decides), the learned label
``abstain`` wins only with at least this probability: on real agent messages the learned reader,
trained on written texts, reads plain status answers ("Both orders are pending: neither has been
processed or shipped yet ...") as refusals. Chosen on design samples of real messages (corpus README,
"Measured", version 21): over such readings the learned ``abstain`` was right on 4 of 20, the rules on
13; on the corpus test parts the threshold changes 7 of 14,105 readings for the worse."""
CLARIFY_ABSTAIN_MIN: Final[float] = 0.45
"""Over a rule reading of ``clarify`` that is not weak, ``abstain`` wins when the learned reader gives it at
least this probability, even when it is not the learned reader's first label (not :data:`STRONG_MIN`'s 0.8),
unless the learned reader reads ``act`` surely enough to overturn the question: a refusal that closes with a question about
something else ("Partial cancellation isn't possible. Would you like to cancel the whole order?",
corpus rule 3) is read by the rules as a question, and the learned reader tells it from a question
about the request better than the rules' cues do. Chosen on samples of real messages (corpus README,
"Measured", version 24)."""
PROCEEDS: Final[str] = "act.proceed"
"""The rule of a text that says the agent proceeds now (corpus rule 8): never turned into ``clarify``
by the learned reader, which reads a promise to do the action as a question put off."""
WHOLE_CHOSEN: Final[str] = "ask.whole_chosen"
"""The rule of a text that refuses part of a request, says the user chose the whole instead ("You asked me
to cancel the entire order if that wasn't possible") and asks for its go-ahead (corpus rule 2): never
turned into ``abstain`` by the learned reader, which reads the refused part as the text's refusal."""
EXPLICIT_ASKS: Final[frozenset[str]] = frozenset({"ask.please", "ask.confirm", "ask.on_user", "ask.waiting"})
"""Rule ids of a text whose question to the user is an explicit request for a confirmation or a
choice ("Please confirm ...", "Shall I proceed ...?", "Once you confirm, I'll ...", "I'll wait for
your confirmation"): never turned into ``act`` by the learned reader (corpus rule 2: a summary of
what will be done and a request to confirm it is ``clarify``). On real agent messages the learned
reader, trained on written texts, read long summaries and option lists that close with such a
request as reports (corpus README, "Measured", version 16)."""


def weak(verdict: TextVerdict) -> bool:
    """Whether the rules reached ``verdict`` by a fallback (:data:`WEAK_RULES`)."""
    if verdict.rule.startswith(WEAK_RULES):
        return True
    return verdict.lang not in ("en", "zh") and verdict.rule.startswith(("claim.", "act."))


def reports_done(clauses: list[Any]) -> bool:
    """Whether a clause the rules read (:func:`reading`) reports a completion: a claim of the
    agent's (``claim.*``) or a past passive ("The address has been updated"), not in a condition."""
    return any(not c.conditional and (c.kind == "claim" or c.rule == "act.passive") for c in clauses)


def choose(verdict: TextVerdict, probs: list[float], done: bool = False) -> TextLabel:
    """The combined label of a text from its rule verdict and the learned probabilities.

    Args:
        verdict: The rule reader's verdict.
        probs: The learned reader's probabilities, in :data:`LABELS` order.
        done: Whether the text reports a completion (:func:`reports_done` of its clauses).

    Returns:
        ``unknown`` for a text the rules cannot read (an unsupported language, empty text, tool
        markup, no cue, an apology alone): the learned reader never labels what the rules cannot
        read; the learned label over a weak rule reading (:func:`weak`); otherwise the learned
        label when its probability is at least :data:`STRONG_MIN` of the rule label (``abstain`` over
        ``clarify``: :data:`CLARIFY_ABSTAIN_MIN`), else the rule label (over a weak ``act``,
        ``abstain`` needs :data:`WEAK_ACT_ABSTAIN_MIN`); a text the rules read as proceeding (:data:`PROCEEDS`) never becomes ``clarify``,
        one that offers something else (``offers_else``) never ``clarify``, and one that closes with
        an explicit request for a confirmation or a choice (:data:`EXPLICIT_ASKS`) never ``act``
        unless it also reports a completion (``done``: corpus rule 1, done beats a later question),
        and one the rules read as a hand-over (``verdict.HANDOVERS``) never ``act``; the go-ahead of a
        whole the user chose after a refused part (:data:`WHOLE_CHOSEN`) never ``abstain``, nor ``act``
        unless it reports a completion.
    """
    best = max(range(len(LABELS)), key=lambda i: probs[i])
    learned, p = LABELS[best], probs[best]
    if verdict.label == "unknown":
        return "unknown"
    if verdict.rule == PROCEEDS and learned == "clarify":
        return verdict.label
    if verdict.rule == WHOLE_CHOSEN and (learned == "abstain" or learned == "act" and not done):
        return verdict.label
    if verdict.offers_else and learned == "clarify":
        return verdict.label
    if verdict.rule in EXPLICIT_ASKS and learned == "act" and not done or verdict.rule in HANDOVERS and learned == "act":
        return verdict.label
    if weak(verdict) and verdict.label == "act" and learned == "abstain" and p < WEAK_ACT_ABSTAIN_MIN:
        return verdict.label
    if verdict.label == "clarify" and not weak(verdict) and probs[0] >= CLARIFY_ABSTAIN_MIN \
            and not (learned == "act" and p >= STRONG_MIN["clarify"]):
        return "abstain"
    if weak(verdict) or p >= STRONG_MIN[verdict.label]:
        return learned
    return verdict.label


def combine(text: str, verdict: TextVerdict) -> TextVerdict:
    """The combined reading of ``text`` whose rule reading is ``verdict`` (:func:`choose`).

    Args:
        text: The assistant's final text.
        verdict: The rule reader's verdict of ``text``.

    Returns:
        ``verdict`` itself when the combined label is the rule label; else that label with the
        rule id ``learned.<label>`` and the implied requests of that label.
    """
    if verdict.label == "unknown":
        return verdict
    return _combine_cached(text, verdict) if len(text) <= 4000 else _combine(text, verdict)


def _combine(text: str, verdict: TextVerdict) -> TextVerdict:
    """:func:`combine` without the cache."""
    from evalkit.conditions.classifier.decide import _verdict

    _, clauses, body, has_code = reading(text, verdict)
    if not clauses:
        return verdict
    probs = probabilities(hashed(features(verdict, clauses, body, has_code)))
    label = choose(verdict, probs, reports_done(clauses))
    if label == verdict.label:
        return verdict
    return _verdict(label, clauses, f"learned.{label}", verdict.evidence, verdict.lang)


_combine_cached = lru_cache(maxsize=1024)(_combine)
