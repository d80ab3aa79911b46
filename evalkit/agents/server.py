"""The per-episode MCP server and the agent process it serves.

:func:`drive_episode` runs one episode of an agent (:mod:`evalkit.agents`): it serves the
episode's :class:`~evalkit.agents.session.AgentSession` over MCP streamable HTTP (the
official ``mcp`` SDK's low-level ``Server`` with ``tools/list`` and ``tools/call``, on
uvicorn bound to 127.0.0.1 on a free port, path ``/mcp``), starts the agent command in a new
session (its own process group), and waits for it within the wall-clock limit:

* the agent's ``final_answer`` call (or another end of the episode) gives it
  :data:`GRACE_S` seconds to exit; then its process group is killed and the answer stands;
* an agent still running at the limit is killed (``os.killpg``, ``SIGKILL``) and the episode
  is an error ``agent_timeout``; one that connected and exits non-zero (or dies on a signal)
  before the end is an error ``agent_exit`` with the end of its stderr; one that exits 0
  without an answer and without output is an error ``agent_no_answer``; a command that cannot
  start is an error ``agent_start``. An error is never an abstention (DESIGN §7);
* what the agent printed is its answer only when it reached the episode's tools
  (:class:`Handshake`): an agent that ends (whatever its exit status and output) without ever
  connecting to the server is an error ``agent_no_connect``, and one that connected but never
  listed the tools nor called one is an error ``agent_no_tools`` (it never saw the episode's
  tools, so its text is no decision about them); both quote its exit status and the ends of its
  stderr and stdout. An agent that listed the tools and answers in text without calling any is
  scored from its stdout (a legitimate answer, e.g. a refusal under ``nl``).

The process group is always killed at the end, so no child of the agent outlives its episode.
The server's ``instructions`` are the condition's system prompt (with the rule set when
``--rules-in-context``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from evalkit.agents.session import AgentSession

GRACE_S = 2.0
"""Seconds an agent may take to exit after its episode ended, before its group is killed."""
PIPE_WAIT_S = 5.0
"""Seconds to wait for the agent's output pipes to close once its group is gone."""
STDERR_TAIL = 600
"""Characters of the agent's stderr (and of its stdout) quoted in an error."""


@dataclass(frozen=True, slots=True)
class Launch:
    """How to start the agent of one episode.

    Attributes:
        argv: The command, placeholders filled (:func:`evalkit.agents.spec.fill`).
        env: Its environment.
        cwd: Its working directory (``None``: evalkit's).
        timeout_s: The episode's wall-clock limit in seconds.
        groups: A set the agent's process group id is kept in while it runs (so that its
            owner can kill every running agent at once, :meth:`AgentModel.close`), or ``None``.
    """

    argv: list[str]
    env: dict[str, str]
    cwd: str | None
    timeout_s: float
    groups: set[int] | None = None


@dataclass(slots=True)
class Handshake:
    """What the agent did of the MCP session: a middleware of the episode's server (the ``mcp``
    SDK's ``Server.middleware``) counting the requests that the server answered without error.

    Attributes:
        requests: Answered requests by method (``initialize``, ``tools/list``, ``tools/call``, ...).
        client: The agent's ``clientInfo`` (from its ``initialize``, or a stateless-revision
            request's ``_meta``) as ``"NAME VERSION"``, or ``None`` when it gave none.
    """

    requests: Counter = field(default_factory=Counter)
    client: str | None = None

    @property
    def connected(self) -> bool:
        """Whether the agent opened an MCP session: an answered ``initialize`` (the handshake of
        protocol revisions up to 2025-11-25) or, in the stateless revisions without a
        handshake, any answered request but ``ping``."""
        return any(method != "ping" for method in self.requests)

    @property
    def listed(self) -> bool:
        """Whether the agent listed the episode's tools (an answered ``tools/list``)."""
        return self.requests["tools/list"] > 0

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        result = await call_next(ctx)
        if ctx.request_id is not None:  # a request (notifications have no id), answered
            self.requests[ctx.method] += 1
            self.client = self.client or _client_name(ctx)
        return result


def _client_name(ctx: Any) -> str | None:
    """``"NAME VERSION"`` of the client of a request: an ``initialize``'s ``clientInfo``, or the
    session's (a stateless-revision request carries it in its ``_meta``); ``None`` when not given."""
    if ctx.method == "initialize":
        info = (ctx.params or {}).get("clientInfo")
        name, version = (info.get("name"), info.get("version")) if isinstance(info, dict) else (None, None)
    else:
        info = getattr(getattr(ctx.session, "client_params", None), "client_info", None)
        name, version = getattr(info, "name", None), getattr(info, "version", None)
    return " ".join(str(part) for part in (name, version) if part)[:120] or None


def build_server(session: AgentSession, handshake: Handshake | None = None) -> Any:
    """The low-level MCP ``Server`` exposing ``session``'s tools (``tools/list``) and serving
    each ``tools/call`` through :meth:`AgentSession.call`. A result's ``_meta`` holds
    ``evalkit/episode_ended``, ``evalkit/end_reason`` and ``evalkit/user_reply`` (the simulated
    user's reply when the call asked the user a question, else ``null``). ``handshake``, when
    given, is added to the server's middleware and records the agent's requests."""
    import mcp_types as types
    from mcp.server.lowlevel import Server

    tools = [types.Tool(name=name, description=desc, input_schema=schema) for name, desc, schema in
             session.tool_list()]

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: Any) -> Any:
        answer = session.call(params.name, params.arguments)
        return types.CallToolResult(content=[types.TextContent(type="text", text=answer.text)],
                                    is_error=answer.is_error,
                                    meta={"evalkit/episode_ended": answer.ended, "evalkit/end_reason": answer.end_reason,
                                           "evalkit/user_reply": answer.user_reply})

    server = Server("evalkit-episode", instructions=session.system_prompt or None, on_list_tools=list_tools,
                    on_call_tool=call_tool)
    if handshake is not None:
        server.middleware.append(handshake)
    return server


def free_socket() -> socket.socket:
    """A listening TCP socket on 127.0.0.1 and a free port chosen by the OS."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    return sock


def kill_group(pid: int) -> None:
    """Kill the process group led by ``pid`` (``SIGKILL``); a group already gone is fine."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


async def _serve(session: AgentSession, launch_for: Any) -> tuple[str, str | None, str | None, dict[str, Any]]:
    """Serve ``session`` and run its agent; returns ``(stdout, error, code, timing)``."""
    import uvicorn

    session.ended_event = asyncio.Event()
    handshake = Handshake()
    app = build_server(session, handshake).streamable_http_app(json_response=True)
    sock = free_socket()
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="critical", access_log=False, lifespan="on",
                                           timeout_graceful_shutdown=1))
    serving = asyncio.create_task(server.serve(sockets=[sock]))
    timing: dict[str, Any] = {"port": port, "handshake": handshake}
    try:
        while not server.started:
            if serving.done():
                serving.result()  # raises why it could not start
                return "", "the MCP server stopped before it started", "agent_start", timing
            await asyncio.sleep(0.002)
        launch: Launch = launch_for(f"http://127.0.0.1:{port}/mcp")
        started = time.monotonic()
        try:
            proc = await asyncio.create_subprocess_exec(
                *launch.argv, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE, env=launch.env, cwd=launch.cwd, start_new_session=True)
        except OSError as exc:
            return "", f"the agent command could not start: {exc}", "agent_start", timing
        if launch.groups is not None:
            launch.groups.add(proc.pid)
        output = asyncio.create_task(proc.communicate())
        ended = asyncio.create_task(session.ended_event.wait())
        error = code = None
        try:
            done, _ = await asyncio.wait({output, ended}, timeout=launch.timeout_s,
                                         return_when=asyncio.FIRST_COMPLETED)
            if output not in done:
                if ended in done:  # answered: a short grace to exit, then the group is killed
                    left = max(0.0, launch.timeout_s - (time.monotonic() - started))
                    await asyncio.wait({output}, timeout=min(GRACE_S, left))
                if not output.done():
                    kill_group(proc.pid)
                    if session.ended is None:
                        error, code = (f"the agent did not answer within its limit of {launch.timeout_s:g} s "
                                       "and was killed" + ("" if handshake.connected else
                                                           "; it never connected to the episode's MCP server")
                                       ), "agent_timeout"
            try:  # a descendant that left the group may hold the pipes open: do not wait for it
                stdout_b, stderr_b = await asyncio.wait_for(output, timeout=PIPE_WAIT_S)
            except TimeoutError:
                stdout_b, stderr_b = b"", b""
        finally:
            ended.cancel()
            kill_group(proc.pid)  # children left behind by an agent that exited
            if launch.groups is not None:
                launch.groups.discard(proc.pid)
        timing["agent_s"] = round(time.monotonic() - started, 3)
        timing["returncode"] = proc.returncode
        stdout = stdout_b.decode("utf-8", "replace")
        if error is None and session.ended is None:
            error, code = _fault(handshake, session.turn, proc.returncode, stdout, stderr_b.decode("utf-8", "replace"))
        return stdout, error, code, timing
    finally:
        server.should_exit = True
        with contextlib.suppress(Exception):
            await asyncio.wait_for(serving, timeout=5)


def _fault(handshake: Handshake, calls: int, rc: int | None, stdout: str, stderr: str) -> tuple[str | None, str | None]:
    """``(error, code)`` of an agent whose process ended before its episode did, or
    ``(None, None)`` when its stdout may be its answer (module docstring). ``calls``: the tool
    calls it made; ``rc``: its exit status (``None`` when its pipes were abandoned)."""
    how = f"was killed by signal {-rc}" if rc is not None and rc < 0 else f"exited with status {rc}"
    err, out = stderr.strip()[-STDERR_TAIL:], stdout.strip()[-STDERR_TAIL:]
    if not handshake.connected or (not handshake.listed and not calls and rc == 0):
        what = ("never connected to the episode's MCP server (no initialize request)" if not handshake.connected
                else f"opened an MCP session ({handshake.client or 'client unnamed'}) but never listed the tools "
                     "nor called one,")
        tails = (f"; stderr ends: {err}" if err else "") + (f"; stdout ends: {out}" if out else "")
        return (f"the agent {what} and {how}" + tails,
                "agent_no_connect" if not handshake.connected else "agent_no_tools")
    if rc != 0:
        return f"the agent {how}" + (f"; stderr ends: {err}" if err else ""), "agent_exit"
    return None, None


def drive_episode(session: AgentSession, launch_for: Any) -> tuple[Any, dict[str, Any]]:
    """Run one agent episode to its end (module docstring), in the calling thread.

    Args:
        session: The episode's runtime side.
        launch_for: ``launch_for(mcp_url) -> Launch``: the agent command for the server's URL.

    Returns:
        ``(run, timing)``: the :class:`~evalkit.runtime.loop.EpisodeRun` and a dict with the
        server's ``port``, the agent's wall-clock seconds ``agent_s``, its ``returncode`` and
        its ``handshake`` (:class:`Handshake`).
    """
    stdout, error, code, timing = asyncio.run(_serve(session, launch_for))
    return session.finish(stdout=stdout, error=error, code=code), timing
