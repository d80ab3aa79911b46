"""Concurrent episodes: each model's episodes run on up to ``max_connections`` threads.

Episodes of live models spend their time waiting on HTTP, so they run concurrently; each
model gets its own pool of ``model.max_connections`` threads (``--max-connections``;
default 4 for hosted APIs, 1 for a local llama.cpp server that serves one request at a
time, 1 for scripted models), and different models run side by side. Episodes finish in
any order: each is handed to the ``record`` callback in the main thread as soon as it
finishes (which writes its trace and appends its result row), so an interrupted run keeps
every finished episode and can be resumed.

An exception that escapes an episode (a bug, not a model error: those are outcomes
already) becomes an explicit error outcome for that episode, never a lost row; so does one
raised while recording it (:func:`evalkit.harness.run.execute_run`'s ``record``).
:class:`ProgressBar` shows episodes done, errors, tokens and cache hits.
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from queue import Empty, SimpleQueue
from typing import Any, Callable, Collection, Iterable, Iterator, Mapping

from evalkit.harness.episode import EpisodeSpec, execute
from evalkit.runtime.controller import Limits
from evalkit.runtime.events import EpisodeEnded, EpisodeStarted, ErrorRaised
from evalkit.runtime.jsonsafe import clean_text
from evalkit.runtime.loop import EpisodeRun, Recorder
from evalkit.runtime.model_io import Model

Record = Callable[[EpisodeSpec, EpisodeRun], dict[str, Any]]
Progress = Callable[[int, int, dict[str, Any] | None], None]


def crashed_run(spec: EpisodeSpec, exc: BaseException, *, stage: str = "runtime") -> EpisodeRun:
    """An :class:`EpisodeRun` holding only the error that stopped the episode.

    Args:
        spec: The episode.
        exc: The exception.
        stage: Where it happened: ``runtime`` (running the episode) or ``recording``
            (writing its trace, scoring it, appending its row); the error reads
            ``"<stage> error: <type>: <message>"``.
    """
    rec = Recorder()
    message = clean_text(f"{type(exc).__name__}: {exc}")
    rec.emit(EpisodeStarted, 0, episode_id=spec.episode_id, pair_id=spec.pair.id, variant=spec.variant,
             condition=spec.condition, model=spec.model, domain=spec.pair.domain)
    rec.emit(ErrorRaised, 0, source="runtime", message=f"{stage} error: {message}")
    rec.emit(EpisodeEnded, 0, reason="error")
    return EpisodeRun(rec.log, {}, f"{stage} error: {message}")


def _run_one(spec: EpisodeSpec, model: Model, limits: Limits) -> EpisodeRun:
    try:
        return execute(spec, model, limits)
    except Exception as exc:  # noqa: BLE001 - one broken episode must not lose the run
        return crashed_run(spec, exc)


def connections(model: Model) -> int:
    """How many episodes of ``model`` may run at once (its ``max_connections``, default 1)."""
    return max(1, int(getattr(model, "max_connections", 1) or 1))


def runs_inline(model: Model) -> bool:
    """Whether ``model``'s episodes run one by one in the calling thread (``model.inline``).

    A model that never waits on I/O (the scripted models set ``inline = True``) gains nothing
    from a thread: it would only add GIL hand-offs with the thread that records episodes and
    let finished episodes pile up in memory faster than they are written.
    """
    return bool(getattr(model, "inline", False))


def _lane(plan: Iterable[EpisodeSpec], model: str) -> Iterator[EpisodeSpec]:
    """The episodes of ``model`` in ``plan``, in plan order, read lazily."""
    return (spec for spec in plan if spec.model == model)


IN_FLIGHT_PER_CONNECTION = 2
"""Episodes of a thread-pool model submitted at once per connection: the running ones plus as
many waiting, so a worker that finishes starts the next episode at once while the calling
thread records the last one; the rest of the plan is read only as these finish."""


def execute_plan(
    plan: Collection[EpisodeSpec],
    models: Mapping[str, Model],
    limits: Limits,
    record: Record,
    *,
    progress: Progress | None = None,
    done: int = 0,
    total: int | None = None,
) -> int:
    """Run every episode of ``plan``, ``max_connections`` at a time per model.

    The plan is read lazily, never held: each thread-pool model reads its own episodes from
    it in plan order and has at most :data:`IN_FLIGHT_PER_CONNECTION` × ``max_connections``
    submitted and not yet recorded (refilled as they finish), so memory does not grow with
    the number of episodes. Inline models (:func:`runs_inline`) run in the calling thread in
    plan order, with the pool models' finished episodes recorded in between.

    Args:
        plan: The episodes to run: a sized iterable that can be iterated more than once (a
            :class:`~evalkit.harness.plan.RunPlan`, the lazy result of
            :func:`~evalkit.harness.plan.pending`, a list); read once per pool model and
            once for the inline ones.
        models: Model objects by spec.
        limits: Episode limits.
        record: ``record(spec, run) -> row``, called in the calling thread as each episode
            finishes, in completion order.
        progress: ``progress(done, total, row)`` once with ``row=None`` before the first
            episode, then after each recorded episode.
        done: Episodes already finished before this call (a resumed run).
        total: Episodes in the whole run (default ``done + len(plan)``).

    Returns:
        The number of episodes run.

    Raises:
        KeyError: for an episode whose model is not in ``models``.
    """
    total = done + len(plan) if total is None else total
    pooled = {name for name, model in models.items() if not runs_inline(model)}
    pools: dict[str, ThreadPoolExecutor] = {}
    lanes = {name: _lane(plan, name) for name in pooled}  # each pool model's episodes, read as they are submitted
    room = {name: IN_FLIGHT_PER_CONNECTION * connections(models[name]) for name in pooled}
    pending: dict[Future[EpisodeRun], EpisodeSpec] = {}
    ready: SimpleQueue[Future[EpisodeRun]] = SimpleQueue()  # futures as they finish (a done-callback
    finished = 0                                             # each: no scan of every pending future)
    clean = False

    def fill(name: str) -> None:
        """Submit ``name``'s next episodes while it has room."""
        lane = lanes.get(name)
        while lane is not None and room[name] > 0:
            spec = next(lane, None)
            if spec is None:
                del lanes[name]
                return
            pool = pools.get(name)
            if pool is None:
                pool = pools[name] = ThreadPoolExecutor(max_workers=connections(models[name]),
                                                        thread_name_prefix="evalkit-episode")
            future = pool.submit(_run_one, spec, models[name], limits)
            pending[future] = spec
            room[name] -= 1
            future.add_done_callback(ready.put)

    def take(spec: EpisodeSpec, result: EpisodeRun) -> None:
        nonlocal finished
        row = record(spec, result)
        finished += 1
        if progress is not None:
            progress(done + finished, total, row)

    def drain(block: bool) -> None:
        try:
            future = ready.get(block=block)
        except Empty:
            return
        while True:
            spec = pending.pop(future)
            take(spec, future.result())
            room[spec.model] += 1
            fill(spec.model)
            try:
                future = ready.get_nowait()
            except Empty:
                return

    if progress is not None:
        progress(done, total, None)  # the planned count, before the first episode finishes
    try:
        for name in list(lanes):
            fill(name)
        for i, spec in enumerate(plan):  # inline models in plan order, pool models' finished episodes in between
            if spec.model in pooled:
                if pending and not i & 255:
                    drain(block=False)  # keep the pools fed while walking past their episodes
                continue
            take(spec, _run_one(spec, models[spec.model], limits))
            if pending:
                drain(block=False)
        while pending:
            drain(block=True)
        clean = True
    finally:
        for pool in pools.values():
            pool.shutdown(wait=clean, cancel_futures=True)
    return finished


class ProgressBar:
    """A rich progress bar: episodes done of planned, errors, tokens and cache hits.

    Use as a context manager and pass the object as the ``progress`` callback of
    :func:`execute_plan` (or :func:`evalkit.pipeline.run`).
    """

    def __init__(self, *, transient: bool = True):
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self._bar = Progress(
            "[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
            TextColumn("errors {task.fields[errors]}"), TextColumn("tokens {task.fields[tokens]:,}"),
            TextColumn("cache hits {task.fields[cache_hits]}"), TimeElapsedColumn(), transient=transient,
        )
        self._task = self._bar.add_task("episodes", total=None, errors=0, tokens=0, cache_hits=0)
        self.errors = 0
        self.tokens = 0
        self.cache_hits = 0

    def __enter__(self) -> "ProgressBar":
        self._bar.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._bar.stop()

    def __call__(self, done: int, total: int, row: dict[str, Any] | None = None) -> None:
        if row is not None:
            self.errors += row.get("status") == "error"
            self.tokens += int(row.get("input_tokens") or 0) + int(row.get("output_tokens") or 0)
            self.cache_hits += int(row.get("cache_hits") or 0)
        self._bar.update(self._task, completed=done, total=total, errors=self.errors, tokens=self.tokens,
                         cache_hits=self.cache_hits)
