"""Per-episode cost of evaluating an agent over MCP, against the same policy in process.

Runs the scripted oracle on a few built-in pairs in all three conditions twice: in process
(``scripted/oracle``) and as the scripted MCP reference agent (one Python client process, one
MCP server and port per episode), one episode at a time, and prints the wall-clock seconds per
episode of each and their difference: the overhead of the MCP path (process start, the SDK's
import, the HTTP round trips).

    python benchmarks/agent_overhead.py [--pairs 4]
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=4)
    args = parser.parse_args()
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    from evalkit.harness.config import RunConfig
    from evalkit.pipeline import run

    agent = "agent/cmd:" + " ".join(shlex.quote(a) for a in (
        sys.executable, str(ROOT / "examples" / "agents" / "scripted_mcp_agent.py"), "--policy", "oracle",
        "--spec", "{oracle_spec_file}"))
    per_episode = {}
    with tempfile.TemporaryDirectory() as tmp:
        for label, model in (("in process", "scripted/oracle"), ("over MCP", agent)):
            out = Path(tmp) / label.replace(" ", "_")
            started = time.perf_counter()
            summary = run(RunConfig(models=[model], limit=args.pairs, out=str(out), report=False,
                                    selfcheck=False, max_connections=1))
            seconds = time.perf_counter() - started
            n = len((out / "results.jsonl").read_text().splitlines())
            assert all(r["paired_accuracy"] == 1.0 for r in summary["rows"]), summary["rows"]
            per_episode[label] = seconds / n
            print(f"{label}: {n} episodes in {seconds:.1f} s, {seconds / n:.3f} s per episode")
    print(f"MCP overhead: {per_episode['over MCP'] - per_episode['in process']:.2f} s per episode "
          f"(one agent process, server and port per episode, {os.cpu_count()} cores)")


if __name__ == "__main__":
    main()
