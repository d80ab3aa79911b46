"""Shared fixtures. Offline settings are exported before anything imports `datasets`."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("HF_HOME", tempfile.mkdtemp(prefix="evalkit-hf-"))
os.environ.setdefault("MPLBACKEND", "Agg")
os.environ.setdefault("EVALKIT_PROGRESS_INTERVAL", "0")  # no progress lines in captured stderr unless a test asks

import pytest  # noqa: E402

FIXTURES = Path(__file__).resolve().parent / "fixtures"
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def fixtures() -> Path:
    return FIXTURES


@pytest.fixture(scope="session")
def mini_tasks() -> Path:
    return FIXTURES / "tasks"


@pytest.fixture(scope="session")
def mini_suite() -> Path:
    return FIXTURES / "suites" / "mini.yaml"


@pytest.fixture(scope="session")
def threaded_http_server():
    """A threaded fake HTTP server on 127.0.0.1 for the whole session (pytest-httpserver; a slow
    answer must not block the retry that follows); each user clears it before and after use."""
    from pytest_httpserver import HTTPServer

    server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
    server.start()
    yield server
    server.clear()
    if server.is_running():
        server.stop()
