"""The evalkit version, recorded in every run's config, manifest and summary.

A foundation module (DESIGN §1, layer order): every layer may read the version from here;
the root package re-exports it as ``evalkit.__version__``.
"""

from __future__ import annotations

__version__ = "0.1.0"
