"""An HTTP transport with a whole-response deadline and a size cap, for provider SDKs.

A read timeout applies to each read, so a server that drips one header line or one body
byte every half second never times out, and a 200 response with a body of gigabytes is
read into memory whole. :class:`GuardedTransport` wraps the SDK's transport:

* every request gets a deadline ``total_s`` seconds after it is sent; the connection
  pool's network backend (:class:`_DeadlineBackend`) clamps the timeout of each connect,
  write and read to the time left before it, so waiting for a free connection,
  connecting, sending, the status line and headers and the body all count, and once it
  has passed the next read raises a read timeout;
* a read error is raised once a response body passes ``max_bytes`` (the message names
  the cap: ``response body larger than … bytes``).

The SDK turns both into its own timeout / connection errors; evalkit records a timeout as
the provider error ``timeout`` (retried) and an over-cap body as ``response_too_large``
(not retried: the same request returns the same body).
"""

from __future__ import annotations

import threading
import time
from typing import Any, Iterator

DEFAULT_MAX_BYTES = 32 * 1024 * 1024
"""Largest response body accepted (32 MiB: far above any chat completion)."""

TOO_LARGE = "response body larger than"
"""Start of the read error's message for a body over the cap (matched by the providers)."""

_deadline = threading.local()
"""``_deadline.at``: the ``time.monotonic()`` by which this thread's current request must
be complete, or ``None``. The SDKs send a request and read its body on the calling
thread, so a thread-local reaches the network backend without changing its signatures."""


def _left(timeout: float | None, exc_type: type[Exception], *, slack: float = 0.0) -> float | None:
    """``timeout`` clamped to the seconds left before this thread's deadline.

    Raises:
        exc_type: when the deadline has passed (or is less than ``slack`` seconds away).
    """
    at = getattr(_deadline, "at", None)
    if at is None:
        return timeout
    left = at - time.monotonic()
    if left <= slack:
        raise exc_type(f"response not complete after {getattr(_deadline, 'total_s', 0):g} s")
    return left if timeout is None else min(timeout, left)


def _network_backend() -> Any:
    """A ``httpcore2`` network backend whose streams honour the thread's deadline."""
    import httpcore2

    class _DeadlineStream(httpcore2.NetworkStream):
        def __init__(self, inner: Any) -> None:
            self.inner = inner

        def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
            try:
                return self.inner.read(max_bytes, _left(timeout, httpcore2.ReadTimeout))
            except httpcore2.ReadTimeout:
                _left(None, httpcore2.ReadTimeout, slack=0.05)  # name the deadline when it is the cause
                raise

        def write(self, buffer: bytes, timeout: float | None = None) -> None:
            try:
                self.inner.write(buffer, _left(timeout, httpcore2.WriteTimeout))
            except httpcore2.WriteTimeout:
                _left(None, httpcore2.WriteTimeout, slack=0.05)
                raise

        def close(self) -> None:
            self.inner.close()

        def start_tls(self, ssl_context: Any, server_hostname: str | None = None,
                      timeout: float | None = None) -> Any:
            return _DeadlineStream(self.inner.start_tls(ssl_context, server_hostname,
                                                        _left(timeout, httpcore2.ConnectTimeout)))

        def get_extra_info(self, info: str) -> Any:
            return self.inner.get_extra_info(info)

    class _DeadlineBackend(httpcore2.SyncBackend):  # the pool's default backend
        def connect_tcp(self, host: str, port: int, timeout: float | None = None, *args: Any, **kw: Any) -> Any:
            return _DeadlineStream(super().connect_tcp(host, port, _left(timeout, httpcore2.ConnectTimeout),
                                                       *args, **kw))

        def connect_unix_socket(self, path: str, timeout: float | None = None, *args: Any, **kw: Any) -> Any:
            return _DeadlineStream(super().connect_unix_socket(path, _left(timeout, httpcore2.ConnectTimeout),
                                                               *args, **kw))

    return _DeadlineBackend()


def guarded_http_client(total_s: float, max_bytes: int = DEFAULT_MAX_BYTES, *, connections: int = 4) -> Any:
    """An ``httpx2.Client`` for the openai / anthropic SDKs with the guards above.

    Its connection pool keeps ``connections`` connections open between calls and opens no
    more than that at once: one per episode thread of the model (``--max-connections``), so
    that every call reuses a kept-alive connection (the transport's own default keeps only
    20 and opens at most 100, which would cap a larger ``--max-connections``).

    Args:
        total_s: Seconds a whole response may take, from sending the request (including
            the wait for a free connection and connecting) to its last byte.
        max_bytes: Largest response body, in bytes.
        connections: Calls the model makes at once (its ``max_connections``, at least 1).

    Returns:
        The client; close it with ``close()``.
    """
    import httpcore2
    import httpx2

    class _GuardedStream(httpx2.SyncByteStream):
        def __init__(self, inner: Any, deadline: float, request: Any) -> None:
            self.inner = inner
            self.deadline = deadline
            self.request = request

        def __iter__(self) -> Iterator[bytes]:
            seen = 0
            for chunk in self.inner:
                seen += len(chunk)
                if seen > max_bytes:
                    raise httpx2.ReadError(f"{TOO_LARGE} {max_bytes} bytes", request=self.request)
                if time.monotonic() > self.deadline:
                    raise httpx2.ReadTimeout(f"response not complete after {total_s:g} s", request=self.request)
                yield chunk

        def close(self) -> None:
            close = getattr(self.inner, "close", None)
            if close is not None:
                close()

    class GuardedTransport(httpx2.HTTPTransport):
        def __init__(self, limits: Any) -> None:
            super().__init__(limits=limits)
            # the same pool as the default, with the deadline-aware network backend
            # (``network_backend`` is the pool's extension point for socket I/O)
            self._pool = httpcore2.ConnectionPool(
                ssl_context=httpx2.create_ssl_context(),
                max_connections=limits.max_connections,
                max_keepalive_connections=limits.max_keepalive_connections,
                keepalive_expiry=limits.keepalive_expiry,
                network_backend=_network_backend(),
            )

        def handle_request(self, request: Any) -> Any:
            deadline = time.monotonic() + total_s
            # the pool's wait for a free connection is bounded by the deadline too
            timeouts = dict(request.extensions.get("timeout") or {})
            for name in ("connect", "read", "write", "pool"):
                value = timeouts.get(name)
                timeouts[name] = total_s if value is None else min(value, total_s)
            request.extensions["timeout"] = timeouts
            # kept after this returns: the SDK reads the body on this thread next
            _deadline.at, _deadline.total_s = deadline, total_s
            response = super().handle_request(request)
            length = response.headers.get("content-length")
            if length is not None and length.isdigit() and int(length) > max_bytes:
                response.close()
                raise httpx2.ReadError(f"{TOO_LARGE} {max_bytes} bytes (content-length {length})",
                                       request=request)
            response.stream = _GuardedStream(response.stream, deadline, request)
            return response

    connections = max(1, int(connections))
    limits = httpx2.Limits(max_connections=connections, max_keepalive_connections=connections)
    return httpx2.Client(transport=GuardedTransport(limits), timeout=total_s)
