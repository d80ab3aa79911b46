"""``evalkit suite validate | export | import`` as a user runs them (subprocesses, real files)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def evalkit(*args, timeout=300):
    return subprocess.run([sys.executable, "-m", "evalkit", *args], capture_output=True, text=True, timeout=timeout)


def test_validate_prints_the_count_table_minimums_and_self_check():
    import yaml

    path = ROOT / "scenarios" / "library" / "mail.yaml"
    n = len(yaml.safe_load(path.read_text(encoding="utf-8"))["pairs"])
    assert n >= 25
    proc = evalkit("suite", "validate", str(path))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "pairs by trigger x phase x domain" in out and "library minimums" in out
    assert "prompt_injection" in out and "runtime" in out and "mail" in out
    assert f"oracle self-check: {n} pairs kept, 0 excluded" in out
    assert "minimums not met: pairs, domains" in out


def test_validate_strict_fails_on_an_unmet_minimum():
    proc = evalkit("suite", "validate", "--no-oracle", "--strict", str(ROOT / "scenarios" / "builtin.yaml"))
    assert proc.returncode == 1
    assert "oracle self-check" not in proc.stdout


def test_validate_lists_a_pair_the_oracle_cannot_pass(tmp_path):
    import yaml

    doc = yaml.safe_load((ROOT / "scenarios" / "library" / "payments.yaml").read_text(encoding="utf-8"))
    pair = next(p for p in doc["pairs"] if p["id"] == "pay-invoice-acme-control")
    pair["act"]["expected"]["commits"][0]["args"]["amount"] = 999.0  # the annotation disagrees with the plan
    (tmp_path / "broken.yaml").write_text(yaml.safe_dump({"pairs": [pair]}), encoding="utf-8")
    proc = evalkit("suite", "validate", "--strict", str(tmp_path / "broken.yaml"))
    assert proc.returncode == 1
    assert "excluded pay-invoice-acme-control" in proc.stdout and "act variant, meta condition" in proc.stdout


def test_export_jsonl_then_load_it(tmp_path):
    out = tmp_path / "wiki.jsonl"
    proc = evalkit("suite", "export", str(ROOT / "scenarios" / "library" / "wiki.yaml"), "--format", "jsonl",
                   "--out", str(out), "--split", "dev")
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert lines and all(p["split"] == "dev" for p in lines)
    assert evalkit("suite", "validate", "--no-oracle", str(out)).returncode == 0


def test_import_unknown_source_is_one_clear_line():
    proc = evalkit("suite", "import", "nosuch")
    assert proc.returncode == 2
    assert proc.stderr.strip().startswith("evalkit: error: unknown import source 'nosuch'")
    assert len(proc.stderr.strip().splitlines()) == 1


def test_validate_refuses_an_unwritable_json_path_before_any_work(tmp_path, mini_suite, mini_tasks):
    a_file = tmp_path / "taken"
    a_file.write_text("x")
    for target, message in ((tmp_path, f"--json {tmp_path}: is a folder; give a file name"),
                            (a_file / "out.json", f"--json {a_file / 'out.json'}: {a_file} is a file, not a folder")):
        proc = evalkit("suite", "validate", str(mini_suite), "--tasks", str(mini_tasks), "--json", str(target))
        assert proc.returncode == 2 and proc.stdout == ""  # no table: nothing ran
        assert proc.stderr.strip() == f"evalkit: error: {message}"
