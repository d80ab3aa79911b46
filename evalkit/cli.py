"""The ``evalkit`` command line.

Commands:
    evalkit run [SUITE...]     run the paired suite and write a run directory + report
    evalkit report DIR         re-render DIR/report.html from a run directory
    evalkit suite validate     check suite files and print pair counts

Errors from bad input (a malformed scenario, an unknown model) print one line naming the
file, pair and field and exit with code 2; ``--debug`` shows the traceback.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

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


def _fail(exc: BaseException) -> None:
    code = getattr(exc, "exit_code", 2)
    if _DEBUG["on"]:
        import traceback

        traceback.print_exception(exc)
    typer.echo(f"evalkit: error: {exc}", err=True)
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
    limit: Annotated[Optional[int], typer.Option(metavar="N", help="Only the first N pairs.", min=1)] = None,
    pair: Annotated[Optional[list[str]], typer.Option("--pair", metavar="ID", help="Only this pair id, repeatable.")] = None,
    out: Annotated[str, typer.Option(metavar="DIR", help="Run directory (an earlier run there is replaced).")] = "reports/latest",
    tasks: Annotated[Optional[str], typer.Option("--tasks", metavar="DIR", help="Folder of task domains (default: built-in tasks/).")] = None,
    epochs: Annotated[int, typer.Option(metavar="N", help="Repetitions of every episode.", min=1)] = 1,
    max_turns: Annotated[int, typer.Option(metavar="N", help="Model responses allowed per episode.", min=1)] = 12,
    max_tool_calls: Annotated[int, typer.Option(metavar="N", help="Tool calls allowed per episode.", min=1)] = 20,
    report: Annotated[bool, typer.Option("--report/--no-report", help="Render report.html.")] = True,
    gate: Annotated[Optional[list[str]], typer.Option("--gate", metavar="on|off", help="Autonomy gate setting, repeatable: off = the model alone, on = model + runtime gate (default: off).", rich_help_panel="Runtime")] = None,
    rules: Annotated[Optional[str], typer.Option("--rules", metavar="FILE", help="Stopping-rule set the gate enforces (a YAML file, or a shipped set's name, e.g. default).", rich_help_panel="Runtime")] = None,
    rules_in_context: Annotated[bool, typer.Option("--rules-in-context", help="Also show the rule set to the model in its system prompt.", rich_help_panel="Runtime")] = False,
    policy: Annotated[Optional[str], typer.Option("--policy", metavar="FILE", help="Runtime policy file: budgets, approvals, meta-request limits.", rich_help_panel="Runtime")] = None,
    selfcheck: Annotated[bool, typer.Option("--selfcheck/--no-selfcheck", help="Run the oracle self-check first and exclude (and list) the pairs it cannot pass.")] = True,
    resume: Annotated[Optional[str], typer.Option("--resume", metavar="DIR", help="Continue the interrupted run in DIR with DIR/config.json's options (other options are ignored).")] = None,
    base_url: Annotated[Optional[str], typer.Option("--base-url", metavar="URL", help="Endpoint of live models, e.g. http://127.0.0.1:8080/v1 (local/ models: use this server instead of starting one).", rich_help_panel="Live models")] = None,
    temperature: Annotated[Optional[float], typer.Option(metavar="T", help="Sampling temperature of live models.", min=0, max=2, rich_help_panel="Live models")] = None,
    top_p: Annotated[Optional[float], typer.Option("--top-p", metavar="P", help="Nucleus sampling of live models.", min=0, max=1, rich_help_panel="Live models")] = None,
    max_tokens: Annotated[Optional[int], typer.Option("--max-tokens", metavar="N", help="Output token cap per call of live models.", min=1, rich_help_panel="Live models")] = None,
    seed: Annotated[Optional[int], typer.Option(metavar="N", help="Sampling seed sent to live models.", rich_help_panel="Live models")] = None,
    tool_choice: Annotated[Optional[str], typer.Option("--tool-choice", metavar="CHOICE", help="auto | required | none | a tool name.", rich_help_panel="Live models")] = None,
    model_config: Annotated[Optional[str], typer.Option("--model-config", metavar="FILE", help="Model config file (YAML/JSON): per-model settings, retries, parsing, prices.", rich_help_panel="Live models")] = None,
    cache: Annotated[Optional[bool], typer.Option("--cache/--no-cache", help="Cache live model calls in SQLite (default: on; $EVALKIT_CACHE_DIR).", rich_help_panel="Live models")] = None,
    max_connections: Annotated[Optional[int], typer.Option("--max-connections", metavar="N", help="Episodes of one live model run at once (default 4; local/ models 1).", min=1, max=256, rich_help_panel="Live models")] = None,
) -> None:
    """Run paired scenarios; write DIR/ (config.json, traces/, results.jsonl, results.parquet, summary.json, report.html)."""
    from pydantic import ValidationError

    from evalkit.harness.run import RunConfig
    from evalkit.harness.run import run as run_suite

    _show_results_warnings()
    if resume is not None:
        from evalkit.harness.run import load_config, resume_run

        try:
            report = load_config(resume).report
            summary = _run_with_progress(lambda _config, **kw: resume_run(resume, **kw), None)
        except EvalkitError as exc:
            _fail(exc)
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
                      policy=policy, selfcheck=selfcheck)
        if gate:
            kwargs["gates"] = gate
        if model:
            kwargs["models"] = model
        if condition:
            kwargs["conditions"] = condition
        try:
            config = RunConfig(**kwargs)
        except ValidationError as exc:
            err = exc.errors()[0]
            raise EvalkitError(f"option {'.'.join(map(str, err['loc']))}: {err['msg']}") from None
        summary = _run_with_progress(run_suite, config)
    except EvalkitError as exc:
        _fail(exc)
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


def _run_with_progress(run_suite, config):
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
    except EvalkitError as exc:
        _fail(exc)
        return
    typer.echo(f"wrote {path}")


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
    except EvalkitError as exc:
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
    except EvalkitError as exc:
        _fail(exc)
        return
    typer.echo(f"wrote {len(pairs)} pairs to {path} ({fmt})")


@suite_app.command("import")
def suite_import(
    source: Annotated[str, typer.Argument(metavar="bfcl|agentdojo", help="Upstream benchmark package to import from.")],
    out: Annotated[str, typer.Option("--out", "-o", metavar="FILE", help="JSONL file to write the kept pairs to.")] = "",
    limit: Annotated[Optional[int], typer.Option(metavar="N", help="Only the first N upstream tasks.", min=1)] = None,
    selfcheck: Annotated[bool, typer.Option("--selfcheck/--no-selfcheck", help="Run the oracle self-check and exclude (and list) broken pairs.")] = True,
) -> None:
    """Import pairs from an installed upstream benchmark (bfcl-eval or agentdojo) into a JSONL suite."""
    from evalkit.scenarios.importers import run_import

    try:
        report = run_import(source, out or f"reports/imported/{source}.jsonl", limit=limit, selfcheck=selfcheck)
    except EvalkitError as exc:
        _fail(exc)
        return
    typer.echo(f"{source}: {report['written']} pairs written to {report['out']}; "
               f"{len(report['skipped'])} upstream tasks skipped, {len(report['excluded'])} pairs excluded by the oracle "
               f"self-check (details: {report['report']})")
    for entry in report["excluded"][:20]:
        typer.echo(f"  excluded {entry['pair_id']}: {entry['reasons'][0]}")


def main() -> None:
    """Console-script entry point."""
    app()


if __name__ == "__main__":
    main()
