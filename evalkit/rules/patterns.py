"""The regular expressions of stopping rules: the linear-time engine of :mod:`evalkit.patterns`.

Rule patterns (``pattern`` / ``not_pattern``) are compiled and matched with RE2, like every
user-supplied pattern in evalkit; the syntax, its differences from Python's :mod:`re` and the
load-time errors are described in :mod:`evalkit.patterns`. This module keeps the names rule
code imports.
"""

from __future__ import annotations

from evalkit.patterns import LinearPattern, compile_pattern

__all__ = ["LinearPattern", "compile_pattern"]
