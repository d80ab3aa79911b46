"""The local server's process handling, with stand-in processes (no model needed)."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap

import pytest

from evalkit.errors import ModelError
from evalkit.models.config import LocalServerSettings, resolve_settings
from evalkit.models.live import LocalProvider
from evalkit.models.local import LocalServer

STUBBORN = textwrap.dedent("""
    import signal, sys, time
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    print("ready", flush=True)
    time.sleep(60)
""")

FAKE_SERVER = textwrap.dedent("""
    import http.server, sys
    class H(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200 if self.path == "/v1/models" else 404)
            self.end_headers()
            self.wfile.write(b'{"data": []}')
        def log_message(self, *a):
            pass
    http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
""")


class StandIn(LocalServer):
    def __init__(self, script, *args, **kw):
        super().__init__("/nonexistent.gguf", alias="stand-in", settings=LocalServerSettings(startup_timeout_s=10))
        self.script = script

    def command(self):
        return [sys.executable, "-c", self.script, str(self.port)]


def test_stop_escalates_term_int_kill():
    server = StandIn(STUBBORN)
    server.proc = subprocess.Popen(server.command(), stdout=subprocess.PIPE)
    assert server.proc.stdout.readline().strip() == b"ready"  # handlers installed
    server.stop(grace_s=0.2)
    assert server.proc.returncode == -signal.SIGKILL


def test_start_waits_for_ready_and_term_stops_it():
    with StandIn(FAKE_SERVER) as server:
        assert server.proc.poll() is None
        assert server.base_url == f"http://127.0.0.1:{server.port}/v1"
    assert server.proc.returncode == -signal.SIGTERM


def test_a_server_that_exits_is_a_clear_error():
    server = StandIn("import sys; print('boom: no such model file'); sys.exit(3)")
    with pytest.raises(ModelError, match="exited with code 3: boom: no such model file"):
        server.start()


def test_a_failed_start_is_remembered(monkeypatch):
    from evalkit.models import local

    calls = []

    def no_model(name, folder=None):
        calls.append(name)
        raise ModelError("cannot assemble")

    monkeypatch.setattr(local, "model_file", no_model)
    provider = LocalProvider(resolve_settings("local/gemma-3-270m"))
    for _ in range(2):
        with pytest.raises(ModelError, match="cannot assemble"):
            provider.complete([], [])
    assert calls == ["gemma-3-270m"]  # not retried for every episode
    provider.close()


def test_nothing_restarts_after_close(monkeypatch):
    from evalkit.models import local
    from evalkit.models.live import LiveModel
    from evalkit.runtime.context import build_context

    started = []
    monkeypatch.setattr(local, "model_file", lambda name, folder=None: started.append(name))
    provider = LocalProvider(resolve_settings("local/gemma-3-270m"))
    provider.close()
    with pytest.raises(ModelError, match="is closed"):
        provider.complete([], [])
    model = LiveModel(resolve_settings("local/gemma-3-270m"), cache=None)
    model.close()  # the run ended while an episode was still running
    with pytest.raises(ModelError, match="is closed"):
        model.respond(build_context((), system_prompt="S", tools=[]), None)
    assert started == []  # no server was started


def test_a_dead_server_is_restarted_a_bounded_number_of_times(monkeypatch, capsys):
    from evalkit.models import local

    started = []

    class Dies(StandIn):
        def __init__(self, *a, **kw):
            super().__init__("import sys; sys.exit(0)")

        def start(self):
            started.append(self)
            self.proc = subprocess.Popen([sys.executable, "-c", "import sys; sys.exit(-11 % 256)"])
            self.proc.wait()  # it ran, then crashed
            return self

    monkeypatch.setattr(local, "model_file", lambda name, folder=None: "/nonexistent.gguf")
    monkeypatch.setattr(local, "LocalServer", Dies)
    provider = LocalProvider(resolve_settings("local/gemma-3-270m"))
    provider.max_restarts = 2
    for _ in range(3):
        provider._start()
    with pytest.raises(ModelError, match="died 3 times; giving up"):
        provider._start()
    assert len(started) == 3 and provider.restarts == 2
    assert capsys.readouterr().err.count("restarting") == 2
    provider.close()


def test_a_server_that_crashes_in_native_code_says_how_to_rebuild_it_portable():
    crashing = "import os, signal; print('ggml: loading model', flush=True); os.kill(os.getpid(), signal.SIGSEGV)"
    server = StandIn(crashing)
    with pytest.raises(ModelError) as caught:
        server.start()
    message = str(caught.value)
    assert message.startswith("the local model server exited with code -11 (a crash in llama-cpp-python's native code")
    assert 'CMAKE_ARGS="-DGGML_NATIVE=OFF -DLLAVA_BUILD=OFF"' in message and "pip cache remove llama_cpp_python" in message
    assert message.endswith("ggml: loading model")
