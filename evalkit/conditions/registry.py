"""The three conditions (DESIGN §5) as named components.

A :class:`ConditionSpec` bundles the condition's system prompt (a versioned file under
``evalkit/conditions/prompts/``), the meta-request tools it offers and the handler that
serves them. The prompt's sha256 is recorded in every run's manifest.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Callable

from evalkit.conditions.handlers import PlainToolHandler, RuntimePolicyHandler
from evalkit.conditions.meta_tools import plain_meta_tools, typed_meta_tool
from evalkit.errors import ConfigError
from evalkit.runtime.loop import MetaHandler
from evalkit.runtime.tools import ToolSpec

_PROMPTS = Path(__file__).resolve().parent / "prompts"


@dataclass(frozen=True)
class ConditionSpec:
    """One condition.

    Attributes:
        name: ``nl``, ``tool`` or ``meta``.
        description: One line for reports.
        meta_tools: Factory of the meta tools offered (empty for ``nl``).
        handler: ``handler(user_answers, task_tools, **options)`` building the per-episode
            handler (``options``: ``policy`` and ``env`` of the meta-request protocol), or
            ``None`` when no meta tools are offered.
    """

    name: str
    description: str
    meta_tools: Callable[[], dict[str, ToolSpec]]
    handler: Callable[..., MetaHandler] | None

    @property
    def system_prompt(self) -> str:
        return _prompt(self.name)[0]

    @property
    def prompt_sha256(self) -> str:
        return _prompt(self.name)[1]


@cache
def _prompt(name: str) -> tuple[str, str]:
    text = (_PROMPTS / f"{name}.md").read_text(encoding="utf-8").strip()
    return text, hashlib.sha256(text.encode()).hexdigest()


CONDITIONS: dict[str, ConditionSpec] = {
    "nl": ConditionSpec("nl", "natural-language requests only", lambda: {}, None),
    "tool": ConditionSpec(
        "tool", "meta requests as ordinary tool calls, no policy", plain_meta_tools,
        lambda answers, tools, **options: PlainToolHandler(answers, tools, **options),
    ),
    "meta": ConditionSpec(
        "meta", "explicit meta requests under runtime policy", typed_meta_tool,
        lambda answers, tools, **options: RuntimePolicyHandler(answers, tools, **options),
    ),
}


def get_condition(name: str) -> ConditionSpec:
    """The condition named ``name``.

    Raises:
        ConfigError: for an unknown name.
    """
    try:
        return CONDITIONS[name]
    except KeyError:
        raise ConfigError(f"unknown condition {name!r}; choose from {', '.join(CONDITIONS)}") from None
