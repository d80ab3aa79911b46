"""A rule that names what no built-in domain has is warned about; a trigger outside the list is an error."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalkit.errors import ConfigError
from evalkit.rules.loader import load_rule_set, unknown_references

HEAD = """id: typo
version: "1"
description: typos
changelog:
  - version: "1"
    changes: [first]
rules:
"""


def _write(tmp_path: Path, rules: str) -> Path:
    path = tmp_path / "rules.yaml"
    path.write_text(HEAD + rules, encoding="utf-8")
    return path


def test_a_misspelt_domain_tool_prefix_or_argument_is_named(tmp_path):
    path = _write(tmp_path, """  - {id: r1-v1, when: {tool: place_orderz, domain: shopp}, then: abstain, message: stop}
  - {id: r2-v1, when: {tool: place_order, args: {quantitty: {gt: 100}}}, then: abstain, message: stop}
  - {id: r3-v1, when: {tool_prefix: zz_}, then: abstain, message: stop}
  - {id: r4-v1, when: {tool: place_order, domain: shop, args: {quantity: {gt: 100}}}, then: abstain, message: stop}
""")
    import re

    # a domain needing an optional package not installed here (bfcl, agentdojo_*) is named after a finding
    found = [re.sub(r" \(domains not read here, an optional package missing: [\w, ]+\)$", "", f)
             for f in unknown_references(load_rule_set(path))]
    assert found[0].startswith("rule r1-v1: when.domain 'shopp' is no built-in domain (")
    assert found[1:] == [
        "rule r1-v1: when.tool 'place_orderz' is no tool of the domain(s) shopp",
        "rule r2-v1: when.args 'quantitty' is no parameter of the tools it matches",
        "rule r3-v1: when.tool_prefix 'zz_' starts no tool of any built-in domain",
    ]  # r4 names a real tool and argument of the shop domain


def test_the_shipped_rule_sets_name_only_what_exists():
    for name in ("default", "default-v2"):
        assert unknown_references(load_rule_set(name)) == []


def test_a_trigger_outside_the_list_is_an_error_naming_the_rule_and_field(tmp_path):
    path = _write(tmp_path, "  - {id: r1-v1, when: {tool: place_order}, then: abstain, message: stop, trigger: high_rsk}\n")
    with pytest.raises(ConfigError) as caught:
        load_rule_set(path)
    assert "rule r1-v1: field trigger: Input should be 'missing_param'" in str(caught.value)


def test_a_domain_that_needs_a_missing_optional_package_is_not_read_and_never_crashes(tmp_path, monkeypatch):
    """``bfcl`` without bfcl-eval, ``agentdojo_*`` without agentdojo: their tools are unknown here."""
    import evalkit.scenarios.domains as domains
    from evalkit.errors import TaskError

    real = domains.load_domain

    def load(name, tasks_dir=None):
        if name in ("shop", "bfcl"):
            raise TaskError(f"tasks/{name}/domain.py: import failed: ConfigError: needs the {name} package")
        return real(name, tasks_dir)

    monkeypatch.setattr(domains, "load_domain", load)
    path = _write(tmp_path, """  - {id: r1-v1, when: {tool: place_order, domain: shop}, then: abstain, message: stop}
  - {id: r2-v1, when: {tool: place_orderz}, then: abstain, message: stop}
  - {id: r3-v1, when: {tool: nothing_here, domain: hr}, then: abstain, message: stop}
""")
    assert unknown_references(load_rule_set(path)) == [
        "rule r1-v1: when.tool 'place_order' is no tool of the domain(s) shop (domains not read here, an optional "
        "package missing: shop)",
        "rule r2-v1: when.tool 'place_orderz' is no tool of any built-in domain (domains not read here, an optional "
        "package missing: bfcl, shop)",
        "rule r3-v1: when.tool 'nothing_here' is no tool of the domain(s) hr",
    ]
    for name in ("default", "default-v2"):
        assert all("not read here" in f for f in unknown_references(load_rule_set(name)))


@pytest.mark.parametrize("when", ["{tool_prefix: ''}", "{source_prefix: '  '}"])
def test_an_empty_prefix_that_would_match_every_tool_is_refused(tmp_path, when):
    path = _write(tmp_path, f"  - {{id: r1-v1, when: {when}, then: abstain, message: stop}}\n")
    field = "tool_prefix" if "tool_prefix" in when else "source_prefix"
    with pytest.raises(ConfigError, match=rf"rule r1-v1: field when.{field}: .*an empty prefix matches every tool"):
        load_rule_set(path)
