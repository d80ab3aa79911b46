"""Rule sets, runtime policies and model config files refuse a key repeated in one mapping (YAML
and JSON would keep the last value without a word), with one line naming the file, line and key:
they are read by the suite files' reader (:mod:`evalkit.documents`)."""

from __future__ import annotations

import pytest

from evalkit.errors import ConfigError
from evalkit.models.config import load_model_config
from evalkit.rules.loader import load_rule_set
from evalkit.runtime.policy import load_policy
from rules_helpers import evalkit

RULES = """id: adv
version: "1"
changelog: [{version: "1", date: 2025-01-06, changes: [x]}]
rules:
  - id: r-v1
    when: {tool: place_order}
    then: abstain
    message: m
"""
RULES_REPEATED = RULES.replace("    then: abstain\n", "    then: abstain\n    then: clarify\n")

POLICY = "approvals:\n  require:\n    - {tool: refund_order, args: {amount: {gt: 100}}}\n"
POLICY_REPEATED = "approvals:\n  require:\n    - {tool: refund_order, args: {amount: {gt: 100}}, tool: share_file}\n"

MODELS = "defaults:\n  retry: {max_attempts: 1}\n"
MODELS_REPEATED = "defaults:\n  retry: {max_attempts: 1}\n  retry: {max_attempts: 5}\n"


@pytest.mark.parametrize("load, good, bad, name, message", [
    (load_rule_set, RULES, RULES_REPEATED, "rules.yaml",
     "rule r-v1: field then: duplicate key 'then' (line 8): a key may appear once per mapping"),
    (load_policy, POLICY, POLICY_REPEATED, "policy.yaml",
     "field approvals.require.0.tool: duplicate key 'tool' (line 3): a key may appear once per mapping"),
    (load_model_config, MODELS, MODELS_REPEATED, "models.yaml",
     "field defaults.retry: duplicate key 'retry' (line 3): a key may appear once per mapping"),
])
def test_a_repeated_yaml_key_is_refused_naming_file_line_and_key(tmp_path, load, good, bad, name, message):
    ok = tmp_path / "ok" / name
    ok.parent.mkdir()
    ok.write_text(good)
    load(ok)  # the same file without the repeat loads
    path = tmp_path / name
    path.write_text(bad)
    with pytest.raises(ConfigError) as err:
        load(path)
    assert str(err.value) == f"{path}: {message}"


@pytest.mark.parametrize("load, text, message", [
    (load_policy, '{"approvals": {}, "approvals": {"require": []}}', "field approvals: duplicate key 'approvals'"),
    (load_model_config, '{"defaults": {"retry": {}, "retry": {}}}', "field defaults.retry: duplicate key 'retry'"),
    (load_rule_set, '{"id": "a", "id": "b"}', "field id: duplicate key 'id'"),
])
def test_a_repeated_json_key_is_refused_too(tmp_path, load, text, message):
    path = tmp_path / "file.json"
    path.write_text(text)
    with pytest.raises(ConfigError, match="duplicate key") as err:
        load(path)
    assert str(err.value).startswith(f"{path}: {message}")


def test_rules_validate_refuses_a_repeated_key_with_one_line_and_exit_2(tmp_path):
    path = tmp_path / "rules.yaml"
    path.write_text(RULES.replace("    when: {tool: place_order}", "    when: {tool: place_order, tool: nothing}"))
    proc = evalkit("rules", "validate", path)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        f"evalkit: error: {path}: rule r-v1: field when.tool: duplicate key 'tool' (line 6): a key may appear once per "
        "mapping"]
