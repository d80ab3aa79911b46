"""Every speed and scale figure of evalkit, printed with the machine's core count.

    python benchmarks/run_all.py [--quick] [--reference-python PY] [--baseline DIR]

1. Scripted throughput: 3-turn scripted episodes (lookup → commit → final answer,
   ``scripted/oracle``, condition ``tool``) through :func:`evalkit.pipeline.run` with
   every trace written and the report off; episodes per second and per-episode time, against
   the reference harness measured on this machine when ``--reference-python`` points at an
   interpreter that has it (``benchmarks/reference_harness.py``), else against the
   published reference figure of 26 samples/s on 2 cores (then marked *not measured*).
   ``--baseline DIR`` also measures another checkout of evalkit (e.g. ``git archive HEAD``
   unpacked in DIR) in the same run and prints the ratio.
2. Live throughput: ``openai/fake`` at ``--max-connections 64`` against
   ``benchmarks/fake_openai.py`` on 127.0.0.1 answering after 200 ms; model calls per second
   over the ideal 64 / 0.2 s = 320/s, in steady state (calls answered over the server's window
   from the first request to the last answer, the target's figure) and over the whole
   ``run()`` (including its start-up and writing the results).
3. Peak RSS after 1k, 10k and 100k scripted episodes (each run in its own process).
4. Report render time and size of the 100k-episode run.
5. ``evalkit --help`` start-up time (median of 5 processes).

Each part runs in a child process with a time limit (``--timeout``). ``--quick`` stops at
10k episodes (the 100k figures are then not measured).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
REFERENCE_PER_SECOND = 26.0
"""Published figure of the reference harness: samples/s of this task on 2 cores, default logging."""
TARGET_FACTOR = 20.0
DELAY_S = 0.2
CONNECTIONS = 64


# ---------------------------------------------------------------- children (one process each)

def _child_scripted(episodes: int, render: bool) -> dict:
    sys.path.insert(0, str(HERE))
    from common import scripted_config, write_suite

    from evalkit.pipeline import run

    work = Path(tempfile.mkdtemp(prefix="evalkit-bench-"))
    try:
        suite = write_suite(work)
        run(scripted_config(suite, work / "warm", 50))  # imports, compiled validators, caches
        shutil.rmtree(work / "warm")
        t0 = time.perf_counter()
        summary = run(scripted_config(suite, work / "run", episodes))
        seconds = time.perf_counter() - t0
        out = {"episodes": summary["n_episodes_planned"], "errors": summary["n_errors"], "seconds": seconds,
               "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
        if render:
            from evalkit.report.html import render_report

            t0 = time.perf_counter()
            path = render_report(work / "run")
            out["render_s"] = time.perf_counter() - t0
            out["report_mb"] = path.stat().st_size / 1e6
            out["rss_after_render_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        return out
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _child_live(episodes: int, base_url: str) -> dict:
    sys.path.insert(0, str(HERE))
    from common import scripted_config, write_suite

    from evalkit.pipeline import run

    os.environ.setdefault("OPENAI_API_KEY", "sk-benchmark")  # the fake server ignores it
    work = Path(tempfile.mkdtemp(prefix="evalkit-bench-live-"))
    try:
        suite = write_suite(work)
        config = scripted_config(suite, work / "run", episodes, base_url=base_url, cache=False,
                                 max_connections=CONNECTIONS)
        config = config.model_copy(update={"models": ["openai/fake"]})
        run(config.model_copy(update={"out": str(work / "warm"), "epochs": 1, "limit": 1}))  # imports, client
        before = _server_stats(base_url)
        t0, cpu0 = time.perf_counter(), os.times()
        summary = run(config)
        seconds, cpu1 = time.perf_counter() - t0, os.times()
        after = _server_stats(base_url)
        arrivals = after["arrivals"][len(before["arrivals"]):]
        completions = after["completions"][len(before["completions"]):]
        return {"episodes": summary["n_episodes_planned"], "errors": summary["n_errors"], "seconds": seconds,
                "calls": len(arrivals), "answered": len(completions),
                "window_s": max(completions) - min(arrivals) if arrivals and completions else None,
                "connections": after["connections"] - before["connections"],
                "cpu_s": (cpu1.user + cpu1.system) - (cpu0.user + cpu0.system)}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _server_stats(base_url: str) -> dict:
    """What ``fake_openai.py`` saw so far (its ``GET /stats``)."""
    from urllib.request import urlopen

    with urlopen(base_url.rsplit("/v1", 1)[0] + "/stats", timeout=30) as resp:
        return json.loads(resp.read())


def _child(argv: list[str]) -> None:
    kind = argv[0]
    if kind == "scripted":
        result = _child_scripted(int(argv[1]), render=argv[2] == "render")
    elif kind == "live":
        result = _child_live(int(argv[1]), argv[2])
    else:
        raise SystemExit(f"unknown child {kind}")
    print("RESULT " + json.dumps(result))


# ---------------------------------------------------------------- parent

def _spawn(args: list[str], timeout: float, pythonpath: str | None = None) -> dict | None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (pythonpath or str(ROOT), env.get("PYTHONPATH")) if p)
    try:
        proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", *args], env=env,
                              capture_output=True, text=True, timeout=timeout, cwd=tempfile.gettempdir())
    except subprocess.TimeoutExpired:
        print(f"  (timed out after {timeout:.0f} s)")
        return None
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    print(f"  (failed: {proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else proc.returncode})")
    return None


def _reference(python: str | None, timeout: float) -> dict | None:
    if not python:
        default = Path("/tmp/reference-venv/bin/python")
        python = str(default) if default.exists() else None
    if not python:
        return None
    try:
        proc = subprocess.run([python, str(HERE / "reference_harness.py"), "--samples", "300"], capture_output=True,
                              text=True, timeout=timeout, cwd=tempfile.gettempdir())
        return json.loads(proc.stdout.strip().splitlines()[-1])
    except (subprocess.TimeoutExpired, ValueError, IndexError):
        return None


def _startup() -> float:
    exe = shutil.which("evalkit")
    cmd = [exe, "--help"] if exe else [sys.executable, "-m", "evalkit", "--help"]
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=True)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="stop at 10k episodes")
    parser.add_argument("--episodes", type=int, default=3000, help="episodes of the throughput run (default 3000)")
    parser.add_argument("--reference-python", help="interpreter with the reference harness installed")
    parser.add_argument("--baseline", help="another evalkit checkout to measure side by side (its root folder)")
    parser.add_argument("--timeout", type=float, default=600, help="time limit of each part, seconds (default 600)")
    parser.add_argument("--child", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.child)
        return

    print(f"cores: {os.cpu_count()}  python {sys.version.split()[0]}  ({time.strftime('%Y-%m-%d %H:%M')})")

    print("1. scripted throughput (3-turn episodes, traces written, report off)")
    mine = _spawn(["scripted", str(args.episodes), "-"], args.timeout)
    if mine:
        rate = mine["episodes"] / mine["seconds"]
        print(f"  evalkit: {rate:,.0f} episodes/s, {1e3 / rate:.2f} ms per episode "
              f"({mine['episodes']:,} episodes in {mine['seconds']:.2f} s, {mine['errors']} errors)")
        ref = _reference(args.reference_python, args.timeout)
        if ref:
            print(f"  reference harness {ref['version']} on this machine: {ref['per_second']:.1f} samples/s "
                  f"({ref['samples']} samples); ratio {rate / ref['per_second']:.1f}x (target {TARGET_FACTOR:.0f}x)")
        else:
            print(f"  reference harness not measured here; against the published {REFERENCE_PER_SECOND:.0f}/s: "
                  f"{rate / REFERENCE_PER_SECOND:.1f}x (target {TARGET_FACTOR:.0f}x = "
                  f"{REFERENCE_PER_SECOND * TARGET_FACTOR:.0f}/s)")
        if args.baseline:
            base = _spawn(["scripted", str(args.episodes), "-"], args.timeout, pythonpath=args.baseline)
            if base:
                base_rate = base["episodes"] / base["seconds"]
                print(f"  baseline {args.baseline}: {base_rate:,.0f} episodes/s; this tree is "
                      f"{rate / base_rate:.2f}x as fast")

    print(f"2. live throughput (--max-connections {CONNECTIONS}, server answers after {DELAY_S * 1e3:.0f} ms; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores before the run)")
    server = subprocess.Popen([sys.executable, str(HERE / "fake_openai.py"), "--delay", str(DELAY_S)],
                              stdout=subprocess.PIPE, text=True)
    try:
        base_url = server.stdout.readline().strip()
        # 50 rounds of 64 calls (10 s at the ideal rate), a whole number of epochs of the 200-pair suite
        live = _spawn(["live", str(CONNECTIONS * 50), base_url], args.timeout)
    finally:
        server.terminate()
        server.wait(timeout=10)
    if live:
        ideal = CONNECTIONS / DELAY_S
        if live["window_s"]:
            steady = live["answered"] / live["window_s"]
            print(f"  steady state: {steady:,.0f} calls/s of ideal {ideal:.0f}/s: ratio {steady / ideal:.2f} "
                  f"(target >= 0.90) ({live['answered']:,} calls answered in {live['window_s']:.2f} s from the "
                  f"server's first request to its last answer; {live['connections']} connections opened)")
        whole = live["calls"] / live["seconds"]
        print(f"  whole run: {whole:,.0f} calls/s, ratio {whole / ideal:.2f} ({live['episodes']:,} episodes, "
              f"{live['errors']} errors, {live['seconds']:.2f} s including run start-up and writing the results); "
              f"evalkit's CPU {live['cpu_s'] * 1e3 / max(live['calls'], 1):.2f} ms per call "
              f"({live['cpu_s'] / live['seconds']:.0%} of one core)")

    print("3. peak RSS (scripted episodes, one process each)")
    sizes = [1_000, 10_000] if args.quick else [1_000, 10_000, 100_000]
    peaks = {}
    rendered = None
    for n in sizes:
        res = _spawn(["scripted", str(n), "render" if n == sizes[-1] else "-"], args.timeout)
        if res:
            peaks[n] = res["rss_mb"]
            print(f"  {n:>7,} episodes: peak RSS {res['rss_mb']:.0f} MB "
                  f"({res['episodes'] / res['seconds']:,.0f} episodes/s)")
            if "render_s" in res:
                rendered = (n, res)
    if len(peaks) >= 2:
        low, high = min(peaks), max(peaks)
        print(f"  growth from {low:,} to {high:,} episodes: {peaks[high] - peaks[low]:+.0f} MB "
              f"({(peaks[high] - peaks[low]) * 2**20 / (high - low):,.0f} bytes per episode; target: flat. The "
              "plan, the rows, traces, table and summary are streamed; what is left is the results index "
              "(17 bytes per episode), the latency percentile (8) and Parquet metadata)")
    if args.quick:
        print("  100k episodes: not measured (--quick)")
    print("4. report of the largest run")
    if rendered is not None:
        n, res = rendered
        sys.path.insert(0, str(HERE))
        from common import PAIRS

        print(f"  {n:,} episodes ({PAIRS} pairs x {-(-n // PAIRS)} epochs, one model and "
              f"condition): render {res['render_s']:.1f} s (target < 15), size {res['report_mb']:.1f} MB "
              f"(target < 20; the size follows pairs and groups, not episodes), peak RSS with render "
              f"{res['rss_after_render_mb']:.0f} MB")

    print(f"5. start-up: evalkit --help {_startup() * 1e3:.0f} ms (median of 5; target < 300 ms)")


if __name__ == "__main__":
    main()
