"""Episodes on Dask distributed (``evalkit run --executor dask``; the optional extra ``dask``).

The run's plan is cut into batches of episode keys; each batch is one Dask task. A worker
rebuilds the run's suite, plan and models from the run configuration once per process
(:func:`_worker_context`, cached), runs the episodes of its batch through the same
:func:`evalkit.harness.executor` code path as the local executor, and sends back their
:class:`~evalkit.runtime.loop.EpisodeRun` objects (event log, final state, error). Traces,
scores and result rows are written by the calling process with the same ``record``
callback as a local run, as each batch arrives, so the results are the same as the local
executor's for the same plan and an interrupted run keeps every finished batch.

Where the cluster comes from:

* ``scheduler_address`` (``--scheduler-address tcp://HOST:8786``): an existing cluster, e.g.
  one started by dask-jobqueue on SLURM/PBS or by dask-kubernetes. Its workers need evalkit
  installed and the run's suite and task files at the same paths (a shared file system).
* otherwise a ``LocalCluster`` on 127.0.0.1: one single-threaded worker process per core,
  no dashboard, scratch space in a temporary folder removed afterwards.

Memory: the calling process keeps the key of every episode it sends (the batches are cut
from them), O(episodes) tuples of six fields, unlike the local executor; the episodes
themselves are made from the run plan when their results arrive
(:class:`~evalkit.harness.plan.RunPlan`), and each worker holds only the plan's factors.

``dask`` is imported only here, and only when this executor is used.
"""

from __future__ import annotations

import math
import os
import tempfile
from functools import lru_cache
from typing import Any, Callable, Iterable, Sequence

from evalkit.harness.episode import EpisodeSpec
from evalkit.harness.executor import Progress, Record, _run_one, crashed_run
from evalkit.harness.plan import PendingEpisodes, RunPlan
from evalkit.runtime.loop import EpisodeRun

MAX_BATCH = 64
"""Most episodes in one Dask task."""
BATCHES_PER_WORKER = 4
"""Batches aimed at per worker (enough to balance load; few enough to keep scheduling cheap)."""


def batches(keys: Sequence[tuple], workers: int) -> list[list[tuple]]:
    """Cut ``keys`` into consecutive batches: about :data:`BATCHES_PER_WORKER` per worker,
    at most :data:`MAX_BATCH` keys each.

    Args:
        keys: Episode keys in plan order.
        workers: Workers in the cluster (at least 1 is assumed).

    Returns:
        Non-empty batches that together hold every key once, in order.
    """
    if not keys:
        return []
    size = max(1, min(MAX_BATCH, math.ceil(len(keys) / (max(1, workers) * BATCHES_PER_WORKER))))
    return [list(keys[i:i + size]) for i in range(0, len(keys), size)]


@lru_cache(maxsize=4)
def _worker_context(config_json: str) -> tuple[RunPlan, dict[str, Any], Any]:
    """The plan (positions computed from keys), the models and the limits of a run, built
    once per worker process."""
    from pathlib import Path

    from evalkit.harness.config import RunConfig
    from evalkit.harness.run import build_plan
    from evalkit.models.registry import get_model
    from evalkit.scenarios.loader import load_suite

    config = RunConfig.model_validate_json(config_json)
    tasks_dir = Path(config.tasks_dir) if config.tasks_dir else None
    suite = load_suite(config.suites, tasks_dir=tasks_dir).select(pair_ids=config.pair_ids, limit=config.limit)
    plan = build_plan(suite, config)
    options = config.model_options()
    models = {spec: get_model(spec, options) for spec in config.models}
    return plan, models, config.limits()


def run_batch(config_json: str, keys: list[tuple]) -> list[tuple[tuple, EpisodeRun]]:
    """Run the episodes ``keys`` of the run ``config_json`` (a Dask task, on a worker).

    Returns:
        ``(key, EpisodeRun)`` per key, in order; an episode that raised is an error outcome
        (:func:`~evalkit.harness.executor.crashed_run`), never a lost one.
    """
    plan, models, limits = _worker_context(config_json)
    spec_of = _spec_lookup(plan)
    out = []
    for key in keys:
        spec = spec_of(tuple(key))
        out.append((tuple(key), _run_one(spec, models[spec.model], limits)))
    return out


def _spec_lookup(episodes: Iterable[EpisodeSpec]) -> Callable[[tuple], EpisodeSpec]:
    """``key → EpisodeSpec`` for ``episodes``: computed from the plan's factors for a
    :class:`~evalkit.harness.plan.RunPlan` (or the pending part of one), else a dict.

    The returned function raises ``KeyError`` for a key that is not in the plan.
    """
    base = episodes.plan if isinstance(episodes, PendingEpisodes) else episodes
    if isinstance(base, RunPlan):
        def spec_of(key: tuple) -> EpisodeSpec:
            position = base.position(key)
            if position is None:
                raise KeyError(key)
            return base[position]

        return spec_of
    return {spec.key: spec for spec in episodes}.__getitem__


def execute_plan_dask(
    plan: Sequence[EpisodeSpec] | PendingEpisodes,
    config: Any,
    record: Record,
    *,
    progress: Progress | None = None,
    done: int = 0,
    total: int | None = None,
) -> int:
    """Run every episode of ``plan`` on Dask and hand each to ``record`` in this process.

    Args:
        plan: The episodes to run (a subset of ``config``'s plan, e.g. a resumed run's rest:
            :func:`~evalkit.harness.plan.pending`); its keys are listed once (O(episodes)).
        config: The run's :class:`~evalkit.harness.config.RunConfig`; ``config.scheduler_address``
            selects an existing cluster, else a ``LocalCluster`` on 127.0.0.1 is started.
        record: ``record(spec, run) -> row``, called in this thread per episode as its batch
            arrives (batches in completion order, episodes in plan order within a batch).
        progress: ``progress(done, total, row)`` after each recorded episode.
        done: Episodes already finished before this call.
        total: Episodes in the whole run (default ``done + len(plan)``).

    Returns:
        The number of episodes run.

    Raises:
        ConfigError: when Dask is not installed (``pip install -e ".[dask]"`` from a checkout).
    """
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError:
        from evalkit.errors import ConfigError

        raise ConfigError("--executor dask needs Dask distributed: "
                          "pip install -e \".[dask]\" from a checkout of evalkit") from None

    total = done + len(plan) if total is None else total
    if not plan:
        return 0
    keys = [spec.key for spec in plan]  # the batches are cut from these (O(episodes) tuples)
    spec_of = _spec_lookup(plan)
    from evalkit.harness.config import resolved_paths

    # workers may start in another folder: relative suite / task paths are sent resolved
    config_json = resolved_paths(config, os.getcwd()).model_dump_json()
    finished = 0
    address = getattr(config, "scheduler_address", None)
    with tempfile.TemporaryDirectory(prefix="evalkit-dask-") as scratch:
        if address:
            cluster = None
            client = Client(address)
        else:
            cluster = LocalCluster(n_workers=max(1, min(os.cpu_count() or 1, len(plan))), threads_per_worker=1,
                                   processes=True, host="127.0.0.1", dashboard_address=None,
                                   local_directory=scratch)
            client = Client(cluster)
        try:
            workers = max(1, len(client.scheduler_info().get("workers", {})))
            futures = {client.submit(run_batch, config_json, batch, pure=False): batch
                       for batch in batches(keys, workers)}
            del keys
            for future in as_completed(futures):
                batch = futures[future]
                try:
                    results = future.result()
                except Exception as exc:  # noqa: BLE001 - a lost worker costs error rows, not the run
                    results = [(key, crashed_run(spec_of(key), exc)) for key in batch]
                for key, result in results:
                    row = record(spec_of(key), result)
                    finished += 1
                    if progress is not None:
                        progress(done + finished, total, row)
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
    return finished

