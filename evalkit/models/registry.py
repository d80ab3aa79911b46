"""Model specs to model objects: ``PROVIDER/NAME`` → :class:`~evalkit.runtime.model_io.Model`.

Providers register a factory under their prefix (``scripted`` is built in); third parties
call :func:`register_provider`. The default model set of ``evalkit run`` is
:data:`DEFAULT_MODELS`.
"""

from __future__ import annotations

from typing import Callable

from evalkit.errors import ConfigError
from evalkit.runtime.model_io import Model

DEFAULT_MODELS = (
    "scripted/oracle",
    "scripted/always_act",
    "scripted/always_abstain",
    "scripted/post_hoc",
    "scripted/late:0",
    "scripted/late:3",
)

_PROVIDERS: dict[str, Callable[[str], Model]] = {}


def register_provider(prefix: str, factory: Callable[[str], Model]) -> None:
    """Register ``factory(name) -> Model`` for specs ``prefix/name``."""
    _PROVIDERS[prefix] = factory


def _scripted(name: str) -> Model:
    from evalkit.models.scripted import scripted

    return scripted(name)


register_provider("scripted", _scripted)


def get_model(spec: str) -> Model:
    """Create the model for ``spec`` (e.g. ``scripted/oracle``, ``scripted/late:3``).

    Raises:
        ConfigError: for a malformed spec or an unknown provider.
    """
    prefix, sep, name = spec.partition("/")
    if not sep or not name:
        raise ConfigError(f"model spec {spec!r} must look like PROVIDER/NAME, e.g. scripted/oracle")
    factory = _PROVIDERS.get(prefix)
    if factory is None:
        raise ConfigError(f"unknown model provider {prefix!r} in {spec!r}; known: {', '.join(sorted(_PROVIDERS))}")
    return factory(name)
