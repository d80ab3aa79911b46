"""Python entry points that add components to evalkit's registries.

An installed package can add a provider, a condition or a metric without being imported by
hand: it names a module under one of the groups below in its ``pyproject.toml``, and the
module registers its components when it is imported::

    [project.entry-points."evalkit.metrics"]
    grounded_citations = "mypkg.citations"

A module that is not packaged is named in the environment variable ``EVALKIT_PLUGINS``
(comma-separated module names, importable from ``sys.path``/``PYTHONPATH``)::

    EVALKIT_PLUGINS=my_metric,my_condition evalkit run ...

Every process that looks a component up imports them — the ``evalkit`` command, ``evalkit
gate`` and ``evalkit report`` on the run later, the Dask executor's workers — as long as the
variable is set there too.

Each group is loaded once, at the first lookup of its registry (never by ``import
evalkit``): :func:`load_group`; the ``EVALKIT_PLUGINS`` modules once, at the first lookup of any
registry. Groups: ``evalkit.providers``
(:mod:`evalkit.models.registry`), ``evalkit.conditions`` (:mod:`evalkit.conditions.registry`),
``evalkit.metrics`` (:mod:`evalkit.metrics.registry`).
"""

from __future__ import annotations

import threading

from evalkit.errors import ConfigError

GROUPS = ("evalkit.providers", "evalkit.conditions", "evalkit.metrics")
ENV = "EVALKIT_PLUGINS"
"""Environment variable naming plugin modules to import (comma-separated)."""

_loaded: set[str] = set()
_lock = threading.RLock()


def load_group(group: str) -> None:
    """Import every module named by an entry point of ``group`` (once per process).

    Args:
        group: One of :data:`GROUPS`.

    Raises:
        ConfigError: naming the entry point and the distribution when its module cannot be
            imported.
    """
    if group in _loaded:
        return
    with _lock:
        if group in _loaded:
            return
        _loaded.add(group)  # first, so that a module registering itself does not recurse here
        load_env_modules()
        from importlib.metadata import entry_points

        for ep in entry_points(group=group):
            try:
                ep.load()
            except Exception as exc:
                dist = getattr(ep.dist, "name", "?")
                raise ConfigError(f"entry point {ep.name!r} ({ep.value}) of {dist}, group {group}: "
                                  f"cannot be loaded: {type(exc).__name__}: {exc}") from exc


def load_env_modules() -> None:
    """Import every module named in ``EVALKIT_PLUGINS`` (once per process; blank names skipped).

    Raises:
        ConfigError: naming the module and the variable when a module cannot be imported.
    """
    if ENV in _loaded:
        return
    with _lock:
        if ENV in _loaded:
            return
        _loaded.add(ENV)
        import importlib
        import os

        for name in (n.strip() for n in os.environ.get(ENV, "").split(",")):
            if not name:
                continue
            try:
                importlib.import_module(name)
            except Exception as exc:
                raise ConfigError(f"{ENV}: module {name!r} cannot be imported: {type(exc).__name__}: {exc} "
                                  "(is its folder on PYTHONPATH?)") from exc
