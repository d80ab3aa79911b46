"""Report size and render time on a 10,000-episode scripted run.

Builds a scripted run of the built-in suite with every default scripted model and all three
conditions, repeated over as many epochs as it takes to reach ``--episodes`` episodes (no
report during the run), then renders ``report.html`` and prints the render time and the file
size. The target: under 20 MB.

    python benchmarks/report_size.py [--episodes 10000] [--out DIR] [--keep]
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import tempfile
import time
from pathlib import Path

LIMIT_MB = 20.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=10_000, help="episodes to reach at least (default 10000)")
    parser.add_argument("--out", help="run directory (default: a temporary one, removed afterwards)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary run directory")
    args = parser.parse_args()

    from evalkit.harness.run import RunConfig, build_plan
    from evalkit.pipeline import run
    from evalkit.report.html import render_report
    from evalkit.scenarios.loader import load_suite

    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="evalkit-report-size-"))
    probe = RunConfig(report=False)
    per_epoch = len(build_plan(load_suite(), probe))
    epochs = max(1, math.ceil(args.episodes / per_epoch))
    config = RunConfig(out=str(out), epochs=epochs, report=False)
    t0 = time.perf_counter()
    summary = run(config)
    t_run = time.perf_counter() - t0
    t0 = time.perf_counter()
    path = render_report(out)
    t_render = time.perf_counter() - t0
    size_mb = path.stat().st_size / 1e6
    print(f"cores: {os.cpu_count()}")
    print(f"episodes: {summary['n_episodes_planned']:,} ({epochs} epochs x {per_epoch} per epoch), "
          f"run {t_run:.1f} s ({summary['n_episodes_planned'] / t_run:,.0f} episodes/s)")
    print(f"report render: {t_render:.2f} s")
    print(f"report size: {size_mb:.2f} MB (limit {LIMIT_MB:.0f} MB: {'ok' if size_mb < LIMIT_MB else 'OVER'})")
    print(f"summary.json: {(out / 'summary.json').stat().st_size / 1e6:.2f} MB, "
          f"results.parquet: {(out / 'results.parquet').stat().st_size / 1e6:.2f} MB")
    if args.out is None and not args.keep:
        shutil.rmtree(out, ignore_errors=True)
    else:
        print(f"run directory: {out}")


if __name__ == "__main__":
    main()
