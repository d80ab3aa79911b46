"""Provider errors and the retry policy (DESIGN §7; field case C19).

Every provider failure becomes a :class:`ProviderError` with a machine-readable ``code``:

=============================  =========  ====================================================
code                           retried    cause
=============================  =========  ====================================================
``rate_limited``               yes        HTTP 429
``quota_exceeded``             no         HTTP 429 saying the account's quota or credit is used up
                                          (OpenAI's ``insufficient_quota``): waiting does not help
``timeout``                    yes        the request timed out (or HTTP 408)
``connection_error``           yes        the endpoint could not be reached
``provider_unavailable``       yes        HTTP 502, 503, 504, 529 (overloaded)
``server_error``               yes        another HTTP 5xx (or 409)
``context_length_exceeded``    no         the prompt does not fit the model's window (any status)
``bad_request``                no         another HTTP 4xx: the same request fails the same way
``auth_error`` / ``not_found``  no         HTTP 401/403, 404
``provider_rejects_history``   stopped    the same HTTP 500 answer ``identical_error_limit`` times
                                          in a row: the history itself is rejected
``error_body``                 mostly     HTTP 200 whose body is an error object, not a result
                                          (:func:`error_in_body`)
``invalid_response``           yes        HTTP 200 whose body is not the expected JSON shape
                                          (not JSON, nested too deeply, ``choices`` not a list,
                                          ``message`` not an object, …)
``response_too_large``         no         the body passed the transport's size cap
                                          (:data:`~evalkit.models.transport.DEFAULT_MAX_BYTES`)
=============================  =========  ====================================================

An ``x-should-retry: true|false`` response header overrides the table.

An attempt answered with a body that could not be read (``invalid_response``,
``response_too_large``: :data:`UNREADABLE`) reached the provider, which may have billed it; when
the body gave no readable usage, its usage is **unknown** (:data:`evalkit.usage.UNKNOWN`, every
class ``None``), never 0: the episode's tokens and money are then ``null`` and counted in
``usage_missing`` (:mod:`evalkit.metrics.billing`). So is an attempt that failed after its
request was sent: a read timeout, or a connection cut while the answer was coming
(:func:`request_sent`). An HTTP error status without usage in its body, and a connection that
never reached the provider, are not billed (``usage`` ``None``).

:func:`call_with_retries` runs one call under :class:`~evalkit.models.config.RetrySettings`
with tenacity: a retryable error waits ``Retry-After`` (``retry-after-ms``, seconds or an
HTTP date) capped at ``retry_after_cap_s``, else an exponential backoff with jitter, and is
tried again up to ``max_attempts``. Each retry is returned as a record that the agent loop
writes as a :class:`~evalkit.runtime.events.ProviderRetry` event; the waits are returned
separately so that they are never charged to the episode's latency.
"""

from __future__ import annotations

import email.utils
import json
import math
import re
import time
from typing import Any, Callable, Mapping, TypeVar

from evalkit.errors import ModelError
from evalkit.models.config import RetrySettings
from evalkit.models.transport import TOO_LARGE
from evalkit.runtime.jsonsafe import DuplicateKey, unique_keys
from evalkit.usage import UNKNOWN

T = TypeVar("T")

UNREADABLE = frozenset({"invalid_response", "response_too_large"})
"""Outcome codes of an attempt the provider answered with a body evalkit could not read: its
usage is unknown unless the body reported a readable one (module docstring)."""

_CONTEXT = re.compile(
    r"maximum context length|context[_ ]length|context window|context size|too many tokens"
    r"|prompt is too long|input is too long|exceeds? the (?:model'?s? )?(?:maximum|context)",
    re.IGNORECASE,
)


class ProviderError(ModelError):
    """A provider call failed.

    Args:
        message: What the provider said (one line).
        code: The outcome code (see the module table).
        status: HTTP status, or ``None`` for transport errors.
        retryable: Whether trying the same request again may succeed.
        retry_after: Seconds the provider asked to wait, or ``None``.

    Attributes:
        retries: Records of the retries made before giving up (set by
            :func:`call_with_retries`), each ``{"attempt", "code", "status", "message",
            "wait_s", "usage"}``.
        usage: The :class:`~evalkit.usage.Usage` the failed answer reported billing (an
            error body or an unusable 200 answer); :data:`evalkit.usage.UNKNOWN` for an
            :data:`UNREADABLE` answer without readable usage (billed, amount unknown); ``None``
            when the answer billed nothing (an error without usage).
        cost_usd: That usage's price (set by :class:`~evalkit.models.live.LiveModel`).
    """

    def __init__(self, message: str, *, code: str, status: int | None = None, retryable: bool = False,
                 retry_after: float | None = None):
        super().__init__(message, retryable=retryable)
        self.code = code
        self.status = status
        self.retry_after = retry_after
        self.retries: list[dict[str, Any]] = []
        self.usage: Any = None
        self.cost_usd: float | None = None

    @property
    def signature(self) -> tuple[Any, ...]:
        """What makes two failures identical (status, code, message)."""
        return (self.status, self.code, str(self))


def parse_retry_after(headers: Mapping[str, str] | None, *, now: float | None = None) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``retry-after`` (seconds or HTTP date).

    Returns:
        A non-negative number of seconds, or ``None`` when absent or unreadable; a value that
        is not a finite number (``nan``, ``inf``) or is negative (``-100``; RFC 9110 §10.2.3
        allows only a non-negative delay) is unreadable, so the normal backoff applies; an HTTP
        date in the past is 0.
    """
    if not headers:
        return None
    lower = {k.lower(): v for k, v in headers.items()}
    ms = lower.get("retry-after-ms")
    if ms is not None:
        try:
            if math.isfinite(float(ms)) and float(ms) >= 0:
                return float(ms) / 1000.0
        except ValueError:
            pass
    value = lower.get("retry-after")
    if value is None:
        return None
    try:
        number = float(value)
    except ValueError:
        pass
    else:
        return number if math.isfinite(number) and number >= 0 else None
    try:
        parsed = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(parsed.timestamp() - (time.time() if now is None else now), 0.0)


def parse_body(text: str, *, status: int | None = None, content_type: str | None = None) -> Any:
    """The JSON value of a 200 answer's body.

    Args:
        text: The body as received.
        status, content_type: The answer's HTTP status and ``Content-Type`` header, named in
            the error so that an answer from the wrong server (a gateway's HTML page, a wrong
            ``--base-url``) can be told apart from a cut or empty body.

    Raises:
        ProviderError: ``invalid_response`` (retryable) when the body is not JSON (the message
            names the status, the content type and the body's first characters:
            :func:`body_excerpt`), is nested too deeply to parse, or has an object that gives one
            key twice (RFC 8259 leaves its meaning to the reader: an Anthropic ``tool_use`` input
            ``{"id": "C-9", "id": "C-1"}`` must not run on a value it may not mean).
    """
    try:  # a byte-order mark is no content
        return json.loads(text[1:] if text.startswith("\ufeff") else text, object_pairs_hook=unique_keys)
    except DuplicateKey as exc:
        raise ProviderError(f"the response JSON gives the key {exc.key!r} twice in one object ({_answer_kind(status, content_type)}): "
                            "which value was meant is unknown", code="invalid_response", retryable=True) from None
    except ValueError:
        raise ProviderError(f"the response is not JSON ({_answer_kind(status, content_type)}): {body_excerpt(text)}",
                            code="invalid_response", retryable=True) from None
    except RecursionError:
        raise ProviderError("the response JSON is nested too deeply to read", code="invalid_response",
                            retryable=True) from None


def _answer_kind(status: int | None, content_type: str | None) -> str:
    """``HTTP 200, text/html``: the status and the media type (parameters such as ``charset`` left out)."""
    media = (content_type or "").split(";", 1)[0].strip()
    return f"HTTP {status if status is not None else '?'}, {body_excerpt(media, 40, quote=False) or 'no content type'}"


def body_excerpt(text: str, limit: int = 80, *, quote: bool = True) -> str:
    """The first characters of ``text`` for an error message: at most ``limit`` characters
    (quotes and the ``…`` marking a cut included), control and other unprintable characters
    escaped (``\\n``, ``\\x00``, ``\\u202e``), so the message stays one readable line; ``empty body``
    for an empty text."""
    if not text:
        return "empty body" if quote else ""
    room = limit - (2 if quote else 0)
    out: list[str] = []
    used = 0
    for index, char in enumerate(text):
        if char == "\\" or (quote and char == "'"):
            piece = "\\" + char
        elif char.isprintable():
            piece = char
        else:
            piece = repr(char)[1:-1]
        last = index == len(text) - 1
        if used + len(piece) > (room if last else room - 1):  # keep a place for the cut marker
            out.append("…")
            break
        out.append(piece)
        used += len(piece)
    shown = "".join(out)
    return f"'{shown}'" if quote else shown


_SENT = frozenset({"ReadTimeout", "ReadError", "RemoteProtocolError", "WriteTimeout", "WriteError", "IncompleteRead"})
"""Transport errors raised after the request was sent (the provider may have run and billed it)."""
_NOT_SENT = frozenset({"ConnectError", "ConnectTimeout", "PoolTimeout"})
"""Transport errors raised before the request reached the provider (nothing billed)."""


def request_sent(exc: BaseException, default: bool) -> bool:
    """Whether a failed call's request reached the provider, from the transport error in the cause
    chain of ``exc`` (:data:`_SENT`, :data:`_NOT_SENT`); ``default`` when the chain does not tell."""
    cause: BaseException | None = exc
    for _ in range(8):
        if cause is None:
            break
        name = type(cause).__name__
        if name in _SENT:
            return True
        if name in _NOT_SENT:
            return False
        cause = cause.__cause__ or cause.__context__
    return default


def timeout_failure(exc: BaseException) -> ProviderError:
    """The :class:`ProviderError` (``timeout``, retried) for an SDK timeout. A request that timed
    out after it was sent (a read timeout: :func:`request_sent`, the default when the error does
    not tell) may have been run and billed: its usage is unknown (:data:`~evalkit.usage.UNKNOWN`),
    never 0; a connect timeout billed nothing (``usage`` ``None``)."""
    inner = _innermost(exc)
    detail = str(exc) if inner.endswith(str(exc)) else f"{exc} ({inner})"
    error = ProviderError(f"request timed out: {detail}; the limit per attempt is the model config's retry.timeout_s "
                          "(default 120 s)", code="timeout", retryable=True)
    error.usage = UNKNOWN if request_sent(exc, default=True) else None
    return error


def connection_failure(exc: BaseException) -> ProviderError:
    """The :class:`ProviderError` for an SDK connection error.

    The SDKs report every transport error, the guarded transport's size cap included
    (:mod:`evalkit.models.transport`), as a connection error whose cause is the transport's.

    Returns:
        ``response_too_large`` (not retried: the same request returns the same body), naming
        the cap, when the cause is the size cap; else ``connection_error`` (retried), whose usage
        is unknown (:data:`~evalkit.usage.UNKNOWN`) when the connection failed after the request
        was sent (:func:`request_sent`: the answer was cut off, perhaps billed; the message says so and
        gives the transport's error) and ``None`` when it never reached the provider ("cannot reach the
        endpoint").
    """
    cause: BaseException | None = exc
    for _ in range(8):  # the SDK's error, the HTTP client's, the transport's
        if cause is None:
            break
        if TOO_LARGE in str(cause):
            return ProviderError(f"the response was not read: {cause}", code="response_too_large", retryable=False)
        cause = cause.__cause__ or cause.__context__
    sent = request_sent(exc, default=False)
    if sent:  # connected and sent: the answer was cut off or never finished, not an unreachable endpoint
        error = ProviderError(f"the connection failed after the request was sent (the answer was cut off or never "
                              f"came): {_innermost(exc)}", code="connection_error", retryable=True)
    else:
        error = ProviderError(f"cannot reach the endpoint: {exc}", code="connection_error", retryable=True)
    error.usage = UNKNOWN if sent else None
    return error


def _innermost(exc: BaseException) -> str:
    """``Name: message`` of the deepest error in the cause chain of ``exc`` (the transport's own words)."""
    cause: BaseException = exc
    for _ in range(8):
        nxt = cause.__cause__ or cause.__context__
        if nxt is None:
            break
        cause = nxt
    return f"{type(cause).__name__}: {cause}" if str(cause) else type(cause).__name__


def error_message(body: Any, fallback: str) -> str:
    """The provider's error message from an error body (``{"error": {"message": …}}``,
    ``{"message": …}`` or ``{"type": "error", "error": {…}}``), else ``fallback``."""
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict):
            return str(err.get("message") or err.get("type") or fallback)
        if err:
            return str(err)
    return fallback


_QUOTA = re.compile(r"insufficient[_ ]quota|exceeded your current quota|quota (?:has been )?exhausted|"
                    r"credit balance is too low|out of credits", re.IGNORECASE)
"""A 429 whose message says the account's quota or credit is used up (not a rate to wait out)."""


def error_for_status(status: int, message: str, headers: Mapping[str, str] | None = None) -> ProviderError:
    """The :class:`ProviderError` for an HTTP error answer (see the module table)."""
    message = " ".join(str(message).split())[:500]
    if _CONTEXT.search(message):
        code, retryable = "context_length_exceeded", False
    elif status == 429 and _QUOTA.search(message):
        code, retryable = "quota_exceeded", False
    elif status == 429:
        code, retryable = "rate_limited", True
    elif status == 408:
        code, retryable = "timeout", True
    elif status in (502, 503, 504, 529):
        code, retryable = "provider_unavailable", True
    elif status >= 500 or status == 409:
        code, retryable = "server_error", True
    elif status in (401, 403):
        code, retryable = "auth_error", False
    elif status == 404:
        code, retryable = "not_found", False
    else:
        code, retryable = "bad_request", False
    lower = {k.lower(): v for k, v in (headers or {}).items()}
    should = lower.get("x-should-retry", "").strip().lower()
    if should in ("true", "false") and code != "context_length_exceeded":
        retryable = should == "true"
    return ProviderError(f"HTTP {status}: {message}", code=code, status=status, retryable=retryable,
                         retry_after=parse_retry_after(headers))


_CLIENT_FAULTS = frozenset({
    "invalid_request_error", "authentication_error", "permission_error", "permission_denied", "not_found_error",
    "invalid_api_key", "request_too_large", "billing_error", "insufficient_quota", "model_not_found",
})
"""Error ``type`` or ``code`` values that name a fault of the request (or of the account) itself:
trying it again fails the same way."""


def error_in_body(body: Any, *, limit: int = 300) -> ProviderError:
    """The :class:`ProviderError` for an HTTP 200 answer whose JSON body is an error object
    instead of a result: ``{"error": {"message", "type", "code"}}`` (OpenAI-compatible
    servers and gateways) or ``{"type": "error", "error": {…}}`` (Messages API).

    The message says that the server answered 200 with an error body and quotes the
    server's message (whitespace collapsed, cut at ``limit`` characters), with its ``type``
    and ``code``. The outcome code is ``error_body`` (``context_length_exceeded`` when the
    message says the prompt is too long; never retried), and the status is 200, so repeats
    are never taken for identical HTTP 500 answers (``provider_rejects_history``). It is
    retried like a server error unless the error names a fault of the request: a ``type``
    or string ``code`` in :data:`_CLIENT_FAULTS` (``context_length_exceeded`` gives that
    outcome code), or a numeric ``code`` that is an HTTP status not retried (a 4xx other than
    408, 409 and 429).

    Args:
        body: The parsed response body.
        limit: Longest quoted server message, in characters.

    Returns:
        The error (not raised).
    """
    err = body.get("error") if isinstance(body, dict) else None
    if not isinstance(err, dict):
        err = {"message": err}
    message = " ".join(str(err.get("message") or err.get("type") or "no message").split())
    if len(message) > limit:
        message = message[:limit - 1] + "…"
    kind, code = err.get("type"), err.get("code")
    detail = ", ".join(f"{name} {value}" for name, value in (("type", kind), ("code", code))
                       if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value))
    text = f"the server answered HTTP 200 with an error body{f' ({detail})' if detail else ''}: {message}"
    names = {str(v).lower() for v in (kind, code) if isinstance(v, str)}
    if _CONTEXT.search(message) or "context_length_exceeded" in names:
        return ProviderError(text, code="context_length_exceeded", status=200, retryable=False)
    status = code if type(code) is int else int(code) if isinstance(code, str) and code.isdigit() else None
    if status is not None and 400 <= status < 600:
        retryable = error_for_status(status, message).retryable
    else:
        retryable = not names & _CLIENT_FAULTS
    return ProviderError(text, code="error_body", status=200, retryable=retryable)


def call_with_retries(
    fn: Callable[[], T],
    settings: RetrySettings,
    *,
    sleep: Callable[[float], None] = time.sleep,
) -> tuple[T, list[dict[str, Any]], float]:
    """Run ``fn`` and retry it on retryable :class:`ProviderError` (module docstring).

    Args:
        fn: One provider call; raises :class:`ProviderError` on failure.
        settings: Attempts, backoff, ``Retry-After`` cap and the identical-error limit.
        sleep: The sleep function (tests may pass a fake).

    Returns:
        ``(result, retries, waited_s)``: the result, one record per retry, and the seconds
        spent waiting between attempts.

    Raises:
        ProviderError: the last error, with ``retries`` set; after
            ``identical_error_limit`` identical HTTP 500 answers its code becomes
            ``provider_rejects_history`` and it is not retryable.
    """
    from tenacity import Retrying, retry_if_exception, stop_after_attempt, wait_exponential_jitter

    failures: list[ProviderError] = []
    retries: list[dict[str, Any]] = []
    backoff = wait_exponential_jitter(
        initial=settings.initial_wait_s, max=settings.max_wait_s, jitter=settings.initial_wait_s / 4
    )

    def attempt() -> T:
        try:
            return fn()
        except ProviderError as exc:
            if exc.code in UNREADABLE and exc.usage is None:
                exc.usage = UNKNOWN  # answered, maybe billed, amount not readable: unknown, never 0
            failures.append(exc)
            raise

    def repeated_500(_state: Any) -> bool:
        tail = failures[-settings.identical_error_limit:]
        return (
            len(tail) == settings.identical_error_limit
            and tail[0].status == 500
            and all(f.signature == tail[0].signature for f in tail)
        )

    def wait(state: Any) -> float:
        exc = state.outcome.exception()
        if isinstance(exc, ProviderError) and exc.retry_after is not None:
            return min(exc.retry_after, settings.retry_after_cap_s)
        return float(backoff(state))

    def record(state: Any) -> None:
        exc = state.outcome.exception()
        retries.append({
            "attempt": state.attempt_number,
            "code": getattr(exc, "code", type(exc).__name__),
            "status": getattr(exc, "status", None),
            "message": str(exc)[:500],
            "wait_s": round(float(state.next_action.sleep), 6),
            "usage": exc.usage.to_dict() if getattr(exc, "usage", None) is not None else None,
        })

    retrying = Retrying(
        sleep=sleep,
        # tenacity combines any callable stop at run time; its annotations want a stop_base
        stop=stop_after_attempt(settings.max_attempts) | repeated_500,  # type: ignore[operator]
        wait=wait,
        retry=retry_if_exception(lambda e: isinstance(e, ProviderError) and e.retryable),
        before_sleep=record,
        reraise=True,
    )
    try:
        result = retrying(attempt)
    except ProviderError as exc:
        if repeated_500(None):
            exc = ProviderError(
                f"the provider returned the same HTTP 500 {len(failures[-settings.identical_error_limit:])} "
                f"times for this history: {exc}",
                code="provider_rejects_history", status=500, retryable=False,
            )
        exc.retries = retries
        raise exc from None
    return result, retries, round(sum(r["wait_s"] for r in retries), 6)
