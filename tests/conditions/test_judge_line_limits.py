"""Size limits of ``evalkit judge eval --texts FILE``: a text of at most 64 KiB of UTF-8 text and a
line of at most 1 MiB as written, each refused with the file, the line and the field; the file is
read a chunk at a time, so an oversized line is never read whole. The other errors (a missing
file, a line that is not JSON, a missing ``text`` or ``label``) name the file and the line."""

from __future__ import annotations

import json
import tracemalloc

import pytest
from typer.testing import CliRunner

from evalkit.cli import app
from evalkit.conditions.corpus import CORPUS_DIR
from evalkit.conditions.judge.evaluate import MAX_TEXT_BYTES, load_labelled
from evalkit.conditions.judge.labelled_file import MAX_LINE_BYTES
from evalkit.errors import ConfigError

runner = CliRunner()
FIRST = json.dumps({"text": "I cannot do that, it is against policy.", "label": "abstain", "lang": "en"})


def test_the_limits_are_64_kib_of_text_and_1_mib_a_line() -> None:
    assert (MAX_TEXT_BYTES, MAX_LINE_BYTES) == (65_536, 1_048_576)


@pytest.mark.parametrize("part", ["tune", "test", "test2", "test3", "test4"])
def test_every_shipped_corpus_line_is_within_the_limits(part) -> None:
    path = CORPUS_DIR / f"{part}.jsonl"
    lines = load_labelled(path)
    assert len(lines) > 300
    longest = max(len(x.text.encode("utf-8")) for x in lines)
    assert longest < MAX_TEXT_BYTES // 16  # the longest shipped text is under 2 KB
    assert max(map(len, path.read_bytes().splitlines())) < MAX_TEXT_BYTES // 16


def test_a_text_of_exactly_64_kib_is_read_and_one_byte_more_is_refused(tmp_path) -> None:
    path = tmp_path / "big.jsonl"
    exact = "a" * (MAX_TEXT_BYTES - 3) + "€"  # 65,533 + 3 bytes
    path.write_text(FIRST + "\n" + json.dumps({"text": exact, "label": "act", "lang": "en"}) + "\n", encoding="utf-8")
    assert load_labelled(path)[1].text == exact
    path.write_text(FIRST + "\n\n" + json.dumps({"text": exact + "!", "label": "act", "lang": "en"}) + "\n",
                    encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_labelled(path)
    assert str(err.value) == (f"{path}: line 3: field text: 65,537 bytes of UTF-8 text, over the limit of 65,536 "
                              "(MAX_TEXT_BYTES, 64 KiB) a labelled line's text may hold")


def test_the_text_limit_counts_utf8_bytes_not_characters_nor_escapes(tmp_path) -> None:
    path = tmp_path / "zh.jsonl"
    fits = "好" * 21_845  # 65,535 bytes of UTF-8; written escaped (\u597d) it is 131,070 bytes of JSON
    path.write_text(json.dumps({"text": fits, "label": "act", "lang": "zh"}) + "\n", encoding="ascii")
    assert load_labelled(path)[0].text == fits
    path.write_text(json.dumps({"text": "好" * 21_846, "label": "act", "lang": "zh"}, ensure_ascii=False) + "\n",
                    encoding="utf-8")  # 21,846 characters, 65,538 bytes
    with pytest.raises(ConfigError, match=r"zh\.jsonl: line 1: field text: 65,538 bytes of UTF-8 text, over the limit"):
        load_labelled(path)


def test_a_context_user_over_the_limit_names_its_field(tmp_path) -> None:
    path = tmp_path / "ctx.jsonl"
    path.write_text(json.dumps({"text": "Which order?", "label": "clarify", "lang": "en",
                                "context_user": "x" * (MAX_TEXT_BYTES + 10)}) + "\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"ctx\.jsonl: line 1: field context_user: 65,546 bytes of UTF-8 text"):
        load_labelled(path)


def test_a_line_over_1_mib_is_refused_naming_the_field_it_was_cut_in_without_being_read_whole(tmp_path) -> None:
    path = tmp_path / "huge.jsonl"
    huge = json.dumps({"text": "y" * (32 * MAX_LINE_BYTES), "label": "act", "lang": "en"})  # a 32 MiB line
    path.write_text(FIRST + "\n" + FIRST + "\r\n" + huge + "\n" + FIRST + "\n", encoding="utf-8")
    tracemalloc.start()
    try:
        with pytest.raises(ConfigError) as err:
            load_labelled(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert str(err.value) == (f"{path}: line 3: field text: the line is longer than 1,048,576 bytes (MAX_LINE_BYTES), "
                              "the most a labelled line may hold; a text holds at most 65,536 bytes (64 KiB) of UTF-8 "
                              "text")
    assert peak < 6 * MAX_LINE_BYTES  # the 32 MiB line was never held whole (nor twice)


def test_the_field_named_is_the_one_the_limit_was_reached_in(tmp_path) -> None:
    path = tmp_path / "note.jsonl"
    line = json.dumps({"text": "Done.", "label": "act", "meta": {"text": "a", "n": [1, "}"]},
                      "note": 'a "quoted" \\ word ' * 100_000, "lang": "en"})
    path.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"note\.jsonl: line 1: field note: the line is longer than 1,048,576 bytes"):
        load_labelled(path)
    path.write_text('[' + '"x", ' * 300_000 + '"y"]\n', encoding="utf-8")  # not an object: no field to name
    with pytest.raises(ConfigError, match=r"note\.jsonl: line 1: the line is longer than 1,048,576 bytes"):
        load_labelled(path)


def test_a_crlf_split_between_two_reads_is_one_line_end(tmp_path) -> None:
    """The file is read 64 KiB at a time: a CR that ends one read and the LF that starts the
    next are one line end, so the next line keeps its number."""
    path = tmp_path / "split.jsonl"
    head = json.dumps({"text": "Which order?", "label": "clarify", "lang": "en", "pad": ""})
    first = head[:-2] + "p" * (64 * 1024 - 1 - len(head)) + '"}'
    assert len(first.encode()) == 64 * 1024 - 1  # its CR is the last byte of the first read
    path.write_bytes(first.encode() + b"\r\n" + FIRST.encode() + b"\r\n")
    assert [(x.label, x.line_no) for x in load_labelled(path)] == [("clarify", 1), ("abstain", 2)]
    path.write_bytes(first.encode() + b"\r" + FIRST.encode() + b"\r")  # CR alone, at the same place
    assert [x.line_no for x in load_labelled(path)] == [1, 2]


@pytest.mark.parametrize("content, message", [
    (FIRST + '\n{"label": "act", "lang": "en"}\n', "line 2: field text: Field required"),
    (FIRST + '\n\n{"text": "Done.", "lang": "en"}\n', "line 3: field label: Field required"),
    (FIRST + '\n{"text": "Done.", "label": "act", "lang": "en"\n', "line 2: not JSON (Expecting ',' delimiter at column 47)"),
])
def test_the_other_errors_name_the_file_and_the_line(tmp_path, content, message) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_labelled(path)
    assert str(err.value) == f"{path}: {message}"
    result = runner.invoke(app, ["judge", "eval", "--texts", str(path)])
    assert result.exit_code == 2 and f"{path}: {message}" in result.output


def test_a_missing_file_is_named(tmp_path) -> None:
    path = tmp_path / "absent.jsonl"
    with pytest.raises(ConfigError) as err:
        load_labelled(path)
    assert str(err.value) == f"{path}: no such labelled file"
    result = runner.invoke(app, ["judge", "eval", "--texts", str(path)])
    assert result.exit_code == 2 and f"{path}: no such labelled file" in result.output
