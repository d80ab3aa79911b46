"""``evalkit rules eval``: run one plan under two rule sets and diff the metrics (DESIGN §8).

The weekly stopping-rule review asks whether version N of a rule set is better than N-1
on the same scenarios. :func:`evaluate_rules` answers it with two runs of the harness that
differ only in the rule set — same suite selection, models, conditions, epochs, limits,
policy and seeds, the autonomy gate on in both — and a paired comparison of their episodes
(:mod:`evalkit.rules.diff`). The output directory holds::

    OUT/old/              the run under the rule set in use (--against), a normal run directory
    OUT/new/              the run under the candidate rule set (--rules)
    OUT/rules-eval.json   the comparison (every number of the table and the HTML section)
    OUT/rules-eval.html   the comparison as a page (:mod:`evalkit.report.rules_eval`)

The oracle self-check runs once, under the rule set in use, and the pairs it excludes are
left out of both runs (listed in ``rules-eval.json``), so both runs have the same plan: a
candidate that stops good commits shows as a lower act accuracy, never as fewer pairs.

This module runs the harness, so :mod:`evalkit.rules` does not import it.
"""

from __future__ import annotations

import datetime as _dt
import sys
from pathlib import Path
from typing import Any, Callable

from evalkit.errors import ConfigError, RunError
from evalkit.harness.atomic import dump_json, write_atomic
from evalkit.harness.config import RunConfig, runtime_setup
from evalkit.pipeline import run
from evalkit.harness.run_reader import RunReader
from evalkit.rules.diff import changed_episodes, diff_rows, rule_changes, rule_firings
from evalkit.rules.loader import load_rule_set, resolve_rules_path
from evalkit.rules.schema import RuleSet
from evalkit.scenarios.loader import load_suite
from evalkit.harness.selfcheck import oracle_selfcheck
from evalkit.report.rules_eval import render_rules_eval

RESULT_NAME = "rules-eval.json"
PAGE_NAME = "rules-eval.html"


def _say(message: str) -> None:
    print(f"evalkit: {message}", file=sys.stderr)


def plan_selection(config: RunConfig, old_rules: str) -> tuple[list[str], list[dict[str, Any]]]:
    """The pairs both runs use: the config's selection minus those the oracle self-check
    (gate on, under the rule set in use) cannot pass.

    Returns:
        ``(pair_ids, excluded)`` where ``excluded`` holds the self-check's entries.

    Raises:
        ConfigError: for a bad selection, or when every pair is excluded.
    """
    tasks_dir = Path(config.tasks_dir) if config.tasks_dir else None
    suite = config.select(load_suite(config.suites, tasks_dir=tasks_dir))
    if not suite.pairs:
        raise ConfigError("the selection holds no pairs")
    excluded: list[dict[str, Any]] = []
    if config.selfcheck:
        setup = runtime_setup(config.model_copy(update={"rules": old_rules}))
        check = oracle_selfcheck(suite, conditions=config.conditions, gates=("on",), limits=config.limits(),
                                 setup=setup, tasks_dir=tasks_dir)
        excluded = list(check.excluded)
        for entry in excluded:
            _say(f"oracle self-check excludes {entry['pair_id']}: {entry['reasons'][0]}")
        suite = suite.without(check.excluded_ids)
        if not suite.pairs:
            raise ConfigError("the oracle self-check excluded every pair of the selection")
    return [p.id for p in suite.pairs], excluded


def read_rows(run_dir: str | Path) -> list[dict[str, Any]]:
    """The result rows of a run directory (one per episode, the last recorded).

    Raises:
        RunError: when the directory holds no results.
    """
    reader = RunReader(run_dir)
    if not reader.jsonl.is_file():
        raise RunError(f"{reader.root}: no results.jsonl (is this a run directory written by `evalkit run`?)")
    return list(reader.latest().values())


def compare_runs(old_dir: str | Path, new_dir: str | Path, old_rules: RuleSet, new_rules: RuleSet, *,
                 alpha: float = 0.05) -> dict[str, Any]:
    """Compare two run directories of one plan under two rule sets.

    Args:
        old_dir: The run under the rule set in use.
        new_dir: The run under the candidate.
        old_rules: The rule set in use. ``new_rules``: the candidate.
        alpha: Significance level of the McNemar tests.

    Returns:
        ``{"old", "new"`` (each ``{"rules": identity, "label", "run_dir", "changelog"}``),
        ``"alpha", "max_lag", "rule_changes", "rows"`` (:func:`evalkit.rules.diff.diff_rows`),
        ``"firings"`` (:func:`~evalkit.rules.diff.rule_firings`), ``"changed"``
        (:func:`~evalkit.rules.diff.changed_episodes`), ``"regressions"`` and
        ``"improvements"`` (the significant all-trigger rows, worse / better)``}``.

    Raises:
        RunError: when a directory holds no results.
    """
    old_rows, new_rows = read_rows(old_dir), read_rows(new_dir)
    cfg = RunReader(new_dir).config()
    rows = diff_rows(old_rows, new_rows, alpha=alpha, models=cfg.get("models", ()),
                     conditions=cfg.get("conditions", ()))
    max_lag = cfg.get("max_lag", 1)

    def side(rules: RuleSet, run_dir: str | Path) -> dict[str, Any]:
        return {"rules": rules.identity(), "label": rules.label, "run_dir": str(run_dir),
                "changelog": [c.model_dump(mode="json") for c in rules.changelog[:3]]}

    top = [r for r in rows if r["trigger"] == "all" and r["significant"]]
    return {
        "old": side(old_rules, old_dir),
        "new": side(new_rules, new_dir),
        "alpha": alpha,
        "max_lag": max_lag,
        "test": "exact McNemar (two-sided) on the units in both runs",
        "rule_changes": rule_changes(old_rules, new_rules),
        "rows": rows,
        "firings": rule_firings(old_rows, new_rows, [r.id for r in old_rules.rules], [r.id for r in new_rules.rules]),
        "changed": changed_episodes(old_rows, new_rows),
        "regressions": [r for r in top if r["direction"] == "worse"],
        "improvements": [r for r in top if r["direction"] == "better"],
    }


def evaluate_rules(
    new: str | Path,
    against: str | Path,
    config: RunConfig,
    *,
    alpha: float = 0.05,
    run_suite: Callable[..., dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Run ``config``'s plan under ``against`` and under ``new`` and compare the runs.

    Args:
        new: The candidate rule set (file or shipped name).
        against: The rule set in use.
        config: The run options (suites, models, conditions, selection, epochs, limits,
            policy, seeds); ``gates`` and ``rules`` are set here (gate on; each rule set in
            turn) and ``out`` is the output directory of the whole evaluation.
        alpha: Significance level of the McNemar tests.
        run_suite: Runs one config (default :func:`evalkit.pipeline.run`; the CLI
            passes one that draws a progress bar).

    Returns:
        The comparison (:func:`compare_runs`), plus ``"excluded_pairs"``, ``"n_pairs"``,
        ``"created"``, ``"config"`` and ``"files"``; it is also written to
        ``OUT/rules-eval.json`` and rendered to ``OUT/rules-eval.html``.

    Raises:
        ConfigError: for a bad or draft rule set, or a bad selection (before any run).
    """
    old_rules, new_rules = load_rule_set(against), load_rule_set(new)  # drafts are refused here
    old_path, new_path = str(resolve_rules_path(against)), str(resolve_rules_path(new))
    runtime_setup(config.model_copy(update={"rules": new_path}))  # a bad policy fails before any run
    out = Path(config.out)
    pair_ids, excluded = plan_selection(config, old_path)
    base = config.model_copy(update={"gates": ["on"], "selfcheck": False, "pair_ids": pair_ids, "limit": None})
    runner = run_suite or run
    for tag, path, rules in (("old", old_path, old_rules), ("new", new_path, new_rules)):
        _say(f"running {len(pair_ids)} pairs under {rules.label} ({tag}, gate on) into {out / tag}")
        runner(base.model_copy(update={"rules": path, "out": str(out / tag)}))
    result = compare_runs(out / "old", out / "new", old_rules, new_rules, alpha=alpha)
    result.update({
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "n_pairs": len(pair_ids),
        "excluded_pairs": excluded,
        "config": {k: v for k, v in config.model_dump().items()
                   if k in ("suites", "tasks_dir", "models", "conditions", "pair_ids", "limit", "epochs",
                            "max_turns", "max_tool_calls", "max_lag", "rules_in_context", "policy", "seed")},
        "files": {"json": str(out / RESULT_NAME), "html": str(out / PAGE_NAME)},
    })
    write_atomic(out / RESULT_NAME, dump_json(result))
    render_rules_eval(result, out / PAGE_NAME)
    return result
