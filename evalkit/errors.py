"""The evalkit exception hierarchy.

Every error evalkit raises on purpose derives from :class:`EvalkitError`. Subtypes carry
the facts a user needs to fix the problem (a scenario error names the file, the pair id
and the field). The CLI maps them to exit codes and prints one line; tracebacks only with
``--debug``.
"""

from __future__ import annotations

from pathlib import Path


class EvalkitError(Exception):
    """Root of all evalkit errors.

    Attributes:
        exit_code: The process exit code the CLI uses for this error (2 = bad input).
    """

    exit_code: int = 2


class ConfigError(EvalkitError):
    """A run option, model spec or config file is invalid."""


class ScenarioError(EvalkitError):
    """A scenario or suite file is malformed.

    Args:
        file: Path of the offending file.
        pair_id: Id of the pair the error is in, or ``None`` when it is not pair-specific.
        field: Dotted path of the offending field (e.g. ``"abstain.expected.decision"``),
            or ``None``.
        message: What is wrong.
    """

    def __init__(self, file: str, pair_id: str | None, field: str | None, message: str):
        self.file = str(file)
        self.pair_id = pair_id
        self.field = field
        self.message = message
        parts = [self.file]
        if pair_id:
            parts.append(f"pair {pair_id}")
        if field:
            parts.append(f"field {field}")
        super().__init__(f"{': '.join(parts)}: {message}")


class TaskError(EvalkitError):
    """A task domain (in ``tasks/``) could not be loaded or is inconsistent."""


class ModelError(EvalkitError):
    """A model adapter failed.

    Attributes:
        retryable: Whether retrying the same request may succeed.
    """

    def __init__(self, message: str, *, retryable: bool = False):
        super().__init__(message)
        self.retryable = retryable


class RunError(EvalkitError):
    """A run directory is unusable (missing, corrupt, or from an incompatible plan)."""


def shown_path(path: Path | str) -> str:
    """A file's name as evalkit's errors print it: as it is when every character shows and
    none is white space at either end, else quoted with Python's escapes (``'new\\nline.jsonl'``
    for a name holding a newline), so that no name is mistaken for another or splits the line."""
    name = str(path)
    if name.isprintable() and name == name.strip():
        return name
    return repr(name)
