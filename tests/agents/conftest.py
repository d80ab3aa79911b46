"""Fixtures of the MCP agent tests."""

from __future__ import annotations

import os

import pytest
from agent_helpers import ROOT


@pytest.fixture(autouse=True)
def _evalkit_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """The agent processes import evalkit from this checkout."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
