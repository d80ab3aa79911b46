"""Model specs to model objects: ``PROVIDER/NAME`` → :class:`~evalkit.runtime.model_io.Model`.

Providers register a factory under their prefix; third parties call
:func:`register_provider`. Built in:

* ``scripted/NAME`` — the scripted reference policies (:mod:`evalkit.models.scripted`);
* ``openai/MODEL`` — any OpenAI-compatible chat-completions endpoint (``--base-url``);
* ``anthropic/MODEL`` — the Anthropic Messages API;
* ``local/gemma-3-270m`` — a real model served on 127.0.0.1 by llama.cpp, started on demand
  (:mod:`evalkit.models.local`);
* ``agent/cmd:COMMAND`` — an external agent that reaches each episode over MCP
  (:mod:`evalkit.agents`).

Live models take their settings from :class:`~evalkit.models.config.ModelOptions` (the
command line and a model config file). The default model set of ``evalkit run`` is
:data:`DEFAULT_MODELS`.
"""

from __future__ import annotations

from typing import Callable

from evalkit.errors import ConfigError
from evalkit.models.config import ModelOptions
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

_PROVIDERS: dict[str, Factory] = {}


def register_provider(prefix: str, factory: Factory) -> None:
    """Register ``factory(name, options) -> Model`` for specs ``prefix/name``."""
    _PROVIDERS[prefix] = factory


def _scripted(name: str, options: ModelOptions) -> Model:
    from evalkit.models.scripted import scripted

    return scripted(name)


def _live(prefix: str) -> Factory:
    def factory(name: str, options: ModelOptions) -> Model:
        from evalkit.models.live import live_model

        return live_model(f"{prefix}/{name}", options)

    return factory


def _agent(name: str, options: ModelOptions) -> Model:
    from evalkit.agents.spec import agent_model

    return agent_model(name, options)


register_provider("scripted", _scripted)
register_provider("agent", _agent)  # agent/cmd:COMMAND, an external agent over MCP (evalkit.agents)
for _prefix in ("openai", "anthropic", "local"):
    register_provider(_prefix, _live(_prefix))


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
    factory = _PROVIDERS.get(prefix)
    if factory is None:
        raise ConfigError(f"unknown model provider {prefix!r} in {spec!r}; known: {', '.join(sorted(_PROVIDERS))}")
    return factory(name, options or ModelOptions())
