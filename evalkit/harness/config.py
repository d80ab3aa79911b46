"""The run configuration: :class:`RunConfig` and what is derived from it.

:class:`RunConfig` holds everything that defines a run (the CLI flags map onto it one to
one) with its validators. :func:`runtime_setup` loads its rule set and policy once;
:func:`config_sha256` is its fingerprint, recorded in ``config.json``; :func:`load_config`
reads it back from a run directory for a resumed run, with its relative paths resolved
against the folder the run started in (:func:`resolved_paths`).

A run's episodes are executed by :func:`evalkit.harness.run.execute_run` (a whole run by
:func:`evalkit.pipeline.run`); :mod:`evalkit.harness.run` re-exports :class:`RunConfig`,
:func:`runtime_setup` and :func:`load_config`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from evalkit.conditions.registry import DEFAULT_CONDITIONS, get_condition
from evalkit.errors import ConfigError
from evalkit.harness.episode import RuntimeSetup
from evalkit.models.config import check_base_url, ModelOptions
from evalkit.models.registry import DEFAULT_MODELS
from evalkit.runtime.controller import Limits
from evalkit.runtime.followup import DEFAULT_MAX_TURNS
from evalkit.rules import load_rule_set
from evalkit.runtime.policy import load_policy

DEFAULT_OUT = "reports/latest"
MAX_EPOCHS = 1000
"""Most repetitions of every episode a run may ask for."""


class RunConfig(BaseModel):
    """Everything that defines a run; the CLI flags map onto it one to one.

    Attributes:
        suites: Suite files or folders (empty: the built-in ``scenarios/``).
        tasks_dir: Folder of task domains (default: the built-in ``tasks/``).
        models: Model specs (default: the scripted reference models).
        conditions: Conditions to run (default: all three).
        pair_ids: Only these pairs (empty: all).
        limit: Only the first N pairs in file order (after ``pair_ids``).
        sample: Only a sample of N pairs stratified by trigger × domain × split (after
            ``pair_ids``; not with ``limit``), drawn with ``seed`` (0 when ``None``):
            :mod:`evalkit.scenarios.sample`.
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
            :mod:`evalkit.models.config`). ``seed`` is the run's seed: it also draws ``sample``.
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
        agent_timeout: Wall-clock limit of one agent episode, in seconds (``agent/`` models,
            :mod:`evalkit.agents`); an agent still running then is killed and the episode
            is an error.
        agent_max_calls: Tool calls one agent episode may make (the agent's turn limit: one
            MCP tool call is one turn); the episode ends ``loop_limit`` at the limit.
        judges: Live model specs of an LLM-judge panel that reads every final text
            (:mod:`evalkit.conditions.judge.panel`); empty: the classifier alone.
        user: The simulated user's persona on sides with a follow-up: ``cooperative``
            answers the agent's question, ``unhelpful`` declines (:mod:`evalkit.runtime.followup`).
        followup_max_turns: Turns allowed after the simulated user's answer.
    """

    model_config = ConfigDict(extra="forbid")

    suites: list[str] = Field(default_factory=list)
    tasks_dir: str | None = None
    models: list[str] = Field(default_factory=lambda: list(DEFAULT_MODELS))
    conditions: list[str] = Field(default_factory=lambda: list(DEFAULT_CONDITIONS))
    pair_ids: list[str] = Field(default_factory=list)
    limit: int | None = Field(default=None, ge=1)
    sample: int | None = Field(default=None, ge=1)
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
    gates: list[Literal["off", "on"]] = Field(default_factory=lambda: list[Literal["off", "on"]](["off"]))
    rules: str | None = None
    rules_in_context: bool = False
    policy: str | None = None
    selfcheck: bool = True
    executor: Literal["local", "dask"] = "local"
    scheduler_address: str | None = None
    user: Literal["cooperative", "unhelpful"] = "cooperative"
    followup_max_turns: int = Field(default=DEFAULT_MAX_TURNS, ge=1, le=100)
    judges: list[str] = Field(default_factory=list)
    agent_timeout: float = Field(default=300.0, gt=0, le=86_400, allow_inf_nan=False)
    agent_max_calls: int = Field(default=50, ge=1, le=10_000)

    @model_validator(mode="after")
    def _agents_run_locally(self) -> "RunConfig":
        if self.executor == "dask" and any(m.startswith("agent/") for m in self.models):
            raise ValueError("agents (agent/...) run with the local executor only: their MCP servers bind 127.0.0.1")
        return self

    @model_validator(mode="after")
    def _one_selection(self) -> "RunConfig":
        if self.sample is not None and self.limit is not None:
            raise ConfigError("--sample and --limit both choose how many pairs run: give one (--limit N takes the "
                              "first N in file order, --sample N a sample stratified by trigger x domain x split)")
        return self

    def select(self, suite: Any) -> Any:
        """The pairs of ``suite`` this run covers: ``pair_ids``, then ``limit`` or ``sample``
        (:meth:`evalkit.scenarios.loader.Suite.select`)."""
        return suite.select(pair_ids=self.pair_ids, limit=self.limit, sample=self.sample, seed=self.seed or 0)

    @field_validator("base_url")
    @classmethod
    def _base_url(cls, value: str | None) -> str | None:
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
    rules = load_rule_set(config.rules) if config.rules else None
    if config.rules_in_context and rules is None:
        raise ConfigError("--rules-in-context needs a rule set (--rules FILE)")
    policy = load_policy(config.policy) if config.policy else None
    return RuntimeSetup(rules=rules, rules_in_context=config.rules_in_context, policy=policy, user=config.user,
                        followup_max_turns=config.followup_max_turns)


ADDED_FIELDS = ("sample", "judges", "agent_timeout", "agent_max_calls", "user", "followup_max_turns")
"""Run options added after the first manifests were written: each is left out of
:func:`config_sha256` while it has its default value, so a run directory written before it
existed still resumes (its recorded ``config_sha256`` still matches)."""


def config_sha256(config: RunConfig) -> str:
    """sha256 of a run's configuration without its ``out`` (where the run directory is may
    change; what the run is may not) and without the :data:`ADDED_FIELDS` at their defaults,
    as recorded in ``config.json`` (``config_sha256``)."""
    import hashlib

    data = config.model_dump(exclude={"out"})
    for name in ADDED_FIELDS:  # at its default, a field added later leaves the hash as it was before it existed
        if name in data and data[name] == RunConfig.model_fields[name].get_default(call_default_factory=True):
            del data[name]
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
