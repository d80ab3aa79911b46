"""``evalkit judge``: measure readers of final text against labelled texts (DESIGN §5; :mod:`evalkit.cli`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from evalkit.cli_errors import ERRORS as _ERRORS
from evalkit.cli_errors import fail as _fail
from evalkit.cli_help import Command, Group
from evalkit.errors import ConfigError

judge_app = typer.Typer(cls=Group, help="Readers of final text (the classifier, LLM judges): measure them on labelled texts.",
                        no_args_is_help=True)


@judge_app.command("eval", cls=Command)
def judge_eval(
    texts: Annotated[Optional[str], typer.Option("--texts", metavar="FILE", help="Labelled JSON lines {text, label, lang, optional context_user}; - reads standard input (default: the shipped corpus test part).")] = None,
    part: Annotated[Optional[str], typer.Option("--part", metavar="PART", help="A part of the shipped corpus instead of --texts: tune, test, test2, test3 or test4.")] = None,
    judge: Annotated[Optional[list[str]], typer.Option("--judge", metavar="SPEC", help="A live model as judge, repeatable; with two or more, the panel's majority is scored too.")] = None,
    json_out: Annotated[Optional[str], typer.Option("--json", metavar="FILE", help="Also write the figures as JSON (for CI).")] = None,
    base_url: Annotated[Optional[str], typer.Option("--base-url", metavar="URL", help="Endpoint of the judges, e.g. http://127.0.0.1:8080/v1.")] = None,
    model_config: Annotated[Optional[str], typer.Option("--model-config", metavar="FILE", help="Model config file (YAML/JSON) with the judges' settings and prices.")] = None,
    max_mistakes: Annotated[int, typer.Option("--max-mistakes", metavar="N", help="Mistakes listed per reader (all are in --json).")] = 50,
    rules: Annotated[bool, typer.Option("--rules", help="Also score the rule reader alone (the classifier is the rules combined with the learned reader).")] = False,
) -> None:
    """Score the classifier and any judge: accuracy, recall/precision per label, accuracy per language, Cohen's kappa, confusion matrix, mistakes."""
    import json

    from evalkit.conditions.classifier import CLASSIFIER_VERSION, classify_text
    from evalkit.conditions.judge.evaluate import DEFAULT_TEXTS, evaluate, ignored_note, load_labelled, render
    from evalkit.errors import shown_path
    from evalkit.harness.atomic import write_output

    panel = None
    try:
        if texts == "":  # an unset variable is no default; a blank name is a name (a missing one: no such file)
            raise ConfigError("--texts: an empty path (leave --texts out to score the shipped test part)")
        if part is not None:
            from evalkit.conditions.corpus import CORPUS_DIR, HELD_OUT

            if texts is not None:
                raise ConfigError("--part: give --texts or --part, not both")
            if part not in ("tune", "test", *HELD_OUT):
                raise ConfigError(f"--part: {part!r} is not a corpus part (tune, test, {', '.join(HELD_OUT)})")
            texts = str(CORPUS_DIR / f"{part}.jsonl")
        if json_out is not None and _same_file(json_out, texts or DEFAULT_TEXTS):
            raise ConfigError(f"--json: {shown_path(json_out)} is the labelled input ({shown_path(texts or DEFAULT_TEXTS)}); "
                              "the figures would overwrite it: write them to another file")
        if json_out is not None and (Path(json_out).is_dir() or not Path(json_out).resolve().parent.is_dir()):
            where = ("a folder" if Path(json_out).is_dir()
                     else f"in a folder that does not exist ({shown_path(Path(json_out).resolve().parent)})")
            raise ConfigError(f"--json: {shown_path(json_out)} is {where}; name a file to write the figures to")
        lines = load_labelled(texts or DEFAULT_TEXTS)
        note = ignored_note(lines)
        if note is not None:
            typer.echo(note, err=True)
        readers: dict[str, Callable[[str, str | None], str]] = {
            f"classifier v{CLASSIFIER_VERSION}": lambda text, context: classify_text(text, context=context).label}
        if rules:
            readers[f"classifier v{CLASSIFIER_VERSION} rules only"] = (
                lambda text, context: classify_text(text, reader="rules", context=context).label)
        extra: dict = {}
        if judge:
            panel, readers_j, extra = _judge_readers(judge, base_url, model_config)
            readers.update(readers_j)
        with _progress(len(lines) * len(readers)) as advance:
            counted = {name: _counted(read, advance) for name, read in readers.items()}
            ev = evaluate(lines, counted, source="<stdin>" if texts == "-" else str(texts or DEFAULT_TEXTS), extra=extra)
        if panel is not None:
            ev.extra["judge_cost_usd"] = panel_cost(panel)
            ev.extra["judge_errors"] = judge_errors(panel)
        not_written: OSError | None = None
        if json_out:  # first, so that the figures are kept whatever happens to the terminal
            body = json.dumps(ev.as_dict(), ensure_ascii=False, indent=1) + "\n"
            try:  # a lone surrogate (not UTF-8) is written as its six-character JSON escape, read back as itself
                write_output(json_out, body.encode("utf-8", "backslashreplace"))
            except OSError as exc:
                not_written = exc  # the figures are printed, then the error
        _echo(render(ev, max_mistakes=max(0, max_mistakes)))
        for judge_name, seen in (ev.extra.get("judge_errors") or {}).items():
            why = "; ".join(f"{n}× {message}" for message, n in seen["why"])
            _echo(f"judge {judge_name}: {seen['n']} error(s): {why}")
        if not_written is not None:
            raise not_written
        if json_out:
            _echo(f"wrote {Path(json_out)}")
    except _ERRORS as exc:
        _fail(exc)
    finally:
        if panel is not None:
            panel.close()


@contextmanager
def _progress(total: int) -> Iterator[Callable[[], None]]:
    """A transient rich progress bar of ``total`` readings on standard error, shown only on a terminal;
    yields the function that counts one reading."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    with Progress(TextColumn("reading texts"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=True, disable=not console.is_terminal) as bar:
        task = bar.add_task("read", total=total)
        yield lambda: bar.advance(task)


def _counted(read: Callable[[str, str | None], str], advance: Callable[[], None]) -> Callable[[str, str | None], str]:
    """``read`` that also counts each reading on the progress bar."""
    def counted(text: str, context: str | None) -> str:
        label = read(text, context)
        advance()
        return label
    return counted


def _same_file(a: str | Path, b: str | Path) -> bool:
    """Whether two paths name one file: the same resolved path (symlinks, ``..``, relative
    spellings) or, when both exist, the same file on disk (a hard link)."""
    import os

    if Path(a).resolve() == Path(b).resolve():
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet)
        return False


def _echo(text: str) -> None:
    """Print ``text`` on standard output; a character its encoding cannot hold (a lone surrogate
    from a ``\\ud800`` escape in a labelled file, any non-ASCII on an ASCII terminal) is shown as
    its backslash escape."""
    import sys

    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    typer.echo(text.encode(encoding, "backslashreplace").decode(encoding))


def _judge_readers(specs: list[str], base_url: str | None, model_config: str | None):
    """The panel and one reader per judge (plus ``panel`` for two or more), each text asked once per judge."""
    from pydantic import ValidationError

    from evalkit.cli_errors import option_error
    from evalkit.conditions.classifier import classify_text
    from evalkit.conditions.judge.panel import Panel, Reading
    from evalkit.models.config import ModelOptions

    try:
        options = ModelOptions(base_url=base_url, model_config_file=model_config)
    except ValidationError as exc:
        raise option_error(exc) from None
    panel = Panel.from_specs(specs, options)
    panel.make_models()  # a bad spec or a missing key fails before any text is read
    readings: dict[str, Reading] = {}
    panel.costs = []  # type: ignore[attr-defined]
    panel.readings = readings  # type: ignore[attr-defined]

    def read(text: str) -> Reading:
        if text not in readings:
            reading = panel.read(text, classify_text(text))
            panel.costs.append(reading.cost_usd)  # type: ignore[attr-defined]
            readings[text] = reading
        return readings[text]

    readers: dict[str, Callable[[str, str | None], str]] = {}
    for i, spec in enumerate(specs):
        name = spec if specs.count(spec) == 1 else f"{spec} #{i + 1}"

        def vote(text: str, context: str | None = None, i: int = i) -> str:
            return read(text).votes[i].label or "error"

        readers[f"judge {name}"] = vote
    if len(specs) > 1:

        def majority(text: str, context: str | None = None) -> str:
            return read(text).label

        readers["panel (majority)"] = majority
    return panel, readers, {"judge_panel": panel.describe()}


def judge_errors(panel) -> dict[str, dict[str, Any]]:
    """Why each judge of ``panel`` gave no verdict in this command: ``{judge spec: {"n": errors,
    "why": [[message, count], ...]}}`` (the five most frequent messages, most frequent first),
    only for judges with at least one error."""
    out: dict[str, dict[str, Any]] = {}
    for reading in getattr(panel, "readings", {}).values():
        for vote in reading.votes:
            if vote.error is not None:
                seen = out.setdefault(vote.judge, {"n": 0, "count": Counter()})
                seen["n"] += 1
                seen["count"][vote.error] += 1
    return {judge: {"n": seen["n"], "why": [[m, n] for m, n in seen["count"].most_common(5)]}
            for judge, seen in out.items()}


def panel_cost(panel) -> float | None:
    """Summed cost of the panel's calls in this command, ``None`` when any is unknown."""
    costs = getattr(panel, "costs", [])
    return None if any(c is None for c in costs) else round(sum(costs), 10)
