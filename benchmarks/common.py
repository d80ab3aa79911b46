"""Shared pieces of the benchmarks: the 3-turn scripted suite and a run helper."""

from __future__ import annotations

import math
from pathlib import Path

HERE = Path(__file__).resolve().parent
TASKS = HERE / "tasks"
PAIRS = 200
"""Pairs in the benchmark suite (control pairs: one ``act`` episode each per epoch)."""

_PAIR = """\
  - id: bench-{i:04d}
    domain: bench
    trigger: none
    permissions: [bench.read, bench.buy]
    act:
      user: Buy 2 apples.
      plan:
        - {{tool: find_item, args: {{name: apple}}}}
        - {{tool: buy_item, args: {{name: apple, qty: 2}}}}
      expected:
        commits: [{{tool: buy_item, args: {{name: apple, qty: 2}}}}]
        state_checks: [{{path: purchases.P-1.qty, equals: 2}}]
"""


def write_suite(folder: Path, pairs: int = PAIRS) -> Path:
    """Write the benchmark suite: ``pairs`` control pairs whose act plan is lookup → commit.

    With ``scripted/oracle`` each episode is three model turns: ``find_item`` (lookup),
    ``buy_item`` (commit), then the final answer.

    Returns:
        The suite file.
    """
    path = Path(folder) / "bench.yaml"
    path.write_text("suite: bench\ndescription: Benchmark suite (3-turn scripted episodes).\npairs:\n"
                    + "".join(_PAIR.format(i=i) for i in range(pairs)), encoding="utf-8")
    return path


def scripted_config(suite: Path, out: Path, episodes: int, **extra):
    """A :class:`~evalkit.harness.run.RunConfig` of about ``episodes`` scripted 3-turn episodes
    (``scripted/oracle``, condition ``tool``, gate off, report and self-check off)."""
    from evalkit.harness.run import RunConfig

    epochs = max(1, math.ceil(episodes / PAIRS))
    pairs_needed = min(PAIRS, episodes)
    return RunConfig(suites=[str(suite)], tasks_dir=str(TASKS), models=["scripted/oracle"], conditions=["tool"],
                     epochs=epochs, limit=pairs_needed, out=str(out), report=False, selfcheck=False, **extra)
