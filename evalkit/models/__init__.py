"""evalkit.models: the models under evaluation behind one protocol.

Scripted reference policies, live models over HTTP (OpenAI-compatible, Anthropic, a local
llama.cpp server) with shared cache, retry and parsing layers, the model config file and
the price table. Import the submodules for the full API; the names below are the ones most
users need (loaded lazily, so importing this package stays light).
"""

from __future__ import annotations

__all__ = [
    "get_model",
    "register_provider",
    "DEFAULT_MODELS",
    "LiveModel",
    "ModelOptions",
    "ModelSettings",
    "resolve_settings",
    "parse_message",
    "ProviderError",
    "ProviderReply",
    "translate_openai",
    "translate_anthropic",
]

_WHERE = {
    "get_model": "registry",
    "register_provider": "registry",
    "DEFAULT_MODELS": "registry",
    "LiveModel": "live",
    "ModelOptions": "config",
    "ModelSettings": "config",
    "resolve_settings": "config",
    "parse_message": "parsing",
    "ProviderError": "retry",
    "ProviderReply": "reply",
    "translate_openai": "openai_compat",
    "translate_anthropic": "anthropic_messages",
}


def __getattr__(name: str):
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'evalkit.models' has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(f"evalkit.models.{module}"), name)
