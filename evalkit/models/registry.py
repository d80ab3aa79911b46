"""Model specs to model objects: ``PROVIDER/NAME`` → :class:`~evalkit.runtime.model_io.Model`.

A provider is one registered component, a :class:`Provider`: its name (the spec's prefix),
and either a ``factory`` building the model (scripted policies, external agents, a model of
your own), or, for a model behind an API, the pieces evalkit's live model
(:class:`~evalkit.models.live.LiveModel`: call cache, retries, tool-call parsing, usage and
cost) needs — a ``client`` whose ``complete(messages, tools)`` returns the response body, a
``translate`` from that body to a :class:`~evalkit.models.reply.ProviderReply` (message,
usage by token class, stop reason), its built-in settings (``defaults``, and ``models`` when
only some names exist) validated like any model config (:class:`~evalkit.models.config.ModelSettings`),
and its own ``prices`` when the price table has none. A new provider is one file::

    from evalkit.models.registry import Provider, register

    register(Provider("echo", client=EchoClient, defaults={"cache": False},
                      prices={"*": {"input_per_mtok": 0.0, "output_per_mtok": 0.0}}))

Built in:

* ``scripted/NAME`` — the scripted reference policies (:mod:`evalkit.models.scripted`);
* ``openai/MODEL`` — any OpenAI-compatible chat-completions endpoint (``--base-url``);
* ``anthropic/MODEL`` — the Anthropic Messages API;
* ``local/gemma-3-270m`` — a real model served on 127.0.0.1 by llama.cpp, started on demand
  (:mod:`evalkit.models.local`);
* ``agent/cmd:COMMAND`` — an external agent that reaches each episode over MCP
  (:mod:`evalkit.agents`).

Live models take their settings from :class:`~evalkit.models.config.ModelOptions` (the
command line and a model config file). The default model set of ``evalkit run`` is
:data:`DEFAULT_MODELS`. Installed packages can register providers through the
``evalkit.providers`` entry point group (:mod:`evalkit.plugins`), loaded at the first
lookup of a name not registered.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from evalkit.errors import ConfigError
from evalkit.models.config import LOCAL_MODELS, PROVIDER_DEFAULTS, ModelOptions
from evalkit.runtime.model_io import Model

DEFAULT_MODELS = (
    "scripted/oracle",
    "scripted/always_act",
    "scripted/always_abstain",
    "scripted/post_hoc",
    "scripted/late:0",
    "scripted/late:3",
)

Factory = Callable[[str, ModelOptions], Model]


@dataclass(frozen=True)
class Provider:
    """One model provider (see the module docstring).

    Attributes:
        name: The spec prefix (``openai`` in ``openai/gpt-4o-mini``).
        description: One line.
        factory: ``factory(name, options) -> Model`` for a model that is not called through
            :class:`~evalkit.models.live.LiveModel`; ``None`` for a live provider.
        client: Live providers: ``client(settings)`` → an object with ``complete(messages,
            tools)`` returning the response body (raising
            :class:`~evalkit.models.retry.ProviderError` for a failed call) and optionally
            ``close()``.
        translate: Live providers: response body → :class:`~evalkit.models.reply.ProviderReply`
            (``None``: OpenAI chat completions, :func:`~evalkit.models.openai_compat.translate_openai`).
        defaults: Built-in settings of every model of the provider (level 1 of
            :func:`~evalkit.models.config.resolve_settings`; any :class:`ModelSettings` field).
        models: Built-in settings per model name; when given, other names are refused.
        prices: USD per million tokens by model name (``"*"``: any), used when neither the
            model config nor the price table prices the model (:mod:`evalkit.models.pricing`).
        api_key: Whether a key is needed (from ``api_key_env``) unless a ``base_url`` is given.
        endpoint: ``endpoint(settings)``: what identifies the endpoint in call-cache keys
            (``None``: the base URL, else the provider's name).
    """

    name: str
    description: str = ""
    factory: Factory | None = None
    client: Callable[[Any], Any] | None = None
    translate: Callable[[Any], Any] | None = None
    defaults: Mapping[str, Any] = field(default_factory=dict)
    models: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    prices: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    api_key: bool = True
    endpoint: Callable[[Any], str] | None = None

    @property
    def live(self) -> bool:
        """Whether models of this provider are :class:`~evalkit.models.live.LiveModel` objects."""
        return self.factory is None

    def model(self, name: str, options: ModelOptions) -> Model:
        """The model ``NAME`` of this provider."""
        if self.factory is not None:
            try:
                model = self.factory(name, options)
            except ConfigError:
                raise
            except Exception as exc:  # noqa: BLE001 - a provider's factory: its failure is a configuration error
                raise ConfigError(f"provider {self.name!r}: its factory failed for model {name!r}: "
                                  f"{type(exc).__name__}: {exc}") from exc
            if model is None:
                raise ConfigError(f"provider {self.name!r}: its factory returned None for model {name!r} "
                                  "(expected a model)")
            return model
        from evalkit.models.live import live_model

        return live_model(f"{self.name}/{name}", options)


_PROVIDERS: dict[str, Provider] = {}
_NAME = re.compile(r"[a-z][a-z0-9_-]*\Z")


def register(provider: Provider) -> Provider:
    """Add ``provider``.

    Returns:
        ``provider``.

    Raises:
        ConfigError: naming the provider: another provider has the name (``openai`` cannot be
            replaced); the name is not a spec prefix (``[a-z][a-z0-9_-]*``); it has both a
            ``factory`` and a ``client``, or neither, or one that is not callable.
    """
    if not isinstance(provider.name, str) or not _NAME.match(provider.name):
        raise ConfigError(f"provider name {provider.name!r} must be a non-empty word without '/' "
                          "(lower-case letters, digits, _ and -, a letter first)")
    old = _PROVIDERS.get(provider.name)
    if old is not None and old != provider:
        raise ConfigError(f"provider {provider.name!r} is registered already ({old.description or 'a provider'})")
    for part in ("factory", "client", "translate", "endpoint"):
        value = getattr(provider, part)
        if value is not None and not callable(value):
            raise ConfigError(f"provider {provider.name!r}: {part} {value!r} is not callable")
    if provider.factory is not None and provider.client is not None:
        raise ConfigError(f"provider {provider.name!r}: give a factory or a client, not both")
    if provider.factory is None and provider.client is None:
        raise ConfigError(f"provider {provider.name!r}: give a factory, or a client for a live provider")
    _PROVIDERS[provider.name] = provider
    return provider


def register_provider(prefix: str, factory: Factory) -> None:
    """Register ``factory(name, options) -> Model`` for specs ``prefix/name``
    (:func:`register` of a :class:`Provider` with only a factory)."""
    register(Provider(prefix, factory=factory))


def unregister(name: str) -> None:
    """Remove the provider ``name`` (unknown names are ignored)."""
    _PROVIDERS.pop(name, None)


def get_provider(name: str) -> Provider:
    """The provider ``name``.

    Raises:
        ConfigError: for an unknown provider.
    """
    provider = _PROVIDERS.get(name)
    if provider is None:
        from evalkit.plugins import load_group

        load_group("evalkit.providers")
        provider = _PROVIDERS.get(name)
    if provider is None:
        raise ConfigError(f"unknown model provider {name!r}; known: {', '.join(sorted(_PROVIDERS))}")
    return provider


def live_providers() -> tuple[str, ...]:
    """Names of the registered live providers."""
    return tuple(p.name for p in _PROVIDERS.values() if p.live)


def _scripted(name: str, options: ModelOptions) -> Model:
    from evalkit.models.scripted import scripted

    return scripted(name)


def _agent(name: str, options: ModelOptions) -> Model:
    from evalkit.agents.spec import agent_model

    return agent_model(name, options)


def _client(kind: str) -> Callable[[Any], Any]:
    def client(settings: Any) -> Any:
        from evalkit.models import live

        return getattr(live, f"{kind}_client")(settings)

    return client


def _translate_anthropic(body: Any) -> Any:
    from evalkit.models.anthropic_messages import translate_anthropic

    return translate_anthropic(body)


def _local_endpoint(settings: Any) -> str:
    from evalkit.models.local import model_identity

    return model_identity(settings.model)


register(Provider("scripted", "the scripted reference policies", factory=_scripted))
register(Provider("agent", "an external agent over MCP (agent/cmd:COMMAND)", factory=_agent))
register(Provider("openai", "an OpenAI-compatible chat-completions endpoint", client=_client("openai"),
                  defaults=PROVIDER_DEFAULTS["openai"]))
register(Provider("anthropic", "the Anthropic Messages API", client=_client("anthropic"),
                  translate=_translate_anthropic, defaults=PROVIDER_DEFAULTS["anthropic"]))
register(Provider("local", "a model served on 127.0.0.1 by llama.cpp", client=_client("local"),
                  defaults=PROVIDER_DEFAULTS["local"], models=LOCAL_MODELS, api_key=False,
                  endpoint=_local_endpoint))


def get_model(spec: str, options: ModelOptions | None = None) -> Model:
    """Create the model for ``spec`` (e.g. ``scripted/oracle``, ``openai/gpt-4o-mini``).

    Args:
        spec: ``PROVIDER/NAME``.
        options: Settings for live models (ignored by scripted ones).

    Raises:
        ConfigError: for a malformed spec, an unknown provider or invalid settings.
    """
    prefix, sep, name = spec.partition("/")
    if not sep or not name:
        raise ConfigError(f"model spec {spec!r} must look like PROVIDER/NAME, e.g. scripted/oracle")
    try:
        provider = get_provider(prefix)
    except ConfigError:
        raise ConfigError(f"unknown model provider {prefix!r} in {spec!r}; known: {', '.join(sorted(_PROVIDERS))}") \
            from None
    return provider.model(name, options or ModelOptions())
