"""A whole run: executing its episodes (:mod:`evalkit.harness`), then finishing it.

:func:`run` executes a :class:`~evalkit.harness.config.RunConfig` with
:func:`evalkit.harness.run.execute_run` (plan, episodes, one trace and one result row each)
and then :func:`finish` writes what is computed from all the rows: the results table
(``results.parquet``), the summary (:mod:`evalkit.metrics.summary`, with the self-check's
excluded pairs) and the report (:mod:`evalkit.report.html`). :func:`resume_run` continues an
interrupted run. The CLI (``evalkit run``), ``evalkit rules eval`` and the notebook API
(``evalkit.run``) call these; this module sits above the harness, the metrics and the report in
the layer order (DESIGN §1).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from evalkit.harness.config import RunConfig, load_config
from evalkit.harness.executor import Progress
from evalkit.harness.plan import PlanKeys
from evalkit.harness.run import execute_run
from evalkit.harness.store import RunStore
from evalkit.metrics.keys import pair_attributes
from evalkit.records import EpisodeKey
from evalkit.metrics.summary import SummaryBuilder, row_problem
from evalkit.report.html import render_report


def run(
    config: RunConfig, *, progress: Progress | None = None, resume: bool = False
) -> dict[str, Any]:
    """Execute ``config`` and write its run directory.

    Args:
        config: The run configuration.
        progress: Optional callback ``progress(done, total, row)`` after each episode
            (:class:`evalkit.harness.executor.ProgressBar` draws a bar).
            Episodes run concurrently, ``max_connections`` per live model, and finish in any order.
        resume: Continue the run already in ``config.out`` instead of replacing it.

    Returns:
        The summary (as written to ``summary.json``).

    Raises:
        ScenarioError: for an invalid suite; ConfigError: for an unknown model or condition;
        RunError: when ``config.out`` cannot take a new run (:func:`~evalkit.harness.run_dir.check_out_dir`).
    """
    executed = execute_run(config, progress=progress, resume=resume)
    try:
        return finish(executed.store, executed.plan_keys, config, pairs=pair_attributes(executed.pairs))
    finally:
        executed.lock.close()


def resume_run(run_dir: str | Path, *, progress: Progress | None = None) -> dict[str, Any]:
    """Continue the interrupted run in ``run_dir`` (:func:`evalkit.harness.run.execute_run` with ``resume=True``).

    Returns:
        The summary of the whole run.

    Raises:
        ConfigError: when ``run_dir`` holds no run, or its suite changed since.
    """
    return run(load_config(run_dir), progress=progress, resume=True)



def finish(
    store: RunStore,
    plan_keys: PlanKeys | list[tuple],
    config: RunConfig,
    *,
    pairs: dict[str, dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Write the results table, summary and report of a run directory.

    ``results.jsonl`` is streamed, never held whole: one pass finds the last record of each
    episode key (:meth:`~evalkit.harness.store.RunStore.scan_results`), a second leaves the
    file with one line per key in plan order and feeds each row to the batched Parquet
    writer and to the streaming summary (:class:`~evalkit.metrics.summary.SummaryBuilder`),
    with a planned episode that has no row counted as missing where it falls in the plan. A row
    that fails a field check (:func:`~evalkit.metrics.summary.row_problem`, e.g. one edited by
    hand) is kept in ``results.jsonl`` and counted as missing (its episode runs again on resume);
    only lines that are not a JSON object with an episode key are left out.

    Args:
        store: The run directory.
        plan_keys: Keys of every planned episode, in run order.
        config: The run configuration.
        pairs: Pair attributes (:func:`evalkit.metrics.keys.pair_attributes`).

    Returns:
        The summary written to ``summary.json``.
    """
    refs = store.scan_results(plan_keys, keep_checked=True)  # by plan position, no dict of the plan's keys
    builder = SummaryBuilder(pairs, max_lag=config.max_lag, bootstrap_samples=config.bootstrap_samples,
                             seed=config.bootstrap_seed)
    planned = iter(plan_keys)
    with store.parquet_writer() as parquet:
        def take(row: dict[str, Any]) -> None:
            # rows come in plan order, then the rows outside the plan (kept, never counted); a row failing
            # a field check (warned about by scan_results) stays in results.jsonl and counts as missing
            key = EpisodeKey.of(row)
            usable = row_problem(row) is None
            if usable:
                parquet.add(row)
            for expected in planned:
                if expected == key:
                    builder.add(key, row if usable else None)
                    return
                builder.add(expected, None)  # planned, no row: missing

        store.rewrite_results(refs, plan_keys, take)
    del refs
    for expected in planned:
        builder.add(expected, None)
    summary = builder.result()
    summary["provider"] = builder.provider()  # calls, cache hits, retries, output faults
    judged = builder.judge()
    if judged:  # the LLM-judge panel's totals, its cost apart from the models'
        summary["judge"] = judged
    summary["planned_pairs"] = builder.planned_pairs()  # so that a reader (the gate) rebuilds the plan exactly
    selfcheck = Path(store.root) / "selfcheck.json"
    if selfcheck.is_file():  # pairs the oracle self-check excluded from this run, with reasons
        summary["excluded_pairs"] = json.loads(selfcheck.read_text(encoding="utf-8"))["excluded"]
    store.write_json("summary.json", summary)
    if config.report:
        render_report(Path(store.root))
    return summary
