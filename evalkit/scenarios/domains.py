"""Loading task domains from ``tasks/<name>/domain.py``.

Each domain folder holds a ``domain.py`` that defines a module-level ``DOMAIN``, an
:class:`evalkit.runtime.tools.Domain` with its tools registered. Domains are loaded once
per process and cached.

A domain name is a plain folder name (letters, digits, ``_`` and ``-``), so a suite cannot
point the loader at a file outside the tasks folder. Loading checks what would otherwise
fail on every call: each tool's ``parameters`` must be a valid JSON Schema (draft 2020-12),
and an import that raises anything, ``SystemExit`` included, is a :class:`TaskError`.
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from pathlib import Path

from evalkit.errors import TaskError
from evalkit.paths import builtin_dir
from evalkit.runtime.tools import Domain
from evalkit.runtime.controller import schema_errors

_CACHE: dict[Path, Domain] = {}
_BY_NAME: dict[tuple[str, ...], Domain] = {}  # (name, tasks_dir[, cwd]) -> domain: skips resolving paths
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]*")


def domain_path(name: str, tasks_dir: Path | None = None) -> Path:
    """Path of ``tasks/<name>/domain.py``.

    Raises:
        TaskError: when ``name`` is not a plain folder name.
    """
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise TaskError(f"domain name {name!r} is not a plain folder name (letters, digits, _ and -)")
    return (tasks_dir or builtin_dir("tasks")) / name / "domain.py"


def _key(name: str, tasks_dir: Path | str | None) -> tuple[str, ...]:
    if tasks_dir is None:
        return (name,)
    folder = str(tasks_dir)
    return (name, folder) if os.path.isabs(folder) else (name, folder, os.getcwd())


def load_domain(name: str, tasks_dir: Path | None = None) -> Domain:
    """Import and return the domain ``name``.

    Raises:
        TaskError: when the name is not a plain folder name, the folder or its ``DOMAIN`` is
            missing, its import fails (any exception, ``SystemExit`` included), or a tool's
            ``parameters`` is not a valid JSON Schema (naming the domain and the tool).
    """
    key = _key(name, tasks_dir)
    hit = _BY_NAME.get(key)
    if hit is not None:
        return hit
    path = domain_path(name, tasks_dir).resolve()
    cached = _CACHE.get(path)
    if cached is not None:
        _BY_NAME[key] = cached
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
    except KeyboardInterrupt:
        sys.modules.pop(module_name, None)
        raise
    except BaseException as exc:  # noqa: BLE001 - any import failure (sys.exit too) is a task error
        sys.modules.pop(module_name, None)
        what = f"called sys.exit({exc.code!r})" if isinstance(exc, SystemExit) else f"{type(exc).__name__}: {exc}"
        raise TaskError(f"{path}: import failed: {_one_line(what)}") from None
    domain = getattr(module, "DOMAIN", None)
    if not isinstance(domain, Domain):
        raise TaskError(f"{path}: defines no DOMAIN (an evalkit.runtime.Domain)")
    if domain.name != name:
        raise TaskError(f"{path}: DOMAIN.name is {domain.name!r}, expected {name!r}")
    _check_tool_schemas(domain)
    _CACHE[path] = domain
    _BY_NAME[key] = domain
    return domain


def _check_tool_schemas(domain: Domain) -> None:
    """Every tool's ``parameters`` must be a valid draft 2020-12 JSON Schema.

    The check compiles each tool's validator into the cache the controller uses for argument
    checks (:func:`evalkit.runtime.controller.schema_errors`), so it costs nothing extra for
    the tools a suite's plans call.

    Raises:
        TaskError: naming the domain, the tool and where its schema is wrong.
    """
    from jsonschema.exceptions import SchemaError

    for tool in domain.tools.values():
        try:
            schema_errors(tool.parameters, {})  # compiles (check_schema) and caches the validator
        except SchemaError as exc:
            raise TaskError(f"domain {domain.name}: tool {tool.name}: its parameters are not a valid JSON Schema "
                            f"(at {exc.json_path}: {_one_line(exc.message)})") from None
        except Exception as exc:  # noqa: BLE001 - a schema that cannot even be checked
            raise TaskError(f"domain {domain.name}: tool {tool.name}: its parameters are not a valid JSON Schema "
                            f"({type(exc).__name__}: {_one_line(str(exc))})") from None


def _one_line(text: str, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit] + "…"


def available_domains(tasks_dir: Path | None = None) -> list[str]:
    """Names of the domain folders under ``tasks_dir`` (default: the built-in one)."""
    root = tasks_dir or builtin_dir("tasks")
    if not root.is_dir():
        return []
    return sorted(p.parent.name for p in root.glob("*/domain.py"))
