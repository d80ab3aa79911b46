"""Which language a final text is written in, for the ``nl`` text classifier (DESIGN §5).

:func:`detect_language` returns one of :data:`SUPPORTED` or ``None`` when the text is in a
language (or script) the classifier has no cues for. It is a cheap, deterministic rule, not a
statistical model:

1. Script: letters are counted by script. Hangul -> ``ko``; any kana -> ``ja``; Han -> ``zh``
   (CJK text when its CJK characters number at least a third of its Latin letters outside
   identifiers such as ``us-east-1`` or ``payment_api``: one CJK character carries about a word, so
   Chinese among code names stays Chinese; and CJK text whose Latin words hold no function word);
   when the letters of another script (Cyrillic, Arabic, Devanagari, Greek, Hebrew, Thai ...)
   outnumber the Latin and CJK ones -> ``None``.
2. Latin text: each language of a table of short function words (English, French, German,
   Spanish, Portuguese, and the unsupported Italian, Dutch, Polish, Turkish, Swedish,
   Indonesian, Vietnamese, Czech, Romanian) scores one point per word of the text in its list,
   plus points for its telltale letters (``ñ ¿ ¡`` Spanish, ``ã õ`` Portuguese, ``ß`` German,
   ...). The best score wins; a win by an unsupported language gives ``None``; a tie between a
   supported and an unsupported one (``to`` is English and Polish) goes to the supported one unless
   the identifier of step 3 reads an unsupported language at :data:`LID_MIN_NO_WORDS`. Text without
   any function word is read in a supported language other than English when the identifier of
   step 3 gives that language at least :data:`LID_MIN` (``"Commande annulée."``); else, when its
   letters are all ASCII, in the language the identifier gives :data:`LID_MIN_NO_WORDS` or more
   (``None`` if unsupported), else as English if the identifier gives English at least
   :data:`LID_MIN_ENGLISH` (``"Done."``, ``"thermostat set to 68°F"``); else ``None``.
3. A second opinion on Latin text: a supported language found by step 2 stands unless the
   ``py3langid`` identifier (Lui & Baldwin's langid.py, a naive Bayes model over byte n-grams,
   restricted to :data:`LID_LANGS`) gives an unsupported language a probability of at least
   :data:`LID_MIN` and the text has at least :data:`LID_MIN_LETTERS` letters: then ``None``. The
   word table knows a few dozen words per language; short Italian or Dutch texts share an
   elision or a word with French or English ("Ho inviato l'email al team."), which the byte
   model tells apart. On the 8,600 Latin-script texts of the shipped corpus, the rules'
   specification texts and the τ-bench check in English, French, German, Spanish and Portuguese,
   the identifier overrode none at a probability of 0.6 or more, and it marked all 31 Italian
   and Dutch ones. A plain ASCII text with no function word needs only :data:`LID_MIN_NO_WORDS`.
   Very short texts (fewer than :data:`LID_MIN_LETTERS` letters: "Fatto") stay English; so does
   a romanised text of another language that holds an English function word ("... main order
   cancel nahi kar sakta": "order").
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Final

SUPPORTED: Final[tuple[str, ...]] = ("en", "zh", "fr", "de", "es", "pt", "ja", "ko")
"""Languages the classifier has cue tables for (ISO 639-1)."""
LID_LANGS: Final[tuple[str, ...]] = ("en", "fr", "de", "es", "pt", "it", "nl", "pl", "tr", "sv", "id", "vi", "cs",
                                     "ro", "ca", "da", "no", "fi", "hu", "sk", "sl", "hr", "et", "lv", "lt", "ms",
                                     "af", "sw", "eu", "gl", "an", "az", "br", "bs", "cy", "eo", "fo", "ga", "ht", "is",
                                     "jv", "ku", "la", "lb", "mg", "mt", "nn", "oc", "qu", "rw", "se", "sq", "tl",
                                     "vo", "wa", "xh", "zu")
"""Latin-script languages the identifier of step 3 chooses among (its probabilities are over these)."""
LID_MIN: Final[float] = 0.8
"""Probability at which the identifier's unsupported language overrides the word table."""
LID_MIN_NO_WORDS: Final[float] = 0.3
"""The same for a plain ASCII text with no function word of any language ("Ordine annullato."), which
step 2 would read as English on no evidence: the identifier needs less to say otherwise. Short
English agent texts with no function word ("Invoice sent.", "Card frozen.") stay below 0.25."""
LID_MIN_ENGLISH: Final[float] = 0.05
"""A plain ASCII text with no function word is English only if the identifier gives English at least
this (reading the text lower-cased): on the 87 such English texts of the corpus it gave less to
one ("Blue Pine LLC"), and to every romanised text of another language tried ("Sumimasen, sore
wa dekimasen.")."""
LID_MIN_LETTERS: Final[int] = 6
"""Texts with fewer letters ("Done.", "OK") keep the word table's reading."""

_HANGUL = re.compile(r"[\uac00-\ud7af\u1100-\u11ff\u3130-\u318f]")
_KANA = re.compile(r"[\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f]")
_HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LATIN_LETTER = re.compile(r"[A-Za-z\u00c0-\u024f]")
_OTHER_LETTER = re.compile(
    r"[\u0370-\u03ff\u0400-\u052f\u0590-\u05ff\u0600-\u06ff\u0750-\u077f\u0900-\u0dff\u0e00-\u0e7f"
    r"\u10a0-\u10ff\u0530-\u058f\u1200-\u137f]"
)
_IDENTIFIER = re.compile(r"(?<![A-Za-z0-9])[A-Za-z0-9]*(?:[0-9_]|[./@:=-](?=\w)|[a-z][A-Z])[\w./@:=-]*")
r"""A token that is an identifier (``sub``, ``findall``). It starts where its run of ASCII letters and digits
starts: the same tokens, since one starting inside a run also matches one character earlier, and one ends
before a character outside ``[\w./@:=-]``, where none starts; without the lookbehind every character of a
long run of letters would try the rest of the run (quadratic)."""
_WORDS = re.compile(r"[a-z\u00c0-\u024f]+(?:'[a-z]+)?")

_FUNCTION_WORDS: Final[dict[str, frozenset[str]]] = {
    lang: frozenset(words.split())
    for lang, words in {
        "en": "the and to you your i is are was were of for it this that with have has be not can we my on "
              "will would please sorry unfortunately here there what which could should an at by from "
              "been order flight reservation thank thanks let me any if do does did no "
              "status result done error failed success sent completed declined denied rejected approved cancelled canceled "
              "refunded pending unsuccessful booked our only one per booking maximum",
        "fr": "le la les de des et je vous est pas ne un une du pour que qui votre vos sur avec mais nous "
              "ce cette au aux sont été être puis pouvez désolé malheureusement merci n'est n'ai j'ai "
              "d'un d'une l'assurance c'est",
        "de": "der die das und ich sie nicht ist ein eine zu mit für ihre ihr es den dem auf kann leider "
              "wir uns bitte haben habe wurde wird sind oder aber noch auch ihnen möchten können",
        "es": "el la de los las y que no es un una su por para con lo puedo usted pero del al se le mi sus "
              "este esta lamentablemente siento gracias hay he ha podría desea algo más en hasta ya también sin",
        "pt": "o os e de que não é um uma seu sua para com por você mas do da em no na ao foi posso "
              "infelizmente desculpe obrigado obrigada há está pode gostaria mais algo pelo pela pois já também "
              "ela ele isso será",
        "it": "il di che non è per sono mi ho della questa questo gli ma con lo dei delle anche mio "
              "posso purtroppo grazie hai ha nel alla",
        "nl": "het een van ik niet dat je maar deze zijn voor uw wij spijt helaas kunnen bestelling",
        "pl": "nie się jest to na że ale mogę przepraszam tej jak czy dla",
        "tr": "bir bu ve için ile değil ama çok üzgünüm",
        "sv": "och att det som en är inte jag kan för på med av",
        "id": "yang dan saya tidak ini itu untuk dengan anda bisa maaf",
        "vi": "không tôi của và là có được này bạn xin",
        "cs": "není jsem se na že ale mohu tuto bohužel",
        "ro": "și nu este pentru că un o să din îmi pot",
    }.items()
}
_TELLTALE: Final[dict[str, re.Pattern[str]]] = {
    "es": re.compile(r"[ñ¿¡]|(?<=\w\w)ó\b|ción\b|ciones\b"),
    "pt": re.compile(r"[ãõ]|ção\b|ções\b|ência\b|ências\b"),
    "de": re.compile(r"[ßäöü]|\w{1,40}(?:ung|keit|lich)\b"),  # {1,40}: linear on a long token
    "fr": re.compile(r"[èêœ]|\bj'|\bn'|\bl'|\bd'|\bqu'"),
    "it": re.compile(r"zion[ei]\b|\b(?:è|più|perché|però|già|nessun[oa]?|della|delle|dello|degli)\b"),
    "pl": re.compile(r"[łąęśźżń]"),
    "tr": re.compile(r"[ğış]|\w{1,40}(?:ları|leri|iniz|ınız|unuz|ünüz|miz|mız|dır|dir|yor)\b"),
    "cs": re.compile(r"[řůěš]"),
    "ro": re.compile(r"[șțăâî]"),
    "vi": re.compile(r"[ơưạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹđ]"),
}


def detect_language(text: str) -> str | None:
    """Language of ``text`` (one of :data:`SUPPORTED`) or ``None`` when unsupported.

    Args:
        text: Normalised text (NFKC), any length.

    Returns:
        An ISO 639-1 code from :data:`SUPPORTED`, or ``None`` (see the module docstring for
        the rule).
    """
    hangul = len(_HANGUL.findall(text))
    kana = len(_KANA.findall(text))
    han = len(_HAN.findall(text))
    latin = len(_LATIN_LETTER.findall(text))
    other = len(_OTHER_LETTER.findall(text))
    if other > latin + hangul + kana + han:
        return None
    cjk = hangul + kana + han
    if cjk and cjk * 3 >= latin - _identifier_letters(text):
        return _cjk_language(hangul, kana, han)
    if not latin:
        return None
    low = text.lower().replace("\u2019", "'")
    words = _WORDS.findall(_IDENTIFIER.sub(" ", text).lower().replace("\u2019", "'"))  # "E_QUOTA" is no Portuguese "e"
    scores: dict[str, float] = {}
    for lang, vocab in _FUNCTION_WORDS.items():
        n = sum(1 for w in words if w in vocab)
        tell = _TELLTALE.get(lang)
        if tell is not None:
            n += 2 * min(3, len(tell.findall(low)))
        if n:
            scores[lang] = n
    if not scores:
        if cjk:  # CJK prose among Latin names and terms, with no Latin function word
            return _cjk_language(hangul, kana, han)
        ascii_letters = all(c.isascii() for c in _LATIN_LETTER.findall(text))
        if latin < LID_MIN_LETTERS:
            return "en" if ascii_letters else None
        ranks = dict(_identifier().rank(text[:20_000].lower()))  # "Status: DONE" reads as Latin in capitals
        top = max(ranks, key=ranks.__getitem__)
        if top in SUPPORTED and top != "en" and ranks[top] >= LID_MIN:  # "Commande annulée.": the identifier is sure
            return str(top)
        if not ascii_letters:
            return None
        if ranks[top] >= LID_MIN_NO_WORDS and top != "en":  # "Erledigt - Abwesenheitsnotiz bis 24.04. aktiv."
            return str(top) if top in SUPPORTED else None
        if ranks.get("en", 0.0) < LID_MIN_ENGLISH:
            return None  # romanised Japanese or Hindi, Hawaiian, "Lorem ipsum": nothing says English
        return "en"
    best = max(scores.values())
    winners = [lang for lang, n in scores.items() if n == best]
    supported = [w for w in winners if w in SUPPORTED]
    if not supported:  # an unsupported language wins
        return None
    if len(supported) != len(winners):  # a tie with an unsupported language: the identifier decides
        return None if _other_latin(text, latin, LID_MIN_NO_WORDS) else supported[0]
    # one supported winner, or a tie between supported languages: English first, then table order
    return None if _other_latin(text, latin) else supported[0]


def _cjk_language(hangul: int, kana: int, han: int) -> str:
    """The CJK language of a text with these counts of Hangul, kana and Han characters."""
    if hangul and hangul >= kana + han // 2:
        return "ko"
    return "ja" if kana else "zh"


def _identifier_letters(text: str) -> int:
    """Latin letters of ``text`` inside identifiers, which carry no language: tokens with a digit,
    ``_ - . / @ : =`` or an inner capital (``us-east-1``, ``payment_api``, ``v2.8.0``, ``getUser``)."""
    return sum(len(_LATIN_LETTER.findall(token)) for token in _IDENTIFIER.findall(text))


@lru_cache(maxsize=1)
def _identifier() -> Any:
    """The ``py3langid`` identifier over :data:`LID_LANGS` with normalised probabilities (loaded once,
    about 0.5 s)."""
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    identifier.set_languages(list(LID_LANGS))
    return identifier


def _other_latin(text: str, letters: int, minimum: float = LID_MIN) -> bool:
    """Whether the identifier of step 3 reads ``text`` (with ``letters`` Latin letters) as an unsupported
    language with at least ``minimum``."""
    if letters < LID_MIN_LETTERS:
        return False
    lang, probability = _identifier().classify(text[:20_000].lower())
    return lang not in SUPPORTED and probability >= minimum


def function_words(text: str, lang: str) -> int:
    """How many words of ``text`` are function words of ``lang`` (0 for a language without a
    word list, e.g. ``ja``, ``ko``, ``zh``): the evidence for a Latin-script language beyond its
    telltale letters.

    Args:
        text: Normalised text (NFKC), any length.
        lang: An ISO 639-1 code.

    Returns:
        The count of words found in the language's function-word list.
    """
    vocab = _FUNCTION_WORDS.get(lang)
    if vocab is None:
        return 0
    return sum(1 for w in _WORDS.findall(text.lower().replace("\u2019", "'")) if w in vocab)
