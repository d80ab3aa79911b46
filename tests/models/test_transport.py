"""The guarded transport: a dripping or enormous response becomes a provider error, quickly."""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from evalkit.models.transport import guarded_http_client


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
    with pytest.raises(openai.APIConnectionError):
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
