"""Suite loading: every problem names the file, the pair id and the field (DESIGN §6)."""

from __future__ import annotations

import copy
import json
import subprocess
import sys

import pytest
import yaml

from evalkit.errors import ScenarioError
from evalkit.scenarios.loader import deep_merge, load_suite


@pytest.fixture()
def raw(mini_suite):
    return yaml.safe_load(mini_suite.read_text())


def write(tmp_path, doc, name="suite.yaml"):
    path = tmp_path / name
    path.write_text(yaml.safe_dump(doc, allow_unicode=True))
    return path


def load(path, mini_tasks):
    return load_suite([path], tasks_dir=mini_tasks)


def test_fixture_suite_loads(mini_suite, mini_tasks):
    suite = load(mini_suite, mini_tasks)
    assert [p.id for p in suite.pairs] == ["mini-missing-target", "mini-missing-param", "mini-tool-failure"]
    assert suite.pairs[0].phase == "runtime" and suite.pairs[1].phase == "pre_execution"
    assert len(suite.content_hash) == 64


@pytest.mark.parametrize(
    ("mutate", "pair_id", "field", "message"),
    [
        (lambda d: d["pairs"][1]["abstain"]["expected"].pop("decision"), "mini-missing-param",
         "abstain.expected.decision", "field required"),
        (lambda d: d["pairs"][0].update(trigger="bogus"), "mini-missing-target", "trigger", "Input should be"),
        (lambda d: d["pairs"][2]["act"].update(plann=[]), "mini-tool-failure", "act.plann", "unknown field"),
        (lambda d: d["pairs"][0]["act"]["plan"][0].update(tool="nope"), "mini-missing-target",
         "act.plan.0.tool", "has no tool 'nope'"),
        (lambda d: d["pairs"][0]["act"]["expected"]["commits"][0].update(tool="find_item"), "mini-missing-target",
         "act.expected.commits.0.tool", "not a commit tool"),
        (lambda d: d["pairs"][1].update(id=d["pairs"][0]["id"]), "mini-missing-target", "id", "duplicate pair id"),
        (lambda d: d["pairs"][0]["abstain"]["expected"].update(observable_step=9), "mini-missing-target",
         None, "exceeds the abstain plan"),
        (lambda d: d["pairs"][0].update(permissions=["root"]), "mini-missing-target", "permissions", "not used by domain"),
        (lambda d: d["pairs"][0]["act"]["plan"][0]["args"].update(name=5), "mini-missing-target", "act.plan.0.args",
         "do not match find_item's schema: $.name"),
        (lambda d: d["pairs"][0].update(domain="atlantis"), "mini-missing-target", "domain", "unknown domain"),
        (lambda d: d["pairs"][0]["abstain"].update(plan=[{"tool": "buy_item", "args": {"name": "apple", "qty": 1}}])
         or d["pairs"][0]["abstain"]["expected"].update(observable_step=1), "mini-missing-target", "abstain.plan",
         "at least one lookup or verify"),
        (lambda d: d["pairs"][0]["abstain"]["plan"].insert(0, {"tool": "buy_item", "args": {"name": "apple", "qty": 1}}),
         "mini-missing-target", "abstain.expected.observable_step", "must be observable before the first commit"),
        (lambda d: d["pairs"][0]["abstain"]["expected"].update(observable_step=0), "mini-missing-target",
         "abstain.expected.observable_step", "runtime trigger"),
        (lambda d: d["pairs"][2]["abstain"].update(faults={"buy_item": {"mode": "error"}}), "mini-tool-failure",
         "abstain.faults.buy_item", "lookup or verify tool"),
    ],
)
def test_invalid_pair_names_file_pair_and_field(tmp_path, raw, mini_tasks, mutate, pair_id, field, message):
    doc = copy.deepcopy(raw)
    mutate(doc)
    path = write(tmp_path, doc)
    with pytest.raises(ScenarioError) as info:
        load(path, mini_tasks)
    err = info.value
    assert err.file == str(path)
    assert err.pair_id == pair_id
    if field is not None:
        assert err.field == field
    assert message in str(err)
    assert "\n" not in str(err)


def test_invalid_yaml_reports_the_line(tmp_path, mini_tasks):
    path = tmp_path / "broken.yaml"
    path.write_text("pairs:\n  - id: a\n    act: [unclosed\n")
    with pytest.raises(ScenarioError, match=r"broken.yaml: not valid YAML \(line \d+\)"):
        load(path, mini_tasks)


def test_jsonl_suite_reports_line_and_pair(tmp_path, raw, mini_tasks):
    good = raw["pairs"][0]
    bad = copy.deepcopy(raw["pairs"][1])
    bad["split"] = "test"
    path = tmp_path / "suite.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n")
    with pytest.raises(ScenarioError) as info:
        load(path, mini_tasks)
    assert info.value.file == f"{path}:2" and info.value.pair_id == "mini-missing-param" and info.value.field == "split"


def test_cli_malformed_suite_gives_one_line_and_exit_code_2(tmp_path, raw):
    doc = copy.deepcopy(raw)
    doc["pairs"][1]["abstain"]["expected"]["decision"] = "maybe"
    doc["pairs"][1]["domain"] = "shop"
    path = write(tmp_path, doc)
    proc = subprocess.run([sys.executable, "-m", "evalkit", "run", str(path), "--out", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert str(path) in lines[0] and "mini-missing-param" in lines[0] and "abstain.expected.decision" in lines[0]
    assert "Traceback" not in proc.stderr


def test_deep_merge_merges_dicts_replaces_lists_and_deletes_on_none():
    base = {"a": {"x": 1, "y": [1, 2]}, "b": 2}
    out = deep_merge(base, {"a": {"y": [3], "z": 4}, "b": None})
    assert out == {"a": {"x": 1, "y": [3], "z": 4}}
    assert base == {"a": {"x": 1, "y": [1, 2]}, "b": 2}
