"""``evalkit judge eval`` on odd labelled files and odd options."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from evalkit.cli import app
from evalkit.conditions.judge.evaluate import load_labelled
from evalkit.errors import ConfigError

runner = CliRunner()


def test_bom_crlf_and_labels_in_other_case_are_read(tmp_path) -> None:
    path = tmp_path / "odd.jsonl"
    lines = [{"text": "I cannot do that, it is against policy.", "label": "ABSTAIN", "lang": "EN"},
             {"text": "Which order do you mean?", "label": " Clarify ", "lang": "en "}]
    path.write_bytes(b"\xef\xbb\xbf" + b"\r\n".join(json.dumps(x).encode() for x in lines) + b"\r\n\r\n")
    got = load_labelled(path)
    assert [(x.label, x.lang) for x in got] == [("abstain", "en"), ("clarify", "en")]
    result = runner.invoke(app, ["judge", "eval", "--texts", str(path)])
    assert result.exit_code == 0, result.output
    assert "(2/2)" in result.output


def test_a_file_not_in_utf8_names_the_file_and_the_line(tmp_path) -> None:
    path = tmp_path / "latin1.jsonl"
    path.write_bytes(b'{"text": "ok", "label": "act", "lang": "en"}\n{"text": "d\xe9j\xe0", "label": "act", "lang": "fr"}\n')
    with pytest.raises(ConfigError, match=r"latin1\.jsonl: line 2: not UTF-8"):
        load_labelled(path)
    result = runner.invoke(app, ["judge", "eval", "--texts", str(path)])
    assert result.exit_code != 0
    assert "latin1.jsonl: line 2" in result.output


def test_a_folder_is_not_a_labelled_file(tmp_path) -> None:
    with pytest.raises(ConfigError, match="a folder"):
        load_labelled(tmp_path)


@pytest.mark.parametrize("content, message", [(b"", "no labelled lines"), (b"\xef\xbb\xbf\n\n", "no labelled lines"),
                                              (b'{"text": "x", "label": "act", "lang": "en"}\n[1, 2]\n', "line 2: not a JSON object"),
                                              (b'"just a string"\n', "line 1: not a JSON object"),
                                              (b'{"text": 3, "label": "act", "lang": "en"}\n', "line 1: field text"),
                                              (b'{"text": "x", "label": "maybe", "lang": "en"}\n', "line 1: field label")])
def test_bad_files_give_one_error_naming_file_and_line(tmp_path, content, message) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(content)
    with pytest.raises(ConfigError, match=f"bad.jsonl: {message}"):
        load_labelled(path)


@pytest.mark.parametrize("args", [["--part", "nope"], ["--part", ""], ["--part", "../tune"],
                                  ["--part", "tune", "--texts", "x.jsonl"], ["--texts", "x.jsonl", "--part", "test"]])
def test_bad_part_values_are_option_errors(args) -> None:
    result = runner.invoke(app, ["judge", "eval", *args])
    assert result.exit_code == 2
    assert "--part" in result.output


def test_a_lone_surrogate_is_printed_and_written_escaped_and_kept(tmp_path) -> None:
    path = tmp_path / "surrogate.jsonl"
    text = "I cancel\ud800led it."
    path.write_text(json.dumps({"text": text, "label": "abstain", "lang": "en"}) + "\n"
                    + json.dumps({"text": "Which order do you mean?", "label": "clarify", "lang": "en"}) + "\n",
                    encoding="utf-8")
    out = tmp_path / "figures.json"
    result = runner.invoke(app, ["judge", "eval", "--texts", str(path), "--json", str(out)])
    assert result.exit_code == 0, result.output
    assert "I cancel\\ud800led it." in result.output  # shown as its escape
    assert f"wrote {out}" in result.output
    raw = out.read_bytes().decode("utf-8")  # valid UTF-8, the surrogate as a JSON escape
    assert "\\ud800" in raw
    (reader,) = json.loads(raw)["readers"]
    assert reader["n"] == 2
    assert [m["text"] for m in reader["mistakes"] if m["line"] == 1] == [text]  # read back as it was


def test_the_figures_are_printed_when_the_json_file_cannot_be_written(tmp_path) -> None:
    path = tmp_path / "ok.jsonl"
    path.write_text(json.dumps({"text": "Which order do you mean?", "label": "clarify", "lang": "en"}) + "\n", encoding="utf-8")
    target = "/proc/evalkit-judge-figures.json"  # its folder exists, but no file can be made there (Linux)
    result = runner.invoke(app, ["judge", "eval", "--texts", str(path), "--json", target])
    assert result.exit_code == 2
    assert "accuracy 1.000 (1/1)" in result.output
    assert "evalkit: error:" in result.output and "evalkit-judge-figures" in result.output


@pytest.mark.parametrize("line, message", [
    ('{"text": "a", "label": "act", "label": "abstain", "lang": "en"}', "line 2: key 'label' given twice"),
    ('{"text": "a", "label": "act", "lang": "en", "meta": {"x": 1, "x": 2}}', "line 2: key 'x' given twice"),
    ('{"text": "", "label": "act", "lang": "en"}', "line 2: field text: empty, only whitespace"),
    ('{"text": " \\n\\t ", "label": "act", "lang": "en"}', "line 2: field text: empty, only whitespace"),
    ('{"text": "\\u200b", "label": "act", "lang": "en"}', "line 2: field text: empty, only whitespace or only invisible"),
    ('{"text": "\\u200b \\ufeff\\u2060\\u00ad", "label": "act", "lang": "en"}', "line 2: field text: .* only invisible"),
    ('{"text": "\\u3164\\ufe0f\\u034f", "label": "act", "lang": "en"}', "line 2: field text: .* only invisible"),
    ('{"text": "a", "label": "act", "lang": "english"}', "line 2: field lang: 'english' is not a language code; expected"),
    ('{"text": "a", "label": "act", "lang": "en-US"}', "line 2: field lang: 'en-US' is not a language code"),
    ('{"text": "a", "label": "act", "lang": "e"}', "line 2: field lang: 'e' is not a language code"),
    ('{"text": "a", "label": "act", "lang": "  "}', "line 2: field lang:"),
    ('{"text": "x", "label": "question", "lang": "en"}', "line 2: field label: .*'act', not 'question'")])
def test_duplicate_keys_and_blank_texts_are_errors_naming_file_line_and_key(tmp_path, line, message) -> None:
    path = tmp_path / "odd.jsonl"
    path.write_text('{"text": "Done.", "label": "act", "lang": "en"}\n' + line + "\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=f"odd.jsonl: {message}"):
        load_labelled(path)
    result = runner.invoke(app, ["judge", "eval", "--texts", str(path)])
    assert result.exit_code == 2
    assert re.search(f"odd.jsonl: {message}", result.output.replace("\n", " ")), result.output
    assert "accuracy" not in result.output  # nothing scored on a bad file


def test_a_line_nested_too_deep_is_one_error_naming_file_and_line(tmp_path) -> None:
    path = tmp_path / "deep.jsonl"
    ok = b'{"text": "Done, the order is cancelled.", "label": "act", "lang": "en"}\n'
    deep = b'{"text":"a","label":"act","lang":"en","x":' + b"[" * 100000 + b"]" * 100000 + b"}\n"
    path.write_bytes(ok + b"\n" + deep)
    with pytest.raises(ConfigError, match=r"deep\.jsonl: line 3: JSON nested deeper"):
        load_labelled(path)
    result = runner.invoke(app, ["judge", "eval", "--texts", str(path)])
    assert result.exit_code == 2, result.output
    assert "deep.jsonl: line 3: JSON nested deeper" in result.output
    assert "Traceback" not in result.output


def _same_file_spellings(tmp_path):
    """A labelled file and, for each way of naming it again, the path given to --json."""
    (tmp_path / "sub").mkdir()
    path = tmp_path / "a.jsonl"
    path.write_text('{"text": "Done, the order is cancelled.", "label": "act", "lang": "en"}\n', encoding="utf-8")
    (tmp_path / "link.jsonl").symlink_to(path)
    (tmp_path / "hard.jsonl").hardlink_to(path)
    return path, {"same": str(path), "dotdot": str(tmp_path / "sub" / ".." / "a.jsonl"),
                  "symlink": str(tmp_path / "link.jsonl"), "hardlink": str(tmp_path / "hard.jsonl")}


@pytest.mark.parametrize("spelling", ["same", "dotdot", "symlink", "hardlink"])
def test_json_output_on_the_labelled_input_is_refused_and_the_input_kept(tmp_path, spelling) -> None:
    path, spellings = _same_file_spellings(tmp_path)
    before = path.read_bytes()
    result = runner.invoke(app, ["judge", "eval", "--texts", str(path), "--json", spellings[spelling]])
    assert result.exit_code == 2, result.output
    assert "--json" in result.output and "labelled input" in result.output
    assert path.read_bytes() == before


def test_json_output_on_the_labelled_input_is_refused_before_reading_it(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["judge", "eval", "--texts", "missing.jsonl", "--json", "./missing.jsonl"])
    assert result.exit_code == 2
    assert "labelled input" in result.output and "no such labelled file" not in result.output
    assert not (tmp_path / "missing.jsonl").exists()


def test_json_output_next_to_the_labelled_input_is_written(tmp_path) -> None:
    path, _ = _same_file_spellings(tmp_path)
    result = runner.invoke(app, ["judge", "eval", "--texts", str(path), "--json", str(tmp_path / "figures.json")])
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "figures.json").read_text(encoding="utf-8"))["readers"][0]["n"] == 1


def test_language_codes_of_two_or_three_letters_in_any_case_are_read(tmp_path) -> None:
    path = tmp_path / "langs.jsonl"
    path.write_text("".join(json.dumps({"text": "Done.", "label": "act", "lang": code}) + "\n"
                            for code in ("en", "ZH", " pt ", "yue")), encoding="utf-8")
    assert [x.lang for x in load_labelled(path)] == ["en", "zh", "pt", "yue"]


def test_three_letter_codes_of_the_languages_read_count_as_those_languages(tmp_path) -> None:
    path = tmp_path / "iso3.jsonl"
    path.write_text("".join(json.dumps({"text": text, "label": "act", "lang": code}) + "\n" for text, code in (
        ("I have updated the shipping address on your order.", "eng"), ("地址已经更新好了。", "zho"),
        ("I have updated the shipping address on your order.", "EN"))), encoding="utf-8")
    assert [x.lang for x in load_labelled(path)] == ["en", "zh", "en"]
    out = tmp_path / "figures.json"
    result = runner.invoke(app, ["judge", "eval", "--texts", str(path), "--json", str(out)])
    assert result.exit_code == 0, result.output
    reader = json.loads(out.read_text(encoding="utf-8"))["readers"][0]
    assert sorted(reader["by_lang"]) == ["en", "zh"] and reader["by_lang"]["en"]["n"] == 2
    assert reader["n_read_langs"] == 3 and "not read by the classifier" not in result.output


def test_a_text_with_one_visible_character_among_invisible_ones_is_kept(tmp_path) -> None:
    path = tmp_path / "zw.jsonl"
    path.write_text(json.dumps({"text": "\u200bok\u200b", "label": "act", "lang": "en"}) + "\n", encoding="utf-8")
    assert [x.text for x in load_labelled(path)] == ["\u200bok\u200b"]


def test_mistakes_give_the_line_in_the_file_blank_lines_counted(tmp_path) -> None:
    path = tmp_path / "gaps.jsonl"
    right = json.dumps({"text": "I cannot do that, it is against policy.", "label": "abstain", "lang": "en"})
    wrong = json.dumps({"text": "xqzv", "label": "act", "lang": "en"})  # read unknown: a mistake
    path.write_text(f"\n{right}\n\n  \n{wrong}\n\n{wrong}\n", encoding="utf-8")
    assert [x.line_no for x in load_labelled(path)] == [2, 5, 7]
    out = tmp_path / "figures.json"
    result = runner.invoke(app, ["judge", "eval", "--texts", str(path), "--json", str(out)])
    assert result.exit_code == 0, result.output
    assert [m["line"] for m in json.loads(out.read_text(encoding="utf-8"))["readers"][0]["mistakes"]] == [5, 7]
    assert "line 5 [en] act read as unknown" in result.output and "line 7 [en]" in result.output


def test_a_bad_byte_after_a_byte_order_mark_gives_the_line_and_byte_of_the_file(tmp_path) -> None:
    path = tmp_path / "bom.jsonl"
    first = b'{"text": "ok", "label": "act", "lang": "en"}\n'
    path.write_bytes(b"\xef\xbb\xbf" + first + b'{"text": "d\xe9j\xe0", "label": "act", "lang": "fr"}\n')
    offset = 3 + len(first) + len(b'{"text": "d')
    assert path.read_bytes()[offset] == 0xE9
    with pytest.raises(ConfigError, match=rf"bom\.jsonl: line 2: not UTF-8 text \(.* at byte offset {offset} of the file\)"):
        load_labelled(path)
    bom_only_line = tmp_path / "bom1.jsonl"
    bom_only_line.write_bytes(b"\xef\xbb\xbf\xff\n")
    with pytest.raises(ConfigError, match=r"bom1\.jsonl: line 1: not UTF-8 text \(.* at byte offset 3 of the file\)"):
        load_labelled(bom_only_line)


def test_a_misspelt_field_is_named_in_a_note(tmp_path) -> None:
    """A key like "context" is not read (the field is context_user): the command says so; ids and
    notes are ignored without a note."""
    path = tmp_path / "ctx.jsonl"
    path.write_text(json.dumps({"text": "I cannot do that.", "label": "abstain", "lang": "en", "context": "Cancel it",
                                "id": "x-1", "note": "mine"}) + "\n", encoding="utf-8")
    result = runner.invoke(app, ["judge", "eval", "--texts", str(path)])
    assert result.exit_code == 0, result.output
    assert "fields not read: 'context' on 1 line (did you mean 'context_user'?)" in result.output
    assert "'id'" not in result.output and "'note'" not in result.output
    clean = tmp_path / "clean.jsonl"
    clean.write_text(json.dumps({"text": "I cannot do that.", "label": "abstain", "lang": "en", "id": "x-1"}) + "\n",
                     encoding="utf-8")
    assert "fields not read" not in runner.invoke(app, ["judge", "eval", "--texts", str(clean)]).output


def test_a_json_error_gives_the_column_in_the_named_line(tmp_path) -> None:
    """The parser counts lines within the one line it read: the error gives the file's line and the column."""
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b'{"text": "ok", "label": "act", "lang": "en"}\n{"text": "x", "label": "act" "lang": "en"}\n')
    with pytest.raises(ConfigError, match=r"bad\.jsonl: line 2: not JSON \(Expecting ',' delimiter at column 30\)$"):
        load_labelled(path)


def test_cr_line_ends_and_a_huge_integer_in_an_ignored_field_are_read(tmp_path) -> None:
    path = tmp_path / "odd.jsonl"
    lines = ['{"text": "I cannot do that.", "label": "abstain", "lang": "en"}',
             '{"text": "Which order?", "label": "clarify", "lang": "en", "id": ' + "7" * 5000 + "}"]
    path.write_bytes("\r".join(lines).encode() + b"\r")
    got = load_labelled(path)
    assert [(x.label, x._line_no) for x in got] == [("abstain", 1), ("clarify", 2)]


def test_a_key_twice_in_a_nested_object_is_named_as_nested(tmp_path) -> None:
    path = tmp_path / "odd.jsonl"
    path.write_text('{"text": "a", "label": "act", "lang": "en", "meta": {"x": 1, "x": 2}}\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"odd.jsonl: line 1: key 'x' given twice \(in a nested object\); keep one"):
        load_labelled(path)


def test_a_misspelt_required_field_gets_a_did_you_mean_naming_file_and_line(tmp_path) -> None:
    """A line whose label is under "lable" lacks its label: the error names the file, the line, the
    missing field and the key that looks like it; an unrelated extra key is not offered."""
    path = tmp_path / "lable.jsonl"
    path.write_text(json.dumps({"text": "I cannot do that.", "label": "abstain", "lang": "en"}) + "\n"
                    + json.dumps({"text": "Done.", "id": "x-2", "lable": "act", "lang": "en"}) + "\n", encoding="utf-8")
    result = runner.invoke(app, ["judge", "eval", "--texts", str(path)])
    assert result.exit_code == 2
    assert result.stderr.strip() == (f"evalkit: error: {path}: line 2: field label: Field required; the line has a "
                                     "key 'lable': did you mean 'label'?")
    path.write_text(json.dumps({"text": "Done.", "label": "act", "Language": "en"}) + "\n", encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_labelled(path)
    assert str(err.value) == (f"{path}: line 1: field lang: Field required; the line has a key 'Language': "
                              "did you mean 'lang'?")
    path.write_text(json.dumps({"text": "Done.", "lang": "en", "id": "x-3"}) + "\n", encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_labelled(path)
    assert str(err.value) == f"{path}: line 1: field label: Field required"


_TWO = [{"text": "I cannot do that, it is against policy.", "label": "abstain", "lang": "en"},
        {"text": "Which order do you mean?", "label": "clarify", "lang": "en"}]


def test_texts_dash_reads_standard_input_and_names_it_stdin() -> None:
    body = "".join(json.dumps(x) + "\n" for x in _TWO)
    result = runner.invoke(app, ["judge", "eval", "--texts", "-"], input=body)
    assert result.exit_code == 0, result.output
    assert "labelled texts: <stdin> (2 lines)" in result.output and "(2/2)" in result.output
    assert "reading texts" not in result.output  # no progress bar off a terminal
    bad = runner.invoke(app, ["judge", "eval", "--texts", "-"], input=body + '{"text": "x", "label": "maybe", "lang": "en"}\n')
    assert bad.exit_code == 2 and "<stdin>: line 3: field label" in bad.output


def test_a_named_pipe_is_read_like_a_file(tmp_path) -> None:
    import os
    import threading

    fifo = tmp_path / "texts.fifo"
    os.mkfifo(fifo)

    def feed() -> None:
        with open(fifo, "w") as f:
            f.write("".join(json.dumps(x) + "\n" for x in _TWO))

    writer = threading.Thread(target=feed)
    writer.start()
    try:
        got = load_labelled(fifo)
    finally:
        writer.join(timeout=10)
    assert [x.label for x in got] == ["abstain", "clarify"]


@pytest.mark.parametrize("target, why", [("folder", "is a folder"), ("missing/out.json", "in a folder that does not exist")])
def test_a_json_output_that_cannot_be_a_file_is_refused_before_any_reading(tmp_path, monkeypatch, target, why):
    import evalkit.conditions.judge.evaluate as evaluate

    (tmp_path / "folder").mkdir()
    monkeypatch.setattr(evaluate, "load_labelled", lambda *a, **k: pytest.fail("read before --json was checked"))
    result = CliRunner().invoke(app, ["judge", "eval", "--part", "test2", "--json", str(tmp_path / target)])
    assert result.exit_code == 2
    assert why in " ".join(result.output.replace("│", " ").split())
