"""Time of the label checks (docs/labels.md) over a suite, as ``evalkit suite validate`` runs them.

    python benchmarks/label_checks.py [PATH]... [--repeat N]

Loads the suite (default: the built-in ``scenarios/``) once, then runs every check of
:data:`evalkit.suite.checks.CHECKS` ``--repeat`` times (each time from scratch: every
plan run again) and prints the pairs, the plan episodes run, the median wall time and the
time per pair, with the machine's core count.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from unittest import mock

from evalkit.suite.checks import check_suite, runs
from evalkit.scenarios.loader import load_suite


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", help="suite files or folders (default: built-in)")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs (median printed)")
    args = parser.parse_args()
    suite = load_suite(args.paths)
    check_suite(suite)  # warm: domains imported, rule set parsed, schemas compiled
    episodes = 0
    real = runs.execute

    def counting(*a, **k):
        nonlocal episodes
        episodes += 1
        return real(*a, **k)

    times = []
    with mock.patch.object(runs, "execute", counting):
        for _ in range(args.repeat):
            episodes = 0
            start = time.perf_counter()
            check_suite(suite)
            times.append(time.perf_counter() - start)
    median = statistics.median(times)
    print(f"label checks: {len(suite.pairs)} pairs, {episodes} plan episodes per pass, "
          f"median {median:.2f} s over {args.repeat} passes ({median / len(suite.pairs) * 1000:.1f} ms per pair), "
          f"{os.cpu_count()} cores")


if __name__ == "__main__":
    main()
