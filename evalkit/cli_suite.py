"""``evalkit suite``: validate, export and import scenario suites (:mod:`evalkit.cli`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from evalkit.cli_errors import ERRORS as _ERRORS
from evalkit.cli_errors import fail as _fail
from evalkit.cli_help import Command, Group
from evalkit.errors import EvalkitError

suite_app = typer.Typer(cls=Group, help="Inspect and check scenario suites.", no_args_is_help=True)


@suite_app.command("validate", cls=Command)
def suite_validate(
    paths: Annotated[Optional[list[str]], typer.Argument(metavar="PATH", help="Suite files or folders (default: built-in).")] = None,
    oracle: Annotated[bool, typer.Option("--oracle/--no-oracle", help="Run the oracle self-check (meta condition) and list the pairs it cannot pass.")] = True,
    strict: Annotated[bool, typer.Option("--strict", help="Exit 1 when a library minimum is not met, the oracle excludes a pair or a label check finds an error; a missing perturbation, why_act or why_abstain is an error.")] = False,
    tasks: Annotated[Optional[str], typer.Option("--tasks", metavar="DIR", help="Folder of task domains (default: the built-in tasks/).")] = None,
    checks: Annotated[bool, typer.Option("--checks/--no-checks", help="Run the label checks (docs/labels.md) on every pair.")] = True,
    all_warnings: Annotated[bool, typer.Option("--all-warnings", help="List every warning of the label checks.")] = False,
    json_out: Annotated[Optional[str], typer.Option("--json", metavar="FILE", help="Also write the census, the check counts and every issue as JSON.")] = None,
) -> None:
    """Check suite files; print the trigger x phase x domain count table, the library minimums, the label checks and the oracle self-check."""
    from rich.console import Console
    from rich.table import Table

    from evalkit.scenarios.census import check_minimums, count_table
    from evalkit.scenarios.loader import load_suite

    tasks_dir = Path(tasks) if tasks else None
    try:
        if json_out:
            _check_output_file("--json", json_out)
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
    checks_on = checks
    minimums = check_minimums(suite.pairs)
    table = Table(title="library minimums")
    for col in ("minimum", "value", "required", "met"):
        table.add_column(col)
    for name, value, required, ok in minimums:
        table.add_row(name, value, required, "yes" if ok else "NO")
    console.print(table)
    missed = [c[0] for c in minimums if not c[3]]
    report = None
    if checks_on:
        from evalkit.suite.checks import CheckOptions, check_suite
        from evalkit.suite.checks.console import print_report

        try:
            report = check_suite(suite, tasks_dir=tasks_dir, options=CheckOptions.strict() if strict else CheckOptions())
        except _ERRORS as exc:
            _fail(exc)
            return
        print_report(console, report, all_warnings=all_warnings)
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
    n_errors = len(report.errors) if report is not None else 0
    if json_out:
        from evalkit.harness.atomic import dump_json, write_output

        header, rows = count_table(suite.pairs)
        doc = {"pairs": len(suite.pairs), "suite_hash": suite.content_hash,
               "census": [dict(zip(header, row)) for row in rows],
               "minimums": [{"minimum": n, "value": v, "required": r, "met": ok} for n, v, r, ok in minimums],
               "checks": report.as_dict() if report is not None else None,
               "oracle_excluded": excluded if oracle else None}
        try:
            write_output(json_out, dump_json(doc))
        except OSError as exc:
            _fail(exc)
            return
    clean = not (missed or excluded or n_errors)
    typer.echo(f"{'ok' if clean else 'problems'}: {len(suite.pairs)} pairs, suite hash {suite.content_hash[:12]}"
               + (f"; minimums not met: {', '.join(missed)}" if missed else "; every library minimum met")
               + (f"; label checks: {n_errors} errors, {len(report.issues) - n_errors} warnings"
                  if report is not None else ""))
    if strict and (missed or excluded or n_errors):
        raise typer.Exit(1)


def _check_output_file(flag: str, path: str) -> None:
    """Refuse, before any work, an output file path that cannot be written: a folder, or a
    path under an existing file.

    Raises:
        EvalkitError: naming the flag and the path.
    """
    p = Path(path)
    if p.is_dir():
        raise EvalkitError(f"{flag} {path}: is a folder; give a file name")
    for parent in p.parents:
        if parent.exists():
            if not parent.is_dir():
                raise EvalkitError(f"{flag} {path}: {parent} is a file, not a folder")
            break


@suite_app.command("export", cls=Command)
def suite_export(
    paths: Annotated[Optional[list[str]], typer.Argument(metavar="PATH", help="Suite files or folders (default: built-in).")] = None,
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


@suite_app.command("import", cls=Command)
def suite_import(
    source: Annotated[str, typer.Argument(metavar="bfcl|agentdojo", help="Upstream benchmark package to import from.")],
    out: Annotated[str, typer.Option("--out", "-o", metavar="FILE", help="JSONL file to write the kept pairs to.")] = "",
    limit: Annotated[Optional[int], typer.Option(metavar="N", help="Only the first N upstream tasks (N >= 1).")] = None,
    selfcheck: Annotated[bool, typer.Option("--selfcheck/--no-selfcheck", help="Run the oracle self-check and the grounding check and exclude (and list) the pairs that fail.")] = True,
    sample: Annotated[Optional[int], typer.Option(metavar="N", help="agentdojo: only N user x injection task combinations, stratified by suite and injection task (N >= 1).")] = None,
    seed: Annotated[int, typer.Option(metavar="S", help="Seed of --sample.")] = 0,
) -> None:
    """Import pairs from an installed upstream benchmark (bfcl-eval or agentdojo) into a JSONL suite."""
    from evalkit.suite.importers import run_import

    try:
        if limit is not None and limit < 1:
            raise EvalkitError(f"--limit: must be at least 1 (got {limit})")
        if sample is not None and sample < 1:
            raise EvalkitError(f"--sample: must be at least 1 (got {sample})")
        report = run_import(source, out or f"reports/imported/{source}.jsonl", limit=limit, selfcheck=selfcheck,
                            sample=sample, seed=seed)
    except _ERRORS as exc:
        _fail(exc)
        return
    by_check = ", ".join(f"{n} {c}" for c, n in report["counts"].items() if n) or "none"
    typer.echo(f"{source}: {report['written']} pairs written to {report['out']}; "
               f"{len(report['skipped'])} upstream tasks or combinations skipped, {len(report['excluded'])} pairs "
               f"excluded ({by_check}; details: {report['report']})")
    # every label exclusion (contradiction, held-out tool not needed) is printed; the others up to 20
    labels = [e for e in report["excluded"] if e["check"] in ("contradiction", "not_needed")]
    others = [e for e in report["excluded"] if e["check"] not in ("contradiction", "not_needed")]
    for entry in labels + others[:20]:
        typer.echo(f"  excluded {entry['pair_id']} ({entry['check']}): {entry['reasons'][0]}")
    if len(others) > 20:
        typer.echo(f"  ... and {len(others) - 20} more excluded pairs, each with its reason, in {report['report']}")
