"""``evalkit judge eval`` on odd labelled files and odd options."""

from __future__ import annotations

import json

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
