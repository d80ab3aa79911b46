"""How the command line reports errors: one ``evalkit: error:`` line each, exit code 2.

Besides evalkit's own errors (:class:`~evalkit.errors.EvalkitError`), a command turns
file-system errors that escaped them (a full disk, an unwritable folder) and decoding errors
into one line naming the path; run options out of range name the command-line flag and the
value given. Light on purpose: ``evalkit --help`` imports this module.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from evalkit.errors import ConfigError, EvalkitError

DEBUG = {"on": False}
"""Set by ``evalkit --debug``: :func:`fail` prints the traceback too."""

ERRORS = (EvalkitError, OSError, UnicodeDecodeError)
"""What a command turns into one ``evalkit: error:`` line (exit 2): evalkit's own errors, and
file-system and decoding errors that escaped them (a full disk, an unwritable folder)."""


def describe(exc: BaseException) -> str:
    """One line for ``exc``: an OSError names its path, a decoding error says so."""
    if isinstance(exc, OSError) and not isinstance(exc, EvalkitError):
        from evalkit.errors import shown_path

        where = f"{shown_path(exc.filename)}: " if exc.filename is not None else ""
        also = f" (and {shown_path(exc.filename2)})" if getattr(exc, "filename2", None) else ""
        return f"{where}{exc.strerror or exc}{also}"
    if isinstance(exc, UnicodeDecodeError):
        return f"a file is not UTF-8 text ({exc.reason} at byte {exc.start}); save it as UTF-8"
    return " ".join(str(exc).split("\n"))


_FLAGS = {"suites": "SUITE", "pair_ids": "--pair", "models": "--model", "conditions": "--condition",
          "gates": "--gate", "tasks_dir": "--tasks", "model_config_file": "--model-config"}


def option_error(exc: Any) -> EvalkitError:
    """A RunConfig validation error as one line naming the command-line option and the value."""
    err = exc.errors()[0]
    name = str(err["loc"][0]) if err["loc"] else "options"
    flag = _FLAGS.get(name, "--" + name.replace("_", "-"))
    got = f" (got {err['input']!r})" if err.get("input") is not None and not isinstance(err["input"], dict) else ""
    return EvalkitError(f"{flag}: {err['msg'].removeprefix('Value error, ')}{got}")


def check_text_files(**files: str | None) -> None:
    """Each given option file must be readable UTF-8 text (checked before the run loads it).

    Raises:
        ConfigError: naming the option and the file.
    """
    for flag, value in files.items():
        if not value or not Path(value).is_file():
            continue  # a missing file or a shipped name: the option's own loader says so
        try:
            Path(value).read_bytes().decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise ConfigError(f"--{flag.replace('_', '-')} {value}: not UTF-8 text (byte at offset {exc.start}); "
                              "save it as UTF-8") from None
        except OSError as exc:
            raise ConfigError(f"--{flag.replace('_', '-')} {value}: cannot read ({exc.strerror})") from None


def resume_hint(exc: BaseException, out: str) -> str:
    """For a file-system error mid-run: where the finished episodes are and how to continue.

    An error a resume would meet again (a path that is a folder, a read-only file system, a
    permission denied) says what to fix first.
    """
    import errno

    results = Path(out) / "results.jsonl"
    if isinstance(exc, EvalkitError) or not results.is_file() or results.stat().st_size == 0:
        return ""
    code = getattr(exc, "errno", None)
    fix = {errno.EISDIR: f"remove the folder at {getattr(exc, 'filename', None) or 'that path'}",
           errno.EROFS: "make the file system writable (or copy the run directory to one that is)",
           errno.EACCES: "give write permission on the run directory",
           errno.EPERM: "give write permission on the run directory"}.get(code) if isinstance(code, int) else None
    if fix is not None:
        return f"; finished episodes are kept: {fix}, then continue with `evalkit run --resume {out}`"
    return f"; finished episodes are kept: continue with `evalkit run --resume {out}`"


def fail(exc: BaseException, hint: str = "") -> None:
    """Print ``exc`` as one ``evalkit: error:`` line (its traceback too under ``--debug``) and exit
    with its exit code (2 by default)."""
    code = getattr(exc, "exit_code", 2)
    if DEBUG["on"]:
        import traceback

        traceback.print_exception(exc)
    typer.echo(f"evalkit: error: {describe(exc)}{hint}", err=True)
    raise typer.Exit(code)


def show_results_warnings() -> None:
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
