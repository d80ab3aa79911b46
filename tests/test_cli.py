"""The command line as a user runs it (subprocesses, real files)."""

from __future__ import annotations

import json
import os
import subprocess
import sys


def evalkit(*args, cwd=None, timeout=300):
    return subprocess.run([sys.executable, "-m", "evalkit", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=cwd)


def test_run_with_options_writes_the_run_directory(tmp_path):
    out = tmp_path / "run"
    proc = evalkit("run", "--limit", "2", "--model", "scripted/oracle", "--model", "scripted/always_act",
                   "--condition", "nl", "--condition", "meta", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert {p.name for p in out.iterdir()} >= {"config.json", "traces", "results.jsonl", "results.parquet",
                                                "summary.json", "report.html"}
    summary = json.loads((out / "summary.json").read_text())
    assert [(r["model"], r["condition"]) for r in summary["rows"]] == [
        ("scripted/oracle", "nl"), ("scripted/oracle", "meta"),
        ("scripted/always_act", "nl"), ("scripted/always_act", "meta")]
    assert all(r["n_pairs"] == 2 for r in summary["rows"])
    assert len(list((out / "traces").glob("*.jsonl"))) == 2 * 2 * 2 * 2
    manifest = json.loads((out / "config.json").read_text())
    assert manifest["config"]["limit"] == 2 and len(manifest["suite"]["content_hash"]) == 64
    assert "scripted/oracle" in proc.stdout and "paired" in proc.stdout


def test_a_model_or_condition_given_twice_runs_once_with_a_warning(tmp_path):
    out = tmp_path / "run"
    proc = evalkit("run", "--limit", "1", "-m", "scripted/oracle", "-m", "scripted/oracle", "-c", "nl", "-c", "nl",
                   "--out", str(out), "--no-report")
    assert proc.returncode == 0, proc.stderr
    assert ("warning: --model scripted/oracle given more than once; each runs once; for repeated episodes use "
            "--epochs N") in proc.stderr
    assert "warning: --condition nl given more than once; each runs once" in proc.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert [(r["model"], r["condition"]) for r in summary["rows"]] == [("scripted/oracle", "nl")]
    single = evalkit("run", "--limit", "1", "-m", "scripted/oracle", "-c", "nl", "--out", str(tmp_path / "one"),
                     "--no-report")
    assert single.returncode == 0 and "given more than once" not in single.stderr


def test_pair_selection_and_report_rerender(tmp_path, mini_suite, mini_tasks):
    out = tmp_path / "run"
    proc = evalkit("run", "--pair", "mini-tool-failure", "-m", "scripted/oracle", "-c", "tool",
                   "--out", str(out), "--no-report", str(mini_suite), cwd=None)
    # the fixture suite needs the fixture tasks folder: the CLI reports the unknown domain clearly
    assert proc.returncode == 2 and "unknown domain 'mini'" in proc.stderr
    proc = evalkit("run", "--pair", "does-not-exist", "-m", "scripted/oracle", "--out", str(out))
    assert proc.returncode == 2 and "does-not-exist" in proc.stderr
    proc = evalkit("run", "--limit", "1", "-m", "scripted/oracle", "-c", "nl", "--out", str(out), "--no-report")
    assert proc.returncode == 0, proc.stderr
    assert not (out / "report.html").exists()
    proc = evalkit("report", str(out))
    assert proc.returncode == 0, proc.stderr
    assert (out / "report.html").read_text().startswith("<!doctype html>")


def test_bad_options_exit_2_with_one_line(tmp_path):
    for args, needle in [
        (["run", "-m", "nonsense"], "PROVIDER/NAME"),
        (["run", "-m", "scripted/late:x"], "integer K"),
        (["run", "-m", "warp/model"], "unknown model provider"),
        (["run", "--judge", "warp/judge"], "--judge 'warp/judge': unknown model provider 'warp'"),
        (["run", "-c", "telepathy"], "unknown condition"),
        (["report", str(tmp_path)], "no summary.json"),
    ]:
        proc = evalkit(*args, "--out", str(tmp_path / "o")) if args[0] == "run" else evalkit(*args)
        assert proc.returncode == 2, (args, proc.stderr)
        assert needle in proc.stderr, (args, proc.stderr)
        assert "Traceback" not in proc.stderr


def test_version_and_short_help():
    from evalkit import __version__

    proc = evalkit("--version")
    assert proc.returncode == 0 and proc.stdout.strip() == f"evalkit {__version__}"
    assert evalkit("-h").returncode == 0


def test_suite_validate_prints_counts():
    proc = evalkit("suite", "validate")
    assert proc.returncode == 0, proc.stderr
    assert "pairs by trigger" in proc.stdout and "missing_target" in proc.stdout and "ok:" in proc.stdout


def test_help_does_not_import_heavy_libraries():
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "evalkit", "--help"], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0
    imported = {line.split("|")[-1].strip().split(".")[0] for line in proc.stderr.splitlines() if "|" in line}
    assert not imported & {"pandas", "matplotlib", "openai", "datasets", "pyarrow", "numpy", "jsonschema"}


def _one_line_error(proc, needle):
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("evalkit: error: "), proc.stderr
    assert needle in lines[0], proc.stderr


def test_option_range_errors_are_one_line(tmp_path):
    for args, needle in [
        (["--limit", "0"], "--limit: Input should be greater than or equal to 1 (got 0)"),
        (["--epochs", "0"], "--epochs: Input should be greater than or equal to 1 (got 0)"),
        (["--epochs", "100000000"], "--epochs: Input should be less than or equal to 1000 (got 100000000)"),
        (["--temperature", "nan"], "--temperature: Input should be a finite number (got nan)"),
        (["--max-connections", "0"], "--max-connections: Input should be greater than or equal to 1 (got 0)"),
        (["-m", "scripted/late:99999999999999999999"], "integer K from 0 to 1000"),
    ]:
        _one_line_error(evalkit("run", *args, "--out", str(tmp_path / "o")), needle)
    assert not (tmp_path / "o").exists()


def test_run_refuses_a_folder_of_other_files_and_an_empty_out(tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "config.json").write_text("my settings")
    _one_line_error(evalkit("run", "--limit", "1", "--out", str(mine)),
                    f"{mine}: not empty (config.json) and not an evalkit run directory")
    assert [p.name for p in mine.iterdir()] == ["config.json"] and (mine / "config.json").read_text() == "my settings"
    (tmp_path / "keep.txt").write_text("x")
    _one_line_error(evalkit("run", "--limit", "1", "--out", "", cwd=tmp_path), "--out: String should have at least 1")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt", "mine"]


def test_binary_option_files_and_suites_are_one_line(tmp_path, mini_tasks):
    binary = tmp_path / "policy.yaml"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\xff\x00")
    _one_line_error(evalkit("run", "--policy", str(binary), "--out", str(tmp_path / "o")),
                    f"--policy {binary}: not UTF-8 text")
    _one_line_error(evalkit("run", "--model-config", str(binary), "--out", str(tmp_path / "o")),
                    f"--model-config {binary}: not UTF-8 text")
    suite = tmp_path / "suite.yaml"
    suite.write_bytes("pairs: [{id: café}]".encode("latin-1"))
    _one_line_error(evalkit("suite", "validate", str(suite)), f"{suite}: is not UTF-8 text (byte 0xe9")


def test_a_domain_that_exits_during_import_is_an_error(tmp_path, mini_suite):
    tasks = tmp_path / "tasks"
    (tasks / "mini").mkdir(parents=True)
    (tasks / "mini" / "domain.py").write_text("import sys\nsys.exit(0)\n")
    _one_line_error(evalkit("run", str(mini_suite), "--tasks", str(tasks), "--out", str(tmp_path / "o")),
                    "import failed: called sys.exit(0)")


def test_report_on_a_malformed_summary_is_one_line(tmp_path):
    (tmp_path / "summary.json").write_text("[]")
    _one_line_error(evalkit("report", str(tmp_path)), f"{tmp_path / 'summary.json'}: expected a JSON object, found list")


def test_a_full_disk_mid_run_is_one_line_naming_the_file(tmp_path, mini_suite, mini_tasks, monkeypatch):
    import errno
    import re

    from typer.testing import CliRunner

    from evalkit.cli import app
    from evalkit.harness import store

    writes = {"n": 0}
    real_write_atomic, real_append = store.write_atomic, store.RunStore._append_line

    def disk(path):  # the disk fills up after two traces and two rows: every later write fails
        writes["n"] += 1
        if writes["n"] > 4:
            raise store._naming(OSError(errno.ENOSPC, "No space left on device"), path)

    def write_trace(self, episode_id, jsonl):
        path = self.traces / f"{episode_id}.jsonl"
        disk(path)
        real_write_atomic(path, jsonl)

    def append_line(self, line):
        disk(self.root / "results.jsonl")
        real_append(self, line)

    monkeypatch.setattr(store.RunStore, "write_trace", write_trace)
    monkeypatch.setattr(store.RunStore, "_append_line", append_line)
    out = tmp_path / "run"
    result = CliRunner().invoke(app, ["run", str(mini_suite), "--tasks", str(mini_tasks), "-m", "scripted/oracle",
                                      "-c", "nl", "--no-selfcheck", "--out", str(out)])
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.output, result.output
    assert re.fullmatch(rf"evalkit: error: {re.escape(str(out))}/(traces/[^ ]+\.jsonl|results\.jsonl): No space left "
                        rf"on device; finished episodes are kept: continue with `evalkit run --resume "
                        rf"{re.escape(str(out))}`", lines[0]), lines[0]
    assert len((out / "results.jsonl").read_text().splitlines()) == 2


def test_a_full_disk_is_named_even_when_closing_the_results_file_fails_too(tmp_path, mini_suite, mini_tasks,
                                                                           monkeypatch):
    import errno

    from typer.testing import CliRunner

    from evalkit.cli import app
    from evalkit.harness import store

    real_open, real_append = store.RunStore.open, store.RunStore._append_line
    appended = {"n": 0}

    class Unflushable:  # the buffered tail cannot be flushed either: close() fails without a file name
        def __init__(self, fh):
            self.fh = fh

        def __getattr__(self, name):
            return getattr(self.fh, name)

        def close(self):
            self.fh.close()
            raise OSError(errno.ENOSPC, "No space left on device")

    def open_(self, *, background=False):
        real_open(self, background=background)
        self._results_fh = Unflushable(self._results_fh)

    def append_line(self, line):
        appended["n"] += 1
        if appended["n"] > 2:
            raise store._naming(OSError(errno.ENOSPC, "No space left on device"), self.root / "results.jsonl")
        real_append(self, line)

    monkeypatch.setattr(store.RunStore, "open", open_)
    monkeypatch.setattr(store.RunStore, "_append_line", append_line)
    out = tmp_path / "run"
    result = CliRunner().invoke(app, ["run", str(mini_suite), "--tasks", str(mini_tasks), "-m", "scripted/oracle",
                                      "-c", "nl", "--no-selfcheck", "--out", str(out)])
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"evalkit: error: {out / 'results.jsonl'}: No space left on device"), result.stderr


def test_a_file_system_error_a_resume_would_meet_again_says_what_to_fix_first(tmp_path):
    import errno

    from evalkit.cli_errors import resume_hint

    (tmp_path / "results.jsonl").write_text("")
    assert resume_hint(OSError(errno.ENOSPC, "No space"), str(tmp_path)) == ""  # nothing finished: nothing kept
    (tmp_path / "results.jsonl").write_text('{"pair_id": "p"}\n')
    blocked = IsADirectoryError(errno.EISDIR, "Is a directory", str(tmp_path / "traces" / "x.jsonl"))
    assert resume_hint(blocked, str(tmp_path)) == (
        f"; finished episodes are kept: remove the folder at {tmp_path / 'traces' / 'x.jsonl'}, then continue with "
        f"`evalkit run --resume {tmp_path}`")
    assert "make the file system writable" in resume_hint(OSError(errno.EROFS, "Read-only"), str(tmp_path))
    assert resume_hint(OSError(errno.ENOSPC, "No space"), str(tmp_path)) == (
        f"; finished episodes are kept: continue with `evalkit run --resume {tmp_path}`")


def test_resume_refuses_other_options_instead_of_ignoring_them(tmp_path, mini_suite, mini_tasks):
    from typer.testing import CliRunner

    from evalkit.cli import app

    out = tmp_path / "run"
    first = CliRunner().invoke(app, ["run", str(mini_suite), "--tasks", str(mini_tasks), "-m", "scripted/oracle",
                                     "-c", "nl", "--no-selfcheck", "--no-report", "--out", str(out)])
    assert first.exit_code == 0, first.output
    before = (out / "summary.json").read_text()
    refused = CliRunner().invoke(app, ["run", "--resume", str(out), "-m", "scripted/always_act", "--epochs", "3",
                                       "--no-report"])
    assert refused.exit_code == 2
    assert refused.stderr.strip() == (f"evalkit: error: --resume takes every option from {out / 'config.json'}; "
                                      "remove --model, --epochs, --report/--no-report (to change them, start a new "
                                      "run with --out)")
    assert (out / "summary.json").read_text() == before  # nothing ran
    resumed = CliRunner().invoke(app, ["run", "--resume", str(out)])
    assert resumed.exit_code == 0, resumed.output


def test_run_fits_the_table_to_columns_and_wide_shows_every_column(tmp_path):
    """`COLUMNS=90 evalkit run`: rates without k/n, one line per row, a line naming what is left
    out; `--wide` prints every column with its counts at the same COLUMNS."""
    import os

    env = {**os.environ, "COLUMNS": "90"}
    args = ["run", "--limit", "2", "-m", "scripted/oracle", "-c", "tool", "--no-report"]
    narrow = subprocess.run([sys.executable, "-m", "evalkit", *args, "--out", str(tmp_path / "a")],
                            capture_output=True, text=True, timeout=300, env=env)
    assert narrow.returncode == 0, narrow.stderr
    rows = [line for line in narrow.stdout.splitlines() if line.startswith("│ scripted/oracle")]
    assert len(rows) == 1 and len(rows[0]) <= 90 and "(2/2)" not in rows[0]
    assert "not shown at 90 columns: k/n counts" in narrow.stdout
    wide = subprocess.run([sys.executable, "-m", "evalkit", *args, "--wide", "--out", str(tmp_path / "b")],
                          capture_output=True, text=True, timeout=300, env=env)
    assert wide.returncode == 0, wide.stderr
    (row,) = [line for line in wide.stdout.splitlines() if line.startswith("│ scripted/oracle")]
    assert "1.000 (2/2)" in row and "not shown" not in wide.stdout


def test_a_run_with_no_usable_result_exits_1(tmp_path, capsys):
    import pytest
    import typer

    from evalkit.cli import _report_errors

    with pytest.raises(typer.Exit) as info:
        _report_errors(str(tmp_path), {"n_episodes_planned": 2, "n_episodes_completed": 0, "n_missing": 2})
    assert info.value.exit_code == 1
    assert "none of the run's 2 planned episodes has a usable result" in capsys.readouterr().err


def test_a_price_above_the_cap_is_refused_naming_the_field(tmp_path):
    config = tmp_path / "models.yaml"
    config.write_text("models:\n  openai/x: {price: {input_per_mtok: 1.0e+300, output_per_mtok: 1}}\n")
    proc = subprocess.run([sys.executable, "-m", "evalkit", "run", "-m", "openai/x", "--base-url",
                           "http://127.0.0.1:9/v1", "--model-config", str(config), "--limit", "1",
                           "--out", str(tmp_path / "r"), "--no-report"],
                          capture_output=True, text=True, timeout=300, env={**os.environ, "OPENAI_API_KEY": "x"})
    assert proc.returncode != 0 and not (tmp_path / "r" / "results.jsonl").exists()
    assert "field price.input_per_mtok: Input should be less than or equal to 1000000" in proc.stderr
