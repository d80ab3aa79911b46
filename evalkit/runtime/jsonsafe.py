"""Values from models and tools made safe for the event log (strict JSON, UTF-8).

What a model or a tool hands the runtime may not survive ``json.dumps(allow_nan=False)``
and UTF-8 encoding: a lone surrogate (``"\\ud800"``), NaN or Infinity, a value of another
type (``datetime``, ``bytes``, an object), a circular reference, or nesting deeper than the
encoder's recursion limit. Such values are checked once, where they enter the log (the
agent loop's model boundary, the sandbox executor), so that writing a trace never fails:

* :func:`json_problem` — the fast check, one ``json.dumps`` plus UTF-8 encoding of the
  value: ``None`` when it is safe, else a short phrase naming the first problem;
* :func:`clean_text` — a string with its lone surrogates replaced by U+FFFD;
* :func:`unique_keys` — the ``object_pairs_hook`` that makes a JSON decoder refuse an object
  giving one key twice (:class:`DuplicateKey`);
* :func:`sanitize` — a copy of a value with lone surrogates replaced and every NaN,
  Infinity, value of another type or too-deep part turned into a marked string
  (``"<nan>"``, ``"<not JSON: datetime>"``, ``"<nested too deep>"``).

Callers run the fast check first and sanitise only when it fails, so a well-formed value
costs one ``dumps``.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Callable

SURROGATE = "a lone surrogate in a string"
"""What :func:`json_problem` returns when the only problem may be lone surrogates (the value
is valid JSON otherwise; :func:`sanitize` repairs it without losing anything else)."""
NON_FINITE = "a non-finite number (NaN or Infinity)"
TOO_DEEP = "nesting too deep"
MAX_DEPTH = 200
"""Nesting levels :func:`sanitize` keeps; deeper parts become ``"<nested too deep>"``."""

_SURROGATES = re.compile("[\ud800-\udfff]")

try:  # the C encoder json.dumps itself uses, without rebuilding an encoder object per call
    from json.encoder import c_make_encoder as _c_make_encoder  # type: ignore[attr-defined]  # private, not in typeshed
    from json.encoder import encode_basestring as _encode_str
except ImportError:  # pragma: no cover - a Python without the C accelerator
    _c_make_encoder = None


class DuplicateKey(ValueError):
    """A JSON object gave ``key`` twice: RFC 8259 leaves its meaning to the reader, so which value was
    meant is unknown."""

    def __init__(self, key: str):
        super().__init__(f"duplicate key {key!r}")
        self.key = key


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """The object of ``pairs`` (a JSON decoder's ``object_pairs_hook``).

    Raises:
        DuplicateKey: naming the first key given twice.
    """
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise DuplicateKey(key)
        out[key] = value
    return out


def _default(obj: Any) -> Any:
    """Sets and frozensets as lists (as the event log writes them); anything else is not JSON."""
    if isinstance(obj, (set, frozenset)):
        return list(obj)
    raise TypeError(f"a {type(obj).__name__} value")


def _strict_json(value: Any) -> str:
    """``json.dumps(value, ensure_ascii=False, allow_nan=False)`` (sets as lists), at half the cost."""
    if _c_make_encoder is None:  # pragma: no cover
        return json.dumps(value, ensure_ascii=False, allow_nan=False, default=_default)
    encode = _c_make_encoder({}, _default, _encode_str, None, ": ", ", ", False, False, False)
    return "".join(encode(value, 0))


def json_problem(value: Any) -> str | None:
    """Why ``value`` cannot be written as strict JSON in UTF-8, or ``None`` when it can.

    Args:
        value: Any value (dicts, lists, tuples, strings, numbers, ``None``).

    Returns:
        ``None``; or :data:`SURROGATE`, :data:`NON_FINITE`, :data:`TOO_DEEP`,
        ``"a circular reference"``, ``"a datetime value"`` (naming the type of the first
        value that is not JSON) or ``"a tuple key"`` (a dict key of that type).
    """
    try:
        _strict_json(value).encode("utf-8")
    except UnicodeEncodeError:
        return SURROGATE
    except ValueError as exc:
        return NON_FINITE if "Out of range" in str(exc) else "a circular reference"
    except TypeError as exc:  # from _default ("a datetime value") or a dict key ("... not tuple")
        text = str(exc)
        return text if text.startswith("a ") else f"a {text.rsplit(' ', 1)[-1]} key"
    except RecursionError:
        return TOO_DEEP
    return None


def clean_text(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD (``text`` itself when it has none)."""
    return _SURROGATES.sub("\ufffd", text) if _SURROGATES.search(text) else text


def _key(key: Any) -> Any:
    if isinstance(key, str):
        return clean_text(key)
    if key is None or isinstance(key, (bool, int)):
        return key
    if isinstance(key, float):
        return key if math.isfinite(key) else f"<{key!r}>"
    return f"<not JSON: {type(key).__name__}>"


def sanitize(value: Any, _depth: int = 0, _seen: frozenset[int] = frozenset()) -> Any:
    """A JSON-safe copy of ``value`` (see the module docstring); tuples stay tuples.

    Args:
        value: Any value.

    Returns:
        The copy: strings cleaned (:func:`clean_text`), NaN and Infinity as ``"<nan>"``,
        ``"<inf>"``, ``"<-inf>"``, other types as ``"<not JSON: TYPE>"``, parts below
        :data:`MAX_DEPTH` levels as ``"<nested too deep>"``, a circular reference as
        ``"<circular reference>"``.
    """
    if isinstance(value, str):
        return clean_text(value)
    if value is None or isinstance(value, (bool, int)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else f"<{value!r}>"
    if not isinstance(value, (dict, list, tuple, set, frozenset)):
        return f"<not JSON: {type(value).__name__}>"
    if _depth >= MAX_DEPTH:
        return "<nested too deep>"
    if id(value) in _seen:
        return "<circular reference>"
    seen = _seen | {id(value)}
    if isinstance(value, dict):
        return {_key(k): sanitize(v, _depth + 1, seen) for k, v in value.items()}
    items = [sanitize(v, _depth + 1, seen) for v in value]
    return tuple(items) if isinstance(value, tuple) else items


try:  # the C encoder json.dumps itself uses, built once per log instead of once per event
    from json.encoder import c_make_encoder as _c_make_encoder  # type: ignore[attr-defined]  # private, not in typeshed
    from json.encoder import encode_basestring as _encode_str
except ImportError:  # pragma: no cover - a Python without the C accelerator
    _c_make_encoder = None


def line_encoder() -> Callable[[dict[str, Any]], str]:
    """``encode(obj)``: ``json.dumps(obj, ensure_ascii=False, allow_nan=False,
    default=json_default) + "\\n"``, the same text, with one encoder object for a whole log.

    A new encoder per log (never shared between threads: its circular-reference marks are
    per call in progress)."""
    if _c_make_encoder is None:  # pragma: no cover
        return lambda obj: json.dumps(obj, ensure_ascii=False, allow_nan=False, default=json_default) + "\n"
    encoder = _c_make_encoder({}, json_default, _encode_str, None, ": ", ", ", False, False, False)
    return lambda obj: "".join(encoder(obj, 0)) + "\n"


def json_default(obj: Any) -> Any:
    if isinstance(obj, (set, frozenset, tuple)):
        return list(obj)
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")
