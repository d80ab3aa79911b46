"""The errors of ``evalkit judge eval --texts FILE`` for a bad labelled file name the file, the
line and the field and echo the bad value: a JSON syntax error gives the column; a label (or
another field) that is not a string is echoed as written in JSON, a string one as its repr, both
cut at 80 characters; a raw control character is named by its code point; a file name that holds a
newline (or another character that does not show) is quoted with its escapes. Each ends the
command with exit code 2 and one ``evalkit: error:`` line."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from evalkit.cli import app
from evalkit.conditions.judge.evaluate import load_labelled
from evalkit.conditions.judge.labelled_file import MAX_LINE_BYTES, shown_value
from evalkit.errors import shown_path
from evalkit.errors import ConfigError

runner = CliRunner()
GOOD = '{"text": "I cannot do that.", "label": "abstain", "lang": "en"}\n'


def _error(path) -> str:
    """The message :func:`load_labelled` raises for ``path``; the CLI prints it as its one error line, exit 2."""
    with pytest.raises(ConfigError) as err:
        load_labelled(path)
    message = str(err.value)
    result = runner.invoke(app, ["judge", "eval", "--texts", str(path)])
    assert result.exit_code == 2, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("evalkit: error:")]
    assert errors == [f"evalkit: error: {message}"]
    assert "Traceback" not in result.output
    return message


def test_a_json_syntax_error_names_the_file_the_line_and_the_column(tmp_path) -> None:
    path = tmp_path / "syntax.jsonl"
    path.write_text(GOOD + GOOD + '{"text": "hello", "label": "act" "lang": "en"}\n', encoding="utf-8")
    assert _error(path) == f"{path}: line 3: not JSON (Expecting ',' delimiter at column 34)"


@pytest.mark.parametrize("label, shown", [
    ("3", "3"),
    ("null", "null"),
    ('["act", "clarify"]', '["act", "clarify"]'),
    ('{"name": "act"}', '{"name": "act"}'),
    ("true", "true"),
    ("1.5", "1.5"),
    ('"bogus"', "'bogus'"),  # a string label: its repr, as before
    ('"3"', "'3'"),  # a string is told from a number by its quotes
])
def test_a_bad_label_is_echoed_whatever_its_type(tmp_path, label, shown) -> None:
    path = tmp_path / "label.jsonl"
    path.write_text(GOOD + f'{{"text": "Done.", "label": {label}, "lang": "en"}}\n', encoding="utf-8")
    assert _error(path) == f"{path}: line 2: field label: Input should be 'abstain', 'clarify' or 'act', not {shown}"


def test_a_long_bad_label_is_echoed_cut_at_80_characters(tmp_path) -> None:
    path = tmp_path / "long.jsonl"
    path.write_text(json.dumps({"text": "Done.", "label": "x" * 5000, "lang": "en"}) + "\n", encoding="utf-8")
    assert _error(path) == f"{path}: line 1: field label: Input should be 'abstain', 'clarify' or 'act', not '{'x' * 78}…"
    path.write_text(json.dumps({"text": "Done.", "label": list(range(100)), "lang": "en"}) + "\n", encoding="utf-8")
    echoed = _error(path).rsplit(", not ", 1)[1]
    assert len(echoed) == 80 and echoed == json.dumps(list(range(100)))[:79] + "…"


@pytest.mark.parametrize("line, message", [
    ('{"text": "Done.", "label": "act", "lang": null}', "field lang: Input should be a valid string, not null"),
    ('{"text": 3, "label": "act", "lang": "en"}', "field text: Input should be a valid string, not 3"),
    ('{"text": "Done.", "label": "act", "lang": "en", "context_user": ["hi"]}',
     'field context_user: Input should be a valid string, not ["hi"]'),
    ('{"text": "Done.", "label": {"a": "\\u0000\\ud800"}, "lang": "en"}',  # escaped, not printed raw
     "field label: Input should be 'abstain', 'clarify' or 'act', not {\"a\": \"\\u0000\\ud800\"}"),
])
def test_a_field_of_the_wrong_type_is_echoed(tmp_path, line, message) -> None:
    path = tmp_path / "types.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    assert _error(path) == f"{path}: line 1: {message}"


@pytest.mark.parametrize("char, code", [("\x00", "0000"), ("\t", "0009"), ("\x1f", "001f")])
def test_a_raw_control_character_is_named_without_a_doubled_at(tmp_path, char, code) -> None:
    path = tmp_path / "nul.jsonl"
    path.write_bytes(GOOD.encode() + f'{{"text": "hi{char}there", "label": "act", "lang": "en"}}\n'.encode())
    message = _error(path)
    assert message == (f"{path}: line 2: not JSON (Invalid control character U+{code.upper()} at column 13; "
                       f"write it escaped, as \\u{code})")
    assert "at at" not in message


def test_an_unterminated_string_still_reads_starting_at_column(tmp_path) -> None:
    path = tmp_path / "open.jsonl"
    path.write_text('{"text": "Done.", "label": "act", "lang": "en\n', encoding="utf-8")
    assert _error(path) == f"{path}: line 1: not JSON (Unterminated string starting at column 43)"


def test_a_file_name_with_a_newline_is_shown_escaped(tmp_path) -> None:
    path = tmp_path / "new\nline.jsonl"
    quoted = repr(str(path))
    assert quoted.endswith("new\\nline.jsonl'")
    path.write_text('{"text": "Done.", "label": 3, "lang": "en"}\n', encoding="utf-8")
    assert _error(path) == f"{quoted}: line 1: field label: Input should be 'abstain', 'clarify' or 'act', not 3"
    path.write_bytes(b'{"text": "hi\x00", "label": "act", "lang": "en"}\n')
    assert _error(path).startswith(f"{quoted}: line 1: not JSON (Invalid control character U+0000")
    path.write_bytes(b'{"text": "caf\xe9", "label": "act", "lang": "en"}\n')
    assert _error(path).startswith(f"{quoted}: line 1: not UTF-8 text (")
    path.write_text("\n\n", encoding="utf-8")
    assert _error(path) == f"{quoted}: no labelled lines"
    path.write_text('{"text": "' + "a" * (MAX_LINE_BYTES + 10) + '"}\n', encoding="utf-8")
    assert _error(path).startswith(f"{quoted}: line 1: field text: the line is longer than 1,048,576 bytes")
    missing = tmp_path / "gone\nfile.jsonl"
    assert _error(missing) == f"{repr(str(missing))}: no such labelled file"


def test_file_names_and_values_are_shown_unambiguously() -> None:
    assert shown_path("data/test.jsonl") == "data/test.jsonl"  # a plain name stays as it is
    assert shown_path("a\nb.jsonl") == "'a\\nb.jsonl'"
    assert shown_path("a\u200bb.jsonl") == "'a\\u200bb.jsonl'"  # a character that does not show
    assert shown_path("b.jsonl ") == "'b.jsonl '"  # white space at an end
    assert shown_value("act\n") == "'act\\n'"
    assert shown_value(None) == "null" and shown_value(False) == "false"
    assert shown_value(["\u2028x"]) == '["\\u2028x"]'  # a line separator escaped in a list too
    assert shown_value("é" * 200) == "'" + "é" * 78 + "…"
