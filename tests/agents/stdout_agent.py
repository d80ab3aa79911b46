"""A test agent that answers on stdout after going only part of the way into the episode's MCP
session, then exits with a given status.

    stdout_agent.py --reach none|init|list [--transport http|stdio] [--modern] [--say TEXT] [--stderr TEXT]
                    [--exit N]

``none``: never opens an MCP session (over ``stdio`` it starts the episode's bridge command and
closes it unused); ``init``: ``initialize`` only; ``list``: ``initialize`` and ``tools/list``.
With ``--modern`` the session is opened the stateless protocol revision's way (2026-07-28: a
``server/discover`` request, no ``initialize``). No tool is ever called.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shlex
import subprocess
import sys

from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client


async def reach(transport: str, how_far: str, modern: bool) -> None:
    """Open the episode's MCP session over ``transport`` as far as ``how_far`` (``init``/``list``) says."""
    if transport == "stdio":
        argv = shlex.split(os.environ["EVALKIT_MCP_STDIO"])
        opened = stdio_client(StdioServerParameters(command=argv[0], args=argv[1:], env=dict(os.environ)))
    else:
        opened = streamable_http_client(os.environ["EVALKIT_MCP_URL"])
    async with opened as streams, ClientSession(streams[0], streams[1]) as session:
        await (session.discover() if modern else session.initialize())
        if how_far == "list":
            await session.list_tools()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reach", choices=("none", "init", "list"), required=True)
    parser.add_argument("--transport", choices=("http", "stdio"), default="http")
    parser.add_argument("--modern", action="store_true")
    parser.add_argument("--say", default="")
    parser.add_argument("--stderr", default="")
    parser.add_argument("--exit", type=int, default=0)
    args = parser.parse_args()
    if args.reach != "none":
        asyncio.run(reach(args.transport, args.reach, args.modern))
    elif args.transport == "stdio":  # a harness that starts its stdio server but never talks to it
        bridge = subprocess.Popen(shlex.split(os.environ["EVALKIT_MCP_STDIO"]), stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE)
        bridge.communicate(timeout=60)
    if args.stderr:
        sys.stderr.write(args.stderr)
    if args.say:
        print(args.say)
    sys.exit(args.exit)


if __name__ == "__main__":
    main()
