"""A rule-set file that cannot be parsed says why, on one line: the YAML or JSON problem, or that
the bytes are not UTF-8, after the file and the line."""

from __future__ import annotations

import pytest

from evalkit.errors import ConfigError
from evalkit.rules.loader import load_rule_set


@pytest.mark.parametrize("name,data,message", [
    ("tag.yaml", b"id: x\nrules: !!python/object/apply:os.system [x]\n",
     "not a valid rule-set file (line 2): could not determine a constructor for the tag "
     "'tag:yaml.org,2002:python/object/apply:os.system'"),
    ("indent.yaml", b"id: x\n  bad: [\n", "not a valid rule-set file (line 2): mapping values are not allowed"),
    ("utf16.yaml", "id: x\n".encode("utf-16"), "not a valid rule-set file: not UTF-8 text (byte at offset 0); "
                                                "save it as UTF-8"),
    ("broken.json", b'{"id": }', "not a valid rule-set file (line 1): Expecting value"),
])
def test_an_unparsable_rule_set_names_the_problem(tmp_path, name, data, message):
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(ConfigError) as info:
        load_rule_set(path)
    assert str(info.value).startswith(f"{path}: {message}") and "\n" not in str(info.value)


def test_a_non_json_value_in_a_rule_set_names_the_field(tmp_path):
    path = tmp_path / "r.yaml"
    path.write_text("id: x\nversion: !!binary aGVsbG8=\n", encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_rule_set(path)
    assert str(info.value).startswith(f"{path}: field version: a bytes value (YAML tag !!binary)")
