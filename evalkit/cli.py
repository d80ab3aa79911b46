"""The ``evalkit`` command line.

Commands:
    evalkit run [SUITE...]     run the paired suite and write a run directory + report
    evalkit report DIR         re-render DIR/report.html from a run directory
    evalkit gate RUN           CI gate: thresholds and baseline regressions; exit 0/1/2
    evalkit suite validate     check suite files and print pair counts
    evalkit rules validate     check stopping-rule sets; rules eval | replay | distill (DESIGN §8)

Errors from bad input (a malformed scenario, an unknown model) print one line naming the
file, pair and field and exit with code 2; ``--debug`` shows the traceback.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from evalkit.cli_errors import ERRORS as _ERRORS
from evalkit.cli_errors import check_text_files as _check_text_files
from evalkit.cli_errors import describe as _describe
from evalkit.cli_errors import option_error as _option_error
from evalkit.cli_errors import resume_hint as _resume_hint
from evalkit.errors import EvalkitError

app = typer.Typer(
    name="evalkit",
    help="Evaluate whether tool-using LLM agents know when not to act.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
suite_app = typer.Typer(help="Inspect and check scenario suites.", no_args_is_help=True)
app.add_typer(suite_app, name="suite")
rules_app = typer.Typer(help="Stopping-rule sets: validate, compare two versions, replay traces, distill drafts.",
                        no_args_is_help=True)
app.add_typer(rules_app, name="rules")

_DEBUG = {"on": False}


def _version(value: bool) -> None:
    if value:
        from evalkit import __version__

        typer.echo(f"evalkit {__version__}")
        raise typer.Exit(0)


@app.callback(context_settings={"help_option_names": ["-h", "--help"]})
def _root(
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks on errors (give it before the command).")] = False,
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")] = False,
) -> None:
    _DEBUG["on"] = debug


def _fail(exc: BaseException, hint: str = "") -> None:
    code = getattr(exc, "exit_code", 2)
    if _DEBUG["on"]:
        import traceback

        traceback.print_exception(exc)
    typer.echo(f"evalkit: error: {_describe(exc)}{hint}", err=True)
    raise typer.Exit(code)


def print_summary(summary: dict) -> None:
    """Print the per model × condition × gate table and the paired comparisons: the same
    numbers as summary.json and report.html (:mod:`evalkit.report.console`)."""
    from evalkit.report.console import print_summary as _print

    _print(summary)


def _show_results_warnings() -> None:
    """Print evalkit's run-directory warnings as one ``evalkit: warning:`` line each."""
    import warnings

    from evalkit.harness.store import ResultsWarning

    default = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None):
        if issubclass(category, ResultsWarning):
            typer.echo(f"evalkit: warning: {message}", err=True)
        else:
            default(message, category, filename, lineno, file, line)

    warnings.showwarning = show


@app.command()
def run(
    suites: Annotated[Optional[list[str]], typer.Argument(metavar="[SUITE]...", help="Suite files or folders (default: built-in scenarios/).")] = None,
    model: Annotated[Optional[list[str]], typer.Option("--model", "-m", metavar="SPEC", help="Model spec, repeatable (default: the scripted models).")] = None,
    condition: Annotated[Optional[list[str]], typer.Option("--condition", "-c", metavar="NAME", help="nl | tool | meta, repeatable (default: all).")] = None,
    limit: Annotated[Optional[int], typer.Option(metavar="N", help="Only the first N pairs.")] = None,
    pair: Annotated[Optional[list[str]], typer.Option("--pair", metavar="ID", help="Only this pair id, repeatable.")] = None,
    out: Annotated[str, typer.Option(metavar="DIR", help="Run directory: a new or empty folder, or an earlier run's (replaced).")] = "reports/latest",
    tasks: Annotated[Optional[str], typer.Option("--tasks", metavar="DIR", help="Folder of task domains (default: built-in tasks/).")] = None,
    epochs: Annotated[int, typer.Option(metavar="N", help="Repetitions of every episode (1 to 1000).")] = 1,
    max_turns: Annotated[int, typer.Option(metavar="N", help="Model responses allowed per episode.")] = 12,
    max_tool_calls: Annotated[int, typer.Option(metavar="N", help="Tool calls allowed per episode.")] = 20,
    report: Annotated[bool, typer.Option("--report/--no-report", help="Render report.html.")] = True,
    gate: Annotated[Optional[list[str]], typer.Option("--gate", metavar="on|off", help="Autonomy gate setting, repeatable: off = the model alone, on = model + runtime gate (default: off).", rich_help_panel="Runtime")] = None,
    rules: Annotated[Optional[str], typer.Option("--rules", metavar="FILE", help="Stopping-rule set the gate enforces (a YAML file, or a shipped set's name, e.g. default).", rich_help_panel="Runtime")] = None,
    rules_in_context: Annotated[bool, typer.Option("--rules-in-context", help="Also show the rule set to the model in its system prompt.", rich_help_panel="Runtime")] = False,
    policy: Annotated[Optional[str], typer.Option("--policy", metavar="FILE", help="Runtime policy file: budgets, approvals, meta-request limits.", rich_help_panel="Runtime")] = None,
    selfcheck: Annotated[bool, typer.Option("--selfcheck/--no-selfcheck", help="Run the oracle self-check first and exclude (and list) the pairs it cannot pass.")] = True,
    resume: Annotated[Optional[str], typer.Option("--resume", metavar="DIR", help="Continue the interrupted run in DIR with DIR/config.json's options (other options are ignored).")] = None,
    base_url: Annotated[Optional[str], typer.Option("--base-url", metavar="URL", help="Endpoint of live models, e.g. http://127.0.0.1:8080/v1 (local/ models: use this server instead of starting one).", rich_help_panel="Live models")] = None,
    temperature: Annotated[Optional[float], typer.Option(metavar="T", help="Sampling temperature of live models (0 to 2).", rich_help_panel="Live models")] = None,
    top_p: Annotated[Optional[float], typer.Option("--top-p", metavar="P", help="Nucleus sampling of live models (above 0, at most 1).", rich_help_panel="Live models")] = None,
    max_tokens: Annotated[Optional[int], typer.Option("--max-tokens", metavar="N", help="Output token cap per call of live models.", rich_help_panel="Live models")] = None,
    seed: Annotated[Optional[int], typer.Option(metavar="N", help="Sampling seed sent to live models.", rich_help_panel="Live models")] = None,
    tool_choice: Annotated[Optional[str], typer.Option("--tool-choice", metavar="CHOICE", help="auto | required | none | a tool name.", rich_help_panel="Live models")] = None,
    model_config: Annotated[Optional[str], typer.Option("--model-config", metavar="FILE", help="Model config file (YAML/JSON): per-model settings, retries, parsing, prices.", rich_help_panel="Live models")] = None,
    cache: Annotated[Optional[bool], typer.Option("--cache/--no-cache", help="Cache live model calls in SQLite (default: on; $EVALKIT_CACHE_DIR).", rich_help_panel="Live models")] = None,
    max_connections: Annotated[Optional[int], typer.Option("--max-connections", metavar="N", help="Episodes of one live model run at once (1 to 256; default 4, local/ models 1).", rich_help_panel="Live models")] = None,
    executor: Annotated[str, typer.Option("--executor", metavar="local|dask", help="Where episodes run: local (this process) or dask (Dask distributed; pip install -e \".\\[dask]\" from a checkout).", rich_help_panel="Scale-out")] = "local",
    scheduler_address: Annotated[Optional[str], typer.Option("--scheduler-address", metavar="ADDR", help="With --executor dask: an existing cluster's scheduler, e.g. tcp://HOST:8786 (default: a LocalCluster on 127.0.0.1).", rich_help_panel="Scale-out")] = None,
) -> None:
    """Run paired scenarios; write DIR/ (config.json, traces/, results.jsonl, results.parquet, summary.json, report.html)."""
    from evalkit.harness.run import run as run_suite

    _show_results_warnings()
    if resume is not None:
        from evalkit.harness.run import load_config, resume_run

        try:
            report = load_config(resume).report
            summary = _run_with_progress(lambda _config, **kw: resume_run(resume, **kw), None)
        except _ERRORS as exc:
            _fail(exc, _resume_hint(exc, resume))
            return
        except KeyboardInterrupt:
            _interrupted(resume)
            return
        print_summary(summary)
        typer.echo(f"resumed {resume}; wrote {Path(resume) / 'summary.json'}"
                   + (f" and {Path(resume) / 'report.html'}" if report else ""))
        return
    try:
        kwargs = dict(suites=suites or [], pair_ids=pair or [], limit=limit, out=out, epochs=epochs, tasks_dir=tasks,
                      max_turns=max_turns, max_tool_calls=max_tool_calls, report=report,
                      base_url=base_url, temperature=temperature, top_p=top_p, max_tokens=max_tokens, seed=seed,
                      tool_choice=tool_choice, model_config_file=model_config, cache=cache,
                      max_connections=max_connections, rules=rules, rules_in_context=rules_in_context,
                      policy=policy, selfcheck=selfcheck, executor=executor, scheduler_address=scheduler_address)
        if gate:
            kwargs["gates"] = gate
        config = _run_config(kwargs, model, condition)
        _check_text_files(policy=policy, model_config=model_config, rules=rules)
        summary = _run_with_progress(run_suite, config)
    except _ERRORS as exc:
        _fail(exc, _resume_hint(exc, out))
        return
    except KeyboardInterrupt:
        _interrupted(out)
        return
    print_summary(summary)
    _print_provider_totals(summary)
    typer.echo(f"wrote {Path(out) / 'summary.json'}" + (f" and {Path(out) / 'report.html'}" if report else ""))


def _print_provider_totals(summary: dict) -> None:
    """One line per live model: calls, cache hits, retries and output faults (summary.json ``provider``)."""
    totals: dict[str, dict[str, int]] = {}
    for row in summary.get("provider", []):
        if row["model_calls"]:
            t = totals.setdefault(row["model"], {})
            for name in ("model_calls", "cache_hits", "retries", "parse_failures", "content_filter"):
                t[name] = t.get(name, 0) + row[name]
    for model, t in totals.items():
        typer.echo(f"{model}: {t['model_calls']} model calls, {t['cache_hits']} cache hits, {t['retries']} retries, "
                   f"{t['parse_failures']} parse failures, {t['content_filter']} content-filter stops")


def _run_config(kwargs: dict, model: list[str] | None, condition: list[str] | None):
    """A :class:`~evalkit.harness.run.RunConfig` from CLI options; bad values → one-line error."""
    from pydantic import ValidationError

    from evalkit.harness.run import RunConfig

    if model:
        kwargs["models"] = model
    if condition:
        kwargs["conditions"] = condition
    try:
        return RunConfig(**kwargs)
    except ValidationError as exc:
        raise _option_error(exc) from None


def _interrupted(out: str) -> None:
    """One line after Ctrl-C or SIGTERM: what is kept and how to continue; exit 130."""
    results = Path(out) / "results.jsonl"
    if results.exists():
        with results.open("rb") as fh:
            done = sum(1 for _ in fh)
        typer.echo(f"evalkit: interrupted; {done} finished episode(s) are kept in {out}: "
                   f"continue with `evalkit run --resume {out}`", err=True)
    else:
        typer.echo("evalkit: interrupted before any episode finished; nothing to resume", err=True)
    _exit_past_blocked_episodes(130)
    raise typer.Exit(130)


def _exit_past_blocked_episodes(code: int) -> None:
    """End the process now with ``code`` when episode threads are still running.

    Called only once the KeyboardInterrupt has passed through ``run()``'s ``finally``, which
    drained the writer and closed the run directory (``RunStore.close()``): every recorded
    episode is on disk, and what the remaining threads would still produce is discarded. Those
    threads are blocked in HTTP calls (a silent or dripping server) that Python cannot cancel,
    and a normal exit joins them (the thread pools' exit hook), so the process would linger
    until each call times out, and a second signal would break into that join with a
    traceback. ``os._exit`` skips the join after stdout and stderr are flushed. Without such
    threads (nothing in flight) the normal exit runs.
    """
    import os
    import threading

    if any(t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.main_thread()):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _sigterm_as_interrupt() -> None:
    """Ctrl-C and SIGTERM stop a run: the first raises KeyboardInterrupt in the main thread
    (``run()``'s ``finally`` then writes the finished episodes and closes the run directory); a
    second, while that is under way, is ignored so that it cannot cut the closing short; a
    third quits at once (exit 130)."""
    import os
    import signal

    received = 0

    def handler(signum, frame):  # noqa: ARG001 - signal handler signature
        nonlocal received
        received += 1
        if received == 1:
            raise KeyboardInterrupt
        if received == 2:
            os.write(2, b"evalkit: stopping; writing the finished episodes (signal again to quit at once)\n")
            return
        os._exit(130)

    signal.signal(signal.SIGTERM, handler)
    signal.signal(signal.SIGINT, handler)


def _run_with_progress(run_suite, config):
    _sigterm_as_interrupt()
    if not sys.stderr.isatty():
        return run_suite(config)
    from evalkit.harness.executor import ProgressBar

    with ProgressBar() as bar:  # episodes done, errors, tokens, cache hits
        return run_suite(config, progress=bar)


@app.command("serve-local")
def serve_local(
    name: Annotated[str, typer.Argument(metavar="NAME", help="Local model to serve.")] = "gemma-3-270m",
    port: Annotated[Optional[int], typer.Option(metavar="PORT", help="TCP port on 127.0.0.1 (default: a free one).", min=1, max=65535)] = None,
    n_threads: Annotated[int, typer.Option("--n-threads", metavar="N", help="CPU threads (1 is faster when the other core is busy).", min=1)] = 2,
) -> None:
    """Serve a local model (llama.cpp, OpenAI-compatible) on 127.0.0.1 until Ctrl+C; needs the live extra."""
    from evalkit.models.config import LocalServerSettings
    from evalkit.models.local import serve_local as serve

    try:
        serve(name, port=port, settings=LocalServerSettings(n_threads=n_threads))
    except EvalkitError as exc:
        _fail(exc)


@app.command()
def report(run_dir: Annotated[Path, typer.Argument(metavar="DIR", help="A run directory written by `evalkit run`.")]) -> None:
    """Re-render RUN_DIR/report.html from the run's files."""
    from evalkit.report.html import render_report

    try:
        path = render_report(run_dir)
    except _ERRORS as exc:
        _fail(exc)
        return
    typer.echo(f"wrote {path}")


@app.command()
def gate(
    run_dir: Annotated[Path, typer.Argument(metavar="RUN", help="The run directory to check (written by `evalkit run`).")],
    config: Annotated[Path, typer.Option("--config", metavar="FILE", help="Gate config: thresholds and regression checks (YAML).")] = Path("gate.yaml"),
    baseline: Annotated[Optional[Path], typer.Option("--baseline", metavar="RUN", help="Baseline run directory (default: the config's regression.baseline).")] = None,
    junit: Annotated[Optional[Path], typer.Option("--junit", metavar="FILE", help="JUnit XML output (default: RUN/gate-junit.xml).")] = None,
    markdown: Annotated[Optional[Path], typer.Option("--markdown", metavar="FILE", help="Markdown summary output, e.g. for $GITHUB_STEP_SUMMARY (default: RUN/gate-summary.md).")] = None,
) -> None:
    """Check RUN against thresholds and a baseline; exit 0 pass, 1 a check failed, 2 bad config or missing data."""
    from evalkit.gate import evaluate_gate, load_gate_config, print_gate, write_junit, write_markdown

    _show_results_warnings()
    try:
        report = evaluate_gate(load_gate_config(config), run_dir, baseline)
        junit_path = write_junit(report, junit or run_dir / "gate-junit.xml")
        markdown_path = write_markdown(report, markdown or run_dir / "gate-summary.md")
    except _ERRORS as exc:
        _fail(exc)
        return
    except Exception as exc:  # noqa: BLE001 - exit 1 means "a check failed": a crash must not look like one
        _fail(exc, f" ({exc.__class__.__name__}: the gate could not run; --debug shows the traceback)")
        return
    print_gate(report)
    typer.echo(f"wrote {junit_path} and {markdown_path}")
    raise typer.Exit(report.exit_code)


@suite_app.command("validate")
def suite_validate(
    paths: Annotated[Optional[list[str]], typer.Argument(metavar="[PATH]...", help="Suite files or folders (default: built-in).")] = None,
    oracle: Annotated[bool, typer.Option("--oracle/--no-oracle", help="Run the oracle self-check (meta condition) and list the pairs it cannot pass.")] = True,
    strict: Annotated[bool, typer.Option("--strict", help="Exit 1 when a library minimum is not met or the oracle excludes a pair.")] = False,
    tasks: Annotated[Optional[str], typer.Option("--tasks", metavar="DIR", help="Folder of task domains (default: the built-in tasks/).")] = None,
) -> None:
    """Check suite files; print the trigger x phase x domain count table, the library minimums and the oracle self-check."""
    from rich.console import Console
    from rich.table import Table

    from evalkit.scenarios.census import check_minimums, count_table
    from evalkit.scenarios.loader import load_suite

    tasks_dir = Path(tasks) if tasks else None
    try:
        suite = load_suite(paths or [], tasks_dir=tasks_dir)
    except _ERRORS as exc:
        _fail(exc)
        return
    console = Console()
    if not console.is_terminal:
        console = Console(width=220)
    header, rows = count_table(suite.pairs)
    table = Table(title="pairs by trigger x phase x domain")
    for i, col in enumerate(header):
        table.add_column(col, justify="left" if i < 2 else "right")
    for row in rows:
        table.add_row(*[str(v) for v in row])
    console.print(table)
    checks = check_minimums(suite.pairs)
    table = Table(title="library minimums")
    for col in ("minimum", "value", "required", "met"):
        table.add_column(col)
    for name, value, required, ok in checks:
        table.add_row(name, value, required, "yes" if ok else "NO")
    console.print(table)
    missed = [c[0] for c in checks if not c[3]]
    excluded: list = []
    if oracle:
        from evalkit.harness.selfcheck import oracle_selfcheck

        check = oracle_selfcheck(suite, tasks_dir=tasks_dir)
        excluded = list(check.excluded)
        typer.echo(f"oracle self-check: {len(check.kept)} pairs kept, {len(excluded)} excluded ({check.episodes} episodes)")
        for entry in excluded:
            typer.echo(f"  excluded {entry['pair_id']} ({entry['source']}):")
            for reason in entry["reasons"]:
                typer.echo(f"    - {reason}")
    typer.echo(f"ok: {len(suite.pairs)} pairs, suite hash {suite.content_hash[:12]}"
               + (f"; minimums not met: {', '.join(missed)}" if missed else "; every library minimum met"))
    if strict and (missed or excluded):
        raise typer.Exit(1)


@suite_app.command("export")
def suite_export(
    paths: Annotated[Optional[list[str]], typer.Argument(metavar="[PATH]...", help="Suite files or folders (default: built-in).")] = None,
    out: Annotated[str, typer.Option("--out", "-o", metavar="PATH", help="Output folder (datasets) or file (parquet, jsonl).")] = "reports/suite",
    fmt: Annotated[str, typer.Option("--format", "-f", metavar="datasets|parquet|jsonl", help="Output format.")] = "datasets",
    split: Annotated[Optional[str], typer.Option("--split", metavar="dev|heldout", help="Only this split.")] = None,
) -> None:
    """Write a suite as a Hugging Face `datasets` dataset (one split per suite split), Parquet or JSONL."""
    from evalkit.scenarios.export import export_suite
    from evalkit.scenarios.loader import load_suite

    try:
        suite = load_suite(paths or [])
        pairs = [p for p in suite.pairs if split is None or p.split == split]
        path = export_suite(pairs, out, fmt)  # type: ignore[arg-type]
    except _ERRORS as exc:
        _fail(exc)
        return
    typer.echo(f"wrote {len(pairs)} pairs to {path} ({fmt})")


@suite_app.command("import")
def suite_import(
    source: Annotated[str, typer.Argument(metavar="bfcl|agentdojo", help="Upstream benchmark package to import from.")],
    out: Annotated[str, typer.Option("--out", "-o", metavar="FILE", help="JSONL file to write the kept pairs to.")] = "",
    limit: Annotated[Optional[int], typer.Option(metavar="N", help="Only the first N upstream tasks (N >= 1).")] = None,
    selfcheck: Annotated[bool, typer.Option("--selfcheck/--no-selfcheck", help="Run the oracle self-check and exclude (and list) broken pairs.")] = True,
) -> None:
    """Import pairs from an installed upstream benchmark (bfcl-eval or agentdojo) into a JSONL suite."""
    from evalkit.scenarios.importers import run_import

    try:
        if limit is not None and limit < 1:
            raise EvalkitError(f"--limit: must be at least 1 (got {limit})")
        report = run_import(source, out or f"reports/imported/{source}.jsonl", limit=limit, selfcheck=selfcheck)
    except _ERRORS as exc:
        _fail(exc)
        return
    typer.echo(f"{source}: {report['written']} pairs written to {report['out']}; "
               f"{len(report['skipped'])} upstream tasks skipped, {len(report['excluded'])} pairs excluded by the oracle "
               f"self-check (details: {report['report']})")
    for entry in report["excluded"][:20]:
        typer.echo(f"  excluded {entry['pair_id']}: {entry['reasons'][0]}")


@rules_app.command("validate")
def rules_validate(
    files: Annotated[list[str], typer.Argument(metavar="FILE...", help="Rule-set files (or shipped names such as default); drafts are checked as drafts.")],
) -> None:
    """Check rule sets against the schema; print id, version and rule count (exit 2 on any error)."""
    from evalkit.rules.draft import DraftRuleSet
    from evalkit.rules.loader import validate_file

    bad = 0
    for name in files:
        try:
            rules = validate_file(name)
        except _ERRORS as exc:
            typer.echo(f"evalkit: error: {_describe(exc)}", err=True)
            bad += 1
            continue
        if isinstance(rules, DraftRuleSet):
            typer.echo(f"{name}: draft {rules.id} version {rules.version}, {len(rules.rules)} rules "
                       "(never active: copy the rules you adopt into a rule set)")
        else:
            typer.echo(f"{name}: ok: {rules.id} version {rules.version}, {len(rules.rules)} rules")
    if bad:
        raise typer.Exit(2)


@rules_app.command("eval")
def rules_eval(
    suites: Annotated[Optional[list[str]], typer.Argument(metavar="[SUITE]...", help="Suite files or folders (default: built-in scenarios/).")] = None,
    rules: Annotated[str, typer.Option("--rules", metavar="NEW", help="The candidate rule set (file or shipped name).")] = ...,
    against: Annotated[str, typer.Option("--against", metavar="OLD", help="The rule set in use (file or shipped name).")] = ...,
    model: Annotated[Optional[list[str]], typer.Option("--model", "-m", metavar="SPEC", help="Model spec, repeatable (default: the scripted models).")] = None,
    condition: Annotated[Optional[list[str]], typer.Option("--condition", "-c", metavar="NAME", help="nl | tool | meta, repeatable (default: all).")] = None,
    limit: Annotated[Optional[int], typer.Option(metavar="N", help="Only the first N pairs.", min=1)] = None,
    pair: Annotated[Optional[list[str]], typer.Option("--pair", metavar="ID", help="Only this pair id, repeatable.")] = None,
    out: Annotated[str, typer.Option(metavar="DIR", help="Output: DIR/old, DIR/new (run directories), DIR/rules-eval.json and .html.")] = "reports/rules-eval",
    tasks: Annotated[Optional[str], typer.Option("--tasks", metavar="DIR", help="Folder of task domains (default: built-in tasks/).")] = None,
    epochs: Annotated[int, typer.Option(metavar="N", help="Repetitions of every episode.", min=1)] = 1,
    rules_in_context: Annotated[bool, typer.Option("--rules-in-context", help="Also show each rule set to the model in its system prompt.")] = False,
    policy: Annotated[Optional[str], typer.Option("--policy", metavar="FILE", help="Runtime policy file (both runs).")] = None,
    seed: Annotated[Optional[int], typer.Option(metavar="N", help="Sampling seed sent to live models (both runs).")] = None,
    model_config: Annotated[Optional[str], typer.Option("--model-config", metavar="FILE", help="Model config file for live models.")] = None,
    selfcheck: Annotated[bool, typer.Option("--selfcheck/--no-selfcheck", help="Leave out of both runs the pairs the oracle cannot pass under OLD.")] = True,
    report: Annotated[bool, typer.Option("--report/--no-report", help="Also render each run's report.html.")] = False,
    alpha: Annotated[float, typer.Option(metavar="A", help="Significance level of the McNemar tests.", min=0.0001, max=0.5)] = 0.05,
    show_all: Annotated[bool, typer.Option("--all", help="Also print per-trigger rows where nothing changed.")] = False,
) -> None:
    """Run the suite under OLD and NEW (gate on, same plan and seeds) and diff the metrics per trigger with paired tests."""
    from evalkit.harness.run import run as run_suite

    _show_results_warnings()
    try:
        kwargs = dict(suites=suites or [], pair_ids=pair or [], limit=limit, out=out, epochs=epochs, tasks_dir=tasks,
                      report=report, rules_in_context=rules_in_context, policy=policy, seed=seed,
                      model_config_file=model_config, selfcheck=selfcheck, gates=["on"])
        config = _run_config(kwargs, model, condition)
        from evalkit.rules.evaluate import evaluate_rules

        result = evaluate_rules(rules, against, config, alpha=alpha,
                                run_suite=lambda cfg: _run_with_progress(run_suite, cfg))
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


@rules_app.command("replay")
def rules_replay(
    traces: Annotated[list[str], typer.Argument(metavar="TRACES...", help="evalkit trace files, run directories or folders, or import-format .jsonl files.")],
    rules: Annotated[str, typer.Option("--rules", metavar="FILE", help="The rule set to replay against (file or shipped name).")] = ...,
    json_out: Annotated[Optional[Path], typer.Option("--json", metavar="FILE", help="Also write the full replay report as JSON.")] = None,
) -> None:
    """Replay recorded traces against a rule set (no model): list every commit a rule would have stopped; exit 1 if any."""
    from evalkit.rules.console import print_replay
    from evalkit.rules.loader import load_rule_set
    from evalkit.rules.replay import load_traces, replay

    try:
        rule_set = load_rule_set(rules)
        report = replay(load_traces(traces), rule_set)
        if json_out is not None:
            from evalkit.harness.store import dump_json, write_atomic

            write_atomic(json_out, dump_json(report))
    except _ERRORS as exc:
        _fail(exc)
        return
    print_replay(report)
    if report["regressions"]:
        raise typer.Exit(1)


@rules_app.command("distill")
def rules_distill(
    run_dir: Annotated[Path, typer.Argument(metavar="RUN", help="A run directory written by `evalkit run`.")],
    out: Annotated[Optional[Path], typer.Option("--out", metavar="DRAFT.yaml", help="Where to write the draft (default: RUN/rules-draft.yaml).")] = None,
) -> None:
    """Propose candidate rules from a run's misaction episodes; write them as a draft rule set with their evidence."""
    from evalkit.rules.console import print_draft
    from evalkit.rules.distill import DRAFT_NAME, distill, write_draft

    try:
        draft = distill(run_dir)
        path = write_draft(draft, out or run_dir / DRAFT_NAME) if draft.rules or draft.rejected else None
    except _ERRORS as exc:
        _fail(exc)
        return
    print_draft(draft, path)


def main() -> None:
    """Console-script entry point."""
    app()


if __name__ == "__main__":
    main()
