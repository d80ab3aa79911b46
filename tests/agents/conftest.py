"""Fixtures of the MCP agent tests."""

from __future__ import annotations

import os

import pytest

pytest.importorskip("mcp", reason="needs the MCP SDK: pip install -e '.[test]' (or '.[agents]')")

from agent_helpers import ROOT  # noqa: E402


@pytest.fixture(autouse=True)
def _evalkit_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """The agent processes import evalkit from this checkout."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
