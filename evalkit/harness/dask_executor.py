"""Episodes on Dask distributed (``evalkit run --executor dask``; the optional extra ``dask``).

The run's plan is cut into batches of episode keys; each batch is one Dask task. A worker
rebuilds the run's suite, plan and models from the run configuration
(:func:`~evalkit.harness.dask_inputs._worker_context`, cached per process), runs the
episodes of its batch through the same :func:`evalkit.harness.executor` code path as the
local executor, and sends back their :class:`~evalkit.runtime.loop.EpisodeRun` objects
(event log, final state, error). Traces, scores and result rows are written by the calling
process with the same ``record`` callback as a local run, as each batch arrives, so the
results are the same as the local executor's for the same plan and an interrupted run keeps
every finished batch.

The configuration names files, not their contents, so each batch also carries the run's
content identity (:func:`~evalkit.harness.dask_inputs.run_identity`: the suite's content
hash, the sha256 of the other inputs from :func:`~evalkit.harness.resume.input_fingerprints`,
the evalkit version). A worker's cached context is keyed on it, so an edited suite or task
file is never served from an earlier run's cache (a long-lived cluster outlives runs), and a
worker that builds a context checks what it reads against it: different files at those paths
fail the run with :class:`~evalkit.harness.dask_inputs.WorkerInputsError` instead of scoring
content the calling process does not have.

Where the cluster comes from:

* ``scheduler_address`` (``--scheduler-address tcp://HOST:8786``): an existing cluster, e.g.
  one started by dask-jobqueue on SLURM/PBS or by dask-kubernetes. Its workers need evalkit
  installed and the run's suite and task files at the same paths (a shared file system).
* otherwise a ``LocalCluster`` on 127.0.0.1: one single-threaded worker process per core,
  no dashboard (the scheduler's HTTP routes on a free loopback port), scratch space in a
  temporary folder removed afterwards. Its worker processes are started with SIGINT blocked
  (:func:`_start_local_cluster`), so a Ctrl-C at the terminal reaches only the calling
  process, which closes the cluster with Dask's logging silenced (:func:`_quiet_distributed`):
  an interrupted run prints evalkit's one line, not the workers' tracebacks.

Memory: the calling process keeps the key of every episode it sends (the batches are cut
from them), O(episodes) tuples of six fields, unlike the local executor; the episodes
themselves are made from the run plan when their results arrive
(:class:`~evalkit.harness.plan.RunPlan`), and each worker holds only the plan's factors.

``dask`` is imported only here, and only when this executor is used.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import os
import tempfile
import threading
import warnings
from typing import Any, Callable, Iterable, Iterator, Sequence

from evalkit.errors import ConfigError
from evalkit.harness.dask_inputs import WorkerInputsError, _worker_context, run_identity
from evalkit.harness.episode import EpisodeSpec
from evalkit.harness.executor import Progress, Record, _run_one, crashed_run
from evalkit.harness.plan import PendingEpisodes, RunPlan
from evalkit.runtime.loop import EpisodeRun
from evalkit.harness.config import resolved_paths

MAX_BATCH = 64
"""Most episodes in one Dask task."""
BATCHES_PER_WORKER = 4
"""Batches aimed at per worker (enough to balance load; few enough to keep scheduling cheap)."""
QUIET_LOGGERS = ("distributed", "tornado", "bokeh", "asyncio")
"""Loggers (and their children) silenced while a cluster is closed after an interrupt or an error."""


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



def run_batch(config_json: str, identity_json: str, keys: list[tuple]) -> list[tuple[tuple, EpisodeRun]]:
    """Run the episodes ``keys`` of the run ``config_json`` (a Dask task, on a worker).

    Args:
        config_json: The run configuration with resolved paths.
        identity_json: :func:`~evalkit.harness.dask_inputs.run_identity` of the calling process, as
            sorted JSON.
        keys: Episode keys of the run's plan.

    Returns:
        ``(key, EpisodeRun)`` per key, in order; an episode that raised is an error outcome
        (:func:`~evalkit.harness.executor.crashed_run`), never a lost one.

    Raises:
        WorkerInputsError: when this worker reads other content than the run's (the whole
            batch fails; no episode of it runs).
    """
    plan, models, limits = _worker_context(config_json, identity_json)
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
    specs: dict[tuple, EpisodeSpec] = {spec.key: spec for spec in episodes}  # EpisodeKey: a tuple
    return specs.__getitem__


@contextlib.contextmanager
def _quiet_distributed() -> Iterator[None]:
    """Silence Dask's logging (:data:`QUIET_LOGGERS` and their children) and warnings in this
    process for the duration: used only while closing a client and cluster after an interrupt
    or an error, whose cancelled tasks and closed connections Dask reports at length."""
    manager = logging.Logger.manager
    names = [name for name in list(manager.loggerDict)
             if name in QUIET_LOGGERS or name.startswith(tuple(f"{n}." for n in QUIET_LOGGERS))]
    loggers = [logging.getLogger(name) for name in dict.fromkeys([*QUIET_LOGGERS, *names])]
    before = [(logger, logger.disabled) for logger in loggers]
    for logger in loggers:
        logger.disabled = True
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        for logger, disabled in before:
            logger.disabled = disabled


class _WhileClosing(logging.Filter):
    """Drops a worker process's log records once its worker is closing: Dask then reports
    the tasks it cancels and the connections its scheduler closes under it, which for an
    evalkit cluster happens only at the end of a run (after a Ctrl-C, under running batches).
    Records of a running worker pass."""

    CLOSING = frozenset({"closing", "closing_gracefully", "closed", "stopping", "stopped"})

    def __init__(self, worker: Any):
        super().__init__()
        import weakref

        self._worker = weakref.ref(worker)

    def filter(self, record: logging.LogRecord) -> bool:
        worker = self._worker()
        status = getattr(getattr(worker, "status", None), "name", None)
        return worker is not None and status not in self.CLOSING


def dask_setup(worker: Any) -> None:
    """Worker preload of the ``LocalCluster`` evalkit starts (:func:`_local_cluster`), run by
    Dask in each worker process as it starts: puts :class:`_WhileClosing` on the handlers of
    the ``distributed`` logger and the root logger, so closing the cluster under running
    batches (Ctrl-C) prints nothing while a running worker's warnings and errors still show.

    Args:
        worker: The starting ``distributed.Worker``.
    """
    for logger in (logging.getLogger("distributed"), logging.getLogger()):
        for handler in logger.handlers:
            if not any(isinstance(f, _WhileClosing) for f in handler.filters):
                handler.addFilter(_WhileClosing(worker))


def _local_cluster(workers: int, scratch: str) -> Any:
    """A ``LocalCluster`` on 127.0.0.1 (see the module docstring); its workers preload this
    module (:func:`dask_setup`)."""
    from dask.distributed import LocalCluster

    return LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                        dashboard_address=None, local_directory=scratch, preload=[__name__],
                        scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"})


def _start_local_cluster(workers: int, scratch: str) -> Any:
    """Start :func:`_local_cluster` so that its worker processes never see a terminal's SIGINT.

    A Ctrl-C at the terminal goes to every process of the foreground group, Dask's worker
    processes too, and each would die printing a traceback. So the cluster is built in a
    helper thread that blocks SIGINT: the Dask threads it starts inherit the mask, and so do
    the worker processes they spawn (a signal mask survives ``fork`` and ``exec``; Python keeps
    a blocked SIGINT blocked). Multiprocessing's resource tracker is started first from this
    thread, because starting it unblocks SIGINT in the thread that does. The calling thread
    waits on an event, so it stays interruptible: a Ctrl-C during start-up lets a start under
    way finish (or stops one not yet begun), closes the cluster quietly and re-raises.
    Where ``pthread_sigmask`` is missing (Windows) the cluster is started directly.

    Returns:
        The started ``LocalCluster``; Dask's GC diagnosis, which its scheduler hooks into this
        process's garbage collector, is turned off again: it only logs below the shown
        level, and a Ctrl-C that lands in its callback would be swallowed by the collector.

    Raises:
        KeyboardInterrupt: when interrupted during start-up (the cluster is closed).
    """
    import signal

    if not hasattr(signal, "pthread_sigmask"):
        return _without_gc_diagnosis(_local_cluster(workers, scratch))
    from multiprocessing import resource_tracker

    resource_tracker.ensure_running()
    box: dict[str, Any] = {"state": "new"}  # new -> building, or new -> cancelled
    lock, finished = threading.Lock(), threading.Event()

    def start() -> None:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            with lock:
                if box["state"] == "cancelled":
                    return
                box["state"] = "building"
            box["cluster"] = _local_cluster(workers, scratch)
        except BaseException as exc:  # noqa: BLE001 - handed to the calling thread
            box["error"] = exc
        finally:
            finished.set()

    thread = threading.Thread(target=start, name="evalkit-dask-start", daemon=True)
    try:
        thread.start()
        finished.wait()  # not thread.join(): an interrupted join can mark a running thread stopped
    except KeyboardInterrupt:
        with lock:
            building = box["state"] == "building"
            if not building:
                box["state"] = "cancelled"
        if building:
            with _quiet_distributed():
                finished.wait()
                if "cluster" in box:
                    with contextlib.suppress(Exception):
                        box["cluster"].close()
        raise
    if "error" in box:
        raise box["error"]
    return _without_gc_diagnosis(box["cluster"])


def _without_gc_diagnosis(cluster: Any) -> Any:
    """``cluster``, with ``distributed.gc``'s diagnosis callback removed from this process."""
    from distributed.gc import disable_gc_diagnosis

    disable_gc_diagnosis(force=True)
    return cluster


def _close(client: Any, cluster: Any, *, quiet: bool) -> None:
    """Close ``client`` then ``cluster`` (either may be ``None``); with ``quiet``, under
    :func:`_quiet_distributed` and ignoring errors (the run is already stopping)."""
    if not quiet:
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
        return
    with _quiet_distributed():
        for closable in (client, cluster):
            if closable is not None:
                with contextlib.suppress(Exception):
                    closable.close()


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
        WorkerInputsError: when a worker reads other suite, task or config files than the run's
            (:func:`~evalkit.harness.dask_inputs.check_worker_inputs`); the batches recorded
            before it are kept.
        KeyboardInterrupt: passed on after the client and cluster are closed quietly.
    """
    try:
        from dask.distributed import Client, as_completed
    except ImportError:
        raise ConfigError("--executor dask needs Dask distributed: "
                          "pip install -e \".[dask]\" from a checkout of evalkit") from None

    total = done + len(plan) if total is None else total
    if not plan:
        return 0
    keys = [spec.key for spec in plan]  # the batches are cut from these (O(episodes) tuples)
    spec_of = _spec_lookup(plan)

    # workers may start in another folder: relative suite / task paths are sent resolved
    config_json = resolved_paths(config, os.getcwd()).model_dump_json()
    identity_json = json.dumps(run_identity(config), sort_keys=True)
    finished = 0
    address = getattr(config, "scheduler_address", None)
    with tempfile.TemporaryDirectory(prefix="evalkit-dask-") as scratch:
        client = cluster = None
        try:
            if address:
                client = Client(address)
            else:
                cluster = _start_local_cluster(max(1, min(os.cpu_count() or 1, len(plan))), scratch)
                client = Client(cluster)
            workers = max(1, len(client.scheduler_info().get("workers", {})))
            futures = {client.submit(run_batch, config_json, identity_json, batch, pure=False): batch
                       for batch in batches(keys, workers)}
            del keys
            for future in as_completed(futures):
                batch = futures[future]
                try:
                    results = future.result()
                except WorkerInputsError:
                    raise  # other files than the run's: no batch of this run can be trusted
                except Exception as exc:  # noqa: BLE001 - a lost worker costs error rows, not the run
                    results = [(key, crashed_run(spec_of(key), exc)) for key in batch]
                for key, result in results:
                    row = record(spec_of(key), result)
                    finished += 1
                    if progress is not None:
                        progress(done + finished, total, row)
        except BaseException:
            _close(client, cluster, quiet=True)  # the cancelled batches are not news; the exception is
            raise
        _close(client, cluster, quiet=False)
    return finished
