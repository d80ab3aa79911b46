"""Running a plan of episodes and writing the run directory.

A run is one :class:`RunConfig`: suites × models × conditions × epochs. :func:`run` loads
and checks the suite, builds the plan (every pair's two variants for every model,
condition and epoch), executes each episode through the reference runtime, scores it,
writes its trace and result as soon as it finishes, and at the end writes the results
table, the summary and the report.
"""

from __future__ import annotations

import datetime as _dt
import sys
from pathlib import Path
from typing import Any, Callable

from pydantic import BaseModel, ConfigDict, Field, field_validator

import evalkit
from evalkit.conditions.registry import CONDITIONS, get_condition
from evalkit.errors import ConfigError
from evalkit.harness.episode import EpisodeSpec, execute
from evalkit.harness.store import RunStore
from evalkit.metrics.aggregate import summarize
from evalkit.metrics.scoring import score_episode
from evalkit.models.registry import DEFAULT_MODELS, get_model
from evalkit.runtime.controller import Limits
from evalkit.scenarios.domains import load_domain
from evalkit.scenarios.loader import Suite, load_suite

DEFAULT_OUT = "reports/latest"


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
    """

    model_config = ConfigDict(extra="forbid")

    suites: list[str] = Field(default_factory=list)
    tasks_dir: str | None = None
    models: list[str] = Field(default_factory=lambda: list(DEFAULT_MODELS))
    conditions: list[str] = Field(default_factory=lambda: list(CONDITIONS))
    pair_ids: list[str] = Field(default_factory=list)
    limit: int | None = Field(default=None, ge=1)
    epochs: int = Field(default=1, ge=1)
    out: str = DEFAULT_OUT
    max_turns: int = Field(default=12, ge=1)
    max_tool_calls: int = Field(default=20, ge=1)
    context_budget: int = Field(default=16_000, ge=256)
    max_lag: int = Field(default=1, ge=0)
    report: bool = True

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


def build_plan(suite: Suite, config: RunConfig) -> list[EpisodeSpec]:
    """Every episode of the run, in execution order (pair, variant, model, condition, epoch)."""
    plan = []
    for pair in suite.pairs:
        domain = load_domain(pair.domain, Path(config.tasks_dir) if config.tasks_dir else None)
        for epoch in range(1, config.epochs + 1):
            for model in config.models:
                for condition in config.conditions:
                    for variant in ("act", "abstain"):
                        plan.append(EpisodeSpec(pair, variant, model, condition, epoch, "off", domain))
    return plan


def manifest(config: RunConfig, suite: Suite) -> dict[str, Any]:
    """The run manifest written to ``config.json``."""
    from evalkit.conditions.classifier import CLASSIFIER_VERSION

    return {
        "evalkit_version": evalkit.__version__,
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "config": config.model_dump(),
        "suite": {"content_hash": suite.content_hash, "n_pairs": len(suite.pairs),
                  "files": sorted(set(suite.sources.values()))},
        "conditions": {
            name: {"description": get_condition(name).description,
                   "prompt_sha256": get_condition(name).prompt_sha256}
            for name in config.conditions
        },
        "classifier_version": CLASSIFIER_VERSION,
        "python": sys.version.split()[0],
    }


def run(config: RunConfig, *, progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Execute ``config`` and write its run directory.

    Args:
        config: The run configuration.
        progress: Optional callback ``progress(done, total)`` after each episode.

    Returns:
        The summary (as written to ``summary.json``).

    Raises:
        ScenarioError: for an invalid suite; ConfigError: for an unknown model or condition.
    """
    tasks_dir = Path(config.tasks_dir) if config.tasks_dir else None
    suite = load_suite(config.suites, tasks_dir=tasks_dir).select(pair_ids=config.pair_ids, limit=config.limit)
    if not suite.pairs:
        raise ConfigError("the selection holds no pairs")
    models = {spec: get_model(spec) for spec in config.models}
    plan = build_plan(suite, config)
    limits = config.limits()
    store = RunStore(config.out)
    store.root.mkdir(parents=True, exist_ok=True)
    if (store.root / "results.jsonl").exists():
        print(f"evalkit: replacing the earlier run in {store.root}", file=sys.stderr)
    store.reset()
    store.write_json("config.json", manifest(config, suite))
    store.open()
    rows: list[dict[str, Any]] = []
    try:
        for done, spec in enumerate(plan, 1):
            result = execute(spec, models[spec.model], limits)
            store.write_trace(spec.episode_id, result.log.to_jsonl())
            row = score_episode(spec, result.log, result.state, result.error, max_lag=config.max_lag)
            store.append_result(row)
            rows.append(row)
            if progress is not None:
                progress(done, len(plan))
    finally:
        store.close()
    return finish(store, [s.key for s in plan], rows, config)


def finish(store: RunStore, plan_keys: list[tuple], rows: list[dict[str, Any]], config: RunConfig) -> dict[str, Any]:
    """Write the results table, summary and report of a run directory."""
    store.write_parquet(rows)
    summary = {
        "evalkit_version": evalkit.__version__,
        "n_episodes_planned": len(plan_keys),
        "n_episodes_completed": len(rows),
        "rows": summarize(plan_keys, rows),
    }
    store.write_json("summary.json", summary)
    if config.report:
        from evalkit.report.html import render_report

        render_report(Path(store.root))
    return summary
