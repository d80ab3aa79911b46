"""Whether a folder is a run directory, and whether a new run may be written to it.

:func:`~evalkit.paths.looks_like_run_dir` tells a run directory by its layout (no file read),
:func:`unfinished` whether its run stopped before writing ``summary.json``,
:func:`read_manifest` reads its ``config.json`` and :func:`check_out_dir` decides, before
any work, whether a new run may go into a folder: a missing or empty one, or an earlier run
that it replaces (the layout is described in :mod:`evalkit.harness.store`).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from evalkit.paths import looks_like_run_dir  # noqa: F401 - re-exported
from evalkit.errors import RunError


def unfinished(path: str | Path) -> str | None:
    """Why the run in ``path`` is unfinished, with the command that finishes it, or ``None``.

    Returns:
        ``"DIR: no summary.json: the run did not finish; continue it with `evalkit run
        --resume DIR`"`` for a run directory (:func:`looks_like_run_dir`) without
        ``summary.json`` (an interrupted run, or a resume in progress); ``None`` for a
        finished run or a folder that is not a run directory.
    """
    p = Path(path)
    if not looks_like_run_dir(p) or (p / "summary.json").is_file():
        return None
    return f"{p}: no summary.json: the run did not finish; continue it with `evalkit run --resume {p}`"


def read_manifest(path: str | Path) -> dict[str, Any] | None:
    """The run manifest in ``path/config.json``, or ``None`` when there is none (missing,
    unreadable, or not an object with ``evalkit_version`` and ``config``)."""
    try:
        data = json.loads((Path(path) / "config.json").read_bytes().decode("utf-8-sig"))
    except (OSError, ValueError, RecursionError):
        return None
    if isinstance(data, dict) and "evalkit_version" in data and isinstance(data.get("config"), dict):
        return data
    return None


def check_out_dir(path: str | Path) -> dict[str, Any] | None:
    """Check that a new run may be written to ``path`` before any work starts.

    A new run goes into a missing or empty folder (entries whose names start with ``.`` do
    not count) or replaces the earlier run in a run directory; evalkit never writes into, or
    removes anything from, a folder that holds other files.

    Returns:
        The earlier run's manifest when ``path`` is a run directory (the caller warns that it
        is replaced), else ``None``.

    Raises:
        RunError: ``path`` is empty, a file, under a file, not writable, or a non-empty
            folder that is not a run directory.
    """
    if str(path) == "":
        raise RunError("--out is empty; give the run directory's path")
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise RunError(f"{p}: is a file, not a folder; choose another --out")
    ancestor = p
    while not ancestor.exists():
        if ancestor.parent == ancestor:
            break
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise RunError(f"{ancestor}: is a file, so {p} cannot be created; choose another --out")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise RunError(f"{ancestor}: not writable (permission denied); choose another --out")
    if not p.exists():
        return None
    manifest = read_manifest(p)
    if manifest is not None:
        return manifest
    try:
        others = sorted(e.name for e in p.iterdir() if not e.name.startswith("."))
    except OSError as exc:
        raise RunError(f"{p}: cannot list the folder ({exc.strerror})") from None
    if others:
        shown = ", ".join(others[:3]) + (", ..." if len(others) > 3 else "")
        raise RunError(f"{p}: not empty ({shown}) and not an evalkit run directory; "
                       "choose a new or empty folder for --out")
    return None
