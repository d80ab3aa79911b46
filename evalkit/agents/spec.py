"""Agent specs: ``agent/cmd:COMMAND`` → an :class:`AgentModel` in the run plan.

``evalkit run --agent "cmd:COMMAND ARGS..."`` adds the model ``agent/cmd:COMMAND ARGS...``:
an agent is a registered kind of model (provider ``agent``), so its episodes are planned,
run ``--max-connections`` at a time, recorded, resumed, scored and summarised like any
model's, and its name (starting ``agent/``) labels it in rows, summary and report.

The command is split like a shell line (:func:`shlex.split`; no shell runs it) and these
placeholders are filled in each argument, for each episode:

``{mcp_url}``            the episode's MCP server (streamable HTTP), ``http://127.0.0.1:PORT/mcp``
``{mcp_stdio_command}``  a command line serving the same episode over stdio
                         (``python -m evalkit.agents.stdio_bridge --url URL``), for a harness
                         that only starts stdio servers
``{user_message_file}``  a UTF-8 file holding the user's message
``{system_prompt_file}`` a UTF-8 file holding the condition's system prompt (also the MCP
                         server's ``instructions``)
``{condition}``          ``nl``, ``tool`` or ``meta``
``{history_file}``       a JSON file holding the earlier turns of the conversation that a
                         multi-turn pair replays before the user's message (``[]`` for most)
``{oracle_spec_file}``   TEST ONLY, an oracle channel: a JSON file with the pair (its labels
                         and expected behaviour included), the variant and the tool kinds, for
                         the scripted reference agent (``examples/agents/scripted_mcp_agent.py``).
                         It is written only when the command names this placeholder; a real
                         agent must never use it

and the environment carries ``EVALKIT_MCP_URL``, ``EVALKIT_MCP_STDIO``, ``EVALKIT_USER_MESSAGE``
(the text), ``EVALKIT_USER_MESSAGE_FILE``, ``EVALKIT_SYSTEM_PROMPT_FILE``, ``EVALKIT_HISTORY_FILE``,
``EVALKIT_CONDITION`` and, with the placeholder only, ``EVALKIT_ORACLE_SPEC``.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
import tempfile
from pathlib import Path
from typing import Any

from evalkit.errors import ConfigError
from evalkit.scenarios.episode import Episode

DEFAULT_TIMEOUT_S = 300.0
"""Default wall-clock limit of one agent episode, in seconds (``--agent-timeout``)."""
DEFAULT_MAX_CALLS = 50
"""Default tool-call limit of one agent episode (``--agent-max-calls``): the agent's turn limit."""
DEFAULT_CONNECTIONS = 2
"""Episodes of one agent run at once unless ``--max-connections`` says otherwise."""

PLACEHOLDERS = ("{mcp_url}", "{mcp_stdio_command}", "{user_message_file}", "{system_prompt_file}", "{condition}",
                "{history_file}", "{oracle_spec_file}")


def parse_command(name: str) -> list[str]:
    """The argument list of the spec part ``cmd:COMMAND`` (after ``agent/``).

    Raises:
        ConfigError: for another form, an unbalanced quote or an empty command.
    """
    kind, sep, command = name.partition(":")
    if kind != "cmd" or not sep:
        raise ConfigError(f"agent spec {name[:80]!r} must look like cmd:COMMAND, e.g. "
                          "\"cmd:python examples/agents/scripted_mcp_agent.py --policy oracle\"")
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise ConfigError(f"agent spec {name[:80]!r}: the command does not split into arguments ({exc})") from None
    if not argv:
        raise ConfigError(f"agent spec {name[:80]!r}: the command is empty")
    return argv


def fill(argv: list[str], values: dict[str, str]) -> list[str]:
    """``argv`` with each ``{placeholder}`` of ``values`` replaced (other braces kept as they are)."""
    out = []
    for arg in argv:
        for key, value in values.items():
            arg = arg.replace(key, value)
        out.append(arg)
    return out


def oracle_spec(episode: Episode) -> dict[str, Any]:
    """The test-only oracle channel's content: the pair (labels included), the variant, the
    condition and ``tool name → kind`` of the domain."""
    return {"pair": episode.pair.model_dump(mode="json"), "variant": episode.variant,
            "condition": episode.condition, "tool_kinds": dict(episode.tool_kinds)}


class AgentModel:
    """An external agent reached over MCP: a model whose episodes it drives itself.

    Args:
        name: The spec after ``agent/`` (``cmd:COMMAND``).
        max_connections: Episodes run at once (each with its own server, port and process).

    Raises:
        ConfigError: for a malformed spec, or without the ``mcp`` SDK (the ``agents`` extra).

    Attributes:
        timeout_s: The wall-clock limit of one episode (:data:`DEFAULT_TIMEOUT_S`).
        max_calls: The tool-call limit of one episode (:data:`DEFAULT_MAX_CALLS`).
    """

    inline = False

    def __init__(self, name: str, max_connections: int | None = None):
        import importlib.util

        if importlib.util.find_spec("mcp") is None or importlib.util.find_spec("uvicorn") is None:
            raise ConfigError(f"agent/{name[:60]}: agents need the MCP SDK: pip install -e \".[agents]\"")
        self.argv = parse_command(name)
        self.name = f"agent/{name}"
        self.max_connections = max_connections or DEFAULT_CONNECTIONS
        self.timeout_s = DEFAULT_TIMEOUT_S
        self.max_calls = DEFAULT_MAX_CALLS
        self.oracle = any("{oracle_spec_file}" in a for a in self.argv)
        self._groups: set[int] = set()  # process groups of the agents running now

    def close(self) -> None:
        """Kill every agent of this model still running (the run ends, or was interrupted):
        their episodes then end at once instead of at their time limit."""
        from evalkit.agents.server import kill_group

        for pid in list(self._groups):
            kill_group(pid)

    def bind_run(self, config: Any) -> None:
        """Take the run's agent limits (``agent_timeout``, ``agent_max_calls`` of a
        :class:`~evalkit.harness.config.RunConfig`)."""
        self.timeout_s = float(getattr(config, "agent_timeout", self.timeout_s))
        self.max_calls = int(getattr(config, "agent_max_calls", self.max_calls))

    def describe(self) -> dict[str, Any]:
        """The agent's settings as recorded in the run manifest."""
        return {"kind": "agent", "command": self.argv, "transport": "mcp streamable-http (127.0.0.1)",
                "timeout_s": self.timeout_s, "max_calls": self.max_calls, "max_connections": self.max_connections,
                "oracle_channel": self.oracle}

    def respond(self, context: Any, episode: Any) -> Any:
        """Not used: an agent is not called turn by turn (:meth:`run_episode` drives it)."""
        raise TypeError("an agent is not called turn by turn: it drives its episode itself (AgentModel.run_episode)")

    def run_episode(self, *, model: Any = None, episode: Any = None, system_prompt: str = "",
                    user_message: str = "", **kwargs: Any) -> Any:
        """Run one episode: serve it over MCP, start the agent, wait, score-ready log.

        Takes the keyword arguments of :func:`evalkit.runtime.loop.run_episode`.

        Returns:
            The :class:`~evalkit.runtime.loop.EpisodeRun`; its first event records the
            server's port and, at the end, an error outcome when the agent failed.
        """
        from evalkit.agents.server import Launch, drive_episode
        from evalkit.agents.session import AgentSession

        session = AgentSession(system_prompt=system_prompt, user_message=user_message, max_calls=self.max_calls,
                               **kwargs)
        condition = getattr(episode, "condition", "")
        with tempfile.TemporaryDirectory(prefix="evalkit-agent-") as tmp:
            folder = Path(tmp)
            message_file, prompt_file = folder / "user_message.txt", folder / "system_prompt.txt"
            message_file.write_text(user_message, encoding="utf-8")
            prompt_file.write_text(system_prompt, encoding="utf-8")
            history_file = folder / "history.json"
            history_file.write_text(json.dumps(list(session.history), ensure_ascii=False), encoding="utf-8")
            oracle_file = None
            if self.oracle and episode is not None:
                oracle_file = folder / "oracle_spec.json"
                oracle_file.write_text(json.dumps(oracle_spec(episode), ensure_ascii=False), encoding="utf-8")

            def launch_for(url: str) -> Launch:
                stdio = f"{shlex.quote(sys.executable)} -m evalkit.agents.stdio_bridge --url {url}"
                values = {"{mcp_url}": url, "{mcp_stdio_command}": stdio, "{user_message_file}": str(message_file),
                          "{system_prompt_file}": str(prompt_file), "{condition}": condition,
                          "{history_file}": str(history_file),
                          "{oracle_spec_file}": str(oracle_file or "")}
                env = {**os.environ, "EVALKIT_MCP_URL": url, "EVALKIT_MCP_STDIO": stdio,
                       "EVALKIT_USER_MESSAGE": user_message, "EVALKIT_USER_MESSAGE_FILE": str(message_file),
                       "EVALKIT_SYSTEM_PROMPT_FILE": str(prompt_file), "EVALKIT_HISTORY_FILE": str(history_file),
                       "EVALKIT_CONDITION": condition}
                env.pop("EVALKIT_ORACLE_SPEC", None)
                if oracle_file is not None:
                    env["EVALKIT_ORACLE_SPEC"] = str(oracle_file)
                return Launch(fill(self.argv, values), env, None, self.timeout_s, self._groups)

            run, _timing = drive_episode(session, launch_for)
        return run


def agent_model(name: str, options: Any) -> AgentModel:
    """The registry's factory for ``agent/NAME`` (``--max-connections`` from ``options``)."""
    return AgentModel(name, getattr(options, "max_connections", None))
