"""The live HTTP client: its connection pool follows ``max_connections``, and an HTTP 200
answer whose body is an error object is a clear ``error_body`` provider error."""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from model_helpers import (
    completion,
    events_of,
    field_domain,
    field_episode,
    field_pair,
    openai_model,
    run_live_episode,
    settings,
)

from evalkit.models.retry import error_in_body
from evalkit.models.transport import guarded_http_client

CHAT = "/v1/chat/completions"
OBJ = {"type": "object", "properties": {}, "additionalProperties": True}
SERVER_ERROR = {"error": {"message": "The server had an error while processing your request. Sorry about that!",
                          "type": "server_error", "param": None, "code": None}}


def serve(api, *bodies):
    for body in bodies:
        api.expect_ordered_request(CHAT, method="POST").respond_with_json(body, status=200)


# ---------------------------------------------------------------- HTTP 200 with an error body

def test_a_200_error_body_is_retried_then_recorded_as_error_body_with_the_servers_message(api):
    serve(api, *[SERVER_ERROR] * 6)
    domain = field_domain({"save": ("commit", OBJ)})
    pair = field_pair(domain, "save")
    run, row = field_episode(openai_model(api), domain, pair)
    assert len(api.log) == 4  # max_attempts of FAST_RETRY, not cut short as identical HTTP 500s
    assert [(r.code, r.status) for r in events_of(run.log, "provider_retry")] == [("error_body", 200)] * 3
    assert (row["status"], row["error_code"]) == ("error", "error_body")
    [error] = events_of(run.log, "error")
    assert error.code == "error_body"
    assert error.message == ("the server answered HTTP 200 with an error body (type server_error): The server had an "
                             "error while processing your request. Sorry about that!")
    assert "HTTP 500" not in row["error"] and "answered HTTP 200 with an error body" in row["error"]


def test_one_200_error_body_then_an_answer_recovers(api):
    serve(api, SERVER_ERROR, completion({"content": "Done."}))
    result = run_live_episode(openai_model(api))
    assert result.error is None and len(api.log) == 2
    [retry] = events_of(result.log, "provider_retry")
    assert retry.code == "error_body" and "Sorry about that" in retry.message


@pytest.mark.parametrize("error, calls", [
    ({"message": "Invalid value for 'tool_choice'", "type": "invalid_request_error"}, 1),
    ({"message": "Provider returned error", "code": 400}, 1),  # a gateway's numeric status in the body
    ({"message": "Rate limit exceeded: free-models-per-min", "code": 429}, 4),
])
def test_the_error_type_or_numeric_code_decides_the_retry(api, error, calls):
    serve(api, *[{"error": error}] * 4)
    domain = field_domain({"save": ("commit", OBJ)})
    _, row = field_episode(openai_model(api), domain, field_pair(domain, "save"))
    assert len(api.log) == calls and row["error_code"] == "error_body"
    assert error["message"] in row["error"]


def test_a_context_overflow_in_a_200_error_body_is_not_retried(api):
    serve(api, {"error": {"message": "This model's maximum context length is 4096 tokens.", "type": "BadRequest"}})
    domain = field_domain({"save": ("commit", OBJ)})
    _, row = field_episode(openai_model(api), domain, field_pair(domain, "save"))
    assert len(api.log) == 1 and row["error_code"] == "context_length_exceeded"


def test_the_quoted_server_message_is_cut_and_collapsed():
    exc = error_in_body({"error": {"message": "line one\n\n  line two " + "x" * 1000, "type": "server_error",
                                   "code": "internal"}}, limit=40)
    text = str(exc)
    assert text.startswith("the server answered HTTP 200 with an error body (type server_error, code internal): ")
    quoted = text.split(": ", 1)[1]
    assert quoted.startswith("line one line two xxx") and quoted.endswith("…") and len(quoted) == 40
    assert (exc.code, exc.status, exc.retryable) == ("error_body", 200, True)
    plain = error_in_body({"error": "upstream failed"})
    assert str(plain) == "the server answered HTTP 200 with an error body: upstream failed"


def test_a_messages_api_error_in_a_200_answer(api):
    from evalkit.models.live import LiveModel

    body = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    for _ in range(4):
        api.expect_ordered_request("/v1/messages", method="POST").respond_with_json(body, status=200)
    model = LiveModel(settings("anthropic/claude-test", base_url=api.url_for(""), max_tokens=64), provider=None)
    domain = field_domain({"save": ("commit", OBJ)})
    _, row = field_episode(model, domain, field_pair(domain, "save"))
    assert len(api.log) == 4 and row["error_code"] == "error_body"
    assert row["error"].endswith("with an error body (type overloaded_error): Overloaded")


# ---------------------------------------------------------------- connection pool

class _Counting(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    connections = 0
    lock = threading.Lock()

    def setup(self):
        super().setup()
        with self.lock:
            type(self).connections += 1

    def log_message(self, *args):  # quiet
        pass

    def do_POST(self):  # noqa: N802 - http.server API
        self.rfile.read(int(self.headers.get("content-length", 0)))
        time.sleep(0.2)  # every request of a round is in flight at once
        body = b"{}"
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 64  # 30 connections opened at once are all accepted


@pytest.fixture
def counting():
    server = _Server(("127.0.0.1", 0), _Counting)
    _Counting.connections = 0
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


def _rounds(client, url, threads, rounds):
    """``rounds`` times, ``threads`` calls at once; returns every call's status or error."""
    outcomes: list = []
    for _ in range(rounds):
        barrier = threading.Barrier(threads)

        def call():
            barrier.wait(5)
            try:
                outcomes.append(client.post(url, json={}).status_code)
            except Exception as exc:  # noqa: BLE001 - reported by the test
                outcomes.append(repr(exc))

        workers = [threading.Thread(target=call) for _ in range(threads)]
        for w in workers:
            w.start()
        for w in workers:
            w.join(10)
    return outcomes


def test_every_connection_is_kept_alive_between_rounds(counting):
    # 30 calls at once, twice: the second round reuses the 30 kept-alive connections
    # (a pool that keeps fewer idle connections closes some and opens them again)
    with guarded_http_client(10.0, connections=30) as client:
        assert _rounds(client, counting, threads=30, rounds=2) == [200] * 60
    assert _Counting.connections == 30


def test_the_pool_opens_no_more_than_connections(counting):
    with guarded_http_client(10.0, connections=2) as client:
        assert _rounds(client, counting, threads=4, rounds=1) == [200] * 4
    assert _Counting.connections == 2
