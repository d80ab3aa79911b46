"""Where evalkit finds its built-in tasks, scenarios and stopping-rule sets.

In a source checkout (``pip install -e .``) they are the top-level ``tasks/``,
``scenarios/`` and ``rules/`` folders; in a wheel they are packaged under
``evalkit/_builtin/``.
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
