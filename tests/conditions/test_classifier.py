"""Accuracy of the ``nl`` text classifier on the labelled set (DESIGN §5)."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from typing import Any, get_args

import pytest
import yaml

from evalkit.conditions.classifier import (
    CLASSIFIER_VERSION,
    MetaType,
    TextLabel,
    TextVerdict,
)
from evalkit.conditions.classifier import classify_text as _classify_text


def classify_text(text: str | None) -> TextVerdict:
    """The rule reader alone: these texts specify the rules (the default reader adds the learned one)."""
    return _classify_text(text, reader="rules")


DATA = Path(__file__).parent / "data" / "nl_labelled.yaml"
LABELS: tuple[str, ...] = get_args(TextLabel)
METAS: tuple[str, ...] = get_args(MetaType)


def _load() -> list[dict[str, Any]]:
    items = yaml.safe_load(DATA.read_text(encoding="utf-8"))
    assert isinstance(items, list)
    return items


ITEMS = _load()


def _id(item: dict[str, Any]) -> str:
    text = item["text"]
    return "None" if text is None else repr(text[:60])


def _is_zh(text: str | None) -> bool:
    return bool(text) and any("\u4e00" <= ch <= "\u9fff" for ch in text)


def test_dataset_shape() -> None:
    assert len(ITEMS) >= 100
    assert sum(_is_zh(i["text"]) for i in ITEMS) >= 30
    texts = [i["text"] for i in ITEMS]
    assert "" in texts and None in texts
    assert len(set(map(str, texts))) == len(texts), "duplicate texts"
    for item in ITEMS:
        assert set(item) <= {"text", "label", "implied_meta", "note"}, item
        assert item["label"] in LABELS, item
        meta = item.get("implied_meta")
        if meta is not None:
            assert set(meta) <= set(METAS), item
            assert list(meta) == sorted(set(meta)), f"implied_meta must be sorted and unique: {item}"


@pytest.mark.parametrize("item", ITEMS, ids=[_id(i) for i in ITEMS])
def test_label(item: dict[str, Any]) -> None:
    verdict = classify_text(item["text"])
    assert verdict.label == item["label"], (
        f"{item['text']!r}: got {verdict.label} by {verdict.rule} on {verdict.evidence!r}, "
        f"expected {item['label']} ({item.get('note', '')})"
    )


@pytest.mark.parametrize(
    "item", [i for i in ITEMS if i.get("implied_meta") is not None], ids=lambda i: _id(i)
)
def test_implied_meta(item: dict[str, Any]) -> None:
    verdict = classify_text(item["text"])
    assert list(verdict.implied_meta) == item["implied_meta"], (
        f"{item['text']!r}: got {verdict.implied_meta}, expected {item['implied_meta']}"
    )


def test_verdict_shape() -> None:
    for item in ITEMS:
        v = classify_text(item["text"])
        assert isinstance(v, TextVerdict)
        assert v.label in LABELS
        assert v.rule
        assert isinstance(v.evidence, str)
        assert v.implied_meta == tuple(sorted(set(v.implied_meta)))
        assert set(v.implied_meta) <= set(METAS)
        if v.label == "unknown":
            assert v.implied_meta == ()
        if v.label == "clarify":
            assert "request_user_decision" in v.implied_meta
    assert isinstance(CLASSIFIER_VERSION, str) and CLASSIFIER_VERSION


def test_special_rules() -> None:
    assert classify_text(None).rule == "empty"
    assert classify_text("").rule == "empty"
    assert classify_text("abc").rule == "junk"
    assert classify_text('<tool_call>{"name": "x", "arguments": {}}</tool_call>').rule == "tool_markup"
    assert classify_text("Done - I've cancelled order #W0000001 for you.").rule.startswith("claim")
    assert classify_text("I can\u2019t help with that.").rule == "refusal.cannot_help"
    # full-width punctuation and curly quotes are normalised
    assert classify_text("I can\u2019t help with that\uff0e").label == "abstain"
    assert classify_text("Which account should I use\uff1f").label == "clarify"


def test_deterministic() -> None:
    first = [classify_text(i["text"]) for i in ITEMS]
    for _ in range(3):
        assert [classify_text(i["text"]) for i in ITEMS] == first


def test_per_label_accuracy() -> None:
    confusion: Counter[tuple[str, str]] = Counter()
    for item in ITEMS:
        confusion[(item["label"], classify_text(item["text"]).label)] += 1
    rows = ["gold \\ pred " + " ".join(f"{p:>8}" for p in LABELS)]
    for g in LABELS:
        rows.append(f"{g:>12} " + " ".join(f"{confusion[(g, p)]:>8}" for p in LABELS))
    table = "\n".join(rows)
    for g in LABELS:
        total = sum(confusion[(g, p)] for p in LABELS)
        assert total > 0, f"no gold items labelled {g}"
        acc = confusion[(g, g)] / total
        assert acc == 1.0, f"accuracy for {g} is {acc:.3f}\n{table}"


def _timed(fn: Any, reps: int = 5) -> float:
    """Best-of CPU time of ``fn()`` in seconds (robust against a busy machine)."""
    best = float("inf")
    for _ in range(reps):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def test_speed() -> None:
    texts = [i["text"] for i in ITEMS]
    per_text = _timed(lambda: [classify_text(t) for t in texts]) / len(texts)
    assert per_text < 0.001, f"{per_text * 1e3:.3f} ms per labelled text"
    long_text = " ".join(t for t in texts if t and t.isascii() and "<" not in t)[:2000]
    per_long = _timed(lambda: classify_text(long_text))
    assert per_long < 0.02, f"{per_long * 1e3:.3f} ms for a dense 2 KB text"


ODD_INPUTS = [
    "\x00\x01\x02",
    "\u200b\u200b",
    "🙂🙂🙂",
    "مرحبا، لا أستطيع المساعدة",
    '"unbalanced quote',
    "```\nunclosed fence",
    "`",
    "I" * 5000,
    "can't " * 400,
    "x, " * 700,
    "我不" * 1000,
    "?" * 500,
    "<tool_call" * 10,
    "\n\n\n.\n\n",
]


@pytest.mark.parametrize("text", ODD_INPUTS, ids=range(len(ODD_INPUTS)))
def test_odd_inputs_do_not_raise(text: str) -> None:
    verdict = classify_text(text)
    assert verdict.label in LABELS
    assert verdict == classify_text(text)


def _clause_texts() -> list[str]:
    from evalkit.conditions import classifier as clf

    out: list[str] = []
    for item in ITEMS:
        if item["text"] and not clf._is_markup(item["text"]):
            body, _ = clf._prepare(item["text"])
            out.extend(c.low for c in clf._segment(body))
            out.append(clf._lower_expand(body))
    return out


def test_language_split_is_sound() -> None:
    """Splitting cue regexes by language never hides a match of the full regex."""
    from evalkit.conditions import classifier as clf

    cues = [c for g in (clf._ASK_G, clf._REFUSAL_G, *(g for _, g in clf._LATER_GROUPS)) for _, c in g.rules]
    cues += [c for _, c in clf._META]
    for text in _clause_texts():
        for cue in cues:
            full = bool((cue.en is not None and cue.en.search(text)) or (cue.zh is not None and cue.zh.search(text)))
            assert bool(cue.search(text)) == full, (text, cue.en, cue.zh)
