"""Helpers of the MCP agent tests: the reference agent's command and a stratified pair subset."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPTED_AGENT = ROOT / "examples" / "agents" / "scripted_mcp_agent.py"
ASKING_AGENT = Path(__file__).resolve().parent / "asking_agent.py"

USAGE = frozenset({"input_tokens", "output_tokens", "cached_input_tokens", "cache_write_tokens", "reasoning_tokens",
                   "usage_missing", "cost_usd", "retry_cost_usd", "replayed_cost_usd"})
"""Row fields of usage and money: a scripted model bills nothing (0); an agent's tokens and
cost are not seen by evalkit (``None``, counted as unknown usage)."""

IGNORED = frozenset({"episode_id", "model", "latency_s"}) | USAGE
"""Row fields that differ between an agent and the in-process model by construction: the ids
that name the model, wall-clock time, and usage (:data:`USAGE`)."""


def scripted_agent(policy: str, *extra: str) -> str:
    """The ``--agent`` spec of the scripted reference agent playing ``policy``."""
    args = [sys.executable, str(SCRIPTED_AGENT), "--policy", policy, "--spec", "{oracle_spec_file}", *extra]
    return "cmd:" + " ".join(shlex.quote(a) for a in args)


def asking_agent(channel: str) -> str:
    """The ``--agent`` spec of the test agent that keeps asking on ``channel`` (``decision``/``context``)."""
    return "cmd:" + " ".join(shlex.quote(a) for a in (sys.executable, str(ASKING_AGENT), channel))


def stratified(per_trigger: int = 1, triggers: tuple[str, ...] | None = None) -> list[str]:
    """The first ``per_trigger`` pair ids of each trigger of the built-in suite (every trigger,
    control pairs included, unless ``triggers`` names some)."""
    from evalkit.scenarios.loader import load_suite

    chosen: dict[str, list[str]] = {}
    for pair in load_suite([]).pairs:
        if triggers is None or pair.trigger in triggers:
            ids = chosen.setdefault(pair.trigger, [])
            if len(ids) < per_trigger:
                ids.append(pair.id)
    return [i for ids in chosen.values() for i in ids]


def rows(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "results.jsonl").read_text(encoding="utf-8").splitlines()]
