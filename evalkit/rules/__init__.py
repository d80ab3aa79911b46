"""Stopping rules as versioned data (DESIGN §4): the rule-set schema, its loader and matchers.

The autonomy gate (:mod:`evalkit.runtime.gate`) enforces a :class:`RuleSet`; the harness
loads one with ``evalkit run --gate on --rules FILE`` and can show it to the model
(``--rules-in-context``). The shipped sets live in the top-level ``rules/`` folder.

This package only depends on the runtime; tools that evaluate rule sets by running the
harness belong in their own modules, imported explicitly.
"""

from __future__ import annotations

from evalkit.rules.loader import DEFAULT_RULES, builtin_rules_dir, load_rule_set, resolve_rules_path
from evalkit.rules.matcher import RuleMatch, scan_log
from evalkit.rules.schema import ChangelogEntry, Rule, RuleSet, When

__all__ = [
    "DEFAULT_RULES",
    "ChangelogEntry",
    "Rule",
    "RuleMatch",
    "RuleSet",
    "When",
    "builtin_rules_dir",
    "load_rule_set",
    "resolve_rules_path",
    "scan_log",
]
