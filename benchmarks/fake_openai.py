"""A local OpenAI-compatible chat-completions server that answers after a fixed delay.

Every ``POST /v1/chat/completions`` waits ``--delay`` seconds (a thread per connection, so
waits overlap) and answers with a final text and no tool calls. The answer body is built
once per model name, so the server costs little CPU next to the client it measures (it
stands in for a remote server, which costs the client machine nothing). Binds 127.0.0.1
only and prints its base URL on the first line of stdout.

``GET /stats`` returns what the server saw, for steady-state figures that leave out the
client's start-up and finish::

    {"connections": int,            # TCP connections accepted so far
     "arrivals": [float, ...],      # time.monotonic() of each request, in arrival order
     "completions": [float, ...]}   # time.monotonic() of each answer sent, in order

    python benchmarks/fake_openai.py --delay 0.2 [--port 0]
"""

from __future__ import annotations

import argparse
import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ANSWER = "Done: I have completed your request."


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as the client pools connections
    delay = 0.2
    bodies: dict[str, bytes] = {}
    arrivals: list[float] = []
    completions: list[float] = []
    connections = 0
    lock = threading.Lock()

    def setup(self) -> None:
        super().setup()
        # headers and body go out as two writes: without TCP_NODELAY the body waits for the
        # client's delayed ACK of the headers (40 ms on Linux), a cost no real server adds
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with self.lock:
            Handler.connections += 1

    @classmethod
    def answer(cls, model: str) -> bytes:
        """The answer body for ``model``, built on its first use."""
        body = cls.bodies.get(model)
        if body is None:
            body = cls.bodies[model] = json.dumps({
                "id": "chatcmpl-bench", "object": "chat.completion", "created": int(time.time()), "model": model,
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": ANSWER}}],
                "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110},
            }).encode()
        return body

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        self.arrivals.append(time.monotonic())
        request = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        time.sleep(self.delay)
        self._send(self.answer(str(request.get("model", "fake"))))
        self.completions.append(time.monotonic())

    def do_GET(self) -> None:  # noqa: N802
        if self.path.rstrip("/") != "/stats":
            self.send_error(404)
            return
        self._send(json.dumps({"connections": self.connections, "arrivals": list(self.arrivals),
                               "completions": list(self.completions)}).encode())

    def _send(self, body: bytes) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:  # quiet
        pass


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # 64 connections open at once must not be refused


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delay", type=float, default=0.2, help="seconds before each answer (default 0.2)")
    parser.add_argument("--port", type=int, default=0, help="port (default: a free one)")
    args = parser.parse_args()
    Handler.delay = args.delay
    server = Server(("127.0.0.1", args.port), Handler)
    print(f"http://127.0.0.1:{server.server_address[1]}/v1", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
