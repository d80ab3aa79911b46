"""Loading task domains from ``tasks/<name>/domain.py``.

Each domain folder holds a ``domain.py`` that defines a module-level ``DOMAIN``, an
:class:`evalkit.runtime.tools.Domain` with its tools registered. Domains are loaded once
per process and cached.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from evalkit.errors import TaskError
from evalkit.paths import builtin_dir
from evalkit.runtime.tools import Domain

_CACHE: dict[Path, Domain] = {}


def domain_path(name: str, tasks_dir: Path | None = None) -> Path:
    """Path of ``tasks/<name>/domain.py``."""
    return (tasks_dir or builtin_dir("tasks")) / name / "domain.py"


def load_domain(name: str, tasks_dir: Path | None = None) -> Domain:
    """Import and return the domain ``name``.

    Raises:
        TaskError: when the folder or its ``DOMAIN`` is missing, or its import fails.
    """
    path = domain_path(name, tasks_dir).resolve()
    cached = _CACHE.get(path)
    if cached is not None:
        return cached
    if not path.is_file():
        available = ", ".join(available_domains(tasks_dir)) or "none"
        raise TaskError(f"unknown domain {name!r} (no {path}); available: {available}")
    module_name = f"evalkit_tasks_{name}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise TaskError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # noqa: BLE001 - report any import failure as a task error
        raise TaskError(f"{path}: import failed: {type(exc).__name__}: {exc}") from exc
    domain = getattr(module, "DOMAIN", None)
    if not isinstance(domain, Domain):
        raise TaskError(f"{path}: defines no DOMAIN (an evalkit.runtime.Domain)")
    if domain.name != name:
        raise TaskError(f"{path}: DOMAIN.name is {domain.name!r}, expected {name!r}")
    _CACHE[path] = domain
    return domain


def available_domains(tasks_dir: Path | None = None) -> list[str]:
    """Names of the domain folders under ``tasks_dir`` (default: the built-in one)."""
    root = tasks_dir or builtin_dir("tasks")
    if not root.is_dir():
        return []
    return sorted(p.parent.name for p in root.glob("*/domain.py"))
