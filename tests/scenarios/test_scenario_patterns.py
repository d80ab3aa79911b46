"""Patterns in a scenario's approvals run in linear time (no pattern can hang a run) or fail at load."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
import textwrap

import pytest
import yaml

from evalkit.errors import ScenarioError
from evalkit.scenarios.loader import load_suite

HINT = "is not supported by the linear-time pattern engine"


@pytest.fixture()
def raw(mini_suite):
    return yaml.safe_load(mini_suite.read_text())


def write(tmp_path, doc, name="suite.yaml"):
    path = tmp_path / name
    path.write_text(yaml.safe_dump(doc, allow_unicode=True))
    return path


def test_a_catastrophic_scenario_pattern_decides_a_200000_character_argument_promptly(tmp_path, raw, mini_tasks):
    doc = copy.deepcopy(raw)
    # approval needed for a name ending in "a"; the simulated user refuses a name made of words
    # and ends with "!"; both patterns take exponential time in a backtracking engine on these values
    doc["pairs"][0]["act"]["approvals"] = {
        "require": [{"tool": "buy_item", "args": {"name": {"pattern": "(a+)+$"}}}],
        "user": [{"tool": "buy_item", "approve": False, "args": {"name": {"pattern": r"^(\w+\s?)*!$"}}},
                 {"tool": "buy_item", "approve": True}],
    }
    path = write(tmp_path, doc)
    # The subprocess's timeout is a hang guard only: the real cost is milliseconds.
    code = textwrap.dedent(f"""
        from pathlib import Path
        from evalkit.runtime.policy import RuntimePolicy
        from evalkit.scenarios.domains import load_domain
        from evalkit.scenarios.loader import load_suite

        tasks = Path({str(mini_tasks)!r})
        suite = load_suite([{str(path)!r}], tasks_dir=tasks)
        spec = load_domain("mini", tasks).tools["buy_item"]
        # as the harness does: the run's policy, the variant's approvals on top
        approvals = RuntimePolicy().approvals.merged(suite.pairs[0].act.approvals)
        for name in ("a" * 200_000 + "!", "word " * 40_000 + "a", "word " * 40_000 + "!a", "a" * 200_000):
            args = {{"name": name, "qty": 1}}
            print(approvals.required(spec, args), approvals.answer(spec, args))
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "False ('denied', 'user')",    # no final "a": no approval needed (the user would refuse: words + "!")
        "True ('granted', 'user')",    # needs one; not words ending in "!": granted
        "True ('granted', 'user')",
        "True ('granted', 'user')",
    ]


@pytest.mark.parametrize(("variant", "entry", "test", "pattern", "detail"), [
    ("act", "require", {"pattern": r"(\w)\1"}, r"(\w)\1", r"invalid escape sequence: \1"),
    ("abstain", "user", {"not_pattern": "foo(?=bar)"}, "foo(?=bar)", "invalid perl operator: (?="),
    ("abstain", "grant", {"pattern": "a++b"}, "a++b", "bad repetition operator: ++"),
])
def test_a_scenario_pattern_the_engine_cannot_run_fails_at_load_naming_file_pair_and_field(
        tmp_path, raw, mini_tasks, variant, entry, test, pattern, detail):
    doc = copy.deepcopy(raw)
    doc["pairs"][1][variant]["approvals"] = {entry: [{"tool": "find_item"}, {"tool": "buy_item", "args": {"qty": test}}]}
    field = f"{variant}.approvals.{entry}.1.args.qty.{next(iter(test))}"
    for path in (write(tmp_path, doc), tmp_path / "suite.jsonl"):
        if path.suffix == ".jsonl":
            path.write_text("".join(json.dumps(p) + "\n" for p in doc["pairs"]))
        with pytest.raises(ScenarioError) as info:
            load_suite([path], tasks_dir=mini_tasks)
        err = info.value
        where = f"{path}:2" if path.suffix == ".jsonl" else str(path)
        assert (err.file, err.pair_id, err.field) == (where, "mini-missing-param", field)
        assert str(err).startswith(f"{where}: pair mini-missing-param: field {field}: regular expression "
                                   f"`{pattern}` {HINT}"), str(err)
        assert str(err).endswith(detail) and "\n" not in str(err), str(err)


def test_suite_validate_reports_it_in_one_line(tmp_path, raw, mini_tasks):
    doc = copy.deepcopy(raw)
    doc["pairs"][2]["act"]["approvals"] = {"require": [{"tool": "buy_item", "args": {"name": {"pattern": "(?<!x)y"}}}]}
    path = write(tmp_path, doc)
    proc = subprocess.run([sys.executable, "-m", "evalkit", "suite", "validate", "--no-oracle", "--tasks",
                           str(mini_tasks), str(path)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.strip().splitlines() == [
        f"evalkit: error: {path}: pair mini-tool-failure: field act.approvals.require.0.args.name.pattern: regular expression "
        f"`(?<!x)y` {HINT} (RE2 syntax: no backreferences, lookaround, atomic groups or possessive quantifiers; "
        "repeat counts up to 1000): invalid perl operator: (?<!"]
