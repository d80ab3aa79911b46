"""The inputs of a Dask run's episodes, as each worker must see them.

The configuration a Dask task carries names files, not their contents, so the calling
process records the run's content identity (:func:`run_identity`: the suite's content hash,
the sha256 of the other inputs, the evalkit version) and each batch carries it. A worker
builds the run's plan, models and limits once per process and per identity
(:func:`_worker_context`), checking what it reads against the identity
(:func:`check_worker_inputs`); different content at the run's paths fails the run with
:class:`WorkerInputsError`. The executor that sends the batches is
:mod:`evalkit.harness.dask_executor`.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from evalkit.errors import ConfigError, EvalkitError
from evalkit.harness.plan import RunPlan
from evalkit.version import __version__
from evalkit.harness.resume import input_fingerprints
from evalkit.scenarios.loader import load_suite
from evalkit.scenarios import domains
from evalkit.harness.config import RunConfig
from evalkit.models.registry import get_model
from evalkit.scenarios.domains import domain_path

WORKERS_NEED = ("workers need the same evalkit and the same suite, task and config files at the same paths (a "
                "shared file system), unchanged while the run goes on")
"""The end of a :class:`WorkerInputsError` message."""

_DOMAIN_SHA: dict[str, str | None] = {}
"""Worker side: sha256 of each task domain file (resolved path) when this process's contexts
loaded it; a domain cached under another sha is imported again (:func:`_forget_stale_domains`)."""


class WorkerInputsError(ConfigError):
    """A Dask worker reads other files (or runs another evalkit) than the calling process
    recorded for the run: its episodes would not be the run's, so none is scored.

    Raised on the worker by :func:`_worker_context` (the message names the worker, each input
    that differs and both hashes) and re-raised by :func:`~evalkit.harness.dask_executor.execute_plan_dask` in the calling
    process, which stops the run (exit 2; the finished batches are kept, ``--resume`` goes on).
    """


def run_identity(config: Any) -> dict[str, Any]:
    """The content a run's episodes are made from, as the calling process knows it.

    Taken from the run's manifest (``config.out/config.json``, written or checked by
    :func:`evalkit.harness.run.execute_run` before any episode runs: ``suite.content_hash`` and
    ``inputs``), so it is the content the calling process loaded and scores against even
    when a file is edited after the run started; computed from the files now
    (:func:`~evalkit.scenarios.loader.load_suite`,
    :func:`~evalkit.harness.resume.input_fingerprints`) when there is no such manifest.

    Args:
        config: The run's :class:`~evalkit.harness.config.RunConfig` (paths as the calling
            process sees them).

    Returns:
        ``{"evalkit": version, "suite": sha256 hex of the suite files' bytes, "inputs":
        {name: sha256 hex or None}}`` (names as in ``input_fingerprints``: ``rules``,
        ``policy``, ``model_config``, ``tasks/NAME``).

    Raises:
        ScenarioError, ConfigError: only without a manifest, for a suite or rule set that
            does not load.
    """

    try:
        recorded = json.loads((Path(config.out) / "config.json").read_text(encoding="utf-8-sig"))
    except (OSError, ValueError, TypeError):
        recorded = None
    suite_record = recorded.get("suite") if isinstance(recorded, dict) else None
    suite_hash = suite_record.get("content_hash") if isinstance(suite_record, dict) else None
    inputs = recorded.get("inputs") if isinstance(recorded, dict) else None
    if not isinstance(suite_hash, str) or not isinstance(inputs, dict):
        suite = _load_selection(config)
        suite_hash, inputs = suite.content_hash, input_fingerprints(config, suite)
    return {"evalkit": __version__, "suite": suite_hash, "inputs": dict(inputs)}


def _load_selection(config: Any) -> Any:
    """The run's selected suite (:class:`~evalkit.scenarios.loader.Suite`), loaded as
    :func:`evalkit.harness.run.execute_run` loads it."""
    tasks_dir = Path(config.tasks_dir) if config.tasks_dir else None
    return config.select(load_suite(config.suites, tasks_dir=tasks_dir))


def _where() -> str:
    """This worker's address (``tcp://HOST:PORT``), or the host name outside a Dask worker."""
    try:
        from distributed import get_worker

        return f"worker {get_worker().address}"
    except (ImportError, ValueError):
        import socket

        return f"worker on {socket.gethostname()}"


def check_worker_inputs(expected: dict[str, Any], seen: dict[str, Any], config: Any) -> None:
    """Fail when a worker's view of the run's content differs from the calling process's.

    Args:
        expected: :func:`run_identity` of the calling process.
        seen: The same fields as this worker reads them.
        config: The run configuration (its suite paths name the files in the message).

    Raises:
        WorkerInputsError: one line naming the worker, each field that differs (``evalkit``,
            ``suite``, ``rules``, ``policy``, ``model_config``, ``tasks/NAME``) with the
            first 12 hex digits of both hashes, and what workers need.
    """
    def short(value: Any) -> str:
        return value[:12] if isinstance(value, str) else "unreadable"

    problems = []
    if seen["evalkit"] != expected["evalkit"]:
        problems.append(f"evalkit {seen['evalkit']} is installed (the run uses {expected['evalkit']})")
    if seen["suite"] != expected["suite"]:
        problems.append(f"suite {', '.join(map(str, config.suites)) or 'scenarios/ (built-in)'} has content hash "
                        f"{short(seen['suite'])} (the run's is {short(expected['suite'])})")
    names = sorted(set(seen["inputs"]) | set(expected["inputs"]))
    for name in names:
        here, there = seen["inputs"].get(name), expected["inputs"].get(name)
        if here != there:
            problems.append(f"{name} has sha256 {short(here)} (the run's is {short(there)})")
    if problems:
        raise WorkerInputsError(f"{_where()} reads other files than the calling process at the run's paths: "
                                f"{'; '.join(problems)}; {WORKERS_NEED}")


def _forget_stale_domains(config: Any, expected: dict[str, Any]) -> None:
    """Drop from this process's domain cache each task domain the run uses whose module was
    not imported by this module at the run's sha256 (``expected["inputs"]["tasks/NAME"]``), so
    that an edited ``domain.py`` is imported again instead of served from an earlier run.

    :mod:`evalkit.scenarios.domains` caches imported domains per process by path; a Dask
    worker outlives runs, so its cache has to follow the content the run names.
    """
    tasks_dir = Path(config.tasks_dir) if config.tasks_dir else None
    for name, digest in expected["inputs"].items():
        if not name.startswith("tasks/"):
            continue
        path = domains.domain_path(name[len("tasks/"):], tasks_dir).resolve()
        if path in domains._CACHE and _DOMAIN_SHA.get(str(path), "") != digest:
            stale = domains._CACHE.pop(path)
            for key in [k for k, v in domains._BY_NAME.items() if v is stale]:
                del domains._BY_NAME[key]
            _DOMAIN_SHA.pop(str(path), None)


@lru_cache(maxsize=4)
def _worker_context(config_json: str, identity_json: str) -> tuple[RunPlan, dict[str, Any], Any]:
    """The plan (positions computed from keys), the models and the limits of a run, built
    once per worker process and per content identity (:func:`run_identity`).

    Args:
        config_json: The run configuration with resolved paths.
        identity_json: :func:`run_identity` of the calling process, as sorted JSON.

    Raises:
        WorkerInputsError: when the suite, rule set, policy, model config or task code this
            worker reads (or its evalkit version) differs from ``identity_json``
            (:func:`check_worker_inputs`), or does not load here (a missing or invalid file
            the calling process loaded).
    """
    from evalkit.harness.run import build_plan

    config = RunConfig.model_validate_json(config_json)
    expected = json.loads(identity_json)
    if __version__ != expected["evalkit"]:  # other code: read nothing with it
        check_worker_inputs(expected, {**expected, "evalkit": __version__}, config)
    tasks_dir = Path(config.tasks_dir) if config.tasks_dir else None
    try:
        _forget_stale_domains(config, expected)
        suite = _load_selection(config)
        seen = {"evalkit": __version__, "suite": suite.content_hash,
                "inputs": input_fingerprints(config, suite)}
        check_worker_inputs(expected, seen, config)
        plan = build_plan(suite, config)
    except WorkerInputsError:
        raise
    except EvalkitError as exc:  # the calling process loaded these files: this worker reads others
        raise WorkerInputsError(f"{_where()} cannot load the run's inputs, which the calling process loaded: "
                                f"{exc}; {WORKERS_NEED}") from None

    for name, digest in seen["inputs"].items():  # the domains just imported (or kept) hold this code
        if name.startswith("tasks/"):
            _DOMAIN_SHA[str(domain_path(name[len("tasks/"):], tasks_dir).resolve())] = digest
    options = config.model_options()
    models = {spec: get_model(spec, options) for spec in config.models}
    return plan, models, config.limits()
