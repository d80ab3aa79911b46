"""The whole live path against the real local model: real HTTP, real tool-call objects,
deterministic at temperature 0. Scores are not asserted (it is a tiny base model); runs
must complete, every episode must have a verdict or an explicit error outcome, and a second
run must replay the first from the cache."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from live_helpers import server_threads

from evalkit.models.config import ModelOptions
from evalkit.models.live import live_model
from evalkit.runtime.context import build_context
from evalkit.runtime.events import EventLog, UserMessage
from evalkit.runtime.tools import ToolSpec

pytestmark = pytest.mark.live

DECISIONS = {"act", "clarify", "abstain", "answer", "none"}
SAME = ("episode_id", "status", "error_code", "decision", "stated", "correct", "commits", "tool_calls",
        "denied_calls", "turns", "input_tokens", "output_tokens", "parse_failures", "final_text", "end_reason")


def evalkit(*args, home, timeout=900):
    env = {**os.environ, "EVALKIT_CACHE_DIR": str(home)}
    return subprocess.run([sys.executable, "-m", "evalkit", *args], capture_output=True, text=True, env=env,
                          timeout=timeout)


def rows(run_dir):
    return [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]


def assert_every_episode_has_an_outcome(results, n):
    assert len(results) == n
    for r in results:
        if r["status"] == "ok":
            assert r["decision"] in DECISIONS and r["end_reason"] in ("final_text", "loop_limit", "content_filter",
                                                                       "meta_terminal", "truncated"), r
        else:
            assert r["status"] == "error" and r["error"], r


def llama_servers_using(folder) -> list[str]:
    out = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    return [line for line in out.splitlines() if "llama_cpp.server" in line and str(folder) in line]


def test_local_model_starts_on_demand_and_stops_after_the_run(tmp_path):
    home = tmp_path / "home"
    config = tmp_path / "models.yaml"
    config.write_text(f"models:\n  local/gemma-3-270m: {{local: {{n_threads: {server_threads()}}}}}\n")
    proc = evalkit("run", "-m", "local/gemma-3-270m", "-c", "tool", "--limit", "1", "--max-turns", "1",
                   "--model-config", str(config), "--out", str(tmp_path / "run"), "--no-report", "--no-selfcheck",
                   home=home)
    assert proc.returncode == 0, proc.stderr
    results = rows(tmp_path / "run")
    assert_every_episode_has_an_outcome(results, 2)
    assert sum(r["model_calls"] for r in results) >= 2
    assert (home / "models" / "gemma-3-270m-q4_k_m.gguf").exists()
    assert llama_servers_using(home) == []  # the server it started is gone


def test_three_conditions_twice_identical_and_cached(gemma_server, tmp_path):
    home = tmp_path / "home"
    args = ["run", "-m", "local/gemma-3-270m", "--base-url", gemma_server.base_url, "-c", "nl", "-c", "tool",
            "-c", "meta", "--limit", "1", "--max-turns", "2", "--no-report",
            "--no-selfcheck"]  # the oracle self-check would run under --max-turns 2 too, and fail
    first = evalkit(*args, "--out", str(tmp_path / "one"), home=home)
    assert first.returncode == 0, first.stderr
    second = evalkit(*args, "--out", str(tmp_path / "two"), home=home)
    assert second.returncode == 0, second.stderr
    one, two = rows(tmp_path / "one"), rows(tmp_path / "two")
    assert_every_episode_has_an_outcome(one, 1 * 2 * 3)
    key = lambda r: r["episode_id"]  # noqa: E731
    assert [{k: r[k] for k in SAME} for r in sorted(one, key=key)] == [
        {k: r[k] for k in SAME} for r in sorted(two, key=key)]
    calls = sum(r["model_calls"] for r in one)
    assert calls > 0 and sum(r["cache_hits"] for r in one) == 0
    assert sum(r["cache_hits"] for r in two) == sum(r["model_calls"] for r in two) == calls
    summary = json.loads((tmp_path / "two" / "summary.json").read_text())
    assert {p["condition"]: p["cache_hit_rate"] for p in summary["provider"]} == {"nl": 1, "tool": 1, "meta": 1}
    print(f"\nlive: {len(one)} episodes, {calls} model calls, "
          f"{sum(r['latency_s'] for r in one) / len(one):.2f} s of model time per episode; second run: "
          f"{sum(r['cache_hits'] for r in two)} cache hits")


def test_adapter_is_deterministic_and_sends_what_the_server_needs(gemma_server):
    model = live_model("local/gemma-3-270m", ModelOptions(base_url=gemma_server.base_url, cache=False))
    lookup = ToolSpec("get_customer", "lookup", "Look a customer up by id.",
                      {"type": "object", "properties": {"customer_id": {"type": "string", "maxLength": 16}},
                       "required": ["customer_id"], "additionalProperties": False})
    log = EventLog()
    log.append(UserMessage, 0, content="Look up customer C-1.")
    context = build_context(log.events, system_prompt="You are an agent. Use the tools.", tools=[lookup.definition()])
    first = model.respond(context, None)
    again = model.respond(context, None)
    def seen(out):  # call ids are random on this server; everything else is deterministic
        return out.text, [(c.name, c.raw_arguments, c.parse_error) for c in out.tool_calls], out.stop_reason

    assert seen(first) == seen(again)
    assert first.usage.input_tokens > 0 and first.extra["call"]["attempts"] == 1
    for call in first.tool_calls:  # real tool-call objects, read strictly
        assert call.name == "get_customer" and (call.arguments is not None or call.parse_error)
    model.close()
