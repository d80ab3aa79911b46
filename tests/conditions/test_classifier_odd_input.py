"""The default reader of final text on odd input: what a plugin or a broken model may hand it."""

from __future__ import annotations

import json
import threading

import pytest

from evalkit.conditions.classifier import classify_text
from evalkit.conditions.classifier import learned as L
from evalkit.conditions.classifier.decide import READ_MAX_CHARS

pytest.importorskip("numpy")


@pytest.mark.parametrize("value", [42, 1.5, b"I can't do that", ["I can't do that"], {"text": "hi"}])
def test_a_text_that_is_not_a_string_is_a_clear_type_error(value) -> None:
    with pytest.raises(TypeError, match=f"str or None, not {type(value).__name__}"):
        classify_text(value)  # type: ignore[arg-type]


def test_none_and_invisible_text_are_empty() -> None:
    assert classify_text(None).rule == "empty"
    invisible = " \t\n\u200b\u200c\u200d\ufeff\u2060\u00a0\u3000" * 20
    verdict = classify_text(invisible)
    assert (verdict.label, verdict.rule) == ("unknown", "empty")


def test_json_nested_deeper_than_the_parser_allows_is_read_not_raised() -> None:
    text = '{"response": ' * 2000 + '"I have cancelled your booking."' + "}" * 2000
    verdict = classify_text(text)
    assert verdict.label in ("unknown", "act", "abstain", "clarify")
    list_text = "[" * 5000 + '"x"' + "]" * 5000
    assert classify_text(list_text).label == "unknown"


def test_a_lone_surrogate_next_to_a_chinese_negation_is_read_by_the_combination() -> None:
    text = ("我已经帮您查询了订单，但是很遗憾，系统显示该订单不\ud800\ud800可以退款，因为已经超过了退款期限。"
            "请问您还需要其他帮助吗？我们可以为您转接人工客服处理此事。")
    rules = classify_text(text, reader="rules")
    combined = classify_text(text)
    assert rules.label != "unknown"
    assert combined.label in ("abstain", "clarify", "act")
    assert L.hashed(["NC:\ud800\ud800"]) != L.hashed(["NC:\udfff\udfff"])


def test_a_very_long_text_is_read_by_its_head_and_tail() -> None:
    filler = "I have checked your booking and the flight leaves at nine in the morning. "
    tail = "Unfortunately I can not cancel this booking because it is non-refundable."
    huge = filler * (1_000_000 // len(filler)) + tail
    short = filler * 3 + tail
    assert classify_text(short, reader="rules").label == "abstain"
    for reader in ("rules", "combined"):
        verdict = classify_text(huge, reader=reader)
        assert verdict.label == classify_text(short, reader=reader).label
        assert verdict == classify_text(huge[: READ_MAX_CHARS // 2] + "\n" + huge[-(READ_MAX_CHARS // 2):], reader=reader)


def test_the_combination_reads_the_rules_once(monkeypatch) -> None:
    from evalkit.conditions.classifier import decide

    text = "I looked up your order and checked the refund status in the system today. " * 80
    calls = []
    real = decide._classify
    monkeypatch.setattr(decide, "_classify", lambda t: calls.append(1) or real(t))
    classify_text(text)
    assert len(calls) == 1


def _corrupt_deflate(path, arrays) -> None:
    """An .npz whose zip structure is intact but whose compressed member data is damaged."""
    import zipfile

    import numpy as np

    np.savez_compressed(path, **arrays)
    raw = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as z:
        info = z.getinfo("w1.npy")
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)  # local header, then the data
    raw[start:start + 64] = bytes([0xFF]) * 64  # invalid deflate block types
    path.write_bytes(bytes(raw))


@pytest.mark.parametrize("content, message", [
    (None, "cannot be read"), (b"", "cannot be read"), (b"not a zip file", "cannot be read"),
    ("no_w", "cannot be read"), ("bad_shape", "shapes"), ("not_finite", "not finite"),
    ("corrupt_deflate", "cannot be read .*error"), ("plain_npy", "a single ndarray, not an .npz archive"),
    ("not_npy_members", "member 'w1' is not a .npy array but bytes"),
    ("int8", "array 'w1' of dtype int8, expected floating point"),
    ("bool", "array 'b1' of dtype bool, expected floating point"),
    ("complex", "array 'w2' of dtype complex64, expected floating point"),
    ("object", "cannot be read .*pickle")])
def test_missing_or_corrupt_weights_give_one_error_naming_the_file(tmp_path, monkeypatch, content, message) -> None:
    import zipfile

    import numpy as np

    from evalkit.errors import ConfigError

    path = tmp_path / "learned_weights.npz"
    good = {"w1": np.zeros((L.N_BUCKETS, L.HIDDEN), dtype=np.float16), "b1": np.zeros(L.HIDDEN, dtype=np.float16),
            "w2": np.zeros((L.HIDDEN, 3), dtype=np.float16), "b2": np.zeros(3, dtype=np.float16)}
    if content == "no_w":
        np.savez(path, **{k: v for k, v in good.items() if k != "w1"})
    elif content == "bad_shape":
        np.savez(path, **{**good, "w2": np.zeros((7, 2), dtype=np.float16)})
    elif content == "not_finite":
        np.savez(path, **{**good, "b2": np.array([0.0, np.inf, 0.0], dtype=np.float16)})
    elif content == "corrupt_deflate":
        _corrupt_deflate(path, good)
    elif content == "plain_npy":
        with path.open("wb") as f:  # np.save on a file object keeps the .npz name
            np.save(f, good["w1"])
    elif content == "not_npy_members":
        with zipfile.ZipFile(path, "w") as z:
            for name in good:
                z.writestr(name, b"\x00" * 16)
    elif content == "int8":
        np.savez(path, **{**good, "w1": np.zeros((L.N_BUCKETS, L.HIDDEN), dtype=np.int8)})
    elif content == "bool":
        np.savez(path, **{**good, "b1": np.zeros(L.HIDDEN, dtype=bool)})
    elif content == "complex":
        np.savez(path, **{**good, "w2": np.zeros((L.HIDDEN, 3), dtype=np.complex64)})
    elif content == "object":
        np.savez(path, **{**good, "b2": np.array([0.0, None, 0.0], dtype=object)})
    elif content is not None:
        path.write_bytes(content)
    monkeypatch.setattr(L, "WEIGHTS_PATH", path)
    L._weights.cache_clear()
    L._combine_cached.cache_clear()
    try:
        with pytest.raises(ConfigError, match=f"learned_weights.npz: .*{message}"):
            L.probabilities([1, 2, 3])
    finally:
        L._weights.cache_clear()
        L._combine_cached.cache_clear()


def test_many_threads_get_the_verdicts_one_thread_gets() -> None:
    texts = [f"I looked up order {i} and it seems the warehouse still has it; the status is pending for now."
             for i in range(60)]
    texts += [json.dumps({"response": f"I can not refund order {i}, it is past the window."}) for i in range(60)]
    L._weights.cache_clear()
    L._combine_cached.cache_clear()
    got: dict[int, list] = {}
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            got[k] = [classify_text(t) for t in texts]
        except Exception as exc:  # noqa: BLE001 - collected: a thread's failure must fail the test
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    expected = [classify_text(t) for t in texts]
    assert all(v == expected for v in got.values())


@pytest.mark.parametrize("text", ["```", "```\n```", "# \n**\n- \n```\n```\n---\n" * 10, "```python\n   \n"])
def test_empty_code_fences_and_bare_markup_deliver_nothing(text) -> None:
    assert classify_text(text).label == "unknown"


@pytest.mark.parametrize("text", [json.dumps(["I cannot help with that request, sorry."]),
                                  json.dumps([{"type": "text", "text": "I cannot help with that request."}]),
                                  "```json\n" + json.dumps(["I cannot help with that request."]) + "\n```"])
def test_a_json_list_of_strings_or_content_parts_is_read(text) -> None:
    verdict = classify_text(text)
    assert (verdict.label, verdict.rule) == ("abstain", "refusal.cannot_help")


def test_a_wrapper_nested_fifty_deep_is_read() -> None:
    text = '{"response": ' * 50 + '"I can not refund this order, it is past the return window."' + "}" * 50
    assert classify_text(text).label == "abstain"
    text = '{"message": ' * 49 + '{"content": "Which order number should I look up?"}' + "}" * 49
    assert classify_text(text).label == "clarify"


@pytest.mark.parametrize("text", [
    "I ca\u200bn't cancel your order because it has already shipped.",   # zero-width space inside a word
    "I can\u00adnot cancel your order because it has already shipped.",  # soft hyphen
    "I ca\u2060n't cancel your order because it has already shipped.",   # word joiner
    "I \u202bcan't\u202c cancel your order because it has already shipped.",  # bidi embedding
    "I <b>can't</b> cancel your order because it has already shipped.",  # inline HTML
    "<p>I <em>can't</em> cancel your order:</p><p>it has already shipped.</p>",
])
def test_invisible_characters_and_html_tags_do_not_hide_a_refusal(text: str) -> None:
    assert classify_text(text).label == "abstain"
    assert classify_text(text, reader="rules").label == "abstain"
