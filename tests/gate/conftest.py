"""Fixtures of the gate's tests: real run directories written once per session by `evalkit run`
(see :mod:`gate_helpers`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from gate_helpers import make_runs


@pytest.fixture(scope="session")
def runs(tmp_path_factory) -> dict[str, Path]:
    """``oracle``, ``always_act`` and ``late3`` → their run directories."""
    return make_runs(tmp_path_factory.mktemp("gate-runs"))


@pytest.fixture
def write_config(tmp_path):
    """Write a gate config (YAML text) to a file and return its path."""

    def write(text: str, name: str = "gate.yaml") -> Path:
        path = tmp_path / name
        path.write_text(text)
        return path

    return write
