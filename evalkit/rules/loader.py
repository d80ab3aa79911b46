"""Loading and validating stopping-rule sets (DESIGN §4, issue item 3).

:func:`load_rule_set` reads a YAML (or JSON) rule-set file, validates it against
:mod:`evalkit.rules.schema` and records the file's sha256. Every problem is one
:class:`~evalkit.errors.ConfigError` line naming the file, the rule (by id, or by its
position when it has none) and the field::

    rules/bad.yaml: rule refund-conflict-v1: field then: Input should be 'abstain' or 'clarify'

A draft rule set (``draft: true``, :mod:`evalkit.rules.draft`) is refused by
:func:`load_rule_set`, so no ``--rules`` option ever enforces one; :func:`load_draft` and
:func:`validate_file` read drafts for review.
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
from evalkit.rules.draft import DraftRuleSet
from evalkit.rules.schema import RuleSet
from evalkit.documents import DocumentError, load_json, load_yaml

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
    return _located(path, raw, list(err["loc"]), err["msg"].removeprefix("Value error, "))


def _located(path: Path, raw: Any, loc: list[Any], message: str) -> ConfigError:
    """``FILE: rule ID: field F: message`` for a problem at ``loc`` (keys from the document root)."""
    where = ""
    if len(loc) >= 2 and loc[0] == "rules" and isinstance(loc[1], int):
        rules = raw.get("rules") if isinstance(raw, dict) else None
        item = rules[loc[1]] if isinstance(rules, list) and loc[1] < len(rules) else None
        rule_id = item.get("id") if isinstance(item, dict) else None
        where = f"rule {rule_id}: " if rule_id else f"rule #{loc[1] + 1}: "
        loc = loc[2:]
    field = ".".join(str(part) for part in loc)
    return ConfigError(f"{path}: {where}" + (f"field {field}: " if field else "") + message)


def _read(path: str | Path) -> tuple[Path, bytes, dict[str, Any]]:
    """The resolved path, the file's bytes and its top-level mapping.

    Raises:
        ConfigError: for a missing or unreadable file, invalid YAML/JSON or a non-mapping.
    """
    p = resolve_rules_path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{p}: cannot read the rule set: {exc.strerror}") from None
    try:
        text = data.decode("utf-8")
        raw = load_json(text) if p.suffix == ".json" else load_yaml(text)
    except DocumentError as exc:
        raise _located(p, exc.data, list(exc.path), exc.message) from None
    except (UnicodeDecodeError, yaml.YAMLError, json.JSONDecodeError) as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" (line {mark.line + 1})" if mark is not None else \
            f" (line {exc.lineno})" if isinstance(exc, json.JSONDecodeError) else ""
        problem = (f"not UTF-8 text (byte at offset {exc.start}); save it as UTF-8"
                   if isinstance(exc, UnicodeDecodeError) else getattr(exc, "problem", None) or getattr(exc, "msg", None))
        raise ConfigError(f"{p}: not a valid rule-set file{line}" + (f": {problem}" if problem else "")) from None
    if not isinstance(raw, dict):
        raise ConfigError(f"{p}: expected a mapping with id, version, changelog and rules")
    return p, data, raw


def is_draft(raw: Any) -> bool:
    """Whether a loaded rule-set mapping is marked as a draft (``draft:`` set to anything but false)."""
    return isinstance(raw, dict) and raw.get("draft") not in (None, False)


def load_rule_set(path: str | Path) -> RuleSet:
    """Load and validate one rule set.

    Args:
        path: A rule-set file, or the name of a shipped one (``default``).

    Returns:
        The :class:`RuleSet`, with ``sha256`` of the file's bytes.

    Raises:
        ConfigError: for a missing or unreadable file, invalid YAML, a schema problem
            (naming the file, the rule and the field), or a draft rule set
            (:mod:`evalkit.rules.draft`), which is never active.
    """
    p, data, raw = _read(path)
    if is_draft(raw):
        raise ConfigError(f"{p}: is a draft rule set (from `evalkit rules distill`) and is never active; copy the "
                          "rules you adopt into a versioned rule set (new version, changelog entry) and use that")
    try:
        return RuleSet.model_validate({**raw, "sha256": hashlib.sha256(data).hexdigest()})
    except ValidationError as exc:
        raise _error(p, raw, exc) from None


def load_draft(path: str | Path) -> DraftRuleSet:
    """Load and validate a draft rule set (for review and ``evalkit rules validate``).

    Raises:
        ConfigError: as :func:`load_rule_set`, and when the file is not marked as a draft.
    """
    p, data, raw = _read(path)
    if not is_draft(raw):
        raise ConfigError(f"{p}: not a draft rule set (no `draft: true`)")
    try:
        return DraftRuleSet.model_validate({**raw, "sha256": hashlib.sha256(data).hexdigest()})
    except ValidationError as exc:
        raise _error(p, raw, exc) from None


def validate_file(path: str | Path) -> RuleSet | DraftRuleSet:
    """Validate a rule set or a draft, whichever the file is (``evalkit rules validate``).

    Raises:
        ConfigError: one line naming the file, the rule and the field.
    """
    _, _, raw = _read(path)
    return load_draft(path) if is_draft(raw) else load_rule_set(path)


def unknown_references(rules: RuleSet | DraftRuleSet) -> list[str]:
    """What a rule names that no built-in domain has (``evalkit rules validate`` warns): a
    ``when.domain`` that is no domain, a ``when.tool`` or ``when.tool_prefix`` that names no tool
    (of the rule's domains, when it gives any), and a ``when.args`` name that is no parameter of
    any tool the rule can match. Such a rule never stops a call on the built-in tasks; a rule for
    tasks of one's own (``--tasks``) is warned about as well, since only the built-in ones are read.

    A built-in domain that cannot be imported here (one that needs an optional package, such as
    ``bfcl`` without ``bfcl-eval``) is not read: a rule naming it is not warned about, and a
    finding over a scope that includes it says which domains were not read.

    Returns:
        One line per finding, ``rule ID: when.FIELD 'VALUE' ...``, in rule order.
    """
    from evalkit.errors import TaskError
    from evalkit.scenarios.domains import available_domains, load_domain

    domains: dict[str, Any] = {}
    unread: list[str] = []
    for name in available_domains():
        try:
            domains[name] = load_domain(name)
        except TaskError:  # an optional package missing: its tools are unknown here, never a crash
            unread.append(name)
    out: list[str] = []
    for rule in rules.rules:
        when = rule.when
        missed = [d for d in unread if not when.domain or d in when.domain]
        note = f" (domains not read here, an optional package missing: {', '.join(missed)})" if missed else ""
        named = [d for d in (when.domain or ()) if d not in domains and d not in unread]
        out += [f"rule {rule.id}: when.domain {d!r} is no built-in domain ({', '.join(sorted(domains))})"
                for d in named]
        scope = [domains[d] for d in (when.domain or domains) if d in domains]
        tools = {name: spec for dom in scope for name, spec in dom.tools.items()}
        out += [f"rule {rule.id}: when.tool {t!r} is no tool of {_where(when.domain)}{note}" for t in (when.tool or ())
                if t not in tools]
        if when.tool_prefix is not None and not any(t.startswith(when.tool_prefix) for t in tools):
            out.append(f"rule {rule.id}: when.tool_prefix {when.tool_prefix!r} starts no tool of {_where(when.domain)}"
                       f"{note}")
        matched = [spec for name, spec in tools.items() if (when.tool is None or name in when.tool)
                   and (when.tool_prefix is None or name.startswith(when.tool_prefix))]
        params = {p for spec in matched for p in ((spec.parameters or {}).get("properties") or {})}
        if matched:
            out += [f"rule {rule.id}: when.args {a!r} is no parameter of the tools it matches{note}"
                    for a in when.args if a not in params]
    return out


def _where(domains: tuple[str, ...] | None) -> str:
    return f"the domain(s) {', '.join(domains)}" if domains else "any built-in domain"
