"""After a run, errored episodes are listed on stderr by model and error code with the end of
their first message, and a run in which every episode errored exits 1 (nothing was measured)."""

from __future__ import annotations

import subprocess
import sys


def _run(tmp_path, agent: str, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "evalkit", "run", "--agent", agent, "--condition", "nl",
                           "--limit", "1", "--out", str(tmp_path / "run"), "--no-report", "--agent-timeout", "60",
                           *extra], cwd=tmp_path, capture_output=True, text=True, timeout=600)


def test_every_episode_errored_lists_the_error_and_exits_1(tmp_path):
    crash = ("cmd:python -c \"import sys; sys.stderr.write('Traceback (most recent call last):\\n"
             "openai.APIConnectionError: Connection error.\\n'); sys.exit(1)\"")
    proc = _run(tmp_path, crash)
    assert proc.returncode == 1, proc.stderr
    assert "2 of 2 episodes ended in an error" in proc.stderr
    assert "agent_no_connect x2" in proc.stderr  # it died before it opened an MCP session
    assert "first: openai.APIConnectionError: Connection error." in proc.stderr


def test_an_agent_that_never_connects_is_listed_with_its_code_and_what_it_printed(tmp_path):
    refuses = "cmd:python -c \"print('Error: cannot connect to the MCP server, unable to continue.')\""
    proc = _run(tmp_path, refuses)
    assert proc.returncode == 1, proc.stderr
    assert "2 of 2 episodes ended in an error" in proc.stderr
    assert ("agent_no_connect x2; first: agent error: the agent never connected to the episode's MCP server "
            "(no initialize request) and exited with status 0; stdout ends: Error: cannot connect to the MCP "
            "server, unable to continue.") in proc.stderr
