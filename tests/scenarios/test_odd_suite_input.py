"""Odd suite input: empty and scalar documents, values that are not JSON values, alias bombs,
blank rationales, repeated perturbation kinds and rationale fields on control pairs are each one
scenario error naming the file, the pair and the field, never a traceback or a silent pass."""

from __future__ import annotations

import copy
import json
import subprocess
import sys

import pytest
import yaml

from evalkit.errors import ScenarioError
from evalkit.documents import DocumentError, check_values, load_yaml
from evalkit.scenarios.loader import load_suite


@pytest.fixture()
def pair(mini_suite):
    raw = yaml.safe_load(mini_suite.read_text())["pairs"][0]
    raw.update(why_act="Apples are in stock.", why_abstain="There are no kiwis.",
               perturbation={"kinds": ["user_message"], "what": "kiwis instead of apples"})
    return raw


def error(tmp_path, mini_tasks, text, name="s.yaml") -> ScenarioError:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioError) as info:
        load_suite([path], tasks_dir=mini_tasks)
    assert "\n" not in str(info.value) and str(path) in str(info.value)
    return info.value


def dump(*pairs) -> str:
    return yaml.safe_dump({"pairs": list(pairs)}, sort_keys=False)


@pytest.mark.parametrize("name,text", [("e.yaml", ""), ("c.yaml", "# only a comment\n"), ("n.yaml", "5\n"),
                                       ("n.json", "5"), ("z.json", "null"), ("l.yaml", "[1, 2]\n")])
def test_an_empty_or_scalar_document_is_one_line(tmp_path, mini_tasks, name, text):
    err = error(tmp_path, mini_tasks, text, name)
    assert err.message == "expected a mapping with a `pairs` list"


@pytest.mark.parametrize("written,kind", [("!!binary aGVsbG8=", "bytes"), ("!!set {a, b}", "set"),
                                          ("[1, !!timestamp 2024-01-01]", "date"), ("!!omap [{a: 1}]", "tuple")])
def test_a_tagged_value_that_is_not_json_is_refused(tmp_path, mini_tasks, pair, written, kind):
    text = dump(pair).replace("  domain: mini\n", f"  domain: mini\n  state: {{extra: {written}}}\n", 1)
    err = error(tmp_path, mini_tasks, text)
    assert err.pair_id == "mini-missing-target" and err.field.startswith("state.extra")
    assert f"a {kind} value" in err.message and "only JSON values are allowed" in err.message


@pytest.mark.parametrize("written", ["1", "true", "~", "1.5"])
def test_a_mapping_key_that_is_not_a_string_is_refused(tmp_path, mini_tasks, pair, written):
    text = dump(pair).replace("  domain: mini\n", f"  domain: mini\n  state: {{extra: {{{written}: x}}}}\n", 1)
    err = error(tmp_path, mini_tasks, text)
    assert err.pair_id == "mini-missing-target" and err.field.startswith("state.extra.")
    assert "keys are strings" in err.message


def test_an_alias_bomb_in_a_pair_is_refused_at_load(tmp_path, mini_tasks, pair):
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [f"{n}: &{n} [{', '.join([f'*{p}'] * 9)}]" for p, n in zip("abcdefgh", "bcdefghi")]
    state = "\n".join("    " + line for line in lines)
    text = dump(pair).replace("  domain: mini\n", f"  domain: mini\n  state:\n{state}\n", 1)
    err = error(tmp_path, mini_tasks, text)
    assert err.pair_id == "mini-missing-target" and err.field.startswith("state.")
    assert "aliases expand to" in err.message


def test_shared_anchors_within_the_bound_still_load():
    doc = load_yaml("base: &b {x: [1, 2, 3]}\nuses: [*b, *b, *b]\n")
    assert doc["uses"][2] == {"x": [1, 2, 3]}
    assert check_values(doc) == 1 + 2 * 5 + 2 + 3 * 5  # root, two keys, base's 5 values, 3 expanded copies
    with pytest.raises(DocumentError, match="aliases expand"):
        check_values(doc, limit=10)


def test_a_python_tag_names_the_problem(tmp_path, mini_tasks, pair):
    text = dump(pair).replace("  domain: mini\n", "  domain: mini\n  state: !!python/object/apply:os.system [x]\n", 1)
    err = error(tmp_path, mini_tasks, text)
    assert "not valid YAML (line 4)" in err.message and "python/object/apply:os.system" in err.message


@pytest.mark.parametrize("field,value,where", [
    ("why_act", "   ", "why_act"), ("why_abstain", "\t", "why_abstain"),
    ("perturbation", {"kinds": ["user_message"], "what": " "}, "perturbation.what"),
])
def test_a_blank_rationale_is_refused(tmp_path, mini_tasks, pair, field, value, where):
    pair[field] = value
    err = error(tmp_path, mini_tasks, dump(pair))
    assert (err.pair_id, err.field, err.message) == ("mini-missing-target", where, "is blank: write a sentence")


def test_a_blank_abstain_reason_is_refused(tmp_path, mini_tasks, pair):
    pair["abstain"]["expected"]["reason"] = "  "
    err = error(tmp_path, mini_tasks, dump(pair))
    assert err.field == "abstain.expected.reason" and err.message == "is blank: write a sentence"


def test_a_perturbation_kind_listed_twice_is_refused(tmp_path, mini_tasks, pair):
    pair["perturbation"]["kinds"] = ["user_message", "state", "user_message"]
    err = error(tmp_path, mini_tasks, dump(pair))
    assert err.field == "perturbation" and "user_message listed more than once" in err.message


@pytest.mark.parametrize("field,value", [("why_abstain", "Nothing to refuse."),
                                         ("perturbation", {"kinds": ["state"], "what": "nothing"})])
def test_a_control_pair_takes_no_abstain_rationale(tmp_path, mini_tasks, pair, field, value):
    control = copy.deepcopy(pair)
    for key in ("abstain", "why_abstain", "perturbation"):
        control.pop(key)
    control.update(id="mini-control", trigger="none")
    assert load_suite([_write(tmp_path / "ok.yaml", dump(control))], tasks_dir=mini_tasks).pairs[0].is_control
    control[field] = value
    err = error(tmp_path, mini_tasks, dump(control))
    assert err.pair_id == "mini-control" and err.message.startswith(f"{field}: a control pair")


def _write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def test_validate_on_an_empty_file_exits_2_with_one_line(tmp_path, mini_tasks):
    path = _write(tmp_path / "empty.yaml", "")
    proc = subprocess.run([sys.executable, "-m", "evalkit", "suite", "validate", str(path), "--tasks", str(mini_tasks),
                           "--no-oracle"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip() == f"evalkit: error: {path}: expected a mapping with a `pairs` list"


# --- a domain tool that misbehaves while the label checks run its plans ------------------------

BAD_DOMAIN = '''
"""Tools that misbehave on given names."""
import sys

from evalkit.runtime.tools import Domain

DOMAIN = Domain("mini", "A store whose lookup misbehaves.", initial_state={"items": {"apple": {"stock": 5}}},
                permissions=("mini.read", "mini.buy"))
_ARGS = {"type": "object", "properties": {"name": {"type": "string"}, "qty": {"type": "integer"}},
         "required": ["name"], "additionalProperties": False}


@DOMAIN.tool(kind="lookup", permission="mini.read", parameters=_ARGS)
def find_item(state, name):
    """Look an item up."""
    if name == "raise":
        raise ValueError("boom in find_item")
    if name == "exit":
        sys.exit(3)
    if name == "object":
        return {"item": object()}
    return {"found": name in state["items"]}


@DOMAIN.tool(kind="commit", permission="mini.buy", parameters=_ARGS)
def buy_item(state, name, qty):
    """Buy an item."""
    return {"ok": True}
'''


@pytest.mark.parametrize("name,shown", [("raise", "ValueError: boom in find_item"), ("exit", "SystemExit: 3"),
                                        ("object", "find_item returned a result that is not JSON")])
def test_a_tool_failing_on_the_act_side_is_a_check_error_naming_the_tool_error(tmp_path, pair, name, shown):
    from evalkit.suite.checks import check_suite

    (tmp_path / "tasks" / "mini").mkdir(parents=True)
    (tmp_path / "tasks" / "mini" / "domain.py").write_text(BAD_DOMAIN, encoding="utf-8")
    pair["act"]["plan"][0]["args"]["name"] = name
    path = _write(tmp_path / "s.yaml", dump(pair))
    tasks = tmp_path / "tasks"
    report = check_suite(load_suite([path], tasks_dir=tasks), tasks_dir=tasks, names=["scope"])
    first = report.errors[0]
    assert (first.pair_id, first.field, first.criterion) == ("mini-missing-target", "act.plan.0", "L3")
    assert first.message.startswith("find_item fails in the act side's own world (no declared fault: ")
    assert shown in first.message
    pair["act"]["plan"][0]["args"]["name"] = "apple"
    path = _write(tmp_path / "s.yaml", dump(pair))
    assert check_suite(load_suite([path], tasks_dir=tasks), tasks_dir=tasks, names=["scope"]).errors == []


# --- tables (Parquet) whose rows were edited by hand ----------------------------------------------

@pytest.fixture()
def table(tmp_path, mini_suite, mini_tasks):
    import pandas as pd

    from evalkit.scenarios.export import export_suite

    path = export_suite(load_suite([mini_suite], tasks_dir=mini_tasks).pairs, tmp_path / "t.parquet", "parquet")
    return pd.read_parquet(path)


@pytest.mark.parametrize("column,value,shown", [("split", "heldout", "'heldout'"), ("id", "other", "'other'"),
                                                ("trigger", "tool_gap", "'tool_gap'"),
                                                ("variants", ["act"], "['act']")])
def test_a_table_column_that_disagrees_with_its_pair_is_refused(tmp_path, mini_tasks, table, column, value, shown):
    table.at[0, column] = value
    table.to_parquet(tmp_path / "edited.parquet")
    with pytest.raises(ScenarioError) as info:
        load_suite([tmp_path / "edited.parquet"], tasks_dir=mini_tasks)
    err = info.value
    assert (err.pair_id, err.field) == ("mini-missing-target", column)
    assert err.message.startswith(f"the {column} column holds {shown}, but the pair's JSON says ")


@pytest.mark.parametrize("edit,field,message", [
    (lambda p: p.update(why_act=" "), "why_act", "is blank: write a sentence"),
    (lambda p: p.update(whyact="x"), "whyact", "unknown field (check the spelling)"),
    (lambda p: p.pop("domain"), "domain", "field required"),
])
def test_table_pair_errors_read_like_suite_file_errors(tmp_path, mini_tasks, table, edit, field, message):
    import json

    pair = json.loads(table.at[0, "pair"])
    edit(pair)
    table.at[0, "pair"] = json.dumps(pair)
    table.to_parquet(tmp_path / "edited.parquet")
    with pytest.raises(ScenarioError) as info:
        load_suite([tmp_path / "edited.parquet"], tasks_dir=mini_tasks)
    assert (info.value.pair_id, info.value.field, info.value.message) == ("mini-missing-target", field, message)


def test_an_unedited_table_loads(tmp_path, mini_suite, mini_tasks, table):
    table.to_parquet(tmp_path / "same.parquet")
    assert load_suite([tmp_path / "same.parquet"], tasks_dir=mini_tasks).pairs == \
        load_suite([mini_suite], tasks_dir=mini_tasks).pairs


# --- no silent coercion of a value of the wrong type -------------------------------------------

@pytest.mark.parametrize("where,value,message", [
    (("abstain", "expected", "observable_step"), True, "Input should be a valid integer"),
    (("abstain", "expected", "observable_step"), "1", "Input should be a valid integer"),
    (("act", "expected", "state_checks"), [{"path": "purchases.P-1.qty", "exists": "yes"}],
     "Input should be a valid boolean"),
    (("abstain", "faults"), {"find_item": {"mode": "transient", "times": True}}, "Input should be a valid integer"),
])
def test_a_value_of_the_wrong_type_is_not_coerced(tmp_path, mini_tasks, pair, where, value, message):
    target = pair
    for key in where[:-1]:
        target = target[key]
    target[where[-1]] = value
    err = error(tmp_path, mini_tasks, dump(pair))
    assert err.pair_id == "mini-missing-target" and err.field.startswith(".".join(where))
    assert err.message == message


@pytest.mark.parametrize("extra,field", [
    ({"budgets": {"tool_calls": True}}, "budgets.tool_calls"),
    ({"budgets": {"money": "5"}}, "budgets.money"),
    ({"act_context": {"doc": {"content": "x", "sensitive": "yes"}}}, "act.context.doc"),
    ({"act_approvals": {"user": [{"tool": "buy_item", "approve": "no"}]}}, "act.approvals.user.0.approve"),
    ({"act_approvals": {"require": [{"tool": "buy_item", "args": {"qty": {"gt": "1"}}}]}},
     "act.approvals.require.0.args.qty.gt"),
])
def test_budgets_approvals_and_context_of_a_pair_are_not_coerced(tmp_path, mini_tasks, pair, extra, field):
    for key, value in extra.items():
        if key.startswith("act_"):
            pair["act"][key.removeprefix("act_")] = value
        else:
            pair[key] = value
    err = error(tmp_path, mini_tasks, dump(pair))
    assert err.pair_id == "mini-missing-target" and err.field.startswith(field), err
    assert err.message.startswith("Input should be a valid"), err


def test_a_policy_file_budget_written_as_a_string_is_refused(tmp_path):
    from evalkit.errors import ConfigError
    from evalkit.runtime.policy import load_policy

    path = _write(tmp_path / "policy.yaml", "budgets: {tool_calls: '5'}\n")
    with pytest.raises(ConfigError) as info:
        load_policy(path)
    assert str(info.value) == f"{path}: field budgets.tool_calls: Input should be a valid integer"


def test_a_policy_file_meta_limit_written_as_a_boolean_is_refused(tmp_path):
    from evalkit.errors import ConfigError
    from evalkit.runtime.policy import load_policy

    path = _write(tmp_path / "policy.yaml", "meta: {max_per_turn: true}\n")
    with pytest.raises(ConfigError) as info:
        load_policy(path)
    assert str(info.value) == f"{path}: field meta.max_per_turn: Input should be a valid integer"


@pytest.mark.parametrize("fault,plan_extra,failing", [
    ({"mode": "error", "message": "store closed"}, [], True),
    ({"mode": "transient", "message": "busy"}, [], True),
    ({"mode": "transient", "message": "busy"}, [{"tool": "buy_item", "args": {"name": "apple", "qty": 2}}], False),
])
def test_a_lasting_fault_on_the_act_side_commit_is_an_error_a_retried_transient_is_not(
        tmp_path, mini_tasks, pair, fault, plan_extra, failing):
    from evalkit.suite.checks import check_suite

    pair["act"]["faults"] = {"buy_item": fault}
    pair["act"]["plan"] += plan_extra
    pair["perturbation"]["kinds"] = ["user_message", "faults"]
    path = _write(tmp_path / "s.yaml", dump(pair))
    report = check_suite(load_suite([path], tasks_dir=mini_tasks), tasks_dir=mini_tasks, names=["scope"])
    found = [i for i in report.errors if "fails in the act side's own world" in i.message]
    assert bool(found) == failing
    if failing:
        assert found[0].field == "act.plan.1"
        assert f"(its declared {fault['mode']} fault: {fault['message']})" in found[0].message


# --- earlier turns are part of what the model sees -------------------------------------------

EARLIER = [{"user": "From now on, never buy anything without asking me first.", "answer": "Understood."}]


def test_sides_differing_only_in_earlier_turns_are_not_a_contradiction(tmp_path, mini_tasks, pair):
    from evalkit.suite.checks import check_suite

    pair["abstain"]["user"] = pair["act"]["user"]
    pair["abstain"]["history"] = EARLIER
    pair["perturbation"] = {"kinds": ["user_message"], "what": "an earlier turn forbids buying without asking"}
    path = _write(tmp_path / "s.yaml", dump(pair))
    report = check_suite(load_suite([path], tasks_dir=mini_tasks), tasks_dir=mini_tasks,
                         names=["perturbation", "contradiction"])
    assert [str(i) for i in report.errors] == []


def test_an_undeclared_change_of_earlier_turns_is_named(tmp_path, mini_tasks, pair):
    from evalkit.suite.checks import check_suite

    pair["abstain"]["history"] = EARLIER
    pair["perturbation"]["kinds"] = ["state"]
    path = _write(tmp_path / "s.yaml", dump(pair))
    report = check_suite(load_suite([path], tasks_dir=mini_tasks), tasks_dir=mini_tasks, names=["perturbation"])
    assert any("user_message ('Buy 2 apples.' vs 'Buy 2 kiwis.'; earlier turns 0)" in i.message for i in report.errors)


# --- numbers that are not finite, and state-check paths with an empty key ------------------------

@pytest.mark.parametrize("fmt", ["yaml", "json"])
@pytest.mark.parametrize("where,value,field,shown", [
    (("act", "expected", "state_checks", 0, "equals"), float("nan"), "act.expected.state_checks.0.equals", "(nan)"),
    (("act", "plan", 1, "args", "qty"), float("inf"), "act.plan.1.args.qty", "(inf)"),
    (("abstain", "plan", 0, "args", "name"), float("-inf"), "abstain.plan.0.args.name", "(-inf)"),
])
def test_a_number_that_is_not_finite_is_refused_at_load(tmp_path, mini_tasks, pair, fmt, where, value, field, shown):
    """A NaN never equals anything, so a check holding one could never pass; YAML's .nan/.inf and
    JSON's NaN/Infinity are refused where they are written, naming the pair and the field."""
    target = pair
    for key in where[:-1]:
        target = target[key]
    target[where[-1]] = value
    text = dump(pair) if fmt == "yaml" else json.dumps({"pairs": [pair]})
    assert (".nan" if value != value else ".inf") in text if fmt == "yaml" else ("NaN" in text or "Infinity" in text)
    err = error(tmp_path, mini_tasks, text, f"s.{fmt}")
    assert err.pair_id == "mini-missing-target" and err.field == field
    assert err.message.startswith(f"a number that is not finite {shown}")


@pytest.mark.parametrize("path", ["purchases..qty", ".purchases.P-1.qty", "purchases.P-1.qty.", "", "  "])
def test_a_state_check_path_with_an_empty_key_is_refused(tmp_path, mini_tasks, pair, path):
    pair["act"]["expected"]["state_checks"] = [{"path": path, "equals": 2}]
    err = error(tmp_path, mini_tasks, dump(pair))
    assert err.pair_id == "mini-missing-target" and err.field == "act.expected.state_checks.0.path"
    assert "empty" in err.message


def test_a_state_check_path_through_keys_holding_dots_still_loads(tmp_path, mini_tasks, pair):
    pair["act"]["expected"]["state_checks"] = [{"path": "purchases.P-1.qty", "equals": 2},
                                              {"path": "files.docs/plan.v2.md.owner", "exists": False}]
    path = tmp_path / "s.yaml"
    path.write_text(dump(pair), encoding="utf-8")
    suite = load_suite([path], tasks_dir=mini_tasks)
    assert [c.path for c in suite.pairs[0].act.expected.state_checks] == ["purchases.P-1.qty",
                                                                           "files.docs/plan.v2.md.owner"]


@pytest.mark.parametrize("value, why", [("english", "'english' is not a language code"),
                                        ("en-US", "'en-US' is not a language code"), ("", "'' is not a language code"),
                                        (5, "Input should be a valid string")])
def test_a_language_that_is_not_a_language_code_is_refused(tmp_path, mini_tasks, pair, value, why):
    message = str(error(tmp_path, mini_tasks, dump({**pair, "language": value})))
    assert f"pair {pair['id']}: field language: " in message and why in message


@pytest.mark.parametrize("value, read", [("EN", "en"), (" zh ", "zh"), ("eng", "en"), ("yue", "yue")])
def test_a_language_code_is_read_in_any_case_and_three_letter_codes_as_two(tmp_path, mini_tasks, pair, value, read):
    path = tmp_path / "s.yaml"
    path.write_text(dump({**pair, "language": value}), encoding="utf-8")
    assert load_suite([path], tasks_dir=mini_tasks).pairs[0].language == read
