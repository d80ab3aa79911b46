"""Reading suite documents: UTF-8 text, YAML and JSON, with duplicate-key and nesting checks.

Suite files, gate configs, rule sets, runtime policies and model config files are written by
people and tools, so every one of them is read here, and the readers refuse what would
otherwise pass silently or take the process down:

* bytes that are not UTF-8 (a UTF-8 byte-order mark is accepted and dropped, in every format);
* a mapping that repeats a key (YAML and JSON parsers keep the last value without a word);
* nesting deeper than :data:`MAX_DEPTH` containers, or a YAML alias that contains itself:
  libyaml's composer recurses in C and overflows the stack on pathological input (a
  segfault), JSON's decoder and every later step (validation, deep merge, deep copy)
  recurse in Python;
* YAML aliases that expand to more than :data:`MAX_EXPANDED` values beyond the text's own
  length (a "billion laughs" document: a few lines whose aliases expand to billions of
  values, which every later step would walk or serialise);
* a YAML value that is not a JSON value: an explicit tag such as ``!!binary``, ``!!set``,
  ``!!timestamp`` or ``!!omap`` (bytes, a set, a date, a list of tuples) or a mapping key
  that is not a string (``{1: x}``, ``{true: x}``, ``{~: x}``). Suite documents are exported
  as JSON and hashed: such values would change on the way (a set's order varies between
  processes, ``1`` becomes ``"1"``), so a pair would not be the pair its file describes.

Values are kept as written: plain scalars resolve by the YAML 1.2 core schema
(:data:`_CORE_SCALARS`), so the YAML 1.1 retyping PyYAML does by default (``2024-07-01`` a
date, ``12:30`` the integer 750, ``01234`` octal 668, ``NO`` false) never happens; such
scalars are the strings the author wrote.

YAML is read with libyaml (``CSafeLoader``) when it is installed, else with PyYAML's pure-Python
``SafeLoader``. Before composing, :func:`load_yaml` bounds the nesting cheaply
(:func:`nesting_bound`); only text that might nest deeper than the composer can take is first
scanned event by event, which is safe at any depth (the parser keeps explicit stacks) and stops
at the first container deeper than :data:`MAX_DEPTH`. Every problem is a :class:`DocumentError`
carrying the path of the offending item, which :mod:`evalkit.scenarios.loader` turns into a
scenario error naming file, pair and field.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import yaml
from yaml.events import (AliasEvent, MappingEndEvent, MappingStartEvent, ScalarEvent, SequenceEndEvent,
                         SequenceStartEvent)
from yaml.nodes import MappingNode, ScalarNode, SequenceNode

MAX_DEPTH = 100
"""Deepest nesting of mappings and lists a suite document may have (the shipped library's
deepest is 8)."""

MAX_EXPANDED = 1_000_000
"""Most values (mapping keys, values and list items, counted with every alias expanded) a YAML
document may hold beyond the length of its text. Without aliases a document holds fewer
values than its text has characters; the shipped library's largest file holds 3,300."""

_BASE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when available: the library is large
_SAFE_NESTING = 1000 if hasattr(yaml, "CSafeLoader") else 150
"""Nesting the composer takes without the event scan: libyaml's recursion uses ~300 bytes of C
stack a level (so ~300 KB here); PyYAML's uses about three Python frames a level."""


class DocumentError(Exception):
    """A problem in a suite document.

    Args:
        message: What is wrong (one line).
        path: Keys and list indices from the document root to the offending item (empty when
            unknown).
        data: The parsed document, when parsing got that far (to name the pair).
    """

    def __init__(self, message: str, *, path: tuple[Any, ...] = (), data: Any = None):
        super().__init__(message)
        self.message = message
        self.path = tuple(path)
        self.data = data

    def describe(self) -> str:
        """The problem as one line for a config file's error (the caller prefixes the file):
        ``field thresholds.0.metric: duplicate key 'metric' (line 2): …``."""
        where = ".".join(map(str, self.path))
        return (f"field {where}: " if where else "") + self.message


def decode(data: bytes) -> str:
    """``data`` as UTF-8 text, a leading byte-order mark dropped.

    Raises:
        DocumentError: when the bytes are not UTF-8 (naming the first bad byte, or UTF-16).
    """
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
            raise DocumentError("is UTF-16 text; save it as UTF-8") from None
        raise DocumentError(f"is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
                            "save it as UTF-8") from None


_construct_mapping = _BASE_LOADER.construct_mapping

_CORE_SCALARS: tuple[tuple[str, str, str], ...] = (
    ("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", "~nN"),
    ("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    ("tag:yaml.org,2002:int", r"^[-+]?(?:0|[1-9][0-9]*)$", "-+0123456789"),
    ("tag:yaml.org,2002:float",
     r"^(?:[-+]?(?:\.[0-9]+|(?:0|[1-9][0-9]*)(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
     r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$", "-+.0123456789"),
    ("tag:yaml.org,2002:merge", r"^<<$", "<"),
)
"""Plain scalars that are not strings (YAML 1.2 core schema, with one narrowing): null, the
booleans ``true``/``false`` (three spellings each), decimal integers and floats; a number
written with a leading zero (``01234``, ``007.5``) stays a string. Everything else a person
writes unquoted is the string written: ``2024-07-01``, ``2024-07-01T09:00:00Z``, ``12:30``,
``01234``, ``0x1F``, ``1_000``, ``yes``/``no``/``on``/``off``/``y``/``n``. ``<<`` merges keys."""


def _core_resolvers() -> dict[Any, list[tuple[str, Any]]]:
    table: dict[Any, list[tuple[str, Any]]] = {}
    for tag, pattern, first in _CORE_SCALARS:
        regexp = re.compile(pattern)
        for ch in first:
            table.setdefault(ch, []).append((tag, regexp))
    table.setdefault("", []).append(("tag:yaml.org,2002:null", re.compile(r"^$")))
    return table


class _SuiteLoader(_BASE_LOADER):  # type: ignore[misc, valid-type]
    """The safe loader, with the scalar resolution of :data:`_CORE_SCALARS` (values kept as
    written), noting every mapping that repeats one of its own keys (keys merged in with
    ``<<`` may be overridden, as YAML allows)."""

    yaml_implicit_resolvers = _core_resolvers()

    def __init__(self, stream: str):
        super().__init__(stream)
        self.duplicates: list[tuple[int, int, Any]] = []

    def construct_mapping(self, node: Any, deep: bool = False) -> dict[Any, Any]:
        own = node.value  # flatten_mapping drops `<<` entries from this list in place, then prepends the merged ones
        mapping = _construct_mapping(self, node, deep)
        if len(mapping) < len(node.value):  # a repeated key, or an own key over a merged one
            seen: set[Any] = set()
            for key_node, _ in own:
                key = self.construct_object(key_node, deep=deep)  # built already: a cache hit
                if key in seen:
                    self.duplicates.append((key_node.start_mark.line, key_node.start_mark.column, key))
                    break
                seen.add(key)
        return mapping


def load_yaml(text: str) -> Any:
    """Parse one YAML document safely (see the module docstring).

    Raises:
        DocumentError: a repeated key (with its path and line), or nesting deeper than
            :data:`MAX_DEPTH`.
        yaml.YAMLError: when the text is not valid YAML.
    """
    aliases = _scan_yaml_depth(text) if nesting_bound(text) > _SAFE_NESTING else True
    loader = _SuiteLoader(text)
    try:
        data = loader.get_single_data()
    except RecursionError:  # not expected below _SAFE_NESTING; a clear error all the same
        raise DocumentError(f"nested more than {MAX_DEPTH} levels deep") from None
    finally:
        loader.dispose()
    if loader.duplicates:
        line, column, key = min(loader.duplicates, key=lambda d: (d[0], d[1]))
        raise DocumentError(f"duplicate key {key!r} (line {line + 1}): a key may appear once per mapping",
                            path=_yaml_key_path(text, line, column), data=data)
    if aliases:  # unless a scan found no aliases (then it measured the depth exactly)
        check_depth(data)
    check_values(data, limit=len(text) + MAX_EXPANDED)
    return data


_JSON_SCALARS = (str, int, float, bool, type(None))
_TAG_OF = {"bytes": "!!binary", "set": "!!set", "date": "!!timestamp", "datetime": "!!timestamp",
           "tuple": "!!omap or !!pairs"}


def check_values(data: Any, limit: int = MAX_EXPANDED) -> int:
    """Refuse values that are not JSON values (a NaN or infinite number among them: YAML's ``.nan``
    and ``.inf``, JSON's non-standard ``NaN`` and ``Infinity``) and aliases that expand past
    ``limit`` values.

    Shared containers (YAML aliases) are checked once and counted each time they appear, so
    the walk is linear in the document's text. ``data`` must nest at most :data:`MAX_DEPTH`
    levels (:func:`check_depth`).

    Returns:
        The number of values (mapping keys, values and list items, aliases expanded).

    Raises:
        DocumentError: naming the path of the first value of another type (from an explicit
            YAML tag such as ``!!binary`` or ``!!set``), the first number that is not finite, the
            first mapping key that is not a string, or the innermost container whose expanded
            size is past ``limit``.
    """
    sizes: dict[int, int] = {}

    def walk(obj: Any, path: tuple[Any, ...]) -> int:
        if isinstance(obj, (dict, list)):
            known = sizes.get(id(obj))
            if known is not None:
                return known
            n = 1
            if isinstance(obj, dict):
                for key, value in obj.items():
                    if not isinstance(key, str):
                        raise DocumentError(f"mapping key {key!r} is a {_kind(key)}: keys are strings (quote the key)",
                                            path=(*path, key), data=data)
                    n += 1 + walk(value, (*path, key))
            else:
                for i, value in enumerate(obj):
                    n += walk(value, (*path, i))
            if n > limit:
                raise DocumentError(f"its YAML aliases expand to {n:,} values, more than the {limit:,} allowed",
                                    path=path, data=data)
            sizes[id(obj)] = n
            return n
        if isinstance(obj, float) and not math.isfinite(obj):
            raise DocumentError(f"a number that is not finite ({obj!r}): JSON numbers are finite; write a number, or "
                                "quote the value to keep it as text", path=path, data=data)
        if isinstance(obj, _JSON_SCALARS):
            return 1
        name = type(obj).__name__
        raise DocumentError(f"a {name} value (YAML tag {_TAG_OF.get(name, 'with a non-JSON type')}): only "
                            "JSON values are allowed (strings, numbers, booleans, null, lists, mappings); quote "
                            "the value to keep it as text", path=path, data=data)

    return walk(data, ())


def _kind(value: Any) -> str:
    return {bool: "boolean", int: "number", float: "number", type(None): "null"}.get(type(value), type(value).__name__)


def nesting_bound(text: str) -> int:
    """A cheap upper bound of the nesting depth of YAML ``text`` (C-speed string operations).

    A flow collection opens with one ``[`` or ``{`` character; block collections nest by
    strictly increasing columns, at most two per column (a mapping and an indentless sequence
    under it), and every token's column is below its line's length (lines split at ``\n``; the
    other YAML line breaks only make real columns smaller). Hence depth ≤ the number of ``[``
    and ``{`` characters + 2 × (the longest line's length + 1). The shipped library's files
    bound at 230-590.
    """
    return text.count("[") + text.count("{") + 2 * (max(map(len, text.split("\n"))) + 1)


def _scan_yaml_depth(text: str) -> bool:
    """Refuse text nested deeper than :data:`MAX_DEPTH`; return whether it uses aliases."""
    depth = 0
    aliases = False
    for event in yaml.parse(text, Loader=_BASE_LOADER):
        cls = event.__class__
        if cls is ScalarEvent:
            continue
        if cls is MappingStartEvent or cls is SequenceStartEvent:
            depth += 1
            if depth > MAX_DEPTH:
                line = event.start_mark.line + 1 if event.start_mark else "?"
                raise DocumentError(f"nested more than {MAX_DEPTH} levels deep (line {line})")
        elif cls is MappingEndEvent or cls is SequenceEndEvent:
            depth -= 1
        elif cls is AliasEvent:
            aliases = True
    return aliases


def _yaml_key_path(text: str, line: int, column: int) -> tuple[Any, ...]:
    """Path of the mapping key that starts at ``line``:``column`` (0-based), or ``()``."""
    root = yaml.compose(text, Loader=_BASE_LOADER)  # safe: the depth scan passed
    stack: list[tuple[Any, tuple[Any, ...]]] = [(root, ())]
    seen: set[int] = set()
    while stack:
        node, path = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, MappingNode):
            for key_node, value_node in node.value:
                name = key_node.value if isinstance(key_node, ScalarNode) else "?"
                if key_node.start_mark.line == line and key_node.start_mark.column == column:
                    return (*path, name)
                stack.append((value_node, (*path, name)))
        elif isinstance(node, SequenceNode):
            stack.extend((child, (*path, i)) for i, child in enumerate(node.value))
    return ()


class _Repeated(dict):
    """A JSON object that repeats ``key`` (built only to locate the error)."""

    key: Any = None


def _mark_repeats(items: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(items)
    if len(obj) < len(items):
        seen: set[str] = set()
        for key, _ in items:
            if key in seen:
                obj = _Repeated(obj)
                obj.key = key
                break
            seen.add(key)
    return obj


def load_json(text: str) -> Any:
    """Parse a JSON document (a whole ``.json`` file or one ``.jsonl`` line) safely.

    Raises:
        DocumentError: a repeated key (with its path), nesting deeper than :data:`MAX_DEPTH`, or
            a number that is not finite (``NaN``, ``Infinity``: :func:`check_values`).
        json.JSONDecodeError: when the text is not valid JSON.
    """
    repeats = []

    def unique(items: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(items)
        if len(obj) < len(items):
            repeats.append(True)
        return obj

    try:
        data = json.loads(text, object_pairs_hook=unique)
    except RecursionError:
        raise DocumentError(f"nested more than {MAX_DEPTH} levels deep") from None
    if repeats:
        marked = json.loads(text, object_pairs_hook=_mark_repeats)
        path = _first_path(marked, lambda obj: isinstance(obj, _Repeated))
        key = _at(marked, path).key if path is not None else "?"
        raise DocumentError(f"duplicate key {key!r}: a key may appear once per object",
                            path=(*(path or ()), key), data=data)
    check_depth(data)
    check_values(data, limit=len(text) + MAX_EXPANDED)  # NaN and Infinity, which json.loads accepts
    return data


def _children(obj: Any) -> list[tuple[Any, Any]]:
    if isinstance(obj, dict):
        return list(obj.items())
    if isinstance(obj, list):
        return list(enumerate(obj))
    return []


def _first_path(root: Any, match: Any) -> tuple[Any, ...] | None:
    """Path of the first container (document order) for which ``match`` holds."""
    stack: list[tuple[Any, tuple[Any, ...]]] = [(root, ())]
    while stack:
        obj, path = stack.pop()
        if match(obj):
            return path
        stack.extend((child, (*path, k)) for k, child in reversed(_children(obj)) if isinstance(child, (dict, list)))
    return None


def _at(root: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        root = root[part]
    return root


def check_depth(data: Any, limit: int = MAX_DEPTH) -> None:
    """Refuse documents nested deeper than ``limit`` containers (a cycle counts as too deep).

    Raises:
        DocumentError: with the path (its first levels) towards the first container past the limit.
    """
    if _over(data, limit):
        raise DocumentError(f"nested more than {limit} levels deep",
                            path=_deep_path(data, limit), data=data)


def _over(data: Any, limit: int) -> bool:
    """Whether ``data`` nests more than ``limit`` containers. Shared containers (YAML aliases)
    are walked again only when reached at a greater depth, so the walk stays linear in the
    document's size for any realistic input and ends on a cycle."""
    best: dict[int, int] = {}
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        obj, depth = stack.pop()
        if depth > limit:
            return True
        key = id(obj)
        if best.get(key, 0) >= depth:
            continue
        best[key] = depth
        children = obj.values() if isinstance(obj, dict) else obj if isinstance(obj, list) else ()
        stack.extend((c, depth + 1) for c in children if isinstance(c, (dict, list)))
    return False


def _deep_path(data: Any, limit: int, levels: int = 4) -> tuple[Any, ...]:
    """The first ``levels`` keys on the way to a container past ``limit`` (error path only)."""
    path: tuple[Any, ...] = ()
    obj = data
    while len(path) < levels:
        budget = limit - len(path) - 1
        step = next(((k, c) for k, c in _children(obj) if isinstance(c, (dict, list)) and _over(c, budget)), None)
        if step is None:
            break
        path, obj = (*path, step[0]), step[1]
    return path
