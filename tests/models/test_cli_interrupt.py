"""Ctrl-C / SIGTERM during a live run: the process exits promptly with exit code 130 even
while an episode is blocked in an HTTP call, and the episodes finished before are intact."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from model_helpers import raw_server

DONE = json.dumps({"id": "x", "model": "m", "choices": [{"index": 0, "finish_reason": "stop", "message": {
    "role": "assistant", "content": "I'm sorry, but I can't do that."}}],
    "usage": {"prompt_tokens": 10, "completion_tokens": 5}}).encode()


@pytest.fixture
def answers_once_then_silent():
    """A raw socket server: the first request gets a chat completion, every later one gets
    nothing at all (its connection is held open until the test ends)."""
    stop = threading.Event()
    served = []

    def serve(conn):
        with conn:
            try:
                data = b""
                while b"\r\n\r\n" not in data:
                    data += conn.recv(65536)
                if not served:
                    served.append(1)
                    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n"
                                 b"Content-Length: %d\r\n\r\n%s" % (len(DONE), DONE))
                else:
                    stop.wait()
            except OSError:
                pass

    with raw_server(serve) as port:
        yield f"http://127.0.0.1:{port}/v1"
    stop.set()


@pytest.mark.parametrize("signals", [(signal.SIGINT,), (signal.SIGTERM, signal.SIGTERM)], ids=["sigint", "sigterm-x2"])
def test_interrupt_exits_promptly_while_a_call_hangs(answers_once_then_silent, tmp_path, mini_suite, mini_tasks,
                                                     signals):
    config = tmp_path / "models.yaml"
    config.write_text("defaults:\n  retry: {max_attempts: 1, timeout_s: 600}\n")
    out = tmp_path / "run"
    env = {**os.environ, "OPENAI_API_KEY": "k", "EVALKIT_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "evalkit", "run", str(mini_suite), "--tasks", str(mini_tasks), "-m", "openai/fake",
         "-c", "tool", "--pair", "mini-missing-target", "--base-url", answers_once_then_silent,
         "--max-connections", "1", "--model-config", str(config), "--no-cache", "--no-report", "--no-selfcheck",
         "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        results = out / "results.jsonl"
        for _ in range(600):  # hang guard: the first episode is written within seconds
            if results.exists() and results.read_text().count("\n") == 1 or proc.poll() is not None:
                break
            time.sleep(0.1)
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.5)  # the second episode is now waiting on the silent server
        for sig in signals:
            proc.send_signal(sig)
            time.sleep(0.05)
        _, stderr = proc.communicate(timeout=30)  # hang guard; the in-flight call's timeout is 600 s
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, stderr
    assert f"interrupted; 1 finished episode(s) are kept in {out}" in stderr
    assert "Traceback" not in stderr
    [row] = [json.loads(line) for line in results.read_text().splitlines()]
    assert (row["status"], row["model_calls"]) == ("ok", 1)
    trace = [json.loads(line) for line in (out / "traces" / f"{row['episode_id']}.jsonl").read_text().splitlines()]
    assert sum(e.get("kind") == "model_call" or e.get("type") == "model_call" for e in trace) == 1, trace[:3]
