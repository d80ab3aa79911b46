"""Time of the final-text readers on adversarial texts of the longest length they read (20 KB).

    python benchmarks/classifier_worst_case.py [--size N] [--only SUBSTRING]

Texts over ``READ_MAX_CHARS`` (20,000 characters) are read by their head and tail, so a text of
that length is the worst a reading meets. Each input is a long run of one kind of character, the
kind degenerate model output holds (runs of new lines or spaces, ``---`` / ``###`` rulers, a
base64 blob): every ASCII punctuation mark after a refusal sentence, spaces, new lines (also inside
a code fence), ``# `` and ``- `` repeated, a base64-like token, alternating ``a-``; and Chinese texts of one
unit repeated (question words, completions and attempts in one long sentence or in many). A regex with a
quadratic worst case on such a run takes seconds here. Prints, per input, the wall time of one uncached reading by the
rules and by the combined reader (seconds), and the slowest of each; figures only, no assertion.
"""

from __future__ import annotations

import argparse
import base64
import string
import time

from evalkit.conditions.classifier import classify_text
from evalkit.conditions.classifier.decide import READ_MAX_CHARS, _classify_cached

REFUSAL = "I cannot do that. "


def inputs(n: int) -> dict[str, str]:
    """Named adversarial texts of ``n`` characters."""
    def rep(unit: str, size: int = n) -> str:
        return (unit * (size // len(unit) + 1))[:size]
    texts = {f"refusal + {c!r} run": REFUSAL + rep(c, n - len(REFUSAL)) for c in string.punctuation}
    texts.update({
        "spaces": rep(" "),
        "new lines": rep("\n"),
        "refusal + spaces": REFUSAL + rep(" ", n - len(REFUSAL)),
        "refusal + new lines": REFUSAL + rep("\n", n - len(REFUSAL)),
        "fenced refusal + new lines": "```\n" + REFUSAL + rep("\n", n - len(REFUSAL) - 14) + "Sorry.\n```",
        "'# ' repeated": rep("# "),
        "'- ' repeated": rep("- "),
        "refusal + '# ' repeated": REFUSAL + rep("# ", n - len(REFUSAL)),
        "refusal + '- ' repeated": REFUSAL + rep("- ", n - len(REFUSAL)),
        "base64-like token": base64.b64encode(bytes(range(256)) * (n // 256 + 1)).decode()[:n],
        "refusal + base64-like token": REFUSAL + base64.b64encode(bytes(range(256)) * (n // 256 + 1)).decode()[
            :n - len(REFUSAL)],
        "alternating 'a-'": rep("a-"),
        "refusal + alternating 'a-'": REFUSAL + rep("a-", n - len(REFUSAL)),
        "'a ' repeated": rep("a "),
        "digits": rep("1"),
        "'a\\n' repeated": rep("a\n"),
        "Chinese question words ('几')": rep("几"),
        "Chinese refunds with a question word ('已退款多少元、')": rep("已退款多少元、"),
        "Chinese completions in one sentence ('已取消；')": rep("已取消；"),
        "Chinese attempts in one sentence ('我已为您提交了；')": rep("我已为您提交了；"),
        "Chinese completions, one per sentence ('已为您办理。')": rep("已为您办理。"),
    })
    return texts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=READ_MAX_CHARS, help="characters per input")
    parser.add_argument("--only", default="", help="time only the inputs whose name holds this")
    args = parser.parse_args()
    classify_text("I have cancelled your booking. " * 5)  # warm: numpy and the weights loaded
    worst = {"rules": (0.0, ""), "combined": (0.0, "")}
    print(f"{'rules s':>8s} {'combined s':>10s}  input")
    for name, text in inputs(args.size).items():
        if args.only not in name:
            continue
        times = {}
        for reader in ("rules", "combined"):
            _classify_cached.cache_clear()
            start = time.perf_counter()
            classify_text(text, reader=reader)
            times[reader] = time.perf_counter() - start
            worst[reader] = max(worst[reader], (times[reader], name))
        print(f"{times['rules']:8.3f} {times['combined']:10.3f}  {name}", flush=True)
    for reader, (seconds, name) in worst.items():
        print(f"slowest {reader}: {seconds:.3f} s ({name}; {args.size:,} characters)")


if __name__ == "__main__":
    main()
