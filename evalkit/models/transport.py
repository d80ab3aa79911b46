"""An HTTP transport with a whole-response deadline and a size cap, for provider SDKs.

A read timeout applies to each read, so a server that drips one byte every half second
never times out, and a 200 response with a body of gigabytes is read into memory whole.
:class:`GuardedTransport` wraps the SDK's transport: it raises a read timeout once a
response has taken ``total_s`` seconds from the request, and a read error once its body
passes ``max_bytes``. The SDK turns both into its own timeout / connection errors, which
evalkit records as provider errors of that episode (and retries as such).
"""

from __future__ import annotations

import time
from typing import Any, Iterator

DEFAULT_MAX_BYTES = 32 * 1024 * 1024
"""Largest response body accepted (32 MiB: far above any chat completion)."""


def guarded_http_client(total_s: float, max_bytes: int = DEFAULT_MAX_BYTES, *, connections: int = 4) -> Any:
    """An ``httpx2.Client`` for the openai / anthropic SDKs with the guards above.

    Its connection pool keeps ``connections`` connections open between calls and opens no
    more than that at once: one per episode thread of the model (``--max-connections``), so
    that every call reuses a kept-alive connection (the transport's own default keeps only
    20 and opens at most 100, which would cap a larger ``--max-connections``).

    Args:
        total_s: Seconds a whole response may take, from sending the request to its last byte.
        max_bytes: Largest response body, in bytes.
        connections: Calls the model makes at once (its ``max_connections``, at least 1).

    Returns:
        The client; close it with ``close()``.
    """
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
                    raise httpx2.ReadError(f"response body larger than {max_bytes} bytes", request=self.request)
                if time.monotonic() > self.deadline:
                    raise httpx2.ReadTimeout(f"response not complete after {total_s:g} s", request=self.request)
                yield chunk

        def close(self) -> None:
            close = getattr(self.inner, "close", None)
            if close is not None:
                close()

    class GuardedTransport(httpx2.HTTPTransport):
        def handle_request(self, request: Any) -> Any:
            deadline = time.monotonic() + total_s
            response = super().handle_request(request)
            length = response.headers.get("content-length")
            if length is not None and length.isdigit() and int(length) > max_bytes:
                response.close()
                raise httpx2.ReadError(f"response body of {length} bytes is larger than {max_bytes}", request=request)
            response.stream = _GuardedStream(response.stream, deadline, request)
            return response

    connections = max(1, int(connections))
    limits = httpx2.Limits(max_connections=connections, max_keepalive_connections=connections)
    return httpx2.Client(transport=GuardedTransport(limits=limits), timeout=total_s)
