"""Where evalkit finds its built-in tasks, scenarios and stopping-rule sets, and what a run
directory looks like.

In a source checkout (``pip install -e .``) the built-in files are the top-level ``tasks/``,
``scenarios/`` and ``rules/`` folders; in a wheel they are packaged under
``evalkit/_builtin/``. :func:`looks_like_run_dir` tells a run directory by its layout (the
suite loader refuses one given as a suite; :mod:`evalkit.harness.run_dir` decides whether a
new run may go into a folder).
"""

from __future__ import annotations

from pathlib import Path

_PKG = Path(__file__).resolve().parent


def builtin_dir(name: str) -> Path:
    """The built-in ``tasks``, ``scenarios`` or ``rules`` folder."""
    packaged = _PKG / "_builtin" / name
    if packaged.is_dir():
        return packaged
    return _PKG.parent / name


def looks_like_run_dir(path: str | Path) -> bool:
    """Whether ``path`` is laid out like a run directory: ``config.json`` plus
    ``results.jsonl`` or ``traces/`` (cheap: no file is read)."""
    p = Path(path)
    return (p / "config.json").is_file() and ((p / "results.jsonl").is_file() or (p / "traces").is_dir())
