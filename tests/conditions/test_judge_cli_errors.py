"""`evalkit judge eval`: bad options and odd file names give one `evalkit: error:` line, exit 2."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from evalkit.cli import app

runner = CliRunner()


def _one_error_line(args: list[str]) -> str:
    result = runner.invoke(app, ["judge", "eval", *args])
    lines = result.output.splitlines()
    assert result.exit_code == 2, result.output
    assert len(lines) == 1 and lines[0].startswith("evalkit: error: "), result.output
    return lines[0]


def test_bad_part_names_the_option() -> None:
    line = _one_error_line(["--part", "nosuch"])
    assert "--part: 'nosuch' is not a corpus part (tune, test, test2, test3, test4)" in line


def test_part_with_texts_names_the_option() -> None:
    assert "--part: give --texts or --part, not both" in _one_error_line(["--part", "test", "--texts", "x.jsonl"])


def test_json_naming_the_input_file(tmp_path) -> None:
    path = tmp_path / "in.jsonl"
    path.write_text('{"text": "hi", "label": "act", "lang": "en"}\n', encoding="utf-8")
    line = _one_error_line(["--texts", str(path), "--json", str(path)])
    assert f"--json: {path} is the labelled input ({path})" in line


def test_json_naming_a_folder(tmp_path) -> None:
    assert f"--json: {tmp_path} is a folder" in _one_error_line(["--json", str(tmp_path)])


def test_json_in_a_missing_folder_shows_names_on_one_line(tmp_path) -> None:
    missing = tmp_path / "no\nsuch"
    line = _one_error_line(["--json", str(missing / "out.json")])
    assert "--json: " in line and "in a folder that does not exist" in line and "\\n" in line


def test_empty_texts_is_refused() -> None:
    assert "--texts: an empty path" in _one_error_line(["--texts", ""])


def test_blank_texts_is_a_name(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    line = _one_error_line(["--texts", " "])
    assert "' ': no such labelled file" in line and "empty path" not in line
    (tmp_path / " ").write_text('{"text": "hi", "label": "act", "lang": "en"}\n', encoding="utf-8")
    result = runner.invoke(app, ["judge", "eval", "--texts", " "])
    assert result.exit_code == 0, result.output


def test_os_error_name_with_newline_is_one_line() -> None:
    line = _one_error_line(["--texts", "x\n" + "y" * 5000])
    assert line.startswith("evalkit: error: 'x\\nyyy")
