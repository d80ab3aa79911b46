"""Loading and validating stopping-rule sets (DESIGN §4, issue item 3).

:func:`load_rule_set` reads a YAML (or JSON) rule-set file, validates it against
:mod:`evalkit.rules.schema` and records the file's sha256. Every problem is one
:class:`~evalkit.errors.ConfigError` line naming the file, the rule (by id, or by its
position when it has none) and the field::

    rules/bad.yaml: rule refund-conflict-v1: field then: Input should be 'abstain' or 'clarify'
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from evalkit.errors import ConfigError
from evalkit.paths import builtin_dir
from evalkit.rules.schema import RuleSet

DEFAULT_RULES = "default.yaml"


def builtin_rules_dir() -> Path:
    """The shipped ``rules/`` folder."""
    return builtin_dir("rules")


def resolve_rules_path(name: str | Path) -> Path:
    """A rule-set path as given, or the name of a shipped set (``default`` or
    ``default.yaml`` → ``rules/default.yaml``)."""
    p = Path(name)
    if p.is_file():
        return p
    shipped = builtin_rules_dir() / (p.name if p.suffix else f"{p.name}.yaml")
    if p.parent == Path(".") and shipped.is_file():
        return shipped
    return p


def _error(path: Path, raw: Any, exc: ValidationError) -> ConfigError:
    err = exc.errors()[0]
    loc = list(err["loc"])
    where = ""
    if len(loc) >= 2 and loc[0] == "rules" and isinstance(loc[1], int):
        rules = raw.get("rules") if isinstance(raw, dict) else None
        item = rules[loc[1]] if isinstance(rules, list) and loc[1] < len(rules) else None
        rule_id = item.get("id") if isinstance(item, dict) else None
        where = f"rule {rule_id}: " if rule_id else f"rule #{loc[1] + 1}: "
        loc = loc[2:]
    field = ".".join(str(part) for part in loc)
    message = err["msg"].removeprefix("Value error, ")
    return ConfigError(f"{path}: {where}" + (f"field {field}: " if field else "") + message)


def load_rule_set(path: str | Path) -> RuleSet:
    """Load and validate one rule set.

    Args:
        path: A rule-set file, or the name of a shipped one (``default``).

    Returns:
        The :class:`RuleSet`, with ``sha256`` of the file's bytes.

    Raises:
        ConfigError: for a missing or unreadable file, invalid YAML, or a schema problem
            (naming the file, the rule and the field).
    """
    p = resolve_rules_path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{p}: cannot read the rule set: {exc.strerror}") from None
    try:
        text = data.decode("utf-8")
        raw = json.loads(text) if p.suffix == ".json" else yaml.safe_load(text)
    except (UnicodeDecodeError, yaml.YAMLError, json.JSONDecodeError) as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" (line {mark.line + 1})" if mark is not None else ""
        raise ConfigError(f"{p}: not a valid rule-set file{line}") from None
    if not isinstance(raw, dict):
        raise ConfigError(f"{p}: expected a mapping with id, version, changelog and rules")
    try:
        return RuleSet.model_validate({**raw, "sha256": hashlib.sha256(data).hexdigest()})
    except ValidationError as exc:
        raise _error(p, raw, exc) from None
