"""The toy extensions (``toys/``) registered for this folder's tests only, removed afterwards."""

from __future__ import annotations

import importlib
import sys

import pytest

TOYS = ("toys.toy_provider", "toys.toy_condition", "toys.toy_metric")


@pytest.fixture(scope="module")
def toys():
    """Import (or re-import) the three toy modules, which register themselves; unregister them after."""
    from evalkit.conditions.registry import unregister_condition
    from evalkit.metrics.registry import unregister_metric
    from evalkit.models.registry import unregister

    modules = [importlib.reload(sys.modules[name]) if name in sys.modules else importlib.import_module(name)
               for name in TOYS]
    yield modules
    unregister("refuser")
    unregister_condition("halt")
    unregister_metric("stop_first_rate")
