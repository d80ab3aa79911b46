"""Fixtures for the judge tests: a fake OpenAI-compatible server on 127.0.0.1, a private call cache."""

from __future__ import annotations

import pytest
from pytest_httpserver import HTTPServer


@pytest.fixture(scope="session")
def judge_server_session():
    server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
    server.start()
    yield server
    server.clear()
    if server.is_running():
        server.stop()


@pytest.fixture
def judge_server(judge_server_session, tmp_path, monkeypatch):
    monkeypatch.setenv("EVALKIT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    judge_server_session.clear()
    yield judge_server_session
    judge_server_session.clear()
