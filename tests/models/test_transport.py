"""The guarded transport: a dripping or enormous response becomes a provider error, quickly."""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from model_helpers import raw_server

from evalkit.models.transport import guarded_http_client
from evalkit.usage import UNKNOWN


class _Hostile(BaseHTTPRequestHandler):
    def log_message(self, *args):  # quiet
        pass

    def do_POST(self):  # noqa: N802 - http.server API
        self.rfile.read(int(self.headers.get("content-length", 0)))
        self.send_response(200)
        self.send_header("content-type", "application/json")
        if self.path.startswith("/drip"):
            self.send_header("content-length", "100000")
            self.end_headers()
            try:
                for _ in range(200):
                    self.wfile.write(b" ")
                    self.wfile.flush()
                    time.sleep(0.05)
            except (BrokenPipeError, ConnectionResetError):
                pass
        else:  # an endless chunked body
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            chunk = b"A" * 65536
            try:
                for _ in range(2000):
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            except (BrokenPipeError, ConnectionResetError):
                pass


@pytest.fixture(scope="module")
def hostile():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Hostile)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_a_dripping_response_times_out_on_the_whole_call(hostile):
    import openai

    client = openai.OpenAI(base_url=f"{hostile}/drip/v1", api_key="k", max_retries=0, timeout=1.0,
                           http_client=guarded_http_client(1.0))
    start = time.monotonic()
    with pytest.raises(openai.APITimeoutError):
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
    assert time.monotonic() - start < 5


def test_an_enormous_response_is_cut_off_at_the_cap(hostile):
    import openai

    client = openai.OpenAI(base_url=f"{hostile}/huge/v1", api_key="k", max_retries=0, timeout=30.0,
                           http_client=guarded_http_client(30.0, max_bytes=1_000_000))
    with pytest.raises(openai.APIConnectionError) as caught:
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
    # a chunked body (no Content-Length) is cut while read; the provider error names the cap
    from evalkit.models.retry import connection_failure

    error = connection_failure(caught.value)
    assert (error.code, error.retryable) == ("response_too_large", False)
    assert "response body larger than 1000000 bytes" in str(error)


@pytest.fixture
def header_drip():
    """A raw socket server that sends a status line, then one header line every 0.2 s for
    ever (each read gets data well within any per-read timeout; the headers never end)."""
    stop = threading.Event()

    def serve(conn):
        with conn:
            try:
                conn.recv(65536)
                conn.sendall(b"HTTP/1.1 200 OK\r\n")
                while not stop.wait(0.2):
                    conn.sendall(b"X-Drip: a\r\n")
            except OSError:
                pass

    with raw_server(serve) as port:
        yield f"http://127.0.0.1:{port}"
    stop.set()


def _call_in_thread(fn):
    """Run ``fn`` on a daemon thread; return what it raised (a guard timeout keeps a hang
    from blocking the test run)."""
    outcome = {}

    def target():
        try:
            fn()
        except BaseException as exc:  # noqa: BLE001 - reported to the test
            outcome["exc"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(30)
    assert not thread.is_alive(), "the call never ended"
    return outcome.get("exc")


def test_slowly_sent_headers_time_out_on_the_whole_call(header_drip):
    import httpx2

    client = guarded_http_client(1.0)
    exc = _call_in_thread(lambda: client.post(f"{header_drip}/v1/chat/completions", json={}, timeout=5.0))
    assert isinstance(exc, httpx2.ReadTimeout)
    assert "not complete after 1 s" in str(exc)


def test_slowly_sent_headers_are_a_timeout_provider_error(header_drip):
    from evalkit.models.config import ModelSettings, RetrySettings
    from evalkit.models.openai_compat import OpenAIProvider
    from evalkit.models.retry import ProviderError

    settings = ModelSettings(spec="openai/m", provider="openai", model="m",
                             retry=RetrySettings(max_attempts=1, timeout_s=1.0))
    provider = OpenAIProvider(settings, base_url=f"{header_drip}/v1", api_key="k")
    exc = _call_in_thread(lambda: provider.complete([{"role": "user", "content": "hi"}], []))
    assert isinstance(exc, ProviderError)
    assert (exc.code, exc.retryable) == ("timeout", True)
    assert exc.usage == UNKNOWN  # a read timeout: the request was sent, perhaps run and billed


def test_a_connection_that_never_reached_the_provider_bills_nothing():
    import socket

    from evalkit.models.config import ModelSettings, RetrySettings
    from evalkit.models.openai_compat import OpenAIProvider
    from evalkit.models.retry import ProviderError

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    settings = ModelSettings(spec="openai/m", provider="openai", model="m",
                             retry=RetrySettings(max_attempts=1, timeout_s=1.0))
    provider = OpenAIProvider(settings, base_url=f"http://127.0.0.1:{port}/v1", api_key="k")
    exc = _call_in_thread(lambda: provider.complete([{"role": "user", "content": "hi"}], []))
    assert isinstance(exc, ProviderError) and exc.code == "connection_error" and exc.usage is None


def test_a_model_with_many_connections_spreads_its_threads_over_small_pools():
    from concurrent.futures import ThreadPoolExecutor

    from evalkit.models.config import ModelSettings
    from evalkit.models.openai_compat import SHARD_CONNECTIONS, OpenAIProvider

    settings = ModelSettings(spec="openai/m", provider="openai", model="m", max_connections=20)
    provider = OpenAIProvider(settings, base_url="http://127.0.0.1:9/v1", api_key="k")
    try:
        assert SHARD_CONNECTIONS == 8 and len(provider._clients) == 3
        barrier = threading.Barrier(20)

        def which(_):
            barrier.wait()  # 20 distinct threads, each asking once
            return id(provider.client)

        with ThreadPoolExecutor(20) as pool:
            chosen = list(pool.map(which, range(20)))
        assert sorted(chosen.count(id(c)) for c in provider._clients) == [6, 7, 7]
        assert provider.client is provider.client  # a thread keeps its client
    finally:
        provider.close()


def test_a_connection_cut_after_sending_is_named_so_and_a_timeout_names_its_limit():
    import httpx

    from evalkit.models.retry import connection_failure, timeout_failure
    from evalkit.usage import UNKNOWN

    def chained(outer: Exception, inner: Exception) -> Exception:
        try:
            try:
                raise inner
            except Exception as exc:
                raise outer from exc
        except Exception as exc:
            return exc

    cut = connection_failure(chained(RuntimeError("Connection error."),
                                     httpx.RemoteProtocolError("peer closed connection without sending complete "
                                                               "message body (received 149 bytes, expected 299)")))
    assert cut.code == "connection_error" and cut.usage == UNKNOWN
    assert str(cut).startswith("the connection failed after the request was sent (the answer was cut off or never "
                               "came): RemoteProtocolError: peer closed connection without sending complete")
    refused = connection_failure(chained(RuntimeError("Connection error."), httpx.ConnectError("refused")))
    assert str(refused) == "cannot reach the endpoint: Connection error." and refused.usage is None
    slow = timeout_failure(chained(RuntimeError("Request timed out."), httpx.ReadTimeout("timed out")))
    assert slow.code == "timeout" and slow.usage == UNKNOWN
    assert str(slow) == ("request timed out: Request timed out. (ReadTimeout: timed out); the limit per attempt is "
                         "the model config's retry.timeout_s (default 120 s)")
