"""Reading a labelled JSON-lines file (``evalkit judge eval --texts FILE``) a chunk at a time,
within its size limits: :data:`MAX_TEXT_BYTES` of text in a line's ``text`` (and
``context_user``, checked by :class:`evalkit.conditions.judge.evaluate.LabelledText`) and
:data:`MAX_LINE_BYTES` in a line as written (checked here, before a line is read whole)."""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, Final

from evalkit.errors import ConfigError, shown_path

MAX_TEXT_BYTES: Final = 64 * 1024
"""The most a labelled line's ``text`` may hold, and its ``context_user`` too: 65,536 bytes (64 KiB)
of UTF-8 text, counted as read (JSON escapes such as ``\\u00e9`` undone). Far above any line of the
shipped corpus (its longest text is under 2 KB) and above a final text an episode keeps, which
is short; a longer value is refused (``FILE: line N: field text: ...``), never cut."""
MAX_LINE_BYTES: Final = 16 * MAX_TEXT_BYTES
"""The most bytes one line of a labelled file may hold as written (1 MiB, its line end not
counted): room for a ``text`` and a ``context_user`` of :data:`MAX_TEXT_BYTES` each with every
character escaped (at most 6 bytes written per byte of text) and the other fields. A longer line
is refused once this many bytes of it are read (``FILE: line N: field F: ...``, ``F`` being the
field the limit was reached in), never read whole."""
_READ_CHUNK = 64 * 1024
"""Bytes read from a labelled file at a time."""

_LINE_END = re.compile(rb"\r\n|\r|\n")
"""Line ends of a labelled file: LF, CRLF or CR alone (a raw CR cannot occur inside a JSON string)."""
_JSON_TOKEN = re.compile(rb'"[^"\\]*+(?:\\.[^"\\]*+)*+"|"|[{}\[\]:,]', re.DOTALL)
"""The tokens :func:`_field_at_cut` follows: a whole JSON string, a quote opening a string that
does not end (the cut is in it), and the structural characters."""


def file_lines(stream: BinaryIO, path: Path) -> Iterator[tuple[int, int, bytes]]:
    """The lines of a labelled file, read :data:`_READ_CHUNK` bytes at a time.

    Yields:
        ``(n, offset, line)``: the 1-based line number (blank lines counted), the line's byte
        offset in the file and its bytes without the line end (LF, CRLF or CR alone).

    Raises:
        ConfigError: ``FILE: line N: field F: ...`` for a line longer than
            :data:`MAX_LINE_BYTES`, raised once that many bytes of it are held (at most one
            chunk more): the rest of the line is never read.
    """
    buf = b""
    start = 0  # the offset of buf[0] in the file
    n = 1
    eof = False
    while True:
        pos = 0
        for end in _LINE_END.finditer(buf):
            if end.group() == b"\r" and end.end() == len(buf) and not eof:
                break  # a CR last in the buffer may be the first half of a CRLF: read on
            if end.start() - pos > MAX_LINE_BYTES:
                raise _too_long(path, n, buf[pos:end.start()])
            yield n, start + pos, buf[pos:end.start()]
            pos = end.end()
            n += 1
        buf, start = buf[pos:], start + pos
        if len(buf) > MAX_LINE_BYTES:
            raise _too_long(path, n, buf)
        if eof:
            if buf:
                yield n, start, buf
            return
        chunk = stream.read(_READ_CHUNK)
        eof = not chunk
        buf += chunk


SHOWN_VALUE_CHARS: Final = 80
"""The most characters of a bad value an error about a labelled line echoes (the rest cut, ``…``)."""


def shown_value(value: object) -> str:
    """A value of a labelled line as its error echoes it: a string as its Python repr
    (``'bogus'``), anything else as written in JSON (``3``, ``null``, ``["act", "clarify"]``);
    characters that do not show escaped (``\\x00``), at most :data:`SHOWN_VALUE_CHARS`
    characters (cut with ``…``)."""
    if isinstance(value, str):
        shown = repr(value)
    else:
        try:
            written = json.dumps(value, ensure_ascii=False)
        except (TypeError, ValueError):  # not from a JSON line: as Python writes it
            written = repr(value)
        shown = "".join(c if c.isprintable() else repr(c)[1:-1] for c in written)
    return shown if len(shown) <= SHOWN_VALUE_CHARS else shown[:SHOWN_VALUE_CHARS - 1] + "…"


def _too_long(path: Path, n: int, head: bytes) -> ConfigError:
    """The error for line ``n``, longer than :data:`MAX_LINE_BYTES`, of which ``head`` was read."""
    field = _field_at_cut(head)
    where = f"field {field}: " if field is not None else ""
    return ConfigError(f"{shown_path(path)}: line {n}: {where}the line is longer than {MAX_LINE_BYTES:,} bytes (MAX_LINE_BYTES), "
                       f"the most a labelled line may hold; a text holds at most {MAX_TEXT_BYTES:,} bytes "
                       "(64 KiB) of UTF-8 text")


def _field_at_cut(head: bytes) -> str | None:
    """The top-level key of the JSON object ``head`` begins whose value (or key) the end of
    ``head`` falls in (``text`` for ``{"text": "aaa…``), or ``None`` when it cannot tell (not an
    object, between two fields, an empty or unprintable key, one over 200 bytes)."""
    if not head.removeprefix(codecs.BOM_UTF8).lstrip().startswith(b"{"):
        return None
    depth = 0
    key: bytes | None = None
    last: bytes | None = None
    expect_key = False  # at depth 1, the next string is a key
    for match in _JSON_TOKEN.finditer(head):
        token = match.group()
        if token == b'"':  # a string that does not end: the cut is in it
            if depth == 1 and expect_key:
                key = head[match.start():] + b'"'  # a key cut short: named as far as it was read
            break
        if token in (b"{", b"["):
            depth += 1
            expect_key = depth == 1
        elif token in (b"}", b"]"):
            depth -= 1
        elif depth != 1:
            continue
        elif token == b":":
            key, expect_key = last, False
        elif token == b",":
            key, expect_key = None, True
        else:
            last = token
    if key is None or len(key) > 200:
        return None
    try:
        name = json.loads(key)
    except ValueError:
        return None
    return name if isinstance(name, str) and name and name.isprintable() else None


