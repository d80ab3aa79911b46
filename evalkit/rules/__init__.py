"""Stopping rules as versioned data (DESIGN §4): the rule-set schema, its loader and matchers.

The autonomy gate (:mod:`evalkit.runtime.gate`) enforces a :class:`RuleSet`; the harness
loads one with ``evalkit run --gate on --rules FILE`` and can show it to the model
(``--rules-in-context``). The shipped sets live in the top-level ``rules/`` folder.

Modules: :mod:`~evalkit.rules.schema` (the format), :mod:`~evalkit.rules.loader` (loading,
one-line errors; drafts are refused as active sets), :mod:`~evalkit.rules.matcher` (a rule
set against a recorded log), :mod:`~evalkit.rules.draft` (reviewable drafts),
:mod:`~evalkit.rules.replay` (``evalkit rules replay``: recorded traces, no model) and
:mod:`~evalkit.rules.diff` (paired metric differences). This package only depends on the
runtime; the modules that run the harness or read run directories —
:mod:`~evalkit.rules.evaluate` (``evalkit rules eval``) and :mod:`~evalkit.rules.distill`
(``evalkit rules distill``) — are imported explicitly, never from here.
"""

from __future__ import annotations

from evalkit.rules.draft import DraftRuleSet
from evalkit.rules.loader import (
    DEFAULT_RULES,
    builtin_rules_dir,
    load_draft,
    load_rule_set,
    resolve_rules_path,
    validate_file,
)
from evalkit.rules.matcher import RuleMatch, scan_log
from evalkit.rules.schema import ChangelogEntry, Rule, RuleSet, When

__all__ = [
    "DEFAULT_RULES",
    "ChangelogEntry",
    "DraftRuleSet",
    "Rule",
    "RuleMatch",
    "RuleSet",
    "When",
    "builtin_rules_dir",
    "load_draft",
    "load_rule_set",
    "resolve_rules_path",
    "scan_log",
    "validate_file",
]
