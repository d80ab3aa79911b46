"""`evalkit view` latency: start-up (indexing a run once) and the time to serve any episode.

Uses a run directory (``--run``, e.g. ``reports/latest`` after the quickstart: about 10,600
episodes), or builds a scripted run of the built-in suite with every default scripted model and
all three conditions over as many epochs as it takes to reach ``--episodes`` (as
``benchmarks/report_size.py`` does). Then starts the viewer on 127.0.0.1, fetches ``--samples``
random episodes' trace pages and as many pair views over HTTP, and prints the start-up time and
the median, p95 and worst request time. The target: every episode in under a second.

    python benchmarks/viewer_latency.py [--run DIR | --episodes 10000] [--samples 300]
"""

from __future__ import annotations

import argparse
import math
import random
import shutil
import statistics
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlencode

TARGET_S = 1.0


def _build(episodes: int) -> Path:
    from evalkit.harness.run import RunConfig, build_plan
    from evalkit.pipeline import run
    from evalkit.scenarios.loader import load_suite

    out = Path(tempfile.mkdtemp(prefix="evalkit-viewer-"))
    per_epoch = len(build_plan(load_suite(), RunConfig(report=False)))
    run(RunConfig(out=str(out), epochs=max(1, math.ceil(episodes / per_epoch)), report=False))
    return out


def _get(url: str) -> float:
    t0 = time.perf_counter()
    with urllib.request.urlopen(url, timeout=30) as resp:
        resp.read()
        assert resp.status == 200, url
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", help="an existing run directory (default: build one)")
    parser.add_argument("--episodes", type=int, default=10_000, help="episodes to build when no --run (default 10000)")
    parser.add_argument("--samples", type=int, default=300, help="episodes and pair views fetched (default 300 each)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    from evalkit.report.viewer import Viewer, make_server

    built = None if args.run else _build(args.episodes)
    root = Path(args.run) if args.run else built
    try:
        t0 = time.perf_counter()
        viewer = Viewer([root])
        startup = time.perf_counter() - t0
        server = make_server(viewer, 0)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{server.server_port}"
        (label, index), = viewer.runs.items()
        rng = random.Random(args.seed)
        rows = rng.sample(index.rows, min(args.samples, len(index.rows)))
        episode = [_get(f"{base}/run/{label}/view/episode?{urlencode({'id': r['episode_id']})}") for r in rows]
        pair = [_get(f"{base}/run/{label}/view/pair?" + urlencode({"pair": r["pair_id"], "model": r["model"],
                                                                    "condition": r["condition"], "gate": r["gate"],
                                                                    "epoch": r["epoch"]})) for r in rows]
        listing = _get(f"{base}/run/{label}/view/episodes?right=wrong")
        server.shutdown()
        server.server_close()
    finally:
        if built is not None:
            shutil.rmtree(built, ignore_errors=True)

    def stats(xs: list[float]) -> str:
        xs = sorted(xs)
        return (f"median {statistics.median(xs) * 1000:.0f} ms, p95 {xs[int(0.95 * (len(xs) - 1))] * 1000:.0f} ms, "
                f"worst {xs[-1] * 1000:.0f} ms")

    print(f"run: {root} ({len(index.rows):,} episodes); viewer start-up (index once): {startup:.2f} s")
    print(f"episode trace page ({len(episode)} random): {stats(episode)}")
    print(f"pair view ({len(pair)} random): {stats(pair)}")
    print(f"filtered list of wrong episodes: {listing * 1000:.0f} ms")
    worst = max(episode + pair)
    print(f"{'OK' if worst < TARGET_S else 'SLOW'}: worst {worst:.3f} s (target < {TARGET_S:.0f} s)")


if __name__ == "__main__":
    main()
