"""Serve an episode's MCP server over stdio: ``python -m evalkit.agents.stdio_bridge --url URL``.

Many agent harnesses start their MCP servers themselves, as stdio commands. For them evalkit
gives each episode a command line (``{mcp_stdio_command}``, ``$EVALKIT_MCP_STDIO``) that runs
this bridge: an MCP server on its stdin/stdout (the ``mcp`` SDK's low-level ``Server``) that
forwards ``tools/list`` and ``tools/call`` to the episode's streamable-HTTP server at ``URL``
(a ``ClientSession``), so every call still goes through evalkit's runtime and lands in the
episode's event log. The tools, their schemas, results, ``isError`` flags and ``_meta`` pass
through unchanged; so do the server's instructions (the condition's system prompt).

The bridge opens its session with the episode's server only when the agent makes its first
request (its ``initialize``, whose ``clientInfo`` it passes on), so the episode's server sees
the agent's handshake exactly as over HTTP: a harness that starts the bridge but never opens an
MCP session on it has not connected (``agent_no_connect``, :mod:`evalkit.agents.server`).
When the episode's server cannot be reached, the agent's request gets an MCP error.
"""

from __future__ import annotations

import argparse
from typing import Any


class Upstream:
    """The bridge's session with the episode's server, opened at the agent's first request.

    Also the bridge server's middleware (the ``mcp`` SDK's ``Server.middleware``): a request
    other than ``ping`` waits for the session; the first one opens it.

    Args:
        url: The episode's server, ``http://127.0.0.1:PORT/mcp``.
        server: The bridge's low-level ``Server`` (its instructions become the upstream's).
        options: The bridge's ``InitializationOptions`` (likewise).
    """

    def __init__(self, url: str, server: Any, options: Any):
        import anyio

        self.url, self.server, self.options = url, server, options
        self.wanted, self.ready, self.done = anyio.Event(), anyio.Event(), anyio.Event()
        self.session: Any = None
        self.client_info: Any = None
        self.error: str | None = None

    async def run(self) -> None:
        """Open the session when wanted and hold it until :attr:`done` (one task owns it)."""
        from mcp import ClientSession
        from mcp.client.streamable_http import streamable_http_client

        await self.wanted.wait()
        try:
            async with streamable_http_client(self.url) as (read, write), \
                    ClientSession(read, write, client_info=self.client_info) as session:
                hello = await session.initialize()
                self.server.instructions = self.options.instructions = hello.instructions
                self.session = session
                self.ready.set()
                await self.done.wait()
        except Exception as exc:  # noqa: BLE001 - told to the agent as an MCP error
            cause: BaseException = exc
            while isinstance(cause, BaseExceptionGroup) and cause.exceptions:  # the task group's: its first cause
                cause = cause.exceptions[0]
            self.error = f"{type(cause).__name__}: {cause}"[:300]
        finally:
            self.session = None
            self.ready.set()

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        if ctx.request_id is not None and ctx.method != "ping":
            if not self.wanted.is_set():
                self.client_info = _client_info(ctx.params if ctx.method == "initialize" else None)
                self.wanted.set()
            await self.ready.wait()
            if self.session is None:
                import mcp_types as types
                from mcp.shared.exceptions import MCPError

                raise MCPError(code=types.INTERNAL_ERROR, message="evalkit's stdio bridge cannot reach the episode's "
                               f"MCP server at {self.url}: {self.error or 'closed'}")
        return await call_next(ctx)


def _client_info(params: Any) -> Any:
    """The agent's ``clientInfo`` from its ``initialize`` params, or ``None`` (the SDK's default)."""
    import mcp_types as types

    info = params.get("clientInfo") if isinstance(params, dict) else None
    try:
        return types.Implementation.model_validate(info) if isinstance(info, dict) else None
    except ValueError:
        return None


async def bridge(url: str) -> None:
    """Serve ``url``'s tools on this process's stdin/stdout until stdin closes."""
    import anyio
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server

    upstream: Upstream

    async def list_tools(ctx: Any, params: Any) -> Any:
        return await upstream.session.list_tools(params=params)

    async def call_tool(ctx: Any, params: Any) -> Any:
        return await upstream.session.call_tool(params.name, params.arguments)

    server = Server("evalkit-episode", on_list_tools=list_tools, on_call_tool=call_tool)
    options = server.create_initialization_options()
    upstream = Upstream(url, server, options)
    server.middleware.append(upstream)
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(upstream.run)
        async with stdio_server() as (stdin, stdout):
            await server.run(stdin, stdout, options)
        upstream.done.set()
        if not upstream.wanted.is_set():
            tasks.cancel_scope.cancel()


def main(argv: list[str] | None = None) -> None:
    """Command-line entry point (``--url``: the episode's ``{mcp_url}``)."""
    import anyio

    parser = argparse.ArgumentParser(prog="python -m evalkit.agents.stdio_bridge", description=__doc__.split("\n")[0])
    parser.add_argument("--url", required=True, help="the episode's MCP server, http://127.0.0.1:PORT/mcp")
    args = parser.parse_args(argv)
    anyio.run(bridge, args.url)


if __name__ == "__main__":
    main()
