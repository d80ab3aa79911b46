"""Fixtures for the judge tests: a fake OpenAI-compatible server on 127.0.0.1, a private call cache."""

from __future__ import annotations

import pytest


@pytest.fixture
def judge_server(threaded_http_server, tmp_path, monkeypatch):
    monkeypatch.setenv("EVALKIT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    threaded_http_server.clear()
    yield threaded_http_server
    threaded_http_server.clear()
