"""Live models: one :class:`LiveModel` over a provider, with the shared cache, retry and
parsing layers (DESIGN §2 "model", §7 cost).

Layers, outermost first, for each call ``D_t ~ model(M_t)``:

1. **cache** (:mod:`evalkit.models.cache`): a hit replays the stored response (a stored
   body the translator now reads as an error, e.g. stored by an older version, is a miss
   and is replaced);
2. **retry** (:mod:`evalkit.models.retry`): transient failures are retried; each retry is
   returned for the trace and its wait is not charged to latency;
3. **provider**: :class:`~evalkit.models.openai_compat.OpenAIProvider` (``openai/`` and
   ``local/``) or :class:`~evalkit.models.anthropic_messages.AnthropicProvider`
   (``anthropic/``) makes one HTTP call and returns the body as received, after its
   translator has checked it (an error the body reports is raised inside the retry policy,
   so it is retried and never cached);
4. **translator** (:func:`~evalkit.models.openai_compat.translate_openai`,
   :func:`~evalkit.models.anthropic_messages.translate_anthropic`): the body (fresh or from
   the cache) becomes a typed :class:`~evalkit.models.reply.ProviderReply`: stop reason,
   refusal, reasoning blocks, usage by class;
5. **parsing** (:mod:`evalkit.models.parsing`): its message becomes text and tool calls,
   strictly unless repairs are opted into.

The result is a :class:`~evalkit.runtime.model_io.ModelOutput` whose ``extra`` carries what
the agent loop records as events: ``retries`` (:class:`ProviderRetry`), ``tagged``
(:class:`ToolCallTagged`) and ``call`` (:class:`ModelCall`: provider, cache hit, attempts,
retry wait, output flags, the model the response named, tokens and cost with the failed
attempts' share apart). Money is :func:`evalkit.usage.usage_cost` of each attempt's reported
usage; a response from another model than the one requested (:mod:`evalkit.models.identity`)
is flagged ``model_mismatch`` and priced at the answering model's price, or ``None`` (flag
``answered_price_missing``) when no price table has it — never at the requested model's. Latency is the
wall-clock time of the provider calls, retry waits excluded; a cache hit reports the stored
call's usage and latency.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import Any, Callable

from evalkit.errors import ConfigError, ModelError
from evalkit.models.cache import CallCache, cache_key, shared_cache
from evalkit.models.config import ModelOptions, ModelSettings, resolve_settings
from evalkit.models.identity import answering_price, response_model, same_model
from evalkit.models.parsing import parse_message
from evalkit.models.registry import get_provider
from evalkit.models.retry import ProviderError, call_with_retries
from evalkit.runtime.context import ModelContext
from evalkit.runtime.model_io import ModelOutput
from evalkit.usage import UNKNOWN, Usage, usage_cost
from evalkit.scenarios.episode import Episode


def _translator(provider: str) -> Callable[[Any], Any]:
    """The translator of ``provider``'s wire format (its registered ``translate``, else chat
    completions: :mod:`evalkit.models.registry`)."""
    translate = get_provider(provider).translate
    if translate is not None:
        return translate
    from evalkit.models.openai_compat import translate_openai

    return translate_openai


def _retry_cost(retry: dict[str, Any], price: Any) -> float | None:
    """The price of a failed attempt's reported usage (``None`` without usage or price)."""
    usage = retry.get("usage")
    return None if usage is None else usage_cost(Usage.from_dict(usage), price)[0]


class LocalProvider:
    """A ``local/`` model: starts its llama.cpp server on the first call, stops it on close.

    A server that dies during the run (llama.cpp can crash on a request) is started again,
    at most :attr:`max_restarts` times, with a line on stderr; the request that was in
    flight fails as a ``connection_error`` and is retried like any other. A failed start is
    remembered, so later calls fail at once with the same message; after :meth:`close`
    calls fail at once too (an episode still running when a run is interrupted must not
    start a new server).
    """

    name = "local"
    max_restarts = 5

    def __init__(self, settings: ModelSettings):
        self.settings = settings
        self._lock = threading.Lock()
        self._inner: Any = None
        self._server: Any = None
        self._failed: Exception | None = None
        self.restarts = 0

    def _start(self) -> Any:
        with self._lock:
            if self._failed is not None:
                raise self._failed
            server = self._server
            if server is not None and server.proc is not None and server.proc.poll() is not None:
                if self.restarts >= self.max_restarts:
                    from evalkit.models.local import crash_hint

                    self._failed = ModelError(f"the local model server died {self.restarts + 1} times; giving up"
                                              f"{crash_hint(server.proc.returncode)}")
                    raise self._failed
                self.restarts += 1
                from evalkit.models.local import crash_hint

                print(f"evalkit: the local model server exited with code {server.proc.returncode}"
                      f"{crash_hint(server.proc.returncode)} ({server.log_tail(2) or 'no log'}); "
                      f"restarting ({self.restarts}/{self.max_restarts})", file=sys.stderr, flush=True)
                server.stop()
                self._inner.close()
                self._inner = self._server = None
            if self._inner is None:
                from evalkit.models.local import LocalServer, model_file
                from evalkit.models.openai_compat import OpenAIProvider

                try:
                    path = model_file(self.settings.model)
                    self._server = LocalServer(path, alias=self.settings.model, settings=self.settings.local)
                    print(f"evalkit: starting {self.settings.spec} at {self._server.base_url} (model file {path})",
                          file=sys.stderr, flush=True)
                    self._server.start()
                except Exception as exc:
                    self._failed = exc
                    raise
                self._inner = OpenAIProvider(self.settings, base_url=self._server.base_url, api_key="local")
            return self._inner

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
        return self._start().complete(messages, tools)

    def close(self) -> None:
        with self._lock:
            self._failed = ModelError(f"{self.settings.spec} is closed (the run ended)")  # never restart
            if self._inner is not None:
                self._inner.close()
                self._inner = None
            if self._server is not None:
                self._server.stop()
                self._server = None


def _api_key(settings: ModelSettings) -> str:
    env = settings.api_key_env
    key = os.environ.get(env) if env else None
    if key:
        return key
    if settings.base_url:  # self-hosted endpoints usually take any key
        return "not-needed"
    raise ConfigError(f"{settings.spec}: set the {env} environment variable (or give --base-url for a self-hosted endpoint)")


def make_provider(settings: ModelSettings) -> Any:
    """The provider object for ``settings``: the registered provider's ``client``
    (:mod:`evalkit.models.registry`)."""
    client = get_provider(settings.provider).client
    if client is None:
        raise ConfigError(f"{settings.spec}: provider {settings.provider!r} is not a live provider")
    return client(settings)


def openai_client(settings: ModelSettings) -> Any:
    """``openai/``: an OpenAI-compatible chat-completions client (the SDK is imported here, not before)."""
    from evalkit.models.openai_compat import OpenAIProvider

    return OpenAIProvider(settings, base_url=settings.base_url, api_key=_api_key(settings))


def anthropic_client(settings: ModelSettings) -> Any:
    """``anthropic/``: an Anthropic Messages client."""
    from evalkit.models.anthropic_messages import AnthropicProvider

    return AnthropicProvider(settings, base_url=settings.base_url, api_key=_api_key(settings))


def local_client(settings: ModelSettings) -> Any:
    """``local/``: the llama.cpp server started on demand, or the one at ``base_url``."""
    if not settings.base_url:
        return LocalProvider(settings)
    from evalkit.models.openai_compat import OpenAIProvider

    return OpenAIProvider(settings, base_url=settings.base_url, api_key="local")


class LiveModel:
    """A model behind a provider (implements :class:`~evalkit.runtime.model_io.Model`).

    Args:
        settings: Resolved settings (:func:`evalkit.models.config.resolve_settings`).
        provider: ``complete(messages, tools) -> response``; built lazily by
            :func:`make_provider` when ``None``.
        cache: The call cache, or ``None`` for no caching.
        endpoint: Identity of the endpoint in cache keys.
        sleep: Sleep function for retry waits.

    Attributes:
        name: The model spec.
        max_connections: Episodes of this model that may run at once.
    """

    def __init__(self, settings: ModelSettings, *, provider: Any = None, cache: CallCache | None = None,
                 endpoint: str | None = None, sleep: Callable[[float], None] = time.sleep):
        self.settings = settings
        self.name = settings.spec
        self.max_connections = settings.max_connections
        self.cache = cache
        self.endpoint = endpoint or settings.base_url or settings.provider
        self._provider = provider
        self._provider_lock = threading.Lock()
        self._closed = False
        self._sleep = sleep

    @property
    def provider(self) -> Any:
        with self._provider_lock:
            if self._closed:
                raise ModelError(f"{self.name} is closed (the run ended)")
            if self._provider is None:
                self._provider = make_provider(self.settings)
            return self._provider

    def describe(self) -> dict[str, Any]:
        """Settings for the run manifest (no secrets)."""
        return {**self.settings.describe(), "endpoint": self.endpoint}

    def respond(self, context: ModelContext, episode: Episode) -> ModelOutput:
        """One model call for ``context`` (see the module docstring for the layers).

        Raises:
            evalkit.models.retry.ProviderError: when the call fails for good; its
                ``retries`` hold the retries made.
        """
        s = self.settings
        key = None
        stored = None
        if self.cache is not None:
            key = cache_key(provider=s.provider, model=s.model, endpoint=self.endpoint,
                            messages=context.messages, tools=context.tools,
                            sampling={**s.sampling(), "tool_results_as": s.tool_results_as,
                                      "max_string_length": s.max_string_length,
                                      "drop_schema_keywords": s.drop_schema_keywords},
                            epoch=getattr(episode, "epoch", None))
            stored = self.cache.get(key)
        translate = _translator(s.provider)
        reply = None
        if stored is not None:
            try:
                reply = translate(stored.get("body"))
            except ProviderError:  # stored under older reading rules, now an error: asked again, replaced
                stored = None
        cached = stored is not None
        retries: list[dict[str, Any]] = []
        waited = 0.0
        if stored is None:
            provider = self.provider
            slept = [0.0]

            def sleep(seconds: float) -> None:  # measured, so that waits are never latency
                before = time.perf_counter()
                self._sleep(seconds)
                slept[0] += time.perf_counter() - before

            start = time.perf_counter()
            try:
                body, retries, waited = call_with_retries(
                    lambda: provider.complete(context.messages, context.tools), s.retry, sleep=sleep
                )
            except ProviderError as exc:
                for retry in exc.retries:
                    retry["cost_usd"] = _retry_cost(retry, s.price)
                exc.cost_usd = None if exc.usage is None else usage_cost(exc.usage, s.price)[0]
                raise
            stored = {"body": body, "latency_s": round(max(time.perf_counter() - start - slept[0], 0.0), 6)}
            if self.cache is not None and key is not None:
                self.cache.put(key, stored, provider=s.provider, model=s.model)
        body = stored.get("body")
        if reply is None:
            reply = translate(body)  # pure: a cache hit has read the stored body again above
        return self._output(context, reply, body, float(stored.get("latency_s") or 0.0), cached, retries, waited)

    def _output(self, context: ModelContext, reply: Any, body: Any, latency: float, cached: bool,
                retries: list[dict[str, Any]], waited: float) -> ModelOutput:
        """The :class:`ModelOutput` of a translated reply, with the call's bookkeeping."""
        s = self.settings
        schemas = {t["function"]["name"]: t["function"].get("parameters") or {} for t in context.tools}
        taken = {c.get("id") for m in context.messages for c in (m.get("tool_calls") or [])}
        parsed = parse_message(
            reply.message, schemas=schemas, repairs=s.parse.repair,
            extract=s.parse.extract_from_content, id_prefix=f"evalkit_call_{context.turn + 1}_",
            taken_ids={t for t in taken if t},
        )
        flags = list(parsed.flags)
        if reply.stop_reason in ("content_filter", "refusal"):
            flags.append(reply.stop_reason)
        answered = response_model(body)
        price: Any = s.price
        mismatch = not same_model(s.model, answered, s.model_aliases)
        if mismatch:  # another model answered: billed at its price, never the requested model's
            flags.append("model_mismatch")
            price = answering_price(s.provider, str(answered), s.prices)
        cost, price_flags = usage_cost(reply.usage, price)
        if price is None:  # no entry in the model config or any price table: money unknown, and why
            price_flags = ("answered_price_missing",) if mismatch else ("price_missing",)
        total = reply.usage
        retry_in: int | None = 0
        retry_out: int | None = 0
        retry_cost: float | None = 0.0
        for retry in retries:
            retry["cost_usd"] = _retry_cost(retry, s.price)
            if retry.get("usage") is None:  # an error answer that billed nothing
                continue
            failed = Usage.from_dict(retry["usage"])  # the same failed attempts the row counts (metrics.billing)
            if not failed.known:  # answered, usage not readable: the call's totals are unknown, never 0
                flags.append("usage_missing")
                failed = UNKNOWN
            total = total + failed
            retry_in = None if retry_in is None or failed.input_tokens is None else retry_in + failed.input_tokens
            retry_out = None if retry_out is None or failed.output_tokens is None else retry_out + failed.output_tokens
            retry_cost = None if retry_cost is None or retry["cost_usd"] is None else retry_cost + retry["cost_usd"]
        cost = None if cost is None or retry_cost is None else round(cost + retry_cost, 10)
        return ModelOutput(
            text=parsed.text,
            tool_calls=parsed.calls,
            stop_reason=reply.stop_reason,
            raw_stop_reason=reply.raw_stop_reason,
            refusal=reply.refusal,
            reasoning=reply.reasoning,
            usage=reply.usage,
            latency_s=latency,
            flags=tuple(reply.flags),
            raw=body,
            extra={
                "retries": retries,
                "tagged": list(parsed.tagged),
                "call": {
                    "provider": s.provider,
                    "model": s.model,
                    "answered_model": answered,
                    "cached": cached,
                    "attempts": 0 if cached else len(retries) + 1,
                    "wait_s": waited,
                    "cost_usd": cost,
                    "flags": tuple(dict.fromkeys([*flags, *reply.flags, *price_flags])),
                    "input_tokens": total.input_tokens,
                    "output_tokens": total.output_tokens,
                    "retry_input_tokens": retry_in,
                    "retry_output_tokens": retry_out,
                    "retry_cost_usd": None if retry_cost is None else round(retry_cost, 10),
                },
            },
        )

    def close(self) -> None:
        """Release the provider (and stop a local server this model started)."""
        with self._provider_lock:
            self._closed = True
            provider, self._provider = self._provider, None
        if provider is not None and hasattr(provider, "close"):
            provider.close()


def live_model(spec: str, options: ModelOptions | None = None) -> LiveModel:
    """Build the live model for ``spec`` (``openai/…``, ``anthropic/…``, ``local/…``).

    Raises:
        ConfigError: for invalid settings, a missing API key or a missing local package.
    """
    settings = resolve_settings(spec, options)
    provider = get_provider(settings.provider)
    endpoint = settings.base_url or settings.provider
    if provider.endpoint is not None:
        endpoint = provider.endpoint(settings)
    if provider.api_key:
        _api_key(settings)  # fail before the run starts, not in every episode
    cache = shared_cache() if settings.cache else None
    return LiveModel(settings, cache=cache, endpoint=endpoint)
