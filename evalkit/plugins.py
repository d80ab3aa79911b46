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

``evalkit run`` loads every plugin before it plans the run, and ``gate``, ``report`` and
``compare`` before they read one (:func:`load_all`): a module that cannot be imported stops the
command with one error naming every such module and entry point (exit 2). Otherwise each group
is loaded once, at the first lookup of its registry (never by ``import evalkit``):
:func:`load_group`; the ``EVALKIT_PLUGINS`` modules once, at the first lookup of any registry. Groups: ``evalkit.providers``
(:mod:`evalkit.models.registry`), ``evalkit.conditions`` (:mod:`evalkit.conditions.registry`),
``evalkit.metrics`` (:mod:`evalkit.metrics.registry`).

A run records what was loaded (:func:`evalkit.harness.resume.plugins_record`) in its ``config.json`` (``plugins``), and
``evalkit run --resume`` refuses to go on with other plugin metrics
(:func:`evalkit.harness.resume.check_plugins`): a metric would count only part of the episodes.
"""

from __future__ import annotations

import threading

from evalkit.errors import ConfigError

GROUPS = ("evalkit.providers", "evalkit.conditions", "evalkit.metrics")
ENV = "EVALKIT_PLUGINS"
"""Environment variable naming plugin modules to import (comma-separated)."""

_loaded: set[str] = set()
_failed: dict[str, ConfigError] = {}
_lock = threading.RLock()


def load_all() -> None:
    """Load every plugin: the ``EVALKIT_PLUGINS`` modules and every entry point of every group
    (:data:`GROUPS`), each once per process. ``evalkit run`` calls it before planning, and
    ``gate``, ``report`` and ``compare`` before they read a run, so that a plugin that cannot
    be imported stops the command at its start (exit 2) instead of failing inside episodes.

    Raises:
        ConfigError: listing every module and entry point that cannot be loaded (each named
            with its distribution, group and error), after all the others were loaded.
    """
    problems: list[str] = []
    for what in (ENV, *GROUPS):
        try:
            load_env_modules() if what == ENV else load_group(what)
        except ConfigError as exc:
            problems.extend(getattr(exc, "problems", None) or [str(exc)])
    if problems:
        raise _error(list(dict.fromkeys(problems)))


def _error(problems: list[str]) -> ConfigError:
    """One error listing ``problems`` (its ``problems`` attribute keeps them apart)."""
    if len(problems) == 1:
        exc = ConfigError(problems[0])
    else:
        exc = ConfigError(f"{len(problems)} plugins cannot be loaded:\n  " + "\n  ".join(problems))
    exc.problems = problems  # type: ignore[attr-defined]
    return exc


def load_group(group: str) -> None:
    """Import every module named by an entry point of ``group`` (once per process).

    Every entry point is imported even when one fails; the failures are then raised together,
    and again at every later call (a registry whose plugins did not all load is never used as
    if they had).

    Args:
        group: One of :data:`GROUPS`.

    Raises:
        ConfigError: naming each entry point (and its distribution) whose module cannot be
            imported, and ``EVALKIT_PLUGINS`` modules that cannot (:func:`load_env_modules`).
    """
    if group not in _loaded:
        with _lock:
            if group not in _loaded:
                _loaded.add(group)  # first, so that a module registering itself does not recurse here
                problems: list[str] = []
                from importlib.metadata import entry_points

                for ep in entry_points(group=group):
                    try:
                        ep.load()
                    except (Exception, SystemExit) as exc:  # noqa: BLE001 - any import failure (a sys.exit too) is reported
                        dist = getattr(ep.dist, "name", "?")
                        problems.append(f"entry point {ep.name!r} ({ep.value}) of {dist}, group {group}: cannot be "
                                        f"loaded: {type(exc).__name__}: {exc}")
                if problems:
                    _failed[group] = _error(problems)
    try:
        load_env_modules()
    except ConfigError as exc:
        if group in _failed:
            raise _error([*exc.problems, *_failed[group].problems]) from None  # type: ignore[attr-defined]
        raise
    if group in _failed:
        raise _failed[group]


def env_modules() -> list[str]:
    """The module names ``EVALKIT_PLUGINS`` lists now, in order, blank names left out (``[]`` when
    it is unset)."""
    import os

    return [name for name in (n.strip() for n in os.environ.get(ENV, "").split(",")) if name]




def load_env_modules() -> None:
    """Import every module named in ``EVALKIT_PLUGINS`` (once per process; blank names skipped).

    Every module is imported even when one fails; the failures are raised together, and again
    at every later call.

    Raises:
        ConfigError: naming each module that cannot be imported, and the variable: a module not
            found with a PYTHONPATH hint, one that raised while imported with its exception's
            type and message (:func:`_import_problem`).
    """
    if ENV not in _loaded:
        with _lock:
            if ENV not in _loaded:
                _loaded.add(ENV)
                import importlib

                problems: list[str] = []
                for name in env_modules():
                    try:
                        importlib.import_module(name)
                    except (Exception, SystemExit) as exc:  # noqa: BLE001 - any import failure (a sys.exit too) is reported
                        problems.append(_import_problem(name, exc))
                if problems:
                    _failed[ENV] = _error(problems)
    if ENV in _failed:
        raise _failed[ENV]


def _import_problem(name: str, exc: BaseException) -> str:
    """The problem line for the ``EVALKIT_PLUGINS`` module ``name`` whose import raised ``exc``.

    The PYTHONPATH hint is given only when the module itself was not found: a
    ``ModuleNotFoundError`` whose ``name`` is ``name`` or one of its parent packages. A module that
    was found but raised while imported (a missing dependency of the plugin, a ``SyntaxError``, any
    exception) is named with the exception's type and message, without the hint.
    """
    parts = name.split(".")
    own = {".".join(parts[:i]) for i in range(1, len(parts) + 1)}
    if isinstance(exc, ModuleNotFoundError) and exc.name in own:
        return f"{ENV}: module {name!r} cannot be imported: {type(exc).__name__}: {exc} (is its folder on PYTHONPATH?)"
    return f"{ENV}: module {name!r} cannot be imported: it raised {type(exc).__name__}: {exc}"
