"""The conditions (DESIGN §5) as registered components.

A :class:`ConditionSpec` bundles the condition's system prompt (a versioned file under
``evalkit/conditions/prompts/``, or the condition's own text), the meta-request tools it
offers, the handler that serves them, and how a model signals its decisions under it
(:class:`~evalkit.runtime.signals.DecisionSignals`: which call, or the final text, means
abstain, clarify and each meta request). The handler reads meta calls through that
declaration and the scripted models write through it, so a condition is one file::

    from evalkit.conditions.handlers import PlainToolHandler
    from evalkit.conditions.registry import ConditionSpec, register_condition
    from evalkit.runtime.signals import DecisionSignals, Signal
    from evalkit.runtime.tools import ToolSpec
from evalkit.types import META_TYPES

    SIGNALS = DecisionSignals({"declare_blocked": Signal("halt", rename={"reason": "why"})})
    register_condition(ConditionSpec(
        "halt", "one halt tool; other requests in text", lambda: {"halt": ToolSpec(...)},
        lambda answers, tools, **options: PlainToolHandler(answers, tools, signals=SIGNALS, **options),
        signals=SIGNALS, prompt="You may stop with the halt tool."))

The prompt's sha256 is recorded in every run's manifest. Installed packages can register
conditions through the ``evalkit.conditions`` entry point group (:mod:`evalkit.plugins`).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Callable, Iterable, Mapping

from evalkit.conditions.handlers import PlainToolHandler, RuntimePolicyHandler
from evalkit.conditions.meta_tools import plain_meta_tools, typed_meta_tool
from evalkit.errors import ConfigError
from evalkit.runtime.loop import MetaHandler
from evalkit.runtime.signals import (
    PLAIN_SIGNALS,
    TEXT_SIGNALS,
    TYPED_SIGNALS,
    DecisionSignals,
    register_signals,
    unregister_signals,
)
from evalkit.runtime.tools import ToolSpec
from evalkit.types import META_TYPES

_PROMPTS = Path(__file__).resolve().parent / "prompts"


@dataclass(frozen=True)
class ConditionSpec:
    """One condition.

    Attributes:
        name: ``nl``, ``tool``, ``meta`` or a registered condition's name.
        description: One line for reports.
        meta_tools: Factory of the meta tools offered (empty for ``nl``).
        handler: ``handler(user_answers, task_tools, **options)`` building the per-episode
            handler (``options``: ``policy`` and ``env`` of the meta-request protocol), or
            ``None`` when no meta tools are offered.
        signals: How a model signals abstain, clarify and each meta request
            (:class:`~evalkit.runtime.signals.DecisionSignals`; default: text only).
        prompt: The system prompt's text; ``None``: the file ``prompts/NAME.md`` of this package.
    """

    name: str
    description: str
    meta_tools: Callable[[], dict[str, ToolSpec]]
    handler: Callable[..., MetaHandler] | None
    signals: DecisionSignals = field(default_factory=DecisionSignals)
    prompt: str | None = None

    @property
    def system_prompt(self) -> str:
        return self.prompt.strip() if self.prompt is not None else _prompt(self.name)[0]

    @property
    def prompt_sha256(self) -> str:
        if self.prompt is not None:
            return hashlib.sha256(self.prompt.strip().encode()).hexdigest()
        return _prompt(self.name)[1]


@cache
def _prompt(name: str) -> tuple[str, str]:
    text = (_PROMPTS / f"{name}.md").read_text(encoding="utf-8").strip()
    return text, hashlib.sha256(text.encode()).hexdigest()


CONDITIONS: dict[str, ConditionSpec] = {}
"""Every registered condition by name (evalkit's three first)."""

DEFAULT_CONDITIONS = ("nl", "tool", "meta")
"""The conditions a run uses when none is named."""

NL_SIGNALS = TEXT_SIGNALS
"""``nl``: every decision and request is written in the final text."""
TOOL_SIGNALS = PLAIN_SIGNALS
"""``tool``: each meta type is a plain tool of its name."""
META_SIGNALS = TYPED_SIGNALS
"""``meta``: each meta type is the typed ``meta_request`` tool with that ``type``."""


_NAME = re.compile(r"[a-z][a-z0-9_]*\Z")


def _declaration_problem(spec: ConditionSpec) -> str | None:
    """What is wrong with ``spec`` on its own (``"field: why"``), or ``None``."""
    if not isinstance(spec.name, str) or not _NAME.match(spec.name):
        return f"name: {spec.name!r} is not an identifier (lower-case letters, digits and _, a letter first)"
    if spec.prompt is not None:
        if not isinstance(spec.prompt, str) or not spec.prompt.strip():
            return "prompt: empty; give the system prompt's text (or None for the file prompts/NAME.md)"
    elif not (_PROMPTS / f"{spec.name}.md").is_file():
        return f"prompt: none given and no file {_PROMPTS / (spec.name + '.md')}; give prompt=\"...\""
    if not callable(spec.meta_tools):
        return f"meta_tools: {spec.meta_tools!r} is not a factory of the meta tools (a callable)"
    try:
        tools = spec.meta_tools()
    except Exception as exc:  # noqa: BLE001 - a plugin's factory: any failure is its declaration's error
        return f"meta_tools: the factory failed: {type(exc).__name__}: {exc}"
    if not isinstance(tools, Mapping) or not all(isinstance(t, ToolSpec) for t in tools.values()):
        return "meta_tools: the factory must return a dict of tool name → ToolSpec"
    if tools and spec.handler is None:
        return f"handler: none given, while it offers meta tools ({', '.join(sorted(tools))})"
    if spec.handler is not None and not callable(spec.handler):
        return f"handler: {spec.handler!r} is not callable"
    if not isinstance(spec.signals, DecisionSignals):
        return f"signals: {spec.signals!r} is not a DecisionSignals"
    unknown = sorted(set(spec.signals.requests) - set(META_TYPES))
    if unknown:
        return f"signals: {unknown[0]!r} is not a meta type ({', '.join(META_TYPES)})"
    missing = sorted(spec.signals.tools() - set(tools))
    if missing:
        return f"its signals name tool {missing[0]!r}, which it does not offer"
    items = list(spec.signals.requests.items())
    for i, (first, a) in enumerate(items):
        for second, b in items[i + 1:]:
            if a.tool == b.tool and (a.fixed.items() <= b.fixed.items() or b.fixed.items() <= a.fixed.items()):
                return (f"signals: {first!r} and {second!r} are both calls of tool {a.tool!r} with nothing to tell "
                        "them apart (one signal per tool, or different fixed arguments)")
    if not spec.signals.text and not spec.signals.requests:
        return "signals: the final text is not read and no tool carries a decision: nothing can abstain"
    return None


def register_condition(spec: ConditionSpec) -> ConditionSpec:
    """Add a condition (its name becomes valid for ``--condition``).

    Returns:
        ``spec``.

    Raises:
        ConfigError: naming the condition and the field: another condition has the name; the
            name is not an identifier (``[a-z][a-z0-9_]*``); there is no prompt (neither
            ``prompt`` nor the file ``prompts/NAME.md``); it offers meta tools without a
            handler; a signal names an unknown meta type or a tool the condition does not
            offer, or two signals are calls of one tool with nothing to tell them apart.
    """
    old = CONDITIONS.get(spec.name)
    if old is not None and old is not spec:
        raise ConfigError(f"condition {spec.name!r} is registered already ({old.description})")
    problem = _declaration_problem(spec)
    if problem is not None:
        raise ConfigError(f"condition {spec.name!r}: {problem}")
    CONDITIONS[spec.name] = spec
    register_signals(spec.name, spec.signals)
    return spec


def check_tool_names(condition: str, domain: str, task_tools: Iterable[str]) -> None:
    """Refuse a condition whose meta tool has the name of one of a domain's task tools (the
    model could not tell which one it calls).

    Args:
        condition: A registered condition's name.
        domain: The task domain's name (for the message).
        task_tools: The domain's tool names.

    Raises:
        ConfigError: naming the condition, the tool and the domain.
    """
    clash = sorted(set(get_condition(condition).meta_tools()) & set(task_tools))
    if clash:
        raise ConfigError(f"condition {condition!r}: meta tool {clash[0]!r} has the name of a task tool of domain "
                          f"{domain!r}; rename the condition's tool")


def unregister_condition(name: str) -> None:
    """Remove a registered condition other than evalkit's own (unknown names are ignored)."""
    if name not in DEFAULT_CONDITIONS and CONDITIONS.pop(name, None) is not None:
        unregister_signals(name)


register_condition(ConditionSpec("nl", "natural-language requests only", lambda: {}, None, NL_SIGNALS))
register_condition(ConditionSpec(
    "tool", "meta requests as ordinary tool calls, no policy", plain_meta_tools,
    lambda answers, tools, **options: PlainToolHandler(answers, tools, signals=TOOL_SIGNALS, **options),
    TOOL_SIGNALS,
))
register_condition(ConditionSpec(
    "meta", "explicit meta requests under runtime policy", typed_meta_tool,
    lambda answers, tools, **options: RuntimePolicyHandler(answers, tools, signals=META_SIGNALS, **options),
    META_SIGNALS,
))


def get_condition(name: str) -> ConditionSpec:
    """The condition named ``name``.

    Raises:
        ConfigError: for an unknown name.
    """
    spec = CONDITIONS.get(name)
    if spec is None:
        from evalkit.plugins import load_group

        load_group("evalkit.conditions")
        spec = CONDITIONS.get(name)
    if spec is None:
        raise ConfigError(f"unknown condition {name!r}; choose from {', '.join(CONDITIONS)}")
    return spec
