"""Time of the default final-text reader on pathological input (one long token, repeated markup ...).

    python benchmarks/classifier_odd_input.py [--size N] [--reader combined|rules]

Each input is ``--size`` characters (default 1,000,000; texts over ``READ_MAX_CHARS`` are read
by their head and tail), read as a final text and then as the user's message before one
(``context``; its last ``CONTEXT_MAX_CHARS`` are read). Prints, per input, the wall time of one
uncached reading and the verdict, then the slowest; a reading that takes seconds names a regex
to fix.
"""

from __future__ import annotations

import argparse
import time

from evalkit.conditions.classifier import classify_text
from evalkit.conditions.classifier.decide import _classify_cached


def inputs(n: int) -> dict[str, str]:
    """Named pathological texts of about ``n`` characters."""
    def rep(unit: str) -> str:
        return (unit * (n // len(unit) + 1))[:n]
    prose = "I have checked your booking and the flight leaves at nine in the morning. "
    return {
        "prose (en)": rep(prose),
        "one letter": rep("a"),
        "one German word": rep("bestellung"),
        "one Turkish word": rep("lerim"),
        "digits": rep("7"),
        "apostrophes": rep("a'"),
        "hyphens": rep("-"),
        "dots": rep("."),
        "question marks": rep("?"),
        "commas": rep("a,"),
        "spaces then x": " " * (n - 1) + "x",
        "quotes": '"' + rep("a "),
        "backticks": rep("`"),
        "open fence of code": "```\n" + rep("x = 1\n"),
        "braces": rep("{"),
        "brackets": rep("["),
        "json string of escapes": '{"response": "' + rep("\\n"),
        "markdown bullets": rep("- "),
        "headers": rep("# a\n"),
        "block quotes": rep("> "),
        "tool markup-like": rep("<tool"),
        "han": rep("我已经取消了您的预订"),
        "hangul": rep("취소했습니다 "),
        "kana": rep("キャンセルしました"),
        "arabic": rep("لا أستطيع "),
        "emoji": rep("😀"),
        "zero-width": rep("\u200b"),
        "NUL": rep("\x00a"),
        "lone surrogates": rep("a\ud800"),
        "I can not ... (no stop)": rep("i can not "),
        "if ... (no stop)": rep("if you "),
        "words no spaces mixed": rep("aB3_"),
        "a refusal, then letters": "I can't cancel that order. " + rep("a"),
        "a refusal, then 'ha'": "I can't cancel that order. " + rep("ha"),
        "an offer of letters": "I can't cancel it. Would you like " + rep("x") + "?",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1_000_000, help="characters per input")
    parser.add_argument("--reader", default="combined", help="rules or combined")
    args = parser.parse_args()
    classify_text("I have cancelled your booking. " * 5)  # warm: numpy and the weights loaded
    rows = []
    for name, text in inputs(args.size).items():
        _classify_cached.cache_clear()
        start = time.perf_counter()
        verdict = classify_text(text, reader=args.reader)
        rows.append((time.perf_counter() - start, name, verdict.label, verdict.rule))
        print(f"{rows[-1][0] * 1000:9.1f} ms  {name:28s} {verdict.label:8s} {verdict.rule}", flush=True)
    # the same inputs as the user's message before a text the learned reader reads as a question
    # (the context is read only then)
    asked = ("The order #W5481803 has been successfully cancelled for the reason \"no longer needed.\" The refund of "
             "$397.26 has been processed to your gift card. Would you like to proceed with the return of the sneakers "
             "now? Please confirm.")
    for name, context in {**inputs(args.size), "polite words": ("ok, " * (args.size // 4))[:args.size]}.items():
        start = time.perf_counter()
        verdict = classify_text(asked, reader=args.reader, context=context)
        rows.append((time.perf_counter() - start, f"context: {name}", verdict.label, verdict.rule))
        print(f"{rows[-1][0] * 1000:9.1f} ms  {rows[-1][1]:28s} {verdict.label:8s} {verdict.rule}", flush=True)
    worst = max(rows)
    print(f"slowest: {worst[1]} {worst[0] * 1000:.1f} ms ({len(rows)} inputs of {args.size:,} characters, reader {args.reader})")


if __name__ == "__main__":
    main()
