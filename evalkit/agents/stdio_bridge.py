"""Serve an episode's MCP server over stdio: ``python -m evalkit.agents.stdio_bridge --url URL``.

Many agent harnesses start their MCP servers themselves, as stdio commands. For them evalkit
gives each episode a command line (``{mcp_stdio_command}``, ``$EVALKIT_MCP_STDIO``) that runs
this bridge: an MCP server on its stdin/stdout (the ``mcp`` SDK's low-level ``Server``) that
forwards ``tools/list`` and ``tools/call`` to the episode's streamable-HTTP server at ``URL``
(a ``ClientSession``), so every call still goes through evalkit's runtime and lands in the
episode's event log. The tools, their schemas, results, ``isError`` flags and ``_meta`` pass
through unchanged; so do the server's instructions (the condition's system prompt).
"""

from __future__ import annotations

import argparse
import contextlib
from typing import Any


async def bridge(url: str) -> None:
    """Serve ``url``'s tools on this process's stdin/stdout until stdin closes."""
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server

    async with contextlib.AsyncExitStack() as stack:
        read, write = await stack.enter_async_context(streamable_http_client(url))
        upstream = await stack.enter_async_context(ClientSession(read, write))
        hello = await upstream.initialize()

        async def list_tools(ctx: Any, params: Any) -> Any:
            return await upstream.list_tools(params=params)

        async def call_tool(ctx: Any, params: Any) -> Any:
            return await upstream.call_tool(params.name, params.arguments)

        server = Server("evalkit-episode", instructions=hello.instructions, on_list_tools=list_tools,
                        on_call_tool=call_tool)
        async with stdio_server() as (stdin, stdout):
            await server.run(stdin, stdout, server.create_initialization_options())


def main(argv: list[str] | None = None) -> None:
    """Command-line entry point (``--url``: the episode's ``{mcp_url}``)."""
    import anyio

    parser = argparse.ArgumentParser(prog="python -m evalkit.agents.stdio_bridge", description=__doc__.split("\n")[0])
    parser.add_argument("--url", required=True, help="the episode's MCP server, http://127.0.0.1:PORT/mcp")
    args = parser.parse_args(argv)
    anyio.run(bridge, args.url)


if __name__ == "__main__":
    main()
