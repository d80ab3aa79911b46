"""Running a plan of episodes and writing the run directory.

A run is one :class:`RunConfig`: suites × models × conditions × epochs. :func:`run` loads
and checks the suite, builds the plan (every pair's two variants for every model,
condition and epoch), executes each episode through the reference runtime, scores it,
writes its trace and result as soon as it finishes, and at the end writes the results
table, the summary and the report.

An interrupted run is continued with :func:`resume_run` (``evalkit run --resume DIR``): the
configuration comes from ``DIR/config.json``, the plan is rebuilt, the episodes whose
last record finished ok are skipped (:func:`pending`), and the others run and are appended.
Every plan key (pair, variant, model, condition, gate, epoch) is unique
(:func:`check_unique_keys`), so the run ends with exactly one record per planned episode.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import sys
import warnings
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

import evalkit
from evalkit.conditions.registry import CONDITIONS, get_condition
from evalkit.errors import ConfigError, RunError
from evalkit.harness.episode import EpisodeSpec, RuntimeSetup
from evalkit.harness.executor import Progress, crashed_run, execute_plan
from evalkit.harness.plan import PlanKeys, RunPlan, check_unique_keys, pending  # noqa: F401 - re-exported
from evalkit.harness.store import ResultsWarning, RunStore, check_out_dir
from evalkit.metrics.aggregate import pair_attributes, row_key
from evalkit.metrics.scoring import score_episode
from evalkit.models.config import ModelOptions
from evalkit.models.pricing import find_price
from evalkit.models.registry import DEFAULT_MODELS, get_model
from evalkit.runtime.controller import Limits
from evalkit.scenarios.domains import load_domain
from evalkit.scenarios.loader import Suite, load_suite

DEFAULT_OUT = "reports/latest"
MAX_EPOCHS = 1000
"""Most repetitions of every episode a run may ask for."""
MAX_PLAN = 1_000_000
"""Most episodes one run may plan (pairs × variants × models × conditions × gates × epochs)."""


class RunConfig(BaseModel):
    """Everything that defines a run; the CLI flags map onto it one to one.

    Attributes:
        suites: Suite files or folders (empty: the built-in ``scenarios/``).
        tasks_dir: Folder of task domains (default: the built-in ``tasks/``).
        models: Model specs (default: the scripted reference models).
        conditions: Conditions to run (default: all three).
        pair_ids: Only these pairs (empty: all).
        limit: Only the first N pairs (after ``pair_ids``).
        epochs: Repetitions of every episode.
        out: Run directory.
        max_turns: Model responses allowed per episode.
        max_tool_calls: Tool calls allowed per episode.
        context_budget: Token budget of the context builder.
        max_lag: Largest abstention lag that counts as timely.
        report: Whether to render ``report.html``.
        bootstrap_samples: Bootstrap samples per paired comparison.
        bootstrap_seed: Seed of the paired bootstrap.
        base_url, temperature, top_p, max_tokens, seed, tool_choice: Settings of every live
            model (``None``: the model config file's or the provider's;
            :mod:`evalkit.models.config`).
        model_config_file: A model config file (YAML/JSON) with per-model settings and prices.
        cache: Cache live model calls (``None``: each model's setting, on by default).
        max_connections: Episodes of one live model run at once (``None``: its default).
        gates: The autonomy-gate run factor: ``off`` (the model alone) and/or ``on`` (model
            + runtime gate, DESIGN §4); every episode runs once per gate setting.
        rules: Stopping-rule set the gate enforces (a file, or a shipped set's name such
            as ``default``); ``None``: the gate's built-in rules only.
        rules_in_context: Also show the rule set to the model in its system prompt.
        policy: Runtime policy file (budgets, approvals, meta-request authority;
            :mod:`evalkit.runtime.policy`).
        selfcheck: Run the oracle self-check first (:mod:`evalkit.harness.selfcheck`) in the
            run's conditions and gate settings, and exclude from the plan every pair the
            oracle cannot pass; the excluded pairs and their reasons go to
            ``selfcheck.json`` and ``summary.json`` (``excluded_pairs``).
        executor: Where episodes run: ``local`` (threads in this process,
            :mod:`evalkit.harness.executor`) or ``dask`` (Dask distributed,
            :mod:`evalkit.harness.dask_executor`); results are the same.
        scheduler_address: With ``executor: dask``, an existing cluster's scheduler
            (``tcp://HOST:8786``); ``None`` starts a ``LocalCluster`` on 127.0.0.1.
    """

    model_config = ConfigDict(extra="forbid")

    suites: list[str] = Field(default_factory=list)
    tasks_dir: str | None = None
    models: list[str] = Field(default_factory=lambda: list(DEFAULT_MODELS))
    conditions: list[str] = Field(default_factory=lambda: list(CONDITIONS))
    pair_ids: list[str] = Field(default_factory=list)
    limit: int | None = Field(default=None, ge=1)
    epochs: int = Field(default=1, ge=1, le=MAX_EPOCHS)
    out: str = Field(default=DEFAULT_OUT, min_length=1)
    max_turns: int = Field(default=12, ge=1)
    max_tool_calls: int = Field(default=20, ge=1)
    context_budget: int = Field(default=16_000, ge=256)
    max_lag: int = Field(default=1, ge=0)
    report: bool = True
    bootstrap_samples: int = Field(default=2000, ge=100)
    bootstrap_seed: int = 0
    base_url: str | None = None
    temperature: float | None = Field(default=None, ge=0, le=2, allow_inf_nan=False)
    top_p: float | None = Field(default=None, gt=0, le=1, allow_inf_nan=False)
    max_tokens: int | None = Field(default=None, ge=1)
    seed: int | None = None
    tool_choice: str | None = None
    model_config_file: str | None = None
    cache: bool | None = None
    max_connections: int | None = Field(default=None, ge=1, le=256)
    gates: list[Literal["off", "on"]] = Field(default_factory=lambda: ["off"])
    rules: str | None = None
    rules_in_context: bool = False
    policy: str | None = None
    selfcheck: bool = True
    executor: Literal["local", "dask"] = "local"
    scheduler_address: str | None = None

    @field_validator("base_url")
    @classmethod
    def _base_url(cls, value: str | None) -> str | None:
        from evalkit.models.config import check_base_url  # http(s) with a host, else refused up front

        return check_base_url(value)

    @field_validator("scheduler_address")
    @classmethod
    def _scheduler_address(cls, value: str | None) -> str | None:
        if value is None:
            return value
        from urllib.parse import urlsplit

        try:
            parts = urlsplit(value if "://" in value else f"tcp://{value}")
            port = parts.port
        except ValueError as exc:
            raise ValueError(f"not a scheduler address ({exc}); expected tcp://HOST:PORT") from None
        if not parts.hostname or port is None:
            raise ValueError("expected tcp://HOST:PORT, e.g. tcp://127.0.0.1:8786")
        return value

    @field_validator("gates")
    @classmethod
    def _some_gates(cls, value: list[str]) -> list[str]:
        if not value:
            raise ValueError("at least one gate setting (off, on)")
        return list(dict.fromkeys(value))

    @field_validator("conditions")
    @classmethod
    def _known_conditions(cls, value: list[str]) -> list[str]:
        for name in value:
            get_condition(name)
        if not value:
            raise ValueError("at least one condition")
        return list(dict.fromkeys(value))

    @field_validator("models")
    @classmethod
    def _some_models(cls, value: list[str]) -> list[str]:
        if not value:
            raise ValueError("at least one model")
        return list(dict.fromkeys(value))

    def limits(self) -> Limits:
        return Limits(
            max_turns=self.max_turns, max_tool_calls=self.max_tool_calls, context_budget=self.context_budget
        )

    def model_options(self) -> ModelOptions:
        """The live-model settings given for this run (:class:`~evalkit.models.config.ModelOptions`)."""
        return ModelOptions(**self.model_dump(include=set(ModelOptions.model_fields)))


def runtime_setup(config: RunConfig) -> RuntimeSetup:
    """The run's shared runtime options: its rule set and policy, loaded and validated once.

    Raises:
        ConfigError: for a missing or invalid rule-set or policy file.
    """
    from evalkit.rules import load_rule_set
    from evalkit.runtime.policy import load_policy

    rules = load_rule_set(config.rules) if config.rules else None
    if config.rules_in_context and rules is None:
        raise ConfigError("--rules-in-context needs a rule set (--rules FILE)")
    policy = load_policy(config.policy) if config.policy else None
    return RuntimeSetup(rules=rules, rules_in_context=config.rules_in_context, policy=policy)


def build_plan(suite: Suite, config: RunConfig, setup: RuntimeSetup | None = None) -> RunPlan:
    """Every episode of the run, in execution order (pair, epoch, model, condition, gate, variant).

    Each pair contributes the variants it has (:attr:`evalkit.scenarios.schema.Pair.variants`):
    ``act`` and ``abstain``; only ``act`` on a control pair; plus ``act_resist`` on an
    injection pair that has one. Each runs once per gate setting (``config.gates``).

    Returns:
        A :class:`~evalkit.harness.plan.RunPlan`: a sequence of
        :class:`~evalkit.harness.episode.EpisodeSpec` made on demand from the factors (its
        memory does not grow with the number of episodes); ``plan.keys()`` are the keys.

    Raises:
        ConfigError: when the plan would hold more than :data:`MAX_PLAN` episodes (checked
            before any is built), or two episodes share a key or an episode id
            (:func:`~evalkit.harness.plan.check_unique_keys`).
    """
    size = sum(len(p.variants) for p in suite.pairs) * config.epochs * len(config.models) * len(config.conditions) \
        * len(config.gates)
    if size > MAX_PLAN:
        raise ConfigError(f"the run plan would hold {size:,} episodes (at most {MAX_PLAN:,}); "
                          "lower --epochs or select fewer pairs, models or conditions")
    setup = setup if setup is not None else runtime_setup(config)
    tasks_dir = Path(config.tasks_dir) if config.tasks_dir else None
    plan = RunPlan(suite.pairs, [load_domain(pair.domain, tasks_dir) for pair in suite.pairs], epochs=config.epochs,
                   models=config.models, conditions=config.conditions, gates=config.gates, setup=setup)
    check_unique_keys(plan)
    return plan


def prepare_resume(
    store: RunStore, config: RunConfig, suite: Suite, plan_keys: PlanKeys | list[tuple] | None = None
) -> bytearray | set[tuple]:
    """Check that ``store`` holds a run of this suite and return the episodes already done.

    ``results.jsonl`` is rewritten with one record per episode key (the last), without a
    half-written last line, so that new rows can be appended: with ``plan_keys``, in plan
    order, then the rows outside the plan as first seen (:meth:`RunStore.rewrite_results`).

    Args:
        store: The run directory.
        config: The run configuration.
        suite: The selected suite.
        plan_keys: The plan's keys in plan order (``plan.keys()`` of a
            :class:`~evalkit.harness.plan.RunPlan`: indexed by position, no set of keys), or
            ``None`` (every recorded key counts).

    Returns:
        With ``plan_keys``: a bitmap, one byte per plan position, 1 where the episode
        finished ok (:func:`~evalkit.harness.plan.pending` takes it). Without: the keys of
        the episodes that finished ok.

    Raises:
        ConfigError: when the run directory has no manifest or the suite changed since.
    """
    path = store.root / "config.json"
    try:
        old = json.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, ValueError):
        raise ConfigError(f"{path}: missing or unreadable; nothing to resume") from None
    recorded_suite = old.get("suite") if isinstance(old, dict) else None
    old_hash = recorded_suite.get("content_hash") if isinstance(recorded_suite, dict) else None
    if old_hash != suite.content_hash:
        raise ConfigError(f"{store.root}: the suite changed since this run started "
                          f"(hash {str(old_hash)[:12]} then, {suite.content_hash[:12]} now); start a new run")
    if old.get("evalkit_version") != evalkit.__version__:
        warnings.warn(f"{store.root}: started with evalkit {old.get('evalkit_version')}, resumed with "
                      f"{evalkit.__version__}", ResultsWarning, stacklevel=2)
    from evalkit.harness.episode import episode_id

    index = store.scan_results(plan_keys)  # by plan position; keys outside the plan in index.strays
    if plan_keys is not None and index.strays:  # kept in results.jsonl, never counted
        warnings.warn(f"{store.root / 'results.jsonl'}: {len(index.strays)} row(s) are not in this run's plan (e.g. "
                      f"{'/'.join(map(str, next(iter(index.strays))))}); they are kept but not counted",
                      ResultsWarning, stacklevel=2)

    def traced(key: tuple) -> bool:
        # a whole event log: it opens with episode_started and closes with episode_ended
        try:
            with open(store.traces / f"{episode_id(*key)}.jsonl", "rb") as fh:
                first = json.loads(fh.readline(1 << 16))
                size = fh.seek(0, 2)
                fh.seek(max(0, size - (1 << 16)))
                last = json.loads(fh.read().rstrip(b"\n").rsplit(b"\n", 1)[-1])
        except (OSError, ValueError, RecursionError):
            return False
        return (isinstance(first, dict) and first.get("type") == "episode_started"
                and isinstance(last, dict) and last.get("type") == "episode_ended")

    untraced, example = 0, None
    checked = (((key, ref) for _, key, ref in index.planned_items()) if plan_keys is not None
               else list(index.strays.items()))
    for key, ref in checked:
        if ref.ok and not traced(key):  # a row without its event log cannot be replayed or shown: run it again
            index.discard(key)
            untraced += 1
            example = key if example is None else min(example, key)
    if untraced:
        warnings.warn(f"{store.traces}: {untraced} finished episode(s) have no whole trace file (missing, empty "
                      f"or cut; e.g. {'/'.join(map(str, example))}); they run again", ResultsWarning, stacklevel=2)
    store.rewrite_results(index, plan_keys)  # one line per key, a half-written last line gone (and untraced rows)
    if plan_keys is not None:
        return index.ok_bitmap()
    return {k for k, ref in index.items() if ref.ok}


def check_inputs(run_dir: Path, config: RunConfig, suite: Suite) -> None:
    """Refuse to resume ``run_dir`` when an input recorded in its ``config.json`` (``inputs``:
    :func:`input_fingerprints`) changed since the run started; called before any work.

    Raises:
        ConfigError: naming the inputs that changed (or a manifest without ``inputs``).
    """
    try:
        then = json.loads((Path(run_dir) / "config.json").read_text(encoding="utf-8-sig")).get("inputs")
    except (OSError, ValueError, AttributeError):
        then = None
    if not isinstance(then, dict):
        raise ConfigError(f"{Path(run_dir) / 'config.json'}: field inputs is missing: the run's rule set, policy and "
                          "task code cannot be checked; start a new run")
    now = input_fingerprints(config, suite)
    used = {name for name, digest in now.items() if digest is not None}  # an input with no record is changed
    changed = sorted(name for name in set(then) | used if now.get(name) != then.get(name))
    if changed:
        raise ConfigError(f"{run_dir}: {', '.join(changed)} changed since this run started (field inputs of "
                          "config.json); results under the old and the new would be mixed: restore them, or start "
                          "a new run")


def _sha256_file(path: Path) -> str | None:
    """sha256 of a file's bytes, ``None`` when it cannot be read (then it counts as changed)."""
    import hashlib

    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def input_fingerprints(config: RunConfig, suite: Suite) -> dict[str, str | None]:
    """sha256 of every file besides the suite that decides a run's episodes, by name: the
    rule set (``rules``), the policy file (``policy``), the model config file
    (``model_config``) and each task domain's ``domain.py`` the suite uses
    (``tasks/NAME``); ``None`` for one the run does not use. Recorded in ``config.json``
    (``inputs``); :func:`prepare_resume` refuses a run whose inputs changed since it started.

    Raises:
        ConfigError: for a missing or invalid rule set (while resolving a shipped set's name).
    """
    from evalkit.scenarios.domains import domain_path

    tasks_dir = Path(config.tasks_dir) if config.tasks_dir else None
    out: dict[str, str | None] = {
        "rules": runtime_setup(config).rules_identity.get("sha256") if config.rules else None,
        "policy": _sha256_file(Path(config.policy)) if config.policy else None,
        "model_config": _sha256_file(Path(config.model_config_file)) if config.model_config_file else None,
    }
    for name in sorted({p.domain for p in suite.pairs}):
        path = domain_path(name, tasks_dir)
        out[f"tasks/{name}"] = _sha256_file(path)
    return out


def config_sha256(config: RunConfig) -> str:
    """sha256 of a run's configuration without its ``out`` (where the run directory is may
    change; what the run is may not), as recorded in ``config.json`` (``config_sha256``)."""
    import hashlib

    data = config.model_dump(exclude={"out"})
    return hashlib.sha256(json.dumps(data, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def resolved_paths(config: RunConfig, cwd: str) -> RunConfig:
    """``config`` with each relative file path (suites, tasks, model config, rule set,
    policy) resolved against ``cwd``, the working directory the run started in, where that
    path exists; a shipped rule-set name such as ``default`` stays a name."""
    def resolve(value: str | None) -> str | None:
        if value is None or Path(value).expanduser().is_absolute():
            return value
        candidate = Path(cwd) / value
        return str(candidate) if candidate.exists() else value

    return config.model_copy(update={
        "suites": [resolve(s) for s in config.suites], "tasks_dir": resolve(config.tasks_dir),
        "model_config_file": resolve(config.model_config_file), "policy": resolve(config.policy),
        "rules": resolve(config.rules),
    })


def load_config(run_dir: str | Path) -> RunConfig:
    """The :class:`RunConfig` stored in ``run_dir/config.json``, with ``out`` set to ``run_dir``
    and relative paths resolved against the working directory the run started in (when the
    file is there), so a run resumes from any folder.

    Raises:
        ConfigError: when the file is missing, unreadable or not a run manifest, or its
            configuration was edited since the run started (it no longer matches the
            recorded ``config_sha256``: results recorded under the old one would be
            dropped from, or mixed into, the summary).
    """
    from pydantic import ValidationError

    path = Path(run_dir) / "config.json"
    try:
        manifest_data = json.loads(path.read_text(encoding="utf-8-sig"))
    except OSError:
        raise ConfigError(f"{path}: missing or unreadable; nothing to resume") from None
    except ValueError as exc:
        raise ConfigError(f"{path}: not valid JSON ({exc}); nothing to resume") from None
    if not isinstance(manifest_data, dict) or not isinstance(manifest_data.get("config"), dict):
        raise ConfigError(f"{path}: field config: missing or not an object; not a run manifest, nothing to resume")
    data = dict(manifest_data["config"])
    data["out"] = str(run_dir)
    try:
        config = RunConfig(**data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ConfigError(f"{path}: field config.{where}: {first['msg']}; nothing to resume") from None
    except ConfigError as exc:  # a validator's own error (an unknown condition ...)
        raise ConfigError(f"{path}: field config: {exc}; nothing to resume") from None
    recorded = manifest_data.get("config_sha256")
    if recorded != config_sha256(config):
        what = "is missing" if recorded is None else "no longer matches it"
        raise ConfigError(f"{path}: field config_sha256 {what}: the configuration was edited after the run "
                          "started; a resumed run must keep its configuration: restore the file, or start a new "
                          "run with the new settings")
    cwd = manifest_data.get("cwd")
    if cwd is not None and not isinstance(cwd, str):
        raise ConfigError(f"{path}: field cwd: {cwd!r} is not a folder path; nothing to resume")
    return resolved_paths(config, cwd) if isinstance(cwd, str) else config


def resume_run(run_dir: str | Path, *, progress: Progress | None = None) -> dict[str, Any]:
    """Continue the interrupted run in ``run_dir`` (see the module docstring).

    Returns:
        The summary of the whole run.

    Raises:
        ConfigError: when ``run_dir`` holds no run, or its suite changed since.
    """
    return run(load_config(run_dir), progress=progress, resume=True)


def _meta_tools_record(condition: str) -> dict[str, Any]:
    """The meta tools a condition offers, as sent to the model, and their sha256."""
    import hashlib

    definitions = [t.definition() for t in get_condition(condition).meta_tools().values()]
    text = json.dumps(definitions, sort_keys=True, ensure_ascii=False)
    return {"meta_tools": [d["function"]["name"] for d in definitions],
            "meta_tools_sha256": hashlib.sha256(text.encode()).hexdigest()}


def manifest(config: RunConfig, suite: Suite, models: dict[str, Any] | None = None,
             selected: Suite | None = None) -> dict[str, Any]:
    """The run manifest written to ``config.json``.

    Besides the config (as given, with its ``config_sha256``: :func:`load_config` refuses to
    resume an edited one; and the working directory, against which :func:`load_config`
    resolves its relative paths; and the sha256 of its other inputs, :func:`input_fingerprints`)
    it records each condition's prompt and meta-tool definitions (with their sha256) and, for
    live models, their resolved settings (no secrets).
    """
    from evalkit.conditions.classifier import CLASSIFIER_VERSION

    return {
        "evalkit_version": evalkit.__version__,
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "config": config.model_dump(),
        "config_sha256": config_sha256(config),
        "cwd": str(Path.cwd()),  # relative paths of the config are resolved against it on resume
        "inputs": input_fingerprints(config, selected if selected is not None else suite),
        "suite": {"content_hash": suite.content_hash, "n_pairs": len(suite.pairs),
                  "files": sorted(set(suite.sources.values()))},
        "conditions": {
            name: {"description": get_condition(name).description,
                   "prompt_sha256": get_condition(name).prompt_sha256,
                   "prompt": get_condition(name).system_prompt,
                   **_meta_tools_record(name)}
            for name in config.conditions
        },
        "classifier_version": CLASSIFIER_VERSION,
        "rules": runtime_setup(config).rules_identity if config.rules else None,
        "python": sys.version.split()[0],
        "models": {spec: m.describe() for spec, m in (models or {}).items() if hasattr(m, "describe")},
    }


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
        RunError: when ``config.out`` cannot take a new run (:func:`~evalkit.harness.store.check_out_dir`).
    """
    earlier = None if resume else check_out_dir(config.out)  # never write into a folder of other files
    setup = runtime_setup(config)  # a bad rule set or policy fails before any work
    if config.model_config_file:  # so does a bad model config file, even when only scripted models run
        from evalkit.models.config import load_model_config

        load_model_config(config.model_config_file)
    tasks_dir = Path(config.tasks_dir) if config.tasks_dir else None
    suite = load_suite(config.suites, tasks_dir=tasks_dir).select(pair_ids=config.pair_ids, limit=config.limit)
    if not suite.pairs:
        raise ConfigError("the selection holds no pairs")
    if resume:
        check_inputs(Path(config.out), config, suite)  # before any work, the self-check included
    selected = suite  # the selection, before the self-check's exclusions (what `inputs` describes)
    check = None
    if config.selfcheck:  # pairs the oracle cannot pass are excluded, with reasons, never silently
        from evalkit.harness.selfcheck import oracle_selfcheck

        check = oracle_selfcheck(suite, conditions=config.conditions, gates=config.gates, limits=config.limits(),
                                 setup=setup, tasks_dir=tasks_dir)
        for entry in check.excluded:
            print(f"evalkit: oracle self-check excludes {entry['pair_id']}: {entry['reasons'][0]}", file=sys.stderr)
        suite = suite.without(check.excluded_ids)
        if not suite.pairs:
            raise ConfigError("the oracle self-check excluded every pair of the selection")
    options = config.model_options()
    models = {spec: get_model(spec, options) for spec in config.models}
    prices = {spec: find_price(spec) for spec in config.models}
    check_prices(models, prices)  # an infinite price would break config.json and every cost
    plan = build_plan(suite, config, setup)
    limits = config.limits()
    store = RunStore(config.out)
    store.root.mkdir(parents=True, exist_ok=True)
    lock = store.lock()  # one process per run directory; released when this run returns
    if resume:
        completed: bytearray | set[tuple] = prepare_resume(store, config, suite, plan.keys())
    else:
        if earlier is not None and not (store.root / "summary.json").is_file():
            lock.close()
            started = earlier.get("created", "at an unknown time")
            raise RunError(f"{store.root}: holds an unfinished run (started {started}, no summary.json); continue "
                           f"it with `evalkit run --resume {store.root}`, or delete the folder to start again")
        if earlier is not None:
            print(f"evalkit: warning: replacing the earlier run in {store.root} "
                  f"(started {earlier.get('created', 'at an unknown time')})", file=sys.stderr)
        store.reset()
        store.write_json("config.json", manifest(config, suite, models, selected=selected))
        completed = set()
    if check is not None:
        store.write_json("selfcheck.json", check.as_dict())
    todo = pending(plan, completed)
    if resume:
        print(f"evalkit: resuming {store.root}: {len(plan) - len(todo)} of {len(plan)} episodes done, "
              f"{len(todo)} to run", file=sys.stderr)

    def write(spec: EpisodeSpec, result: Any) -> dict[str, Any]:
        trace = result.log.to_jsonl()
        row = score_episode(spec, result.log, result.state, result.error, max_lag=config.max_lag,
                            price=prices.get(spec.model))
        store.record(spec.episode_id, trace, row)  # trace, then row, on the writer thread
        return row

    def record(spec: EpisodeSpec, result: Any) -> dict[str, Any]:
        # runs in this thread as each episode finishes, in any order: append at once (resumable)
        try:
            return write(spec, result)
        except OSError:
            raise  # the run directory itself failed (a full disk): not this episode's fault
        except Exception as exc:  # noqa: BLE001 - a trace or score that fails costs one error row, not the run
            return write(spec, crashed_run(spec, exc, stage="recording"))

    store.open(background=True)
    try:
        if config.executor == "dask":
            from evalkit.harness.dask_executor import execute_plan_dask

            execute_plan_dask(todo, config, record, progress=progress, done=len(plan) - len(todo), total=len(plan))
        else:
            execute_plan(todo, models, limits, record, progress=progress, done=len(plan) - len(todo),
                         total=len(plan))
        store.drain()  # every episode written, or the writer's error (a full disk) raised
    finally:
        store.close()
        for model in models.values():
            close = getattr(model, "close", None)
            if close is not None:
                close()  # stops a local model server started for this run
    plan_keys = plan.keys()  # a lazy view: the summary needs the keys only
    del plan, todo
    try:
        return finish(store, plan_keys, config, pairs=pair_attributes(suite.pairs))
    finally:
        lock.close()


def check_prices(models: dict[str, Any], prices: dict[str, Any]) -> None:
    """Reject a price that is not a finite number (``.inf``, NaN) before any work starts.

    Args:
        models: Model objects by spec; a live model's ``describe()["price"]`` is checked.
        prices: Prices by spec from the price tables (:func:`~evalkit.models.pricing.find_price`).

    Raises:
        ConfigError: naming the model and the price field.
    """
    for spec, model in models.items():
        described = model.describe() if hasattr(model, "describe") else None
        own = described.get("price") if isinstance(described, dict) else None
        for price in (own, prices.get(spec)):
            for name, value in (price or {}).items() if isinstance(price, dict) else ():
                if isinstance(value, float) and not math.isfinite(value):
                    raise ConfigError(f"model {spec}: price {name} is {value}; prices must be finite numbers "
                                      "(USD per million tokens)")


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
    with a planned episode that has no row counted as missing where it falls in the plan.

    Args:
        store: The run directory.
        plan_keys: Keys of every planned episode, in run order.
        config: The run configuration.
        pairs: Pair attributes (:func:`evalkit.metrics.aggregate.pair_attributes`).

    Returns:
        The summary written to ``summary.json``.
    """
    from evalkit.metrics.summary import SummaryBuilder

    refs = store.scan_results(plan_keys)  # by plan position, no dict of the plan's keys
    builder = SummaryBuilder(pairs, max_lag=config.max_lag, bootstrap_samples=config.bootstrap_samples,
                             seed=config.bootstrap_seed)
    planned = iter(plan_keys)
    with store.parquet_writer() as parquet:
        def take(row: dict[str, Any]) -> None:
            # rows come in plan order, then the rows outside the plan (kept, never counted)
            parquet.add(row)
            key = row_key(row)
            for expected in planned:
                if expected == key:
                    builder.add(key, row)
                    return
                builder.add(expected, None)  # planned, no row: missing

        store.rewrite_results(refs, plan_keys, take)
    del refs
    for expected in planned:
        builder.add(expected, None)
    summary = builder.result()
    summary["provider"] = builder.provider()  # calls, cache hits, retries, output faults
    selfcheck = Path(store.root) / "selfcheck.json"
    if selfcheck.is_file():  # pairs the oracle self-check excluded from this run, with reasons
        summary["excluded_pairs"] = json.loads(selfcheck.read_text(encoding="utf-8"))["excluded"]
    store.write_json("summary.json", summary)
    if config.report:
        from evalkit.report.html import render_report

        render_report(Path(store.root))
    return summary
