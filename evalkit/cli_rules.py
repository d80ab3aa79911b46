"""``evalkit rules``: validate, evaluate, replay and distill stopping-rule sets (DESIGN §8; :mod:`evalkit.cli`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from evalkit.cli_errors import ERRORS as _ERRORS
from evalkit.cli_errors import describe as _describe
from evalkit.cli_errors import fail as _fail
from evalkit.cli_errors import show_results_warnings as _show_results_warnings
from evalkit.cli_help import Command, Group

rules_app = typer.Typer(cls=Group, help="Stopping-rule sets: validate, compare two versions, replay traces, distill drafts.",
                        no_args_is_help=True)


@rules_app.command("validate", cls=Command)
def rules_validate(
    files: Annotated[list[str], typer.Argument(metavar="FILE", help="Rule-set files (or shipped names such as default); drafts are checked as drafts.")],
) -> None:
    """Check rule sets against the schema; print id, version and rule count (exit 2 on any error).

    Warns of a domain, tool, tool prefix or argument name that no built-in domain has."""
    from evalkit.rules.draft import DraftRuleSet
    from evalkit.rules.loader import unknown_references, validate_file

    bad = 0
    for name in files:
        try:
            rules = validate_file(name)
        except _ERRORS as exc:
            typer.echo(f"evalkit: error: {_describe(exc)}", err=True)
            bad += 1
            continue
        for finding in unknown_references(rules):
            typer.echo(f"evalkit: warning: {name}: {finding}: the rule never stops a call on the built-in tasks",
                       err=True)
        if isinstance(rules, DraftRuleSet):
            typer.echo(f"{name}: draft {rules.id} version {rules.version}, {len(rules.rules)} rules "
                       "(never active: copy the rules you adopt into a rule set)")
        else:
            typer.echo(f"{name}: ok: {rules.id} version {rules.version}, {len(rules.rules)} rules")
    if bad:
        raise typer.Exit(2)


@rules_app.command("eval", cls=Command)
def rules_eval(
    suites: Annotated[Optional[list[str]], typer.Argument(metavar="SUITE", help="Suite files or folders (default: built-in scenarios/).")] = None,
    rules: Annotated[str, typer.Option("--rules", metavar="NEW", help="The candidate rule set (file or shipped name).")] = ...,  # type: ignore[assignment]  # typer: required
    against: Annotated[str, typer.Option("--against", metavar="OLD", help="The rule set in use (file or shipped name).")] = ...,  # type: ignore[assignment]  # typer: required
    model: Annotated[Optional[list[str]], typer.Option("--model", "-m", metavar="SPEC", help="Model spec, repeatable (default: the scripted models).")] = None,
    condition: Annotated[Optional[list[str]], typer.Option("--condition", "-c", metavar="NAME", help="nl (natural language only), tool (meta requests as plain tool calls) or meta (typed meta requests under runtime policy), or a registered condition (README: Extending evalkit); repeatable (default: all three).")] = None,
    limit: Annotated[Optional[int], typer.Option(metavar="N", help="Only the first N pairs in file order.")] = None,
    sample: Annotated[Optional[int], typer.Option(metavar="N", help="Only a sample of N pairs stratified by trigger x domain x split, drawn with --seed.")] = None,
    pair: Annotated[Optional[list[str]], typer.Option("--pair", metavar="ID", help="Only this pair id, repeatable.")] = None,
    out: Annotated[str, typer.Option(metavar="DIR", help="Output: DIR/old, DIR/new (run directories), DIR/rules-eval.json and .html.")] = "reports/rules-eval",
    tasks: Annotated[Optional[str], typer.Option("--tasks", metavar="DIR", help="Folder of task domains (default: built-in tasks/).")] = None,
    epochs: Annotated[int, typer.Option(metavar="N", help="Repetitions of every episode.")] = 1,
    rules_in_context: Annotated[bool, typer.Option("--rules-in-context", help="Also show each rule set to the model in its system prompt.")] = False,
    policy: Annotated[Optional[str], typer.Option("--policy", metavar="FILE", help="Runtime policy file (both runs).")] = None,
    seed: Annotated[Optional[int], typer.Option(metavar="N", help="Seed of both runs: draws --sample and is sent to live models.")] = None,
    model_config: Annotated[Optional[str], typer.Option("--model-config", metavar="FILE", help="Model config file for live models.")] = None,
    selfcheck: Annotated[bool, typer.Option("--selfcheck/--no-selfcheck", help="Leave out of both runs the pairs the oracle cannot pass under OLD.")] = True,
    report: Annotated[bool, typer.Option("--report/--no-report", help="Also render each run's report.html.")] = False,
    alpha: Annotated[float, typer.Option(metavar="A", help="Significance level of the McNemar tests.", min=0.0001, max=0.5)] = 0.05,
    show_all: Annotated[bool, typer.Option("--all", help="Also print per-trigger rows where nothing changed.")] = False,
) -> None:
    """Run the suite under OLD and NEW (gate on, same plan and seeds) and diff the metrics per trigger with paired tests."""
    from evalkit import cli as _cli  # the run command's helpers (imported by now: cli imports this module)
    from evalkit.pipeline import run as run_suite

    _show_results_warnings()
    try:
        kwargs = dict(suites=suites or [], pair_ids=pair or [], limit=limit, sample=sample, out=out, epochs=epochs,
                      tasks_dir=tasks, report=report, rules_in_context=rules_in_context, policy=policy, seed=seed,
                      model_config_file=model_config, selfcheck=selfcheck, gates=["on"])
        config = _cli._run_config(kwargs, model, condition)
        from evalkit.rules.evaluate import evaluate_rules

        result = evaluate_rules(rules, against, config, alpha=alpha,
                                run_suite=lambda cfg: _cli._run_with_progress(run_suite, cfg))
    except _ERRORS as exc:
        _fail(exc)
        return
    from evalkit.report.rules_eval import console_tables
    from evalkit.rules.console import print_tables

    print_tables(console_tables(result, show_all=show_all))
    for r in result["regressions"]:
        typer.echo(f"regression: {r['model']} · {r['condition']}: {r['metric']} {r['old']:.3f} -> {r['new']:.3f} "
                   f"(p {r['p_value']:.3g})")
    typer.echo(f"wrote {result['files']['json']} and {result['files']['html']}")


@rules_app.command("replay", cls=Command)
def rules_replay(
    traces: Annotated[list[str], typer.Argument(metavar="TRACES", help="evalkit trace files, run directories or folders, or import-format .jsonl files.")],
    rules: Annotated[str, typer.Option("--rules", metavar="FILE", help="The rule set to replay against (file or shipped name).")],
    json_out: Annotated[Optional[Path], typer.Option("--json", metavar="FILE", help="Also write the full replay report as JSON.")] = None,
) -> None:
    """Replay recorded traces against a rule set (no model): list every commit a rule would have stopped; exit 1 if any."""
    from evalkit.rules.console import print_replay
    from evalkit.rules.loader import load_rule_set
    from evalkit.rules.replay import load_traces, replay

    for path in traces:
        _warn_unfinished(path, "the replay covers the traces recorded so far")
    try:
        rule_set = load_rule_set(rules)
        report = replay(load_traces(traces), rule_set)
        if json_out is not None:
            from evalkit.harness.atomic import dump_json, write_output

            write_output(json_out, dump_json(report))
    except _ERRORS as exc:
        _fail(exc)
        return
    print_replay(report)
    if report["regressions"]:
        raise typer.Exit(1)


@rules_app.command("distill", cls=Command)
def rules_distill(
    run_dir: Annotated[Path, typer.Argument(metavar="RUN", help="A run directory written by `evalkit run`.")],
    out: Annotated[Optional[Path], typer.Option("--out", metavar="DRAFT.yaml", help="Where to write the draft (default: RUN/rules-draft.yaml).")] = None,
) -> None:
    """Propose candidate rules from a run's misaction episodes; write them as a draft rule set with their evidence."""
    from evalkit.rules.console import print_draft
    from evalkit.rules.distill import DRAFT_NAME, distill, write_draft

    _warn_unfinished(run_dir, "the draft is distilled from the episodes recorded so far")
    try:
        draft = distill(run_dir)
        path = write_draft(draft, out or run_dir / DRAFT_NAME) if draft.rules or draft.rejected else None
    except _ERRORS as exc:
        _fail(exc)
        return
    print_draft(draft, path)


def _warn_unfinished(path: str | Path, consequence: str) -> None:
    """One ``evalkit: warning:`` line when ``path`` is a run directory whose run did not finish
    (:func:`evalkit.harness.run_dir.unfinished`): what that means here and the resume command."""
    from evalkit.harness.run_dir import unfinished

    why = unfinished(path)
    if why is not None:
        typer.echo(f"evalkit: warning: {why}; {consequence}", err=True)
