"""The stdio bridge opens its session with the episode's server only at the agent's first
request, and tells the agent over MCP when that server cannot be reached."""

from __future__ import annotations

import asyncio
import socket
import sys

from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError


def _closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_an_unreachable_episode_server_is_an_mcp_error_at_the_agents_initialize():
    url = f"http://127.0.0.1:{_closed_port()}/mcp"

    async def initialize() -> str:
        bridge = StdioServerParameters(command=sys.executable, args=["-m", "evalkit.agents.stdio_bridge", "--url", url])
        async with stdio_client(bridge) as (read, write), ClientSession(read, write) as session:
            try:
                await session.initialize()
            except MCPError as exc:
                return str(exc)
        return "initialized"

    said = asyncio.run(asyncio.wait_for(initialize(), timeout=60))
    assert said.startswith(f"evalkit's stdio bridge cannot reach the episode's MCP server at {url}: Connect")
