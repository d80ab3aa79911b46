"""Cue regexes split by language, and ordered groups of them (DESIGN §5).

Every cue of :mod:`~evalkit.conditions.classifier.cues` and
:mod:`~evalkit.conditions.classifier.meta_cues` is a :class:`_Cue`: its top-level alternatives
are split into an English regex (run only on text with Latin letters, a shared leading ``\\b``
tested once) and a Chinese one (run only on non-ASCII text). A :class:`_CueGroup` is the rules
of one cue kind, tried in order; the first match wins.
"""

from __future__ import annotations

import re

_LATIN = re.compile(r"[a-z]")


def _split_alternatives(pattern: str) -> list[str]:
    """Top-level ``|`` alternatives of a regex (escapes, groups and classes respected)."""
    parts: list[str] = []
    depth, start, i, in_class = 0, 0, 0, False
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "|" and depth == 0:
            parts.append(pattern[start:i])
            start = i + 1
        i += 1
    parts.append(pattern[start:])
    return parts


def _factor_word_start(alternatives: list[str]) -> str:
    """Join alternatives, testing a shared leading ``\\b`` once per position (much faster)."""
    at_word = [a[2:] for a in alternatives if a.startswith("\\b")]
    other = [a for a in alternatives if not a.startswith("\\b")]
    parts = ([rf"\b(?:{'|'.join(at_word)})"] if at_word else []) + other
    return "|".join(parts)


class _Cue:
    """A cue regex split by language.

    Chinese alternatives run only on non-ASCII text, English ones only on text with Latin
    letters. Cue patterns run on lower-cased text, so they are compiled without IGNORECASE.
    """

    __slots__ = ("en", "zh")

    def __init__(self, pattern: str) -> None:
        alts = _split_alternatives(pattern)
        en = [a for a in alts if not any("\u3400" <= ch <= "\u9fff" for ch in a)]
        zh = [a for a in alts if a not in en]
        en_src, zh_src = _factor_word_start(en), "|".join(zh)
        self.en = re.compile(en_src) if en else None
        self.zh = re.compile(zh_src) if zh else None

    def search(self, text: str) -> re.Match[str] | None:
        ascii_only = text.isascii()
        if self.en is not None and (ascii_only or _LATIN.search(text)):
            m = self.en.search(text)
            if m:
                return m
        if self.zh is not None and not ascii_only:
            return self.zh.search(text)
        return None


def _c(pattern: str) -> _Cue:
    return _Cue(pattern)


class _CueGroup:
    """Rules of one cue kind, tried in order; the first rule that matches wins."""

    __slots__ = ("rules",)

    def __init__(self, rules: list[tuple[str, _Cue]]) -> None:
        self.rules = rules

    def first(self, text: str) -> tuple[str, re.Match[str]] | None:
        for name, cue in self.rules:
            m = cue.search(text)
            if m:
                return name, m
        return None
