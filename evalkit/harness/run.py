"""Planning and executing the episodes of a run, recording each in the run directory.

A run is one :class:`~evalkit.harness.config.RunConfig`: suites × models × conditions ×
epochs. :func:`execute_run` loads and checks the suite, builds the plan (every pair's two
variants for every model, condition and epoch), executes each episode through the reference
runtime, scores it and writes its trace and result as soon as it finishes. Finishing the run
(the results table, the summary and the report) is :func:`evalkit.pipeline.finish`, above the
metrics and the report; :func:`evalkit.pipeline.run` does both.

An interrupted run is continued with ``resume=True`` (:func:`evalkit.pipeline.resume_run`,
``evalkit run --resume DIR``): the configuration comes from ``DIR/config.json``, the plan is
rebuilt, the episodes whose last record finished ok are skipped (:func:`pending`), and the
others run and are appended. Every plan key (pair, variant, model, condition, gate, epoch) is
unique (:func:`check_unique_keys`), so the run ends with exactly one record per planned episode.

This module holds :func:`build_plan`, :func:`execute_run` and :func:`check_prices`; the
manifest written to ``config.json`` is :mod:`evalkit.harness.manifest`. The configuration (``RunConfig``, ``runtime_setup``, ``load_config``) is in
:mod:`evalkit.harness.config`, the resume checks (``prepare_resume``, ``check_inputs``, ``check_plugins``) in
:mod:`evalkit.harness.resume` and the plan (``pending``, ``check_unique_keys``) in
:mod:`evalkit.harness.plan`; ``RunConfig``, ``runtime_setup``, ``load_config``,
``prepare_resume``, ``pending`` and ``check_unique_keys`` are re-exported here.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalkit.conditions.judge.panel import Panel
from evalkit.conditions.registry import check_tool_names, get_condition
from evalkit.errors import ConfigError, RunError
from evalkit.harness.config import RunConfig, load_config, runtime_setup  # noqa: F401 - re-exported
from evalkit.harness.dask_executor import execute_plan_dask
from evalkit.harness.episode import EpisodeSpec, RuntimeSetup
from evalkit.harness.executor import Progress, crashed_run, execute_plan
from evalkit.harness.manifest import manifest
from evalkit.harness.plan import PlanKeys, RunPlan, check_unique_keys, pending  # noqa: F401 - re-exported
from evalkit.harness.resume import check_inputs, check_plugins, check_sample, prepare_resume
from evalkit.harness.run_dir import check_out_dir
from evalkit.harness.selfcheck import oracle_selfcheck
from evalkit.harness.store import RunStore
from evalkit.metrics.scoring import score_episode
from evalkit.models.config import load_model_config
from evalkit.models.entries import unused_entries
from evalkit.models.pricing import find_price
from evalkit.models.registry import get_model, get_provider
from evalkit.plugins import load_all
from evalkit.scenarios.domains import load_domain
from evalkit.scenarios.loader import Suite, load_suite
from evalkit.scenarios.schema import Pair

MAX_PLAN = 1_000_000
"""Most episodes one run may plan (pairs × variants × models × conditions × gates × epochs)."""


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


@dataclass
class ExecutedRun:
    """A run whose episodes are all executed and recorded: what finishing it needs
    (:func:`evalkit.pipeline.finish`).

    Attributes:
        store: The run directory (``results.jsonl`` and the traces written).
        plan_keys: Keys of every planned episode, in run order.
        pairs: The pairs that ran (after the self-check's exclusions).
        lock: The run directory's lock (:meth:`~evalkit.harness.store.RunStore.lock`), held
            until the caller closes it after finishing the run.
    """

    store: RunStore
    plan_keys: PlanKeys
    pairs: tuple[Pair, ...]
    lock: Any


def execute_run(
    config: RunConfig, *, progress: Progress | None = None, resume: bool = False
) -> ExecutedRun:
    """Execute the episodes of ``config`` and record them in its run directory.

    Writes ``config.json`` (:func:`~evalkit.harness.manifest.manifest`), ``selfcheck.json``, ``results.jsonl`` and the
    traces; the results table, summary and report are written by
    :func:`evalkit.pipeline.finish` (:func:`evalkit.pipeline.run` does both).

    Args:
        config: The run configuration.
        progress: Optional callback ``progress(done, total, row)`` after each episode
            (:class:`evalkit.harness.executor.ProgressBar` draws a bar).
            Episodes run concurrently, ``max_connections`` per live model, and finish in any order.
        resume: Continue the run already in ``config.out`` instead of replacing it.

    Returns:
        The executed run (:class:`ExecutedRun`), its lock held.

    Raises:
        ScenarioError: for an invalid suite; ConfigError: for an unknown model, judge
        (:meth:`~evalkit.conditions.judge.panel.Panel.make_models`; both before the suite is read,
        closing the models already made) or condition, or plugins that cannot be loaded
        (:func:`evalkit.plugins.load_all`);
        RunError: when ``config.out`` cannot take a new run (:func:`~evalkit.harness.run_dir.check_out_dir`).
    """
    load_all()  # a plugin that cannot be imported stops the run here, before planning (evalkit.plugins)
    earlier = None if resume else check_out_dir(config.out)  # never write into a folder of other files
    setup = runtime_setup(config)  # a bad rule set or policy fails before any work
    if config.model_config_file:  # so does a bad model config file, even when only scripted models run
        load_model_config(config.model_config_file)
    options = config.model_options()
    # so does a misspelt model spec (provider, scripted policy, settings), before the suite is read and
    # self-checked; a built-in model starts nothing here (a live model connects, a local server starts
    # and an agent's process runs at its first episode)
    models: dict[str, Any] = {}
    try:
        for spec in config.models:
            models[spec] = get_model(spec, options)
    except BaseException:  # a bad later spec closes the models already made (a started local server stops)
        _close_models(models, None)
        raise
    for model in models.values():  # an agent takes the run's agent limits (evalkit.agents)
        if hasattr(model, "bind_run"):
            model.bind_run(config)
    panel = None
    lock = None
    try:  # a failure while preparing closes what the run opened (models, judges, the lock) before it is raised
        if config.judges:  # a malformed or unknown judge spec, or a judge's missing key, fails as early as a model
            panel = Panel.from_specs(config.judges, options)
            panel.make_models()
        unused = unused_tool_choice(config.tool_choice, models)
        if unused:  # every model scripted (or an agent): the option would be silently ignored
            print(f"evalkit: warning: {unused}", file=sys.stderr)
        if config.rules and "on" not in config.gates and not config.rules_in_context:
            print(f"evalkit: warning: --rules {config.rules} has no effect in this run: the rule set acts through the "
                  "autonomy gate (--gate on) or the model's prompt (--rules-in-context), and every episode runs with "
                  "--gate off", file=sys.stderr)
        tasks_dir = Path(config.tasks_dir) if config.tasks_dir else None
        suite = config.select(load_suite(config.suites, tasks_dir=tasks_dir))
        if not suite.pairs:
            raise ConfigError("the selection holds no pairs")
        domain_tools: dict[str, set[str]] = {}  # domain -> its task tools
        schemas: dict[str, dict[str, Any]] = {}  # every tool of the run -> its parameters (the policy check)
        for domain in sorted({pair.domain for pair in suite.pairs}):  # a meta tool named like a task tool
            tools = load_domain(domain, tasks_dir).tools
            domain_tools[domain] = set(tools)
            schemas.update({name: spec.parameters for name, spec in tools.items()})
            for condition in config.conditions:
                check_tool_names(condition, domain, tools)
        for condition in config.conditions:
            schemas.update({name: spec.parameters for name, spec in get_condition(condition).meta_tools().items()})
        if setup.policy is not None and config.policy:  # a misspelt approvals entry asks approval of nothing
            for line in policy_references(setup.policy, str(config.policy), schemas):
                print(f"evalkit: warning: {line}", file=sys.stderr)
        if resume:
            check_inputs(Path(config.out), config, suite)  # before any work, the self-check included
            check_sample(Path(config.out), config, suite)
            check_plugins(Path(config.out))
        selected = suite  # the selection, before the self-check's exclusions (what `inputs` describes)
        check = None
        if config.selfcheck:  # pairs the oracle cannot pass are excluded, with reasons, never silently
            check = oracle_selfcheck(suite, conditions=config.conditions, gates=config.gates, limits=config.limits(),
                                     setup=setup, tasks_dir=tasks_dir)
            for entry in check.excluded:
                print(f"evalkit: oracle self-check excludes {entry['pair_id']}: {entry['reasons'][0]}", file=sys.stderr)
            suite = suite.without(check.excluded_ids)
            if not suite.pairs:
                raise ConfigError("the oracle self-check excluded every pair of the selection")
        prices = {spec: find_price(spec) for spec in config.models}
        check_prices(models, prices)  # an infinite price would break config.json and every cost
        # a misspelt forced tool, or one every variant hides, would fail every call of the run
        check_tool_choice(models, offered_tools(suite, domain_tools, config.conditions),
                          domains=set().union(*domain_tools.values()))
        for line in tool_choice_gaps(models, suite, domain_tools):  # those calls will fail at the provider
            print(f"evalkit: warning: {line}", file=sys.stderr)
        for line in unused_entries(config.models, config.model_config_file):  # a misspelt key applies to nothing
            print(f"evalkit: warning: {line}", file=sys.stderr)
        for spec, model in models.items():  # a price set in --model-config wins over the built-in table
            described = model.describe() if hasattr(model, "describe") else None
            if isinstance(described, dict) and isinstance(described.get("price"), dict):
                prices[spec] = described["price"]
        for line in unpriced_money_budget(models, prices, setup.policy, suite):  # a budget that never fires
            print(f"evalkit: warning: {line}", file=sys.stderr)
        plan = build_plan(suite, config, setup)
        limits = config.limits()
        store = RunStore(config.out)
        store.root.mkdir(parents=True, exist_ok=True)
        lock = store.lock()  # one process per run directory; released when this run returns
        if resume:
            completed: bytearray | set[tuple] = prepare_resume(store, config, suite, plan.keys())
            for name in ("summary.json", "report.html", "results.parquet"):
                # the run is unfinished again until finish() (evalkit.pipeline) writes them: an interrupted resume must not
                # leave the earlier numbers looking current (report and gate then point at --resume)
                (store.root / name).unlink(missing_ok=True)
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
    except BaseException:
        _close_models(models, panel)
        if lock is not None:
            lock.close()
        raise

    def write(spec: EpisodeSpec, result: Any) -> dict[str, Any]:
        trace = result.log.to_jsonl()
        row = score_episode(spec, result.log, result.state, result.error, max_lag=config.max_lag,
                            price=prices.get(spec.model), panel=panel)
        return store.record(spec.episode_id, trace, row)  # trace, then row, on the writer thread

    def record(spec: EpisodeSpec, result: Any) -> dict[str, Any]:
        # runs in this thread as each episode finishes, in any order: append at once (resumable)
        try:
            return write(spec, result)
        except OSError:
            raise  # the run directory itself failed (a full disk): not this episode's fault
        except ConfigError:
            raise  # a registered component's bug (a metric value of the wrong type): the same for every episode
        except Exception as exc:  # noqa: BLE001 - a trace or score that fails costs one error row, not the run
            return write(spec, crashed_run(spec, exc, stage="recording"))

    store.open(background=True)
    try:
        if config.executor == "dask":
            execute_plan_dask(todo, config, record, progress=progress, done=len(plan) - len(todo), total=len(plan))
        else:
            execute_plan(todo, models, limits, record, progress=progress, done=len(plan) - len(todo),
                         total=len(plan))
        store.drain()  # every episode written, or the writer's error (a full disk) raised
    except BaseException:
        try:
            store.close()
        except OSError:
            pass  # the first error (e.g. the writer's, naming the file) is the one to report
        raise
    else:
        store.close()
    finally:
        _close_models(models, panel)
    plan_keys = plan.keys()  # a lazy view: the summary needs the keys only
    del plan, todo
    return ExecutedRun(store, plan_keys, suite.pairs, lock)


def _close_models(models: dict[str, Any], panel: Any) -> None:
    """Close the judge panel (when there is one) and every model that can be closed (a local model
    server started for the run stops)."""
    if panel is not None:
        panel.close()
    for model in models.values():
        close = getattr(model, "close", None)
        if close is not None:
            close()


def offered_tools(suite: Suite, domain_tools: dict[str, set[str]], conditions: list[str]) -> dict[str, set[str]]:
    """The tools some episode of each condition is offered: every variant's domain tools less
    its ``hidden_tools`` (the plan runs every variant of every pair under every condition), and
    the condition's meta tools.

    Args:
        suite: The pairs the run plays.
        domain_tools: Domain name -> its task tool names (every domain of ``suite``).
        conditions: The run's condition names.

    Returns:
        Condition name -> tool names.
    """
    task: set[str] = set()
    for pair in suite.pairs:
        for name in pair.variants:
            task |= domain_tools[pair.domain] - set(pair.variant(name).hidden_tools)
    return {c: task | set(get_condition(c).meta_tools()) for c in conditions}


def check_tool_choice(models: dict[str, Any], offered: dict[str, set[str]], *,
                      domains: AbstractSet[str] = frozenset()) -> None:
    """Reject a live model whose ``tool_choice`` names a tool (not ``auto``, ``required`` or
    ``none``) that no episode of one of the run's conditions is offered, before any work starts:
    the provider would refuse every call of that condition. A tool a condition offers in some
    episodes only (a variant may take a tool away) is the experiment's business, and those calls
    fail at the provider with its message.

    Args:
        models: Model objects by spec; a live model's ``settings.tool_choice`` is checked.
        offered: Condition name -> the tools its episodes are offered (:func:`offered_tools`).
        domains: The task tools of the run's domains, hidden or not: a forced tool among them
            that no episode is offered is named as hidden by every variant.

    Raises:
        ConfigError: naming the model, the tool, the condition and the tools it offers.
    """
    for spec, model in models.items():
        choice = getattr(getattr(model, "settings", None), "tool_choice", None)
        if not isinstance(choice, str) or choice in ("auto", "required", "none"):
            continue
        for condition, tools in offered.items():
            if choice not in tools:
                shown = ", ".join(sorted(tools)[:8]) + (", ..." if len(tools) > 8 else "")
                hidden = (": the run's domains have it, but every variant of the run's pairs hides it (hidden_tools)"
                          if choice in domains else "")
                raise ConfigError(f"model {spec}: tool_choice {choice!r} names a tool that no episode of condition "
                                  f"{condition!r} is offered{hidden} (it offers {shown or 'no tools'}); give auto, "
                                  "required, none or one of these tools")


def tool_choice_gaps(models: dict[str, Any], suite: Suite, domain_tools: dict[str, set[str]]) -> list[str]:
    """One line per live model and domain of the run whose episodes are never offered the task tool the
    model's ``tool_choice`` forces, while another domain of the run has it: the provider refuses every
    call of those episodes (:func:`check_tool_choice` refuses a tool no episode is offered).

    Args:
        models: Model objects by spec; a live model's ``settings.tool_choice`` is read.
        suite: The pairs the run plays.
        domain_tools: Domain name -> its task tool names.

    Returns:
        Warning lines naming the model, the tool, the domain and its number of pairs (empty when
        every domain has the tool, or the forced tool is a meta tool).
    """
    pairs: dict[str, int] = {}
    for pair in suite.pairs:
        pairs[pair.domain] = pairs.get(pair.domain, 0) + 1
    lines = []
    for spec, model in models.items():
        choice = getattr(getattr(model, "settings", None), "tool_choice", None)
        if not isinstance(choice, str) or not any(choice in domain_tools[d] for d in pairs):
            continue
        for domain in sorted(d for d in pairs if choice not in domain_tools[d]):
            lines.append(f"model {spec}: tool_choice {choice!r} is not a tool of domain {domain!r}: the episodes of its "
                         f"{pairs[domain]} pair(s) are never offered it, and the provider will refuse their calls")
    return lines


def policy_references(policy: Any, path: str, tools: dict[str, dict[str, Any]]) -> list[str]:
    """What an approvals entry of the run's policy names that no tool of the run has: a ``tool`` that is no
    tool, a ``tool_prefix`` that starts none, an ``args`` name that is no parameter of the tools the entry
    matches. Such an entry applies to no call of the run (a misspelt ``require`` asks approval of nothing), so
    :func:`execute_run` warns before any work, as ``evalkit rules validate`` does for a rule set
    (:func:`evalkit.rules.loader.unknown_references`).

    Args:
        policy: The run's :class:`~evalkit.runtime.policy.RuntimePolicy`.
        path: The policy file (for the message).
        tools: Tool name -> its ``parameters`` JSON schema, over the run's domains and the conditions' meta tools.

    Returns:
        One line per finding, ``policy FILE: approvals.SECTION.I.FIELD 'VALUE' ...``, in file order.
    """
    out: list[str] = []
    for section in ("require", "grant", "user"):
        for i, entry in enumerate(getattr(policy.approvals, section)):
            where = f"policy {path}: approvals.{section}.{i}"
            out += [f"{where}.tool {t!r} is no tool of this run: the entry applies to no call" for t in (entry.tool or ())
                    if t not in tools]
            if entry.tool_prefix is not None and not any(t.startswith(entry.tool_prefix) for t in tools):
                out.append(f"{where}.tool_prefix {entry.tool_prefix!r} starts no tool of this run: the entry applies "
                           "to no call")
            matched = [params for name, params in tools.items() if (entry.tool is None or name in entry.tool)
                       and (entry.tool_prefix is None or name.startswith(entry.tool_prefix))]
            names = {p for params in matched for p in ((params or {}).get("properties") or {})}
            if matched:
                out += [f"{where}.args {a!r} is no parameter of the tools it matches: the entry applies to no call"
                        for a in entry.args if a not in names]
    return out


def unpriced_money_budget(models: dict[str, Any], prices: dict[str, Any], policy: Any, suite: Suite) -> list[str]:
    """Warnings for a money budget (the policy's ``budgets.money``, a pair's or a variant's) in a run with a live
    model that has no price: that model's calls cost nothing the runtime can count, so the budget never stops
    its episodes (their cost is ``null`` in the rows, never 0).

    Returns:
        One line per live model without a price, when some money budget is set; else empty.
    """
    budgeted = policy is not None and policy.budgets.money is not None
    for pair in suite.pairs:
        for holder in (pair, pair.act, pair.abstain, pair.act_resist):
            budgets = getattr(holder, "budgets", None)
            budgeted = budgeted or (budgets is not None and budgets.money is not None)
    if not budgeted:
        return []
    return [f"model {spec}: it has no price, so a money budget never stops its episodes (its cost is unknown, "
            "counted as null); give it a price in --model-config to enforce it"
            for spec, model in models.items()
            if getattr(getattr(model, "settings", None), "provider", None) is not None and not prices.get(spec)]


def unused_tool_choice(tool_choice: str | None, models: dict[str, Any]) -> str | None:
    """The warning for a run given ``--tool-choice`` none of whose models is a live model (every
    one scripted, an agent or of another provider without a client, :attr:`Provider.live
    <evalkit.models.registry.Provider.live>`): only live models send a tool choice to their
    provider (judges are asked without tools), so the option has no effect in the run.

    Args:
        tool_choice: The run's ``--tool-choice`` (``RunConfig.tool_choice``), ``None`` when not given.
        models: Model objects by spec (their providers registered).

    Returns:
        One line naming the option and the run's models, or ``None`` when the option is not given
        or some model is live.
    """
    if tool_choice is None or any(get_provider(spec.partition("/")[0]).live for spec in models):
        return None
    specs = list(models)
    shown = ", ".join(specs[:4]) + (f" and {len(specs) - 4} more" if len(specs) > 4 else "")
    return (f"--tool-choice {tool_choice!r} applies to live models only and has no effect in this run "
            f"(no model of the run is live: {shown})")


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
