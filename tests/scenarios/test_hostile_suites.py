"""Hostile suite files and task domains: each is one clear error naming file, pair and field
(adversarial findings 2, 4, 6, 13, 19, 23-27), never a crash, a silent last-wins or an import
from outside the tasks folder."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest
import yaml

from evalkit.errors import ScenarioError, TaskError
from evalkit.documents import MAX_DEPTH
from evalkit.scenarios.domains import load_domain
from evalkit.scenarios.loader import load_suite, suite_files


@pytest.fixture()
def raw(mini_suite):
    return yaml.safe_load(mini_suite.read_text())


def load(path, mini_tasks):
    return load_suite([path], tasks_dir=mini_tasks)


def error(path, mini_tasks) -> ScenarioError:
    with pytest.raises(ScenarioError) as info:
        load(path, mini_tasks)
    assert "\n" not in str(info.value)
    return info.value


# --- nesting (finding 4) ---------------------------------------------------------------------

def test_yaml_nested_30000_deep_is_a_scenario_error_not_a_segfault(tmp_path, mini_tasks):
    path = tmp_path / "deep.yaml"
    path.write_text("pairs: " + "[" * 30_000 + "]" * 30_000)
    code = ("import sys; from evalkit.scenarios.loader import load_suite\n"
            "from evalkit.errors import ScenarioError\n"
            f"try: load_suite([{str(path)!r}], tasks_dir={str(mini_tasks)!r})\n"
            "except ScenarioError as e: print(e); sys.exit(3)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 3, (proc.returncode, proc.stderr[-500:])  # -11 would be the segfault
    # libyaml builds differ in whether their own nesting limit or evalkit's depth check fires
    # first; either way it is one clear line naming the file, never a crash.
    line = proc.stdout.strip()
    assert line == f"{path}: nested more than {MAX_DEPTH} levels deep (line 1)" or \
        line.startswith(f"{path}: not valid YAML (line 1)"), line  # libyaml may add its own reason


def test_json_nested_1000_deep_is_a_scenario_error(tmp_path, mini_tasks):
    path = tmp_path / "deep.json"
    path.write_text('{"pairs": ' + "[" * 1000 + "]" * 1000 + "}")
    assert error(path, mini_tasks).message == f"nested more than {MAX_DEPTH} levels deep"


def test_deep_state_names_the_pair_and_field(tmp_path, raw, mini_tasks):
    state = 1
    for _ in range(MAX_DEPTH + 5):
        state = {"a": state}
    raw["pairs"][1]["state"] = state
    path = tmp_path / "deep.json"
    path.write_text(json.dumps(raw))
    err = error(path, mini_tasks)
    assert (err.pair_id, err.field) == ("mini-missing-param", "state.a")
    assert "nested more than" in err.message


def test_block_nesting_past_the_limit_names_the_pair_and_field(tmp_path, raw, mini_tasks):
    text = yaml.safe_dump(raw, sort_keys=False)
    deep = "".join(f"{'  ' * (3 + i)}k{i}:\n" for i in range(MAX_DEPTH + 5)) + f"{'  ' * (MAX_DEPTH + 8)}leaf\n"
    text = text.replace("  state: {}\n", "  state:\n" + deep, 1) if "  state: {}\n" in text else \
        text.replace("  trigger: missing_target\n", "  trigger: missing_target\n  state:\n" + deep, 1)
    path = tmp_path / "deep.yaml"
    path.write_text(text)
    err = error(path, mini_tasks)  # loaded without the event scan (the cheap bound allows it), then refused
    assert (err.pair_id, err.field) == ("mini-missing-target", "state.k0") and "nested more than" in err.message


def test_nesting_bound_is_above_the_real_depth():
    from evalkit.documents import nesting_bound

    for text in ["a: [[[[1]]]]", "- - - - - x", "a:\n- b:\n  - c:\n    - d", "? - - a\n: - - b", "{a: {b: [c]}}"]:
        depth, node = 0, yaml.compose(text)
        while node is not None and not isinstance(node.value, str):
            depth += 1
            node = node.value[-1][1] if isinstance(node.value[-1], tuple) else node.value[-1]
        assert depth <= nesting_bound(text), text


def test_yaml_alias_containing_itself_is_refused(tmp_path, mini_tasks):
    path = tmp_path / "cycle.yaml"
    path.write_text("pairs:\n  - &a [*a]\n")
    assert "nested more than" in error(path, mini_tasks).message


def test_shared_yaml_anchors_still_load(tmp_path, mini_suite, mini_tasks):
    text = mini_suite.read_text().replace("permissions: [mini.read, mini.buy]", "permissions: &perms [mini.read, mini.buy]", 1)
    text = text.replace("permissions: [mini.read, mini.buy]", "permissions: *perms")
    path = tmp_path / "anchors.yaml"
    path.write_text(text)
    assert len(load(path, mini_tasks).pairs) == 3


# --- duplicate keys (finding 26) --------------------------------------------------------------

def test_duplicate_yaml_key_names_key_pair_field_and_line(tmp_path, mini_suite, mini_tasks):
    lines = mini_suite.read_text().splitlines()
    at = lines.index("    act:", lines.index("  - id: mini-missing-param"))
    lines.insert(at + 2, "      user: Buy the second thing.")  # after the variant's own `user:`
    path = tmp_path / "dup.yaml"
    path.write_text("\n".join(lines) + "\n")
    err = error(path, mini_tasks)
    assert (err.pair_id, err.field) == ("mini-missing-param", "act.user")
    assert err.message.startswith(f"duplicate key 'user' (line {at + 3})")


def test_duplicate_top_level_yaml_key(tmp_path, mini_suite, mini_tasks):
    path = tmp_path / "dup.yaml"
    path.write_text(mini_suite.read_text() + "pairs: []\n")
    err = error(path, mini_tasks)
    assert (err.pair_id, err.field) == (None, "pairs") and "duplicate key 'pairs'" in err.message


def test_yaml_merge_keys_may_override_merged_values(tmp_path, raw, mini_tasks):
    text = yaml.safe_dump(raw, sort_keys=False)
    text = text.replace("pairs:\n", "base: &base {language: de, split: dev}\npairs:\n", 1)
    text = text.replace("- id: mini-missing-target\n", "- <<: *base\n  language: en\n  id: mini-missing-target\n", 1)
    path = tmp_path / "merge.yaml"
    path.write_text(text)
    with pytest.raises(ScenarioError, match="field base: unknown field"):  # the merge itself is fine
        load(path, mini_tasks)


def test_duplicate_json_and_jsonl_keys(tmp_path, raw, mini_tasks):
    line = json.dumps(raw["pairs"][0])[:-1] + ', "domain": "mini"}'
    path = tmp_path / "dup.jsonl"
    path.write_text(line + "\n")
    err = error(path, mini_tasks)
    assert (err.file, err.pair_id, err.field) == (f"{path}:1", "mini-missing-target", "domain")
    assert "duplicate key 'domain'" in err.message
    doc = json.dumps(raw)
    path = tmp_path / "dup.json"
    path.write_text(doc.replace('"act": {"user": "Buy 2 apples."', '"act": {"user": "x", "user": "Buy 2 apples."', 1))
    err = error(path, mini_tasks)
    assert (err.pair_id, err.field) == ("mini-missing-target", "act.user")


# --- encodings (findings 13, 25) --------------------------------------------------------------

@pytest.mark.parametrize(("suffix", "encode", "message"), [
    (".yaml", lambda t: t.replace("apple", "pomme à").encode("latin-1"), "is not UTF-8 text (byte 0xe0 at offset"),
    (".yaml", lambda t: t.encode("utf-16"), "is UTF-16 text; save it as UTF-8"),
    (".json", lambda t: bytes(range(256)), "is not UTF-8 text (byte 0x80 at offset 128)"),
    (".jsonl", lambda t: b"\xff\xfe\x00garbage", "is UTF-16 text"),
])
def test_non_utf8_suites_are_one_line(tmp_path, mini_suite, mini_tasks, suffix, encode, message):
    path = tmp_path / f"bad{suffix}"
    path.write_bytes(encode(mini_suite.read_text()))
    err = error(path, mini_tasks)
    assert err.file == str(path) and message in err.message


@pytest.mark.parametrize("suffix", [".yaml", ".json", ".jsonl"])
def test_a_utf8_byte_order_mark_is_accepted_in_every_format(tmp_path, raw, mini_tasks, suffix):
    body = {".yaml": yaml.safe_dump(raw), ".json": json.dumps(raw),
            ".jsonl": "\n".join(json.dumps(p) for p in raw["pairs"])}[suffix]
    path = tmp_path / f"bom{suffix}"
    path.write_bytes(b"\xef\xbb\xbf" + body.encode())
    assert [p.id for p in load(path, mini_tasks).pairs] == [p["id"] for p in raw["pairs"]]


# --- JSONL (findings 23, 24) ------------------------------------------------------------------

def test_an_all_blank_jsonl_file_is_an_error(tmp_path, mini_tasks):
    path = tmp_path / "blank.jsonl"
    path.write_text("\n   \n\n")
    err = error(path, mini_tasks)
    assert err.file == str(path) and "holds no pairs" in err.message


def test_jsonl_errors_name_the_line_and_the_pair_position(tmp_path, raw, mini_tasks):
    nameless = dict(raw["pairs"][2])
    nameless.pop("id")
    lines = [json.dumps(raw["pairs"][0]), json.dumps(raw["pairs"][1]), "", json.dumps(nameless)]
    path = tmp_path / "suite.jsonl"
    path.write_text("\n".join(lines) + "\n")
    err = error(path, mini_tasks)
    assert (err.file, err.pair_id, err.field) == (f"{path}:4", "#2", "id")  # the third pair, as pairs.2 in YAML


def test_a_line_separator_inside_a_jsonl_string_is_not_a_line_break(tmp_path, raw, mini_tasks):
    raw["pairs"][0]["description"] = "first\u2028second"
    path = tmp_path / "suite.jsonl"
    path.write_text("\n".join(json.dumps(p, ensure_ascii=False) for p in raw["pairs"]) + "\n")
    assert load(path, mini_tasks).pairs[0].description == "first\u2028second"


# --- files and folders (findings 19, 27) ------------------------------------------------------

def test_the_same_file_twice_is_read_once(tmp_path, mini_suite, mini_tasks):
    suite = load_suite([mini_suite, str(mini_suite), mini_suite.parent], tasks_dir=mini_tasks)
    assert len(suite.pairs) == 3 and set(suite.sources.values()) == {str(mini_suite)}


def test_run_directories_inside_a_suite_folder_are_skipped(tmp_path, mini_suite, mini_tasks):
    (tmp_path / "suite.yaml").write_text(mini_suite.read_text())
    run_dir = tmp_path / "out"
    (run_dir / "traces").mkdir(parents=True)
    (run_dir / "config.json").write_text(json.dumps({"evalkit_version": "0", "config": {}}))
    (run_dir / "results.jsonl").write_text("")
    (run_dir / "summary.json").write_text("{}")
    assert suite_files([tmp_path]) == [tmp_path / "suite.yaml"]
    assert len(load_suite([tmp_path], tasks_dir=mini_tasks).pairs) == 3
    with pytest.raises(ScenarioError, match="is a run directory written by `evalkit run`, not a suite"):
        suite_files([run_dir])


# --- task domains (findings 2, 6) -------------------------------------------------------------

def _domain(tasks, name, body):
    (tasks / name).mkdir(parents=True)
    (tasks / name / "domain.py").write_text(textwrap.dedent(body))


_TOOL = '''
    from evalkit.runtime.tools import Domain
    DOMAIN = Domain("{name}", "test")

    @DOMAIN.tool(kind="lookup", parameters={parameters!r})
    def look(state, **kw):
        return {{}}
'''


@pytest.mark.parametrize(("parameters", "where"), [
    ({"type": "nonsense"}, "at $.type"),
    ({"type": "object", "properties": {"q": {"type": "string", "pattern": "(["}}}, "at $.properties.q.pattern"),
])
def test_a_tool_with_an_invalid_json_schema_fails_when_the_domain_loads(tmp_path, parameters, where):
    _domain(tmp_path, "broken", _TOOL.format(name="broken", parameters=parameters))
    with pytest.raises(TaskError) as info:
        load_domain("broken", tmp_path)
    message = str(info.value)
    assert message.startswith("domain broken: tool look: its parameters are not a valid JSON Schema")
    assert where in message and "\n" not in message


def test_a_domain_calling_sys_exit_is_a_task_error(tmp_path):
    _domain(tmp_path, "quitter", "import sys\nsys.exit(0)\n")
    with pytest.raises(TaskError, match=r"domain.py: import failed: called sys.exit\(0\)"):
        load_domain("quitter", tmp_path)
    assert "evalkit_tasks_quitter" not in sys.modules


@pytest.mark.parametrize("name", ["../../../tmp/x", "..", "a/b", "/etc", ".hidden", ""])
def test_domain_names_must_be_plain_folder_names(tmp_path, name):
    with pytest.raises(TaskError, match="is not a plain folder name"):
        load_domain(name, tmp_path)


def test_a_suite_pointing_outside_the_tasks_folder_is_refused(tmp_path, raw, mini_tasks):
    _domain(tmp_path / "elsewhere", "evil", "raise SystemExit('imported!')\n")
    raw["pairs"][0]["domain"] = "../elsewhere/evil"
    path = tmp_path / "suite.yaml"
    path.write_text(yaml.safe_dump(raw))
    err = error(path, mini_tasks)
    assert (err.pair_id, err.field) == ("mini-missing-target", "domain") and "not a plain folder name" in err.message
