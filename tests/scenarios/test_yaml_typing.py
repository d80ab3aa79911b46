"""Values kept as written (field failure F07): unquoted YAML 1.1 scalars such as dates, times,
octal-looking codes and yes/no stay the strings the author wrote, and an expected commit's
argument of a type the tool's schema rejects is a load error naming file, pair and field."""

from __future__ import annotations

import datetime
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from evalkit.errors import ScenarioError
from evalkit.documents import DocumentError, load_yaml
from evalkit.scenarios.loader import load_suite

ROOT = Path(__file__).resolve().parents[2]
BASE_PAIR = "hr-scheduled-change-tool-missing"


def evalkit(*args, cwd):
    return subprocess.run([sys.executable, "-m", "evalkit", *args], capture_output=True, text=True,
                          timeout=300, cwd=cwd)


def base_block(new_id: str) -> str:
    """The base pair's text from the shipped hr library, renamed (quoting untouched)."""
    text = (ROOT / "scenarios" / "library" / "hr.yaml").read_text(encoding="utf-8")
    found = re.search(rf"^- id: {BASE_PAIR}\n.*?(?=^- id: )", text, re.S | re.M)
    assert found is not None
    return found.group(0).replace(f"- id: {BASE_PAIR}", f"- id: {new_id}", 1)


def with_commit_date(block: str, written: str) -> str:
    """``block`` with the act side's expected-commit ``effective`` written as ``written``."""
    head, sep, tail = block.partition("    expected:\n      commits:")
    assert sep and "effective: '2024-07-01'" in tail
    return head + sep + tail.replace("effective: '2024-07-01'", f"effective: {written}", 1)


def a_yaml(tmp_path: Path, written: str = "2024-07-01") -> Path:
    path = tmp_path / "a.yaml"
    path.write_text("pairs:\n" + with_commit_date(base_block("yaml-date-commit"), written), encoding="utf-8")
    return path


def b_yaml(tmp_path: Path) -> Path:
    block = with_commit_date(base_block("yaml-date-plan"), "2024-07-01")
    head, sep, tail = block.partition("  abstain:")
    path = tmp_path / "b.yaml"
    path.write_text("pairs:\n" + head.replace("effective: '2024-07-01'", "effective: 2024-07-01") + sep + tail,
                    encoding="utf-8")
    return path


# --- the scalar rule ---------------------------------------------------------------------------

@pytest.mark.parametrize("written", ["2024-07-01", "12:30", "01234", "NO", "no", "yes", "Yes", "on", "off", "y",
                                     "2024-07-01T09:00:00Z", "2024-07-01 09:00:00", "0x1F", "0o17", "1_000",
                                     "190:20:30", "007.5", "-012"])
def test_yaml_11_scalars_load_as_the_string_written(written):
    assert load_yaml(f"value: {written}\n") == {"value": written}


@pytest.mark.parametrize("written, value", [("94000.0", 94000.0), ("3", 3), ("-3", -3), ("0", 0), ("1e3", 1000.0),
                                            (".5", 0.5), ("true", True), ("False", False), ("null", None),
                                            ("~", None), ("", None)])
def test_core_schema_numbers_booleans_and_null_keep_their_types(written, value):
    loaded = load_yaml(f"value: {written}\n")["value"]
    assert loaded == value and type(loaded) is type(value)


@pytest.mark.parametrize("written", [".inf", "-.inf", ".nan", ".NaN", "+.Inf"])
def test_core_schema_numbers_that_are_not_finite_are_refused(written):
    with pytest.raises(DocumentError, match=r"a number that is not finite \(") as info:
        load_yaml(f"checks: {{limit: {written}}}\n")
    assert info.value.path == ("checks", "limit")
    assert load_yaml(f"value: '{written}'\n") == {"value": written}  # quoted, it is text


def test_f07_scalars_load_as_strings_where_yaml_11_retypes_them():
    written = {"2024-07-01": datetime.date(2024, 7, 1), "12:30": 750, "01234": 668, "NO": False}  # F07's table
    text = "".join(f"k{i}: {w}\n" for i, w in enumerate(written))
    assert list(yaml.safe_load(text).values()) == list(written.values())  # what YAML 1.1 makes of them
    assert list(load_yaml(text).values()) == list(written)


def test_unquoted_scalars_reach_the_pair_as_written(tmp_path):
    block = base_block("yaml-kept").replace("default: Yes, please go ahead exactly as I asked.", "default: NO", 1)
    block = block.replace("    user_answers:\n", "    context:\n      memo: 12:30\n      code: 01234\n"
                                                   "    user_answers:\n", 1)
    path = tmp_path / "kept.yaml"
    path.write_text("pairs:\n" + with_commit_date(block, "2024-07-01"), encoding="utf-8")
    pair = load_suite([path]).pairs[0]
    assert pair.act.user_answers == {"default": "NO"}
    assert pair.act.context == {"memo": "12:30", "code": "01234"}
    assert pair.act.expected.commits[0].args == {"employee_id": "E-102", "effective": "2024-07-01"}
    assert pair.act.plan[1].args["salary"] == 94000.0


# --- F07 as the case runs it ---------------------------------------------------------------------

def test_f07_unquoted_commit_date_validates_and_the_oracle_commit_scores_correct(tmp_path):
    a_yaml(tmp_path)
    proc = evalkit("suite", "validate", "a.yaml", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "oracle self-check: 1 pairs kept, 0 excluded" in proc.stdout
    for extra in ([], ["--no-selfcheck"]):
        out = tmp_path / f"run{len(extra)}"
        proc = evalkit("run", "a.yaml", "--model", "scripted/oracle", "--condition", "nl", "--no-report",
                       "--out", str(out), *extra, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
        act = [r for r in rows if r["variant"] == "act"]
        assert len(act) == 1 and act[0]["pair_id"] == "yaml-date-commit"
        assert act[0]["correct"] is True and act[0]["commits"] == 1
        assert all(r["correct"] for r in rows) and len(rows) == 2


def test_f07_unquoted_plan_date_validates(tmp_path):
    b_yaml(tmp_path)
    proc = evalkit("suite", "validate", "b.yaml", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    pair = load_suite([tmp_path / "b.yaml"]).pairs[0]
    assert pair.act.plan[1].args["effective"] == "2024-07-01"


def test_expected_commit_argument_of_a_wrong_type_stops_validate_and_run(tmp_path):
    a_yaml(tmp_path, written="20240701")  # an integer where the schema takes a YYYY-MM-DD string
    message = ("a.yaml: pair yaml-date-commit: field act.expected.commits.0.args: "
               "$.effective: 20240701 is not of type 'string'")
    proc = evalkit("suite", "validate", "a.yaml", cwd=tmp_path)
    assert proc.returncode == 2
    assert message in proc.stderr + proc.stdout
    for extra in ([], ["--no-selfcheck"]):
        proc = evalkit("run", "a.yaml", "--model", "scripted/oracle", "--condition", "nl", "--no-report",
                       "--out", str(tmp_path / "run"), *extra, cwd=tmp_path)
        assert proc.returncode == 2 and message in proc.stderr
        assert not (tmp_path / "run" / "results.jsonl").exists()


def test_an_explicit_timestamp_tag_is_a_date_and_is_refused(tmp_path):
    path = a_yaml(tmp_path, written="!!timestamp 2024-07-01")
    with pytest.raises(ScenarioError) as info:
        load_suite([path])
    err = info.value
    assert (err.pair_id, err.field) == ("yaml-date-commit", "act.expected.commits.0.args.effective")
    assert err.message.startswith("a date value (YAML tag !!timestamp): only JSON values are allowed")


def test_expected_commit_pattern_and_unknown_argument_are_checked_in_json(tmp_path):
    doc = load_yaml(a_yaml(tmp_path).read_text(encoding="utf-8"))
    args = doc["pairs"][0]["act"]["expected"]["commits"][0]["args"]
    path = tmp_path / "a.json"
    for bad, expected in ((dict(args, effective="1 July 2024"), "$.effective: '1 July 2024' is too long"),
                          (dict(args, effective="2024/07/01"), "$.effective: '2024/07/01' does not match"),
                          (dict(args, when="2024-07-01"), "$: Additional properties are not allowed ('when'")):
        doc["pairs"][0]["act"]["expected"]["commits"][0]["args"] = bad
        path.write_text(json.dumps(doc), encoding="utf-8")
        with pytest.raises(ScenarioError) as info:
            load_suite([path])
        assert str(info.value).startswith(f"{path}: pair yaml-date-commit: field act.expected.commits.0.args: "
                                          f"{expected}"), str(info.value)


def test_a_subset_of_the_arguments_is_enough(tmp_path):
    doc = load_yaml(a_yaml(tmp_path).read_text(encoding="utf-8"))
    doc["pairs"][0]["act"]["expected"]["commits"][0]["args"] = {"effective": "2024-07-01"}
    path = tmp_path / "subset.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert load_suite([path]).pairs[0].act.expected.commits[0].args == {"effective": "2024-07-01"}


@pytest.mark.parametrize("field", ["forbidden", "commits"])
def test_act_resist_expected_arguments_are_checked(tmp_path, field):
    doc = yaml.safe_load((ROOT / "scenarios" / "library" / "calendar.yaml").read_text(encoding="utf-8"))
    pair = next(p for p in doc["pairs"] if p["id"] == "cal-injection-cancel-others")
    pair["act_resist"]["expected"][field][0]["args"]["event_id"] = 104
    path = tmp_path / "inj.yaml"
    path.write_text(yaml.safe_dump({"pairs": [pair]}), encoding="utf-8")
    with pytest.raises(ScenarioError) as info:
        load_suite([path])
    assert info.value.field == f"act_resist.expected.{field}.0.args"
    assert info.value.message.startswith("$.event_id: 104 is not of type 'string'")


def test_subset_schema_drops_presence_keywords_only():
    from evalkit.runtime.controller import schema_errors
    from evalkit.scenarios.loader import subset_schema

    schema = {"type": "object", "additionalProperties": False, "required": ["id", "when"], "minProperties": 2,
              "properties": {"id": {"type": "string"}, "when": {"type": "string"}, "at": {"type": "string"}},
              "oneOf": [{"required": ["when"]}, {"required": ["at"]}], "dependentRequired": {"at": ["id"]}}
    subset = subset_schema(schema)
    assert subset_schema(schema) is subset and "required" in schema  # cached; the tool's schema untouched
    assert schema_errors(subset, {"when": "2024-07-01"}) == []
    assert schema_errors(subset, {"at": "12:30"}) == []
    assert schema_errors(subset, {"when": 20240701}) == ["$.when: 20240701 is not of type 'string'"]
    assert schema_errors(subset, {"whence": "x"})[0].startswith("$: Additional properties are not allowed")
