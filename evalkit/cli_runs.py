"""The ``evalkit compare`` and ``evalkit view`` commands: several runs on one report, and a
local viewer of every trace (:mod:`evalkit.report.compare_runs`, :mod:`evalkit.report.viewer`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from evalkit.cli_errors import ERRORS as _ERRORS
from evalkit.cli_errors import fail as _fail
from evalkit.cli_errors import show_results_warnings as _show_results_warnings
from evalkit.cli_help import Command


def compare(
    runs: Annotated[list[Path], typer.Argument(metavar="RUN", help="Two or more run directories written by `evalkit run`.")],
    out: Annotated[Path, typer.Option("--out", metavar="DIR", help="Output folder: summary.json, compare.json, results.jsonl and report.html (new, empty, or an earlier compare output).")] = Path("reports/compare"),
    report: Annotated[bool, typer.Option("--report/--no-report", help="Write report.html.")] = True,
    wide: Annotated[bool, typer.Option("--wide", help="Print every column of the summary table with its k/n counts, whatever the terminal's width.")] = False,
) -> None:
    """One leaderboard and paired comparisons over several runs, on the pairs they share (same id and content)."""
    from evalkit.report.compare_runs import compare_runs
    from evalkit.report.console import print_summary

    _show_results_warnings()
    try:
        from evalkit.plugins import load_all

        load_all()  # the runs' plugin metrics, or one error naming what cannot be loaded
        summary = compare_runs(runs, out)
        if report:
            from evalkit.report.html import render_report

            render_report(out)
    except _ERRORS as exc:
        _fail(exc)
        return
    print_summary(summary, wide=wide)
    c = summary["compare"]
    left = [f"{c[k]} {what}" for k, what in (("pairs_content_differs", "with other content"),
                                             ("pairs_not_shared", "not in every run"),
                                             ("pairs_unverified", "without a content hash")) if c[k]]
    typer.echo(f"{c['shared_pairs']} shared pairs compared" + (f"; left out: {', '.join(left)}" if left else ""))
    typer.echo(f"wrote {out / 'summary.json'}, {out / 'compare.json'}" + (f" and {out / 'report.html'}" if report else ""))


def view(
    runs: Annotated[list[Path], typer.Argument(metavar="RUN", help="Run directories (or `evalkit compare` outputs) to browse.")],
    port: Annotated[int, typer.Option("--port", metavar="N", min=0, max=65535, help="Port on 127.0.0.1; 0 picks a free one.")] = 0,
) -> None:
    """Browse every episode's trace and each pair's two sides in a local web viewer (127.0.0.1 only; Ctrl-C stops it)."""
    from evalkit.report.viewer import Viewer, make_server

    _show_results_warnings()
    try:
        viewer = Viewer(runs)
        server = make_server(viewer, port)
    except _ERRORS as exc:
        _fail(exc)
        return
    except KeyboardInterrupt:  # Ctrl-C while the runs are indexed
        typer.echo("evalkit view: stopped before it served", err=True)
        raise typer.Exit(130) from None
    host, bound = server.server_address[:2]
    host = host.decode() if isinstance(host, bytes) else host
    typer.echo(f"evalkit view: serving {len(viewer.runs)} run(s) at http://{host}:{bound}/ (Ctrl-C stops)")
    for label, run in viewer.runs.items():
        report = (f"report: http://{host}:{bound}/run/{label}/report.html" if run.has_report
                  else f"no report yet (`evalkit report {run.data.path}` renders it)")
        typer.echo(f"  http://{host}:{bound}/run/{label}/view/  ·  {report}")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        typer.echo("evalkit view: stopped", err=True)
    finally:
        server.server_close()


def register(app: typer.Typer) -> None:
    """Add ``compare`` and ``view`` to the ``evalkit`` command line."""
    app.command("compare", cls=Command)(compare)
    app.command("view", cls=Command)(view)
