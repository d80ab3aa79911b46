"""The ``evalkit`` command line.

Commands:
    evalkit run [SUITE...]     run the paired suite and write a run directory + report
    evalkit report DIR         re-render DIR/report.html from a run directory
    evalkit gate RUN           CI gate: thresholds and baseline regressions; exit 0/1/2
    evalkit compare RUN...     one leaderboard and paired tests over several runs' shared pairs
    evalkit view RUN...        a local viewer of every trace, with a pair view
    evalkit suite validate     check suite files and print pair counts
    evalkit rules validate     check stopping-rule sets; rules eval | replay | distill (DESIGN §8)

Errors from bad input (a malformed scenario, an unknown model) print one line naming the
file, pair and field and exit with code 2; ``--debug`` shows the traceback
(:mod:`evalkit.cli_errors`). The ``suite`` and ``rules`` command groups are in
:mod:`evalkit.cli_suite` and :mod:`evalkit.cli_rules`.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from evalkit.cli_errors import DEBUG as _DEBUG
from evalkit.cli_errors import ERRORS as _ERRORS
from evalkit.cli_errors import check_text_files as _check_text_files
from evalkit.cli_errors import option_error as _option_error
from evalkit.cli_errors import fail as _fail
from evalkit.cli_errors import resume_hint as _resume_hint
from evalkit.cli_errors import show_results_warnings as _show_results_warnings
from evalkit.cli_help import Command, Group
from evalkit.cli_judge import judge_app
from evalkit.cli_rules import rules_app
from evalkit.cli_runs import register as _register_run_commands
from evalkit.cli_suite import suite_app
from evalkit.errors import ConfigError, EvalkitError
from evalkit.plugins import load_all

app = typer.Typer(
    cls=Group,
    name="evalkit",
    help="Evaluate whether tool-using LLM agents know when not to act.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
app.add_typer(suite_app, name="suite")
app.add_typer(rules_app, name="rules")
_register_run_commands(app)
app.add_typer(judge_app, name="judge")


def _version(value: bool) -> None:
    if value:
        from evalkit.version import __version__

        typer.echo(f"evalkit {__version__}")
        raise typer.Exit(0)


@app.callback(context_settings={"help_option_names": ["-h", "--help"]})
def _root(
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks on errors (give it before the command).")] = False,
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")] = False,
) -> None:
    _DEBUG["on"] = debug




def print_summary(summary: dict, *, wide: bool = False) -> None:
    """Print the per model × condition × gate table and the paired comparisons: the same
    numbers as summary.json and report.html (:mod:`evalkit.report.console`; ``wide``: every
    column whatever the terminal's width). Ctrl-C while printing (the run is complete) ends
    with one line and exit 130."""
    from evalkit.report.console import print_summary as _print

    try:
        _print(summary, wide=wide)
    except KeyboardInterrupt:
        typer.echo("\nevalkit: interrupted while printing the table; the run is complete (summary.json is written)",
                   err=True)
        raise typer.Exit(130) from None




@app.command(cls=Command)
def run(
    ctx: typer.Context,
    suites: Annotated[Optional[list[str]], typer.Argument(metavar="SUITE", help="Suite files or folders (default: built-in scenarios/).")] = None,
    model: Annotated[Optional[list[str]], typer.Option("--model", "-m", metavar="SPEC", help="Model spec, repeatable (default: the scripted models).")] = None,
    agent: Annotated[Optional[list[str]], typer.Option("--agent", metavar="SPEC", help="External agent over MCP, repeatable: \"cmd:COMMAND ARGS\" with placeholders such as {mcp_url} (README: Evaluating agents over MCP).")] = None,
    condition: Annotated[Optional[list[str]], typer.Option("--condition", "-c", metavar="NAME", help="nl (natural language only), tool (meta requests as plain tool calls) or meta (typed meta requests under runtime policy), or a registered condition (README: Extending evalkit); repeatable (default: all three).")] = None,
    limit: Annotated[Optional[int], typer.Option(metavar="N", help="Only the first N pairs in file order (files sorted by path); for a spread over triggers and domains use --sample.")] = None,
    sample: Annotated[Optional[int], typer.Option(metavar="N", help="Only a sample of N pairs stratified by trigger x domain x split, drawn with --seed (default 0); recorded in config.json.")] = None,
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
    user: Annotated[str, typer.Option("--user", metavar="cooperative|unhelpful", help="The simulated user on sides with a follow-up: cooperative answers the agent's question, unhelpful declines.", rich_help_panel="Runtime")] = "cooperative",
    followup_max_turns: Annotated[int, typer.Option("--followup-max-turns", metavar="N", help="Model responses allowed after the simulated user's answer (1 to 100).", rich_help_panel="Runtime")] = 8,
    selfcheck: Annotated[bool, typer.Option("--selfcheck/--no-selfcheck", help="Run the oracle self-check first and exclude (and list) the pairs it cannot pass.")] = True,
    resume: Annotated[Optional[str], typer.Option("--resume", metavar="DIR", help="Continue the interrupted run in DIR with DIR/config.json's options (no other option may be given).")] = None,
    base_url: Annotated[Optional[str], typer.Option("--base-url", metavar="URL", help="Endpoint of live models, e.g. http://127.0.0.1:8080/v1 (local/ models: use this server instead of starting one).", rich_help_panel="Live models")] = None,
    temperature: Annotated[Optional[float], typer.Option(metavar="T", help="Sampling temperature of live models (0 to 2).", rich_help_panel="Live models")] = None,
    top_p: Annotated[Optional[float], typer.Option("--top-p", metavar="P", help="Nucleus sampling of live models (above 0, at most 1).", rich_help_panel="Live models")] = None,
    max_tokens: Annotated[Optional[int], typer.Option("--max-tokens", metavar="N", help="Output token cap per call of live models.", rich_help_panel="Live models")] = None,
    seed: Annotated[Optional[int], typer.Option(metavar="N", help="Seed of the run: draws --sample (default 0) and, when given, is sent to live models as their sampling seed.")] = None,
    tool_choice: Annotated[Optional[str], typer.Option("--tool-choice", metavar="CHOICE", help="auto | required | none | a tool name.", rich_help_panel="Live models")] = None,
    model_config: Annotated[Optional[str], typer.Option("--model-config", metavar="FILE", help="Model config file (YAML/JSON): per-model settings, retries, parsing, prices.", rich_help_panel="Live models")] = None,
    cache: Annotated[Optional[bool], typer.Option("--cache/--no-cache", help="Cache live model calls in SQLite (default: on; $EVALKIT_CACHE_DIR).", rich_help_panel="Live models")] = None,
    judge: Annotated[Optional[list[str]], typer.Option("--judge", metavar="SPEC", help="A live model that also reads every final text, repeatable: the panel's majority decides (see `evalkit judge eval`).", rich_help_panel="Live models")] = None,
    max_connections: Annotated[Optional[int], typer.Option("--max-connections", metavar="N", help="Episodes of one live model run at once (1 to 256; default 4, local/ models 1, agent/ 2).", rich_help_panel="Live models")] = None,
    agent_timeout: Annotated[float, typer.Option("--agent-timeout", metavar="S", help="Wall-clock limit of one agent episode in seconds; then the agent is killed and the episode is an error.", rich_help_panel="Agents")] = 300.0,
    agent_max_calls: Annotated[int, typer.Option("--agent-max-calls", metavar="N", help="Tool calls one agent episode may make (its turn limit).", rich_help_panel="Agents")] = 50,
    executor: Annotated[str, typer.Option("--executor", metavar="local|dask", help="Where episodes run: local (this process) or dask (Dask distributed; pip install -e \".\\[dask]\" from a checkout).", rich_help_panel="Scale-out")] = "local",
    scheduler_address: Annotated[Optional[str], typer.Option("--scheduler-address", metavar="ADDR", help="With --executor dask: an existing cluster's scheduler, e.g. tcp://HOST:8786 (default: a LocalCluster on 127.0.0.1).", rich_help_panel="Scale-out")] = None,
    wide: Annotated[bool, typer.Option("--wide", help="Print every column of the summary table with its k/n counts, whatever the terminal's width (a narrow terminal leaves some out and says which).")] = False,
) -> None:
    """Run paired scenarios; write DIR/ (config.json, traces/, results.jsonl, results.parquet, summary.json, report.html)."""
    from evalkit.pipeline import run as run_suite

    _show_results_warnings()
    if resume is not None:
        given = [p for p in ctx.command.params if p.name not in ("resume", "wide") and p.name is not None
                 and getattr(ctx.get_parameter_source(p.name), "name", "DEFAULT") != "DEFAULT"]
        if given:  # a resumed run keeps its plan: an option here would be silently ignored
            names = ", ".join("/".join(p.opts[:1] + p.secondary_opts[:1]) if p.opts[0].startswith("-")
                              else p.name.upper() for p in given)
            _fail(ConfigError(f"--resume takes every option from {Path(resume) / 'config.json'}; remove {names} "
                              "(to change them, start a new run with --out)"))
            return
        from evalkit.harness.config import load_config
        from evalkit.pipeline import resume_run

        try:
            report = load_config(resume).report
            summary = _run_with_progress(lambda _config, **kw: resume_run(resume, **kw), None)
        except _ERRORS as exc:
            _fail(exc, _resume_hint(exc, resume))
            return
        except KeyboardInterrupt:
            _interrupted(resume)
            return
        print_summary(summary, wide=wide)
        _print_provider_totals(summary)
        typer.echo(f"resumed {resume}; wrote {Path(resume) / 'summary.json'}"
                   + (f" and {Path(resume) / 'report.html'}" if report else ""))
        _report_errors(resume, summary)
        return
    try:
        kwargs = dict(suites=suites or [], pair_ids=pair or [], limit=limit, sample=sample, out=out, epochs=epochs,
                      tasks_dir=tasks, max_turns=max_turns, max_tool_calls=max_tool_calls, report=report,
                      base_url=base_url, temperature=temperature, top_p=top_p, max_tokens=max_tokens, seed=seed,
                      tool_choice=tool_choice, model_config_file=model_config, cache=cache,
                      max_connections=max_connections, rules=rules, rules_in_context=rules_in_context,
                      policy=policy, selfcheck=selfcheck, executor=executor, scheduler_address=scheduler_address,
                      agent_timeout=agent_timeout, agent_max_calls=agent_max_calls,
                      judges=judge or [], user=user, followup_max_turns=followup_max_turns)
        if agent:  # an agent is a model of provider agent/ (evalkit.agents)
            model = [*(model or []), *(f"agent/{a}" for a in agent)]
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
    print_summary(summary, wide=wide)
    _print_provider_totals(summary)
    typer.echo(f"wrote {Path(out) / 'summary.json'}" + (f" and {Path(out) / 'report.html'}" if report else ""))
    _report_errors(out, summary)


def _report_errors(out: str, summary: dict | None = None) -> None:
    """After a run: the errored episodes by model and error code, each with its first message
    (their last line: a traceback's exception), on stderr. Errored episodes are not scored
    (never as abstentions); a run in which every episode errored, or that has no usable result at all
    (``summary``'s ``n_episodes_completed`` 0 of a plan: rows the reader refused), measured nothing: exit 1."""
    from evalkit.harness.run_reader import RunReader

    planned = (summary or {}).get("n_episodes_planned")
    if isinstance(planned, int) and planned and (summary or {}).get("n_episodes_completed") == 0:
        typer.echo(f"evalkit: none of the run's {planned} planned episodes has a usable result (see the warnings "
                   "above); the run measured nothing", err=True)
        raise typer.Exit(1)

    rows = RunReader(out).latest().values()
    total = 0
    by: dict[tuple[str, str], list] = {}
    for row in rows:
        total += 1
        if row.get("status") == "error":
            entry = by.setdefault((str(row.get("model")), str(row.get("error_code") or "error")), [0, row.get("error")])
            entry[0] += 1
    errored = sum(n for n, _ in by.values())
    if not errored:
        return
    typer.echo(f"evalkit: {errored} of {total} episodes ended in an error (not scored; see results.jsonl "
               "error and error_code):", err=True)
    for (model, code), (n, message) in sorted(by.items()):
        lines = [ln.strip() for ln in str(message or "").splitlines() if ln.strip()]
        last = lines[-1] if lines else ""
        last = last if len(last) <= 240 else "…" + last[-240:]  # a traceback's end names the exception
        typer.echo(f"  {model}: {code} x{n}" + (f"; first: {last}" if last else ""), err=True)
    if errored == total:
        raise typer.Exit(1)


def _print_provider_totals(summary: dict) -> None:
    """One line per live model: calls, cache hits, retries, output faults, tokens and money
    (summary.json ``provider`` and ``rows``; :func:`evalkit.report.console.provider_lines`)."""
    from evalkit.report.console import provider_lines

    for line in provider_lines(summary):
        typer.echo(line)


def _run_config(kwargs: dict, model: list[str] | None, condition: list[str] | None):
    """A :class:`~evalkit.harness.config.RunConfig` from CLI options; bad values → one-line error. A model or
    condition given twice runs once: a warning on stderr says so."""
    from pydantic import ValidationError

    from evalkit.harness.config import RunConfig

    for option, values, more in (("--model", model, "; for repeated episodes use --epochs N"), ("--condition", condition, "")):
        twice = [v for v in dict.fromkeys(values or []) if (values or []).count(v) > 1]
        if twice:
            typer.echo(f"warning: {option} {', '.join(twice)} given more than once; each runs once{more}", err=True)
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
    done = 0
    if results.exists():
        with results.open("rb") as fh:
            done = sum(1 for line in fh if line.endswith(b"\n"))  # whole lines (a re-run episode counts twice)
    if done:
        typer.echo(f"evalkit: interrupted; {done} finished episode(s) are kept in {out}: "
                   f"continue with `evalkit run --resume {out}`", err=True)
    elif (Path(out) / "config.json").is_file():
        typer.echo(f"evalkit: interrupted before any episode finished; {out} holds the run's settings: "
                   f"`evalkit run --resume {out}` starts it again with them", err=True)
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
    """Run with progress on stderr: the rich bar on a terminal, else a line every few seconds
    (:mod:`evalkit.harness.progress`; ``$EVALKIT_PROGRESS_INTERVAL`` seconds, 0: none)."""
    _sigterm_as_interrupt()
    if sys.stderr.isatty():
        from evalkit.harness.executor import ProgressBar

        with ProgressBar() as bar:  # episodes done, errors, tokens, cache hits
            return run_suite(config, progress=bar)
    from evalkit.harness.progress import ProgressLines, progress_interval

    interval = progress_interval()
    if interval is None:
        return run_suite(config)
    with ProgressLines(interval) as lines:  # episodes done / planned, errors, rate, ETA
        return run_suite(config, progress=lines)


@app.command("serve-local", cls=Command)
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


def _warn_unloaded_plugins(run_dir: Path) -> None:
    """Print :func:`evalkit.harness.resume.unloaded_plugins_warning` for ``run_dir``, if any."""
    from evalkit.harness.resume import unloaded_plugins_warning

    warning = unloaded_plugins_warning(run_dir)
    if warning:
        typer.echo(f"warning: {warning}", err=True)


@app.command(cls=Command)
def report(run_dir: Annotated[Path, typer.Argument(metavar="DIR", help="A run directory written by `evalkit run`.")]) -> None:
    """Re-render DIR/report.html from the run's files."""
    from evalkit.report.html import render_report

    try:
        load_all()  # the run's plugin metrics and conditions, or one error naming what cannot be loaded
        _warn_unloaded_plugins(run_dir)
        path = render_report(run_dir)
    except _ERRORS as exc:
        _fail(exc)
        return
    typer.echo(f"wrote {path}")


@app.command(cls=Command)
def gate(
    run_dir: Annotated[Path, typer.Argument(metavar="RUN", help="The run directory to check (written by `evalkit run`).")],
    config: Annotated[Optional[Path], typer.Option("--config", metavar="FILE", help="Gate config: thresholds and regression checks (YAML; default: gate.yaml).")] = None,
    baseline: Annotated[Optional[Path], typer.Option("--baseline", metavar="RUN", help="Baseline run directory (default: the config's regression.baseline).")] = None,
    junit: Annotated[Optional[Path], typer.Option("--junit", metavar="FILE", help="JUnit XML output (default: RUN/gate-junit.xml).")] = None,
    markdown: Annotated[Optional[Path], typer.Option("--markdown", metavar="FILE", help="Markdown summary output, e.g. for $GITHUB_STEP_SUMMARY (default: RUN/gate-summary.md).")] = None,
) -> None:
    """Check RUN against thresholds and a baseline; exit 0 pass, 1 a check failed, 2 bad config or missing data."""
    from evalkit.gate import evaluate_gate, load_gate_config, print_gate, write_junit, write_markdown

    _show_results_warnings()
    default_config = config is None
    config = Path("gate.yaml") if config is None else config
    try:
        load_all()  # the run's plugin metrics, or one error naming what cannot be loaded
        _warn_unloaded_plugins(run_dir)
        gate_config = load_gate_config(config)
        for line in gate_config.warnings:
            typer.echo(f"warning: {config}: {line}", err=True)
        report = evaluate_gate(gate_config, run_dir, baseline)
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
    if default_config and report.exit_code != 0:
        typer.echo("hint: no --config was given, so the run was checked against ./gate.yaml; the run of the "
                   "built-in suite (`evalkit run`) is gated with --config gate-library.yaml (README: CI gate)", err=True)
    raise typer.Exit(report.exit_code)






def main() -> None:
    """Console-script entry point."""
    app()


if __name__ == "__main__":
    main()
