"""A reference MCP agent that plays evalkit's scripted policies (oracle, always_act, ...).

It is an ordinary MCP client (the ``mcp`` SDK's ``ClientSession`` over streamable HTTP, or
over stdio through ``python -m evalkit.agents.stdio_bridge``): it lists the episode's tools,
then makes the calls the scripted policy ``scripted/POLICY`` would make in process, one per
request, and ends with ``final_answer`` (or stops when a call's result says the episode
ended). When a question of its gets the simulated user's reply (on a side with a follow-up) it
goes on as the in-process policy does. It needs the pair's expected behaviour, which it reads from the TEST-ONLY oracle
channel ``{oracle_spec_file}`` (``--spec``, or ``$EVALKIT_ORACLE_SPEC``): a real agent must
never use that file.

    evalkit run --agent "cmd:python examples/agents/scripted_mcp_agent.py --policy oracle --spec {oracle_spec_file}"

Options: ``--url`` (default ``$EVALKIT_MCP_URL``), ``--policy`` (``oracle``, ``always_act``,
``always_abstain``, ``post_hoc``, ``late:K``,
``asks_ignores``), ``--transport http|stdio``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from dataclasses import dataclass
from typing import Any

from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from evalkit.models.scripted import scripted
from evalkit.runtime.context import ModelContext
from evalkit.scenarios.schema import Pair


@dataclass(frozen=True)
class Episode:
    """What a scripted policy reads of an episode (see evalkit.harness.episode.EpisodeSpec)."""

    pair: Pair
    variant: str
    tool_kinds: dict[str, str]


def load_episode(path: str) -> Episode:
    data = json.loads(open(path, encoding="utf-8").read())
    return Episode(Pair.model_validate(data["pair"]), data["variant"], data["tool_kinds"])


async def play(session: ClientSession, policy: str, episode: Episode) -> None:
    """Play ``scripted/POLICY`` over ``session`` until the episode ends.

    The conversation the policy reads is kept as in process: the user's request, one
    assistant message per call, and the simulated user's reply (a result's
    ``evalkit/user_reply``) as the next user message, so after the reply the policy plays
    what the in-process one plays (the oracle: the follow-up's calls, then its report).
    """
    await session.initialize()
    listed = await session.list_tools()
    names = tuple(t.name for t in listed.tools if t.name != "final_answer")
    model = scripted(policy)
    messages: list[dict[str, Any]] = [{"role": "user", "content": episode.pair.variant(episode.variant).user}]
    turn = 0
    while True:
        out = model.respond(ModelContext(messages=list(messages), tools=[], tokens=0, budget=0, turn=turn,
                                         tool_names=names), episode)
        turn += 1
        if out.tool_calls:
            call = out.tool_calls[0]
            result = await session.call_tool(call.name, call.arguments)
        else:
            result = await session.call_tool("final_answer", {"answer": out.text or ""})
        meta = result.meta or {}
        if meta.get("evalkit/episode_ended"):
            return
        messages.append({"role": "assistant", "content": out.text or ""})
        if meta.get("evalkit/user_reply") is not None:
            messages.append({"role": "user", "content": meta["evalkit/user_reply"]})


async def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", default=os.environ.get("EVALKIT_MCP_URL"))
    parser.add_argument("--policy", default="oracle")
    parser.add_argument("--spec", default=os.environ.get("EVALKIT_ORACLE_SPEC"),
                        help="the test-only oracle channel file ({oracle_spec_file})")
    parser.add_argument("--transport", choices=("http", "stdio"), default="http")
    args = parser.parse_args(argv)
    if not args.url or not args.spec:
        parser.error("needs --url (or $EVALKIT_MCP_URL) and --spec (or $EVALKIT_ORACLE_SPEC)")
    episode = load_episode(args.spec)
    if args.transport == "stdio":
        bridge = StdioServerParameters(command=sys.executable, args=["-m", "evalkit.agents.stdio_bridge",
                                                                     "--url", args.url], env=dict(os.environ))
        async with stdio_client(bridge) as (read, write), ClientSession(read, write) as session:
            await play(session, args.policy, episode)
    else:
        async with streamable_http_client(args.url) as (read, write), ClientSession(read, write) as session:
            await play(session, args.policy, episode)


if __name__ == "__main__":
    asyncio.run(main())
