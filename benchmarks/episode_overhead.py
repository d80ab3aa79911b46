"""Runtime overhead of one scripted episode, and of recording it (trace text + score).

Runs the 16 pairs of ``scenarios/builtin.yaml`` with ``scripted/oracle`` in every condition
(gate off), ``--repeat`` times, and prints the best per-episode mean of each repetition:

* ``execute`` — :func:`evalkit.harness.episode.execute` (the agent loop, controller,
  executor, context builder, meta handler);
* ``record`` — the event log's JSON Lines text plus :func:`evalkit.metrics.scoring.score_episode`.

Nothing is written to disk. Best of several repetitions, because the machine is shared.

    python benchmarks/episode_overhead.py [--repeat 7]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="repetitions; the best is reported (default 7)")
    args = parser.parse_args()

    from evalkit.harness.episode import execute
    from evalkit.harness.run import RunConfig, build_plan
    from evalkit.metrics.scoring import score_episode
    from evalkit.models.registry import get_model
    from evalkit.scenarios.loader import load_suite

    builtin = Path(__file__).resolve().parents[1] / "scenarios" / "builtin.yaml"
    config = RunConfig(suites=[str(builtin)], models=["scripted/oracle"], report=False, selfcheck=False)
    plan = build_plan(load_suite(config.suites), config)
    model = get_model("scripted/oracle")
    limits = config.limits()
    for spec in plan:  # warm-up: imports, compiled schema validators, cached properties
        score_episode(spec, execute(spec, model, limits).log, {}, None)
    best_exec = best_record = float("inf")
    for _ in range(args.repeat):
        t_exec = t_record = 0.0
        for spec in plan:
            t0 = time.perf_counter()
            result = execute(spec, model, limits)
            t1 = time.perf_counter()
            result.log.to_jsonl()
            score_episode(spec, result.log, result.state, result.error)
            t2 = time.perf_counter()
            t_exec += t1 - t0
            t_record += t2 - t1
        best_exec = min(best_exec, t_exec / len(plan))
        best_record = min(best_record, t_record / len(plan))
    print(f"episodes per repetition: {len(plan)} (16 pairs x variants x {len(config.conditions)} conditions)")
    print(f"execute: {best_exec * 1e3:.3f} ms per episode (best of {args.repeat})")
    print(f"record:  {best_record * 1e3:.3f} ms per episode (trace text + score)")


if __name__ == "__main__":
    main()
