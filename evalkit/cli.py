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


def _format(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def print_summary(summary: dict) -> None:
    """Print the per (model, condition) table: the same numbers as summary.json."""
    from rich.console import Console
    from rich.table import Table

    table = Table(title="evalkit summary", show_lines=False)
    for col in ("model", "condition", "pairs", "paired acc", "act acc", "abstain acc", "post-hoc", "timely", "errors"):
        table.add_column(col, justify="left" if col in ("model", "condition") else "right", no_wrap=True)
    for r in summary["rows"]:
        table.add_row(
            r["model"], r["condition"], str(r["n_pairs"]),
            f"{_format(r['paired_accuracy'])} ({r['paired_accuracy_k']}/{r['paired_accuracy_n']})",
            _format(r["act_accuracy"]), _format(r["abstain_accuracy"]),
            _format(r["post_hoc_rate"]),
            f"{_format(r['timely_rate'])} (n={r['timely_rate_n']})",
            str(r["errors"] + r["missing"]),
        )
    console = Console()
    if not console.is_terminal:
        console = Console(width=160)
    console.print(table)


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
) -> None:
    """Run paired scenarios; write DIR/ (config.json, traces/, results.jsonl, results.parquet, summary.json, report.html)."""
    from pydantic import ValidationError

    from evalkit.harness.run import RunConfig
    from evalkit.harness.run import run as run_suite

    try:
        kwargs = dict(suites=suites or [], pair_ids=pair or [], limit=limit, out=out, epochs=epochs, tasks_dir=tasks,
                      max_turns=max_turns, max_tool_calls=max_tool_calls, report=report)
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
    typer.echo(f"wrote {Path(out) / 'summary.json'}" + (f" and {Path(out) / 'report.html'}" if report else ""))


def _run_with_progress(run_suite, config):
    if not sys.stderr.isatty():
        return run_suite(config)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    with Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), transient=True) as bar:
        task = bar.add_task("episodes", total=None)
        return run_suite(config, progress=lambda done, total: bar.update(task, completed=done, total=total))


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
) -> None:
    """Check suite files and print pair counts by trigger, phase, domain and split."""
    from collections import Counter

    from rich.console import Console
    from rich.table import Table

    from evalkit.scenarios.loader import load_suite

    try:
        suite = load_suite(paths or [])
    except EvalkitError as exc:
        _fail(exc)
        return
    console = Console()
    for title, attr in (("trigger", "trigger"), ("phase", "phase"), ("domain", "domain"), ("split", "split")):
        counts = Counter(getattr(p, attr) for p in suite.pairs)
        table = Table(title=f"pairs by {title}")
        table.add_column(title)
        table.add_column("pairs", justify="right")
        for key, n in sorted(counts.items()):
            table.add_row(str(key), str(n))
        console.print(table)
    typer.echo(f"ok: {len(suite.pairs)} pairs, suite hash {suite.content_hash[:12]}")


def main() -> None:
    """Console-script entry point."""
    app()


if __name__ == "__main__":
    main()
