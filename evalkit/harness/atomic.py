"""Whole files written atomically, and the JSON text evalkit writes.

:func:`write_atomic` writes a file to a temporary file in the same folder and renames it
into place, so a reader never sees a half-written file; its errors name the file meant
(:func:`_naming`). :func:`_umask` reads the process's umask without changing it, for a
file whose mode is set by hand. :func:`dump_json` is the JSON text of the run directory's
files (NaN and Infinity rejected). The run directory's layout is described in
:mod:`evalkit.harness.store`, which re-exports these names.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any


_TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)
_TEMP_SEQ = iter(range(1 << 62))
"""Serial numbers of this process's temporary files (``next`` is atomic under the GIL)."""


def write_atomic(path: str | Path, data: str | bytes) -> None:
    """Write ``data`` to ``path`` atomically (temp file in the same folder, then rename).

    A reader sees the old file or the whole new one, never a part. The temporary file,
    ``.NAME.PID-N.tmp`` next to ``path``, is created exclusively (``O_EXCL``; a name left
    by an earlier process is skipped) with mode ``0o666``, so the kernel applies the umask
    (or the folder's default ACL) exactly as to any new file. The folder is created when
    missing. A trace costs four system calls: open, write, close, rename.

    Args:
        path: The file to write (its folder is created when missing).
        data: Text (written as UTF-8) or bytes.

    Raises:
        OSError: naming ``path`` (a full disk, a read-only folder ...); ``path`` is unchanged
            and no temporary file is left.
    """
    target = os.fspath(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    folder, name = os.path.split(target)
    prefix = os.path.join(folder, f".{name}.{os.getpid()}-")
    tmp = ""
    try:
        for attempt in range(100):
            tmp = f"{prefix}{next(_TEMP_SEQ)}.tmp"
            try:
                fd = os.open(tmp, _TEMP_FLAGS, 0o666)
                break
            except FileExistsError:  # left by an earlier process that had this pid
                if attempt == 99:
                    raise
            except FileNotFoundError:
                if not folder or attempt == 99 or os.path.isdir(folder):
                    raise
                os.makedirs(folder, exist_ok=True)  # the first file of a new folder
    except OSError as exc:
        raise _naming(exc, Path(target)) from exc
    try:
        try:
            view = memoryview(payload)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        if isinstance(exc, OSError):
            raise _naming(exc, Path(target)) from exc
        raise


def write_output(path: str | Path, data: str | bytes) -> None:
    """Write ``data`` to a file the user named (``--json``, ``--out``, ``--junit`` ...).

    A regular file, or a new one, is written by :func:`write_atomic`. A symbolic link is followed: its target is
    written atomically and the link stays. A path that exists and is no regular file (``/dev/stdout``, a
    FIFO, a terminal) is written into as a stream, in order, since a rename would replace it with a file.

    Args:
        path: The file to write.
        data: Text (written as UTF-8) or bytes.

    Raises:
        OSError: naming ``path`` (a missing folder of a link's target, a full disk, a read-only folder ...).
    """
    import stat

    target = os.fspath(path)
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise _naming(exc, Path(target)) from exc
    if mode is not None and not stat.S_ISREG(mode):
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(21, "is a folder", target)
        payload = data.encode("utf-8") if isinstance(data, str) else data
        try:
            with open(target, "wb") as fh:
                fh.write(payload)
        except OSError as exc:
            raise _naming(exc, Path(target)) from exc
        return
    write_atomic(os.path.realpath(target) if os.path.islink(target) else target, data)


def _naming(exc: OSError, path: Path) -> OSError:
    """``exc`` with ``path`` as its file name (a failed ``write`` names no file)."""
    if exc.filename is not None and not str(exc.filename).endswith(".tmp"):
        return exc
    return type(exc)(exc.errno, exc.strerror or str(exc), str(path))


def _umask() -> int:
    """The process's umask, read without changing it where the system shows it
    (``/proc/self/status``, Linux 4.7+): setting and restoring it would, for an instant,
    give a file another thread creates the mode ``0o666``."""
    try:
        with open("/proc/self/status", "rb") as fh:
            for line in fh:
                if line.startswith(b"Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0)
    os.umask(mask)
    return mask


def dump_json(obj: Any) -> str:
    """JSON text with NaN and Infinity rejected (``ValueError``), non-ASCII kept."""
    return json.dumps(obj, indent=2, ensure_ascii=False, allow_nan=False, sort_keys=False) + "\n"
