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
    assert "agent_exit x2" in proc.stderr
    assert "first: openai.APIConnectionError: Connection error." in proc.stderr


def test_a_run_with_some_scored_episodes_exits_0_and_lists_nothing_when_none_errored(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "evalkit", "run", "--model", "scripted/oracle", "--condition", "nl",
                           "--limit", "1", "--out", str(tmp_path / "run"), "--no-report"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "ended in an error" not in proc.stderr
