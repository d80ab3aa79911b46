"""Reading tool calls from real model output: strict by default, repairs opt-in and tagged.

Real models and servers emit malformed calls (the field cases C01–C05, C09, C11). Every
kind is handled here, never only one example:

========================  ==========================================  ==============================
fault                     strict (default)                             opt-in repair (``parse.repair``)
========================  ==========================================  ==============================
trailing text             ``trailing_data at char N``                   ``trailing_quotes``: accept when
(``{}""``)                                                              the rest is quotes/whitespace
concatenated / truncated  ``trailing_data`` / ``invalid_json``          never repaired
double-encoded            ``arguments_not_object`` (a JSON string);     ``double_encoded``: unwrap one
                          a nested array/object given as a string       level only when the inner text
                          fails the tool's schema                       decodes to the type the schema
                                                                        requires
markdown fence            ``invalid_json: markdown_fence``              ``fence``: strip one fence that
                                                                        spans the whole string
empty arguments           ``invalid_json: empty arguments``             ``empty_arguments``: ``{}``
duplicate key             ``invalid_json: duplicate key 'k'``           never repaired
arguments as an object    accepted, tagged ``arguments_encoding=object``
missing / duplicate id    a unique ``evalkit_call_T_I`` id, tagged ``synthetic_id``
empty / null name         ``empty_tool_name`` (never dropped)
a call whose ``type`` is  ``unsupported_call_type`` (name and input
given and not             kept; e.g. OpenAI ``custom`` calls, or any
``function``              other type even with a ``function`` body; a
                          call with no ``type`` is a function call)
call written as text      no call; the output is flagged                ``parse.extract_from_content``:
(C04, C11)                ``call_in_content`` (an act attempt, never    ``hermes``, ``python_tag``,
                          an abstention)                                ``bare_json``; tagged
                                                                        ``source=content``
========================  ==========================================  ==============================

A parse failure stays in the call (``ToolCall.parse_error``) so that the controller denies
it with reason ``parse_error`` and the model sees why; nothing is coerced to ``{}`` and
executed. Unknown tool names pass through to the controller (``unknown_tool``). Arguments
that failed to parse are kept raw in the trace but never sent back to a provider verbatim
(:func:`replay_arguments`, field case C19).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Collection, Iterable

from evalkit.runtime.jsonsafe import DuplicateKey, unique_keys
from evalkit.runtime.model_io import ToolCall

_DECODER = json.JSONDecoder()
_FENCE = re.compile(r"\s*```[A-Za-z0-9_+-]*[ \t]*\n?(.*?)\n?[ \t]*```\s*", re.DOTALL)
_QUOTES_ONLY = re.compile(r"[\s\"'`]*")
_HERMES = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.DOTALL)
_PYTHON_TAG = re.compile(
    r"(?:<\|python_start\|>|<\|python_tag\|>)\s*(.*?)\s*(?:<\|python_end\|>|<\|eom_id\|>|<\|eot_id\|>|$)",
    re.DOTALL,
)
_MARKERS = ("<tool_call", "<|python_start|>", "<|python_tag|>", "<function=", "[TOOL_CALLS]")
_INLINE_CODE = re.compile(r"(?<!`)`[^`\n]+`(?!`)")


def _outside_inline_code(text: str) -> str:
    """``text`` with inline code spans blanked (same length): markup explained in backticks
    is prose, not a call."""
    return _INLINE_CODE.sub(lambda m: " " * len(m.group(0)), text)


@dataclass(frozen=True, slots=True)
class ParsedArguments:
    """The result of reading one arguments value.

    Attributes:
        arguments: The arguments object, or ``None`` when reading failed.
        error: Why reading failed (``trailing_data at char 2``, ``invalid_json: …``,
            ``arguments_not_object: …``), or ``None``.
        tags: How the value was read when not verbatim (``recovered``, ``double_encoded``,
            ``arguments_encoding``).
        repaired: Whether an opt-in repair changed the strict result.
    """

    arguments: dict[str, Any] | None
    error: str | None = None
    tags: dict[str, Any] = field(default_factory=dict)
    repaired: bool = False


def _type_ok(value: Any, expected: Any) -> bool:
    names = expected if isinstance(expected, list) else [expected]
    checks = {"object": dict, "array": list}
    return any(isinstance(value, checks[n]) for n in names if n in checks)


def _wants_container(schema: Any) -> Any:
    if not isinstance(schema, dict):
        return None
    expected = schema.get("type")
    names = expected if isinstance(expected, list) else [expected]
    if "string" in names or not ({"object", "array"} & set(n for n in names if isinstance(n, str))):
        return None
    return expected


def _unwrap_nested(args: dict[str, Any], schema: Any, path: str = "$") -> tuple[dict[str, Any], list[str]]:
    """Decode property values that are JSON strings where the schema wants an array/object."""
    props = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(props, dict):
        return args, []
    out = dict(args)
    paths: list[str] = []
    for key, value in args.items():
        sub = props.get(key)
        expected = _wants_container(sub)
        if expected is not None and isinstance(value, str):
            try:
                decoded = json.loads(value)
            except ValueError:
                continue
            if _type_ok(decoded, expected):
                out[key] = decoded
                paths.append(f"{path}.{key}")
        elif isinstance(value, dict) and isinstance(sub, dict):
            out[key], inner = _unwrap_nested(value, sub, f"{path}.{key}")
            paths.extend(inner)
    return out, paths


class _NotFinite(ValueError):
    pass


def _reject_constant(name: str) -> Any:
    raise _NotFinite(f"{name} is not JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise _NotFinite(f"{text} overflows to infinity")
    return value


# strict JSON for arguments: NaN / Infinity / -Infinity and overflowing numbers are errors
_STRICT = json.JSONDecoder(parse_constant=_reject_constant, parse_float=_finite_float, object_pairs_hook=unique_keys)


def _strict_object(text: str) -> tuple[Any, str | None, int]:
    """Decode ``text`` as exactly one strict JSON value. Returns (value, error, end offset).

    ``NaN``, ``Infinity`` and numbers that overflow to infinity are ``invalid_json`` (Python's
    decoder accepts them, JSON does not); so is nesting deeper than the decoder's recursion
    limit, an integer longer than Python converts (``sys.get_int_max_str_digits``, 4,300
    digits by default), and an object that gives one key twice (``{"id": "C-9", "id": "C-1"}``:
    RFC 8259 leaves its meaning to the reader, and a call must not run on a value it may not mean)."""
    start = len(text) - len(text.lstrip())
    try:
        value, end = _STRICT.raw_decode(text, start)
    except json.JSONDecodeError as exc:
        return None, f"invalid_json: {exc.msg} at char {exc.pos}", exc.pos
    except (_NotFinite, DuplicateKey) as exc:
        return None, f"invalid_json: {exc}", start
    except RecursionError:
        return None, "invalid_json: nested too deep", start
    except ValueError:  # an integer over the conversion limit
        return None, "invalid_json: an integer too long to convert", start
    return value, None, end


def parse_arguments(raw: Any, schema: dict[str, Any] | None = None, *, repairs: Collection[str] = ()) -> ParsedArguments:
    """Read a tool call's ``arguments`` (module docstring has the table of faults).

    Args:
        raw: The ``function.arguments`` value as received: normally a JSON string; an
            object is accepted (field case C03).
        schema: The tool's JSON Schema, used only to decide whether a double-encoded value
            may be unwrapped.
        repairs: Opt-in repairs: ``trailing_quotes``, ``fence``, ``double_encoded``,
            ``empty_arguments``.

    Returns:
        The :class:`ParsedArguments`.
    """
    tags: dict[str, Any] = {}
    repaired = False
    if isinstance(raw, dict):
        args: dict[str, Any] = raw
        tags["arguments_encoding"] = "object"
    elif raw is None or isinstance(raw, str):
        text = raw or ""
        if not text.strip():
            if "empty_arguments" in repairs:
                return ParsedArguments({}, None, {"recovered": "empty"}, True)
            return ParsedArguments(None, "invalid_json: empty arguments")
        if text.lstrip().startswith("```"):
            fence = _FENCE.fullmatch(text)
            if fence is None:
                return ParsedArguments(None, "invalid_json: markdown_fence (not closed)")
            if "fence" not in repairs:
                return ParsedArguments(None, "invalid_json: markdown_fence")
            text = fence.group(1)
            tags["recovered"] = "fence"
            repaired = True
        value, error, end = _strict_object(text)
        if error is not None:
            return ParsedArguments(None, error, tags, repaired)
        rest = text[end:]
        if rest.strip():
            if "trailing_quotes" in repairs and _QUOTES_ONLY.fullmatch(rest):
                tags["recovered"] = "trailing_quotes"
                repaired = True
            else:
                return ParsedArguments(None, f"trailing_data at char {end}", tags, repaired)
        if isinstance(value, str):
            inner, inner_error, inner_end = _strict_object(value)
            if (
                "double_encoded" in repairs
                and inner_error is None
                and not value[inner_end:].strip()
                and isinstance(inner, dict)
            ):
                value = inner
                tags["double_encoded"] = True
                repaired = True
            else:
                return ParsedArguments(None, "arguments_not_object: the arguments decode to a JSON string",
                                       tags, repaired)
        if not isinstance(value, dict):
            return ParsedArguments(
                None, f"arguments_not_object: the arguments decode to a JSON {_json_type(value)}", tags, repaired
            )
        args = value
    else:
        return ParsedArguments(None, f"arguments_not_object: the arguments are a JSON {_json_type(raw)}")
    if "double_encoded" in repairs and schema is not None:
        args, paths = _unwrap_nested(args, schema)
        if paths:
            tags["double_encoded"] = True
            tags["double_encoded_paths"] = paths
            repaired = True
    return ParsedArguments(args, None, tags, repaired)


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, list):
        return "array"
    if value is None:
        return "null"
    return type(value).__name__


@dataclass(frozen=True, slots=True)
class ParsedMessage:
    """An assistant message read into the runtime's terms.

    Attributes:
        text: The text content (``None`` when empty), without extracted call blocks.
        calls: The tool calls, in order; failed ones carry ``parse_error``.
        tagged: One record per call read non-verbatim: ``{"call_id", "tool", "repaired",
            "tags", "raw_arguments"}`` (a :class:`~evalkit.runtime.events.ToolCallTagged`).
        flags: Output faults: ``call_in_content`` when a tool call was written as text and
            not extracted (field cases C04, C11).
    """

    text: str | None
    calls: tuple[ToolCall, ...] = ()
    tagged: tuple[dict[str, Any], ...] = ()
    flags: tuple[str, ...] = ()


def _raw_text(raw: Any) -> str:
    if isinstance(raw, str):
        return raw
    if raw is None:
        return ""
    return json.dumps(raw, ensure_ascii=False, sort_keys=True)


def _content_text(content: Any) -> str | None:
    if isinstance(content, list):  # content parts
        content = "".join(p.get("text") or "" for p in content  # reasoning parts are never text
                          if isinstance(p, dict) and p.get("type") not in ("thinking", "reasoning"))
    if content is None:
        return None
    text = str(content)
    return text if text.strip() else None


def _json_objects(text: str) -> Iterable[tuple[dict[str, Any], int, int]]:
    """Every JSON object that starts at a ``{`` in ``text`` (start, end offsets)."""
    index = text.find("{")
    while index >= 0:
        try:
            value, end = _DECODER.raw_decode(text, index)
        except json.JSONDecodeError:
            index = text.find("{", index + 1)
            continue
        if isinstance(value, dict):
            yield value, index, end
        index = text.find("{", end)


def _call_object(value: Any, registered: Collection[str] | None) -> tuple[str, Any] | None:
    """``(name, arguments)`` when ``value`` looks like a call: a name and arguments/parameters."""
    if not isinstance(value, dict) or not isinstance(value.get("name"), str):
        return None
    key = "arguments" if "arguments" in value else "parameters" if "parameters" in value else None
    if key is None:
        return None
    if registered is not None and value["name"] not in registered:
        return None
    return value["name"], value[key]


def find_calls_in_content(text: str | None, registered: Collection[str]) -> list[dict[str, Any]]:
    """Tool calls written into message text (field case C04).

    Args:
        text: The message content.
        registered: Names of the tools offered (a bare JSON object counts only when it
            names one of them; a prose object such as ``{"name": "Alice", "age": 30}`` never
            does).

    Returns:
        One dict per call found: ``{"format", "name", "arguments", "span"}``; ``name`` is
        ``None`` when a marked block (``<tool_call>`` …) could not be read as a call.
    """
    if not text:
        return []
    found: list[dict[str, Any]] = []
    prose = _outside_inline_code(text)
    for fmt, pattern in (("hermes", _HERMES), ("python_tag", _PYTHON_TAG)):
        for match in pattern.finditer(prose):
            body = text[match.start(1):match.end(1)]
            value, error, end = _strict_object(body)
            call = _call_object(value, None) if error is None and not body[end:].strip() else None
            found.append({"format": fmt, "name": call[0] if call else None,
                          "arguments": call[1] if call else body, "span": match.span()})
    if found:
        return found
    for value, start, end in _json_objects(text):
        candidates = value if isinstance(value, list) else [value]
        for item in candidates:
            call = _call_object(item, registered)
            if call is not None:
                found.append({"format": "bare_json", "name": call[0], "arguments": call[1], "span": (start, end)})
    return found


def has_call_markup(text: str | None) -> bool:
    """Whether ``text`` holds tool-call markup (``<tool_call>``, python tags, …)."""
    if not text:
        return False
    prose = _outside_inline_code(text)
    return any(marker in prose for marker in _MARKERS)


def parse_message(
    message: dict[str, Any],
    *,
    schemas: dict[str, dict[str, Any]],
    repairs: Collection[str] = (),
    extract: Collection[str] = (),
    id_prefix: str = "evalkit_call_",
    taken_ids: Collection[str] = (),
) -> ParsedMessage:
    """Read an OpenAI-format assistant message into text and :class:`ToolCall` objects.

    Args:
        message: ``{"content", "tool_calls", ...}`` as received (unvalidated).
        schemas: JSON Schema of each offered tool, by name.
        repairs: Opt-in argument repairs (see :func:`parse_arguments`).
        extract: Text formats to extract calls from (``hermes``, ``python_tag``,
            ``bare_json``); empty: calls in text are flagged, not extracted.
        id_prefix: Prefix of synthetic call ids (the caller makes it unique per turn).
        taken_ids: Call ids already used earlier in the episode; a repeated id is replaced.

    Returns:
        The :class:`ParsedMessage`.
    """
    text = _content_text(message.get("content"))
    raw_calls = message.get("tool_calls") or []
    if not raw_calls:
        legacy = message.get("function_call")
        if isinstance(legacy, dict) and legacy.get("name"):
            raw_calls = [{"function": legacy, "legacy_function_call": True}]
    used = set(taken_ids)
    calls: list[ToolCall] = []
    tagged: list[dict[str, Any]] = []
    flags: list[str] = []

    def add(call_id: Any, name: Any, raw_args: Any, extra_tags: dict[str, Any], error: str | None = None) -> None:
        tags = dict(extra_tags)
        cid = call_id if isinstance(call_id, str) and call_id.strip() else None
        if cid is None or cid in used:
            tags["synthetic_id"] = True
            if cid is not None:
                tags["duplicate_id"] = cid
            n = len(calls)
            cid = f"{id_prefix}{n}"
            while cid in used:
                n += 1
                cid = f"{id_prefix}{n}"
        used.add(cid)
        raw_text = _raw_text(raw_args)
        if error is not None:  # a call of a kind evalkit never runs: kept, named, denied
            calls.append(ToolCall(cid, name if isinstance(name, str) else "", None, raw_text, error))
            repaired = False
        elif not isinstance(name, str) or not name.strip():
            calls.append(ToolCall(cid, "", None, raw_text, "empty_tool_name: the call has no function name"))
            repaired = False
        else:
            parsed = parse_arguments(raw_args, schemas.get(name), repairs=repairs)
            tags.update(parsed.tags)
            repaired = parsed.repaired
            calls.append(ToolCall(cid, name, parsed.arguments, raw_text, parsed.error))
        if tags:
            tagged.append({"call_id": cid, "tool": name if isinstance(name, str) else "",
                           "repaired": repaired, "tags": tags, "raw_arguments": raw_text})

    for raw in raw_calls:
        if not isinstance(raw, dict):
            add(None, None, raw, {})
            continue
        kind = raw.get("type")
        if kind is not None and kind != "function":  # a type given and not ``function``: never run as one
            body = raw.get(kind) if isinstance(kind, str) and isinstance(raw.get(kind), dict) else raw.get("function")
            other = body if isinstance(body, dict) else {}  # ``{"type": "custom", "custom": {"name", "input"}}``
            shown = kind if isinstance(kind, str) else repr(kind)
            add(raw.get("id"), other.get("name"), other.get("input", other.get("arguments")), {"call_type": shown[:40]},
                f"unsupported_call_type: a {shown[:40]!r} tool call (evalkit offers function tools only)")
            continue
        fn = raw.get("function")
        fn = fn if isinstance(fn, dict) else {}
        tags = {"legacy_function_call": True} if raw.get("legacy_function_call") else {}
        add(raw.get("id"), fn.get("name"), fn.get("arguments"), tags)

    if not raw_calls and text is not None:
        found = find_calls_in_content(text, schemas.keys())
        taken = [f for f in found if f["format"] in extract and f["name"] is not None]
        if len(taken) < len(found):
            flags.append("call_in_content")
        if taken:
            for f in taken:
                args = f["arguments"]
                raw_args = json.dumps(args, ensure_ascii=False) if isinstance(args, dict) else args
                add(None, f["name"], raw_args, {"source": "content", "format": f["format"]})
            for start, end in sorted((f["span"] for f in taken), reverse=True):
                text = text[:start] + text[end:]
            text = text if text.strip() else None
        elif not found and has_call_markup(text):
            flags.append("call_in_content")
    return ParsedMessage(text, tuple(calls), tuple(tagged), tuple(flags))


def replay_arguments(arguments: Any) -> str:
    """The arguments string to send back for a recorded call (field cases C03, C19).

    Args:
        arguments: The call's arguments as the context builder replays them: a parsed
            object, or the raw text when parsing failed.

    Returns:
        A JSON object as a string: the arguments re-serialised, or ``"{}"`` when they are
        not exactly one JSON object, so that a provider never sees invalid arguments
        again (the raw text stays in the trace, and the call's observation tells the model
        what failed).
    """
    if isinstance(arguments, dict):
        return json.dumps(arguments, ensure_ascii=False, sort_keys=True)
    if isinstance(arguments, str):
        value, error, end = _strict_object(arguments)
        if error is None and isinstance(value, dict) and not arguments[end:].strip():
            return arguments
    return "{}"
