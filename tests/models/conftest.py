"""Fixtures for the model adapters: a threaded fake API server on 127.0.0.1, a private cache
dir, and small helpers to run an episode through the real agent loop."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

FIELD_FAILURES = Path(__file__).resolve().parent.parent / "fixtures" / "field_failures.json"


@pytest.fixture(scope="session")
def httpserver_listen_address():
    return ("127.0.0.1", 0)


@pytest.fixture
def api(threaded_http_server):
    """The session's threaded fake API server, cleared for this test."""
    threaded_http_server.clear()
    yield threaded_http_server
    threaded_http_server.clear()


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALKIT_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture(scope="session")
def field_cases() -> dict[str, dict]:
    return {case["id"]: case for case in json.loads(FIELD_FAILURES.read_text(encoding="utf-8"))}
