"""The toy extensions (``toys/``) registered for each test module of this folder, removed after it, and
one run with them."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

TOYS = ("toys.toy_provider", "toys.toy_condition", "toys.toy_metric")
ROOT = Path(__file__).resolve().parents[2]
BUILTIN = ROOT / "scenarios" / "builtin.yaml"


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


@pytest.fixture(scope="module")
def run_dir(toys, tmp_path_factory):
    """One run of ten dev pairs (should-clarify and should-abstain sides) with the toys."""
    from evalkit.harness.config import RunConfig
    from evalkit.pipeline import run
    from evalkit.scenarios.loader import load_suite

    pairs = [p.id for p in load_suite([BUILTIN]).pairs if p.split == "dev"][:10]
    out = tmp_path_factory.mktemp("toys") / "run"
    from registry_helpers import CONDITIONS, MODELS

    run(RunConfig(suites=[str(BUILTIN)], pair_ids=pairs, models=MODELS, conditions=CONDITIONS, out=str(out),
                  selfcheck=False))
    return out
