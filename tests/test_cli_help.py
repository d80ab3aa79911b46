"""Every ``--help`` names values by their metavars: no ``<bool>``, ``<list[str]>``, ``<path>``
type column and no ``{DIR}`` in a usage line, with or without rich."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import click
import pytest
import typer
from typer.testing import CliRunner

from evalkit.cli import app

NOISE = re.compile(r"<(?:bool|int|float|str|text|path|list\[[^\]]*\]|[a-z]+ range|[a-z_]+(?:\|[a-z_]+)*)>"
                   r"|\{[A-Z_]+\}|\[\[|\.\.\.\.\.\.|\]\.\.\.\]")


def command_paths() -> list[list[str]]:
    """Every command and group of the CLI, as argument lists (``[]`` is ``evalkit`` itself)."""
    root = typer.main.get_command(app)
    paths: list[list[str]] = []

    def walk(cmd: click.Command, path: list[str]) -> None:
        paths.append(path)
        for name, sub in getattr(cmd, "commands", {}).items():
            walk(sub, [*path, name])

    walk(root, [])
    return paths


def test_every_command_is_covered():
    names = {" ".join(p) for p in command_paths()}
    assert {"", "run", "report", "gate", "serve-local", "suite", "suite validate", "suite import", "rules",
            "rules eval", "rules replay", "rules distill", "rules validate"} <= names


def test_no_type_placeholders_in_rich_help():
    runner = CliRunner()
    for path in command_paths():
        result = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "200"})
        assert result.exit_code == 0, (path, result.output)
        assert "Usage: evalkit" in result.output
        found = NOISE.findall(result.output)
        assert not found, (path, found)


def test_flags_options_and_arguments_keep_their_names_and_metavars():
    runner = CliRunner()
    text = runner.invoke(app, ["run", "--help"], env={"COLUMNS": "200"}).output
    assert "Usage: evalkit run [OPTIONS] [SUITE]..." in text
    assert re.search(r"--report\s+--no-report\s+Render report\.html", text)  # a flag: no placeholder
    assert re.search(r"--epochs\s+N\s+Repetitions", text) and re.search(r"--gate\s+on\|off\s+Autonomy", text)
    text = runner.invoke(app, ["report", "--help"], env={"COLUMNS": "200"}).output
    assert "Usage: evalkit report [OPTIONS] DIR" in text
    text = runner.invoke(app, ["rules", "replay", "--help"], env={"COLUMNS": "200"}).output
    assert "Usage: evalkit rules replay [OPTIONS] TRACES..." in text


def test_no_type_placeholders_in_plain_help():
    script = ("import json, sys\nfrom typer.testing import CliRunner\nfrom evalkit.cli import app\n"
              "out = {' '.join(p): CliRunner().invoke(app, [*p, '--help'], env={'COLUMNS': '200'}).output "
              "for p in json.loads(sys.argv[1])}\nprint(json.dumps(out))\n")
    proc = subprocess.run([sys.executable, "-c", script, json.dumps(command_paths())], capture_output=True, text=True,
                          timeout=120, env={**__import__("os").environ, "TYPER_USE_RICH": "0"})
    assert proc.returncode == 0, proc.stderr
    helps = json.loads(proc.stdout)
    assert len(helps) == len(command_paths())
    for name, text in helps.items():
        assert "Usage: evalkit" in text and "╭" not in text, name  # the plain formatter
        assert not NOISE.findall(text), (name, NOISE.findall(text))


@pytest.mark.parametrize("command", [["run"], ["rules", "eval"]])
def test_the_condition_option_says_what_each_condition_means(command):
    result = CliRunner().invoke(app, [*command, "--help"], env={"COLUMNS": "100", "NO_COLOR": "1"})
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.replace("│", " ").split())
    assert ("nl (natural language only), tool (meta requests as plain tool calls) or meta "
            "(typed meta requests under runtime policy)") in text
