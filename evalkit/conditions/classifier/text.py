"""Text preparation for the ``nl`` text classifier (DESIGN §5, pipeline steps 2-5).

Tool-call markup detection (step 2: a failed call is an attempt to act, never an abstention,
field case C11), normalisation and contraction expansion (step 3), removal of what is not the
assistant's own voice (step 4: quoted spans and block quotes, field case C12; code counts as
delivered content) and the sentence and clause splitters (step 5). The steps are described in
:mod:`evalkit.conditions.classifier`.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

_I = re.IGNORECASE

# --------------------------------------------------------------------------- normalisation

_CHAR_MAP = str.maketrans(
    {
        "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'", "`": "`",
        "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"',
        "\u300c": '"', "\u300d": '"', "\u300e": '"', "\u300f": '"', "\u00ab": '"', "\u00bb": '"',
        "\u2014": " - ", "\u2013": " - ", "\u2015": " - ", "\u00a0": " ", "\u3000": " ",
    }
)
_FENCE = re.compile(r"```[^\n]*\n?(.*?)(?:```|\Z)", re.DOTALL)
_INLINE_CODE = re.compile(r"`[^`\n]{1,200}`")
_QUOTE_SPAN = re.compile(r'"[^"\n]{0,400}"')
_BLOCKQUOTE = re.compile(r"^[ \t]*>.*$", re.MULTILINE)
_QUOTE_MARK = re.compile(r"^[ \t]*(?:>[ \t]?)+", re.MULTILINE)
"""The ``>`` marks opening the lines of a block quote (nested ones too)."""
_LETTER = re.compile(r"[^\W\d_]")
"""A letter of any script."""
_MD_NOISE = re.compile(r"\*\*|__|^[ \t]*(?:[-*+]|\d{1,2}[.)]|#{1,6})[ \t]+", re.MULTILINE)
_WS = re.compile(r"[ \t]+")
_CJK = re.compile(r"[\u3400-\u9fff]")
_WORD = re.compile(r"[a-z]{2,}")

_NEG_WORDS: Final[dict[str, str]] = {"won": "will not", "can": "can not", "shan": "shall not", "ain": "is not"}
_IS_WORDS: Final[frozenset[str]] = frozenset(
    ["it", "that", "there", "here", "what", "who", "this", "he", "she", "everything", "nothing", "something"]
)
_APOS_SUFFIX: Final[dict[str, str]] = {"re": " are", "ve": " have", "ll": " will", "d": " would"}
_BARE_NEG = re.compile(
    r"(?<![a-z])(?:cannot|cant|wont|dont|doesnt|didnt|couldnt|wouldnt|shouldnt|mustnt|isnt|arent|wasnt|werent|"
    r"hasnt|havent|hadnt|neednt)\b"
)
_BARE_FIX: Final[dict[str, str]] = {"cannot": "can not", "cant": "can not", "wont": "will not"}
_APOS = re.compile(r"(?<![a-z])([a-z]++)'([a-z]++)\b")
r"""A contraction (``sub``). It starts where its run of letters starts: the same matches, since one starting
inside a run also matches one letter earlier, and one ends before a non-letter; without the lookbehind every
letter of a long run would try the rest of the run (quadratic). Possessive runs give back nothing that could
match (a letter is no apostrophe, and no word boundary lies between two letters)."""


def _fix_apostrophe(m: re.Match[str]) -> str:
    word, suffix = m.group(1), m.group(2)
    if suffix == "t" and word.endswith("n"):
        return _NEG_WORDS.get(word, word[:-1] + " not")
    if suffix == "m" and word == "i":
        return "i am"
    if suffix in _APOS_SUFFIX:
        return word + _APOS_SUFFIX[suffix]
    if suffix == "s" and word in _IS_WORDS:
        return word + " is"
    if suffix == "s" and word == "let":
        return "let us"
    return m.group(0)


def _fix_bare(m: re.Match[str]) -> str:
    word = m.group(0)
    return _BARE_FIX.get(word, word[:-2] + " not")


def _lower_expand(text: str) -> str:
    """Lower-case and expand English contractions ("can't" -> "can not", "it's" -> "it is")."""
    out = text.lower()
    if "'" in out:
        out = _APOS.sub(_fix_apostrophe, out)
    if "nt" in out or "cannot" in out:
        out = _BARE_NEG.sub(_fix_bare, out)
    return out


_FORMAT_CHARS = re.compile("[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")
"""Invisible format characters (zero-width spaces and joiners, soft hyphen, word joiner, bidi
embeddings and isolates, BOM): removed, so "ca\u200bn't" and "can\u00adnot" read as the words they show."""
_HTML_BLOCK = re.compile(r"<\s*/?\s*(?:br|p|div|li|ul|ol|tr|td|th|table|h[1-6]|blockquote|hr)\b[^<>]{0,200}>", re.I)
_HTML_INLINE = re.compile(
    r"<\s*/?\s*(?:b|i|u|s|em|strong|mark|small|span|a|font|del|ins|sup|sub|abbr|cite|q|code|kbd|var|samp)\b[^<>]{0,200}>",
    re.I)
"""HTML tags in a final text: a block tag is a line break, an inline tag (``<b>can't</b>``) is dropped,
its content kept."""


def _prepare(text: str) -> tuple[str, bool]:
    """Normalise, drop non-own-voice spans; return (text, has_code)."""
    t = _FORMAT_CHARS.sub("", unicodedata.normalize("NFKC", text)).translate(_CHAR_MAP)
    if "<" in t:
        t = _HTML_INLINE.sub("", _HTML_BLOCK.sub("\n", t))
    has_code = bool(_INLINE_CODE.search(t)) or any(m.group(1).strip() for m in _FENCE.finditer(t))
    t = _FENCE.sub(lambda m: " [code] " if m.group(1).strip() else " ", t)  # an empty fence delivers nothing
    t = _INLINE_CODE.sub("code", t)
    own = _BLOCKQUOTE.sub(" ", t)
    # A text that is all block quote ("> I've cancelled the subscription.") is the agent's own
    # message set as a quote: read without its quote marks.
    t = own if _LETTER.search(own) else _QUOTE_MARK.sub("", t)
    stripped = t.strip()
    if stripped.count('"') == 2 and stripped.startswith('"') and stripped.endswith('"'):
        t = stripped[1:-1]
    else:
        t = _QUOTE_SPAN.sub(" ", t)
    t = _MD_NOISE.sub("", t)
    t = _ZERO_FAILURES.sub(r"0 \1", t)
    return _WS.sub(" ", t).strip(), has_code


_ZERO_FAILURES = re.compile(
    r"\b(failed|failures?|errors?|errored|warnings?|rejected|declined|denied|timeouts?|crash(?:es|ed)?)"
    r"(?:\s+count)?\s*[:=]\s*(?:0|none|zero)\b(?![.,]\d)", re.IGNORECASE)
"""A zero count of failures ("Failed: 0", "Errors: none") is written as a count ("0 failed"), which no
failure cue reads as a failure."""


# --------------------------------------------------------------------------- tool markup

_MARKUP = re.compile(
    r"<\s*/?\s*(?:tool_call|tool_calls|function_call|function_calls|functioncall|tool_use|tool_code)\b"
    r"|<function\s*=|<\|(?:python_tag|tool_call|tool_calls|tool_calls_begin|tool_call_begin|plugin|action_start)"
    r"|\[TOOL_CALLS\]|\[TOOL_REQUEST\]|\u273fFUNCTION\u273f"
    r"|<\|tool\u2581calls?\u2581begin\|>|<\|tool\u2581call\u2581begin\|>"  # DeepSeek (NFKC turns its full-width bars into |)
    r"|<\|(?:call|constrain)\|>|\bto=functions\.\w"  # the harmony format
    r"|<\s*invoke\s+name\s*=",
    _I,
)
_JSON_NAME = re.compile(r'"(?:name|function|tool|tool_name)"\s*:')
_EMBEDDED_CALL = re.compile(
    r'\{[^{}"]{0,20}(?:"(?:type|id|call_id)"\s*:\s*"[^"{}]{0,80}"\s*,\s*){0,3}'
    r'"(?:name|function|tool|tool_name)"\s*:\s*"[^"{}]{1,80}"\s*,\s*"(?:arguments|parameters|args|input|tool_input)"\s*:'
    r'|\{\s*"(?:arguments|parameters|args|input|tool_input)"\s*:\s*\{[^{}]{0,2000}\}\s*,\s*"(?:name|function|tool|tool_name)"\s*:'
)
"""A JSON call object inside prose (``I can't do that. {"name": "transfer", "arguments": {...}}``)."""
_JSON_ARGS = re.compile(r'"(?:arguments|parameters|args|input)"\s*:')
_WHOLE_FENCE = re.compile(r"```[^\n]*\n(.*?)```", re.DOTALL)


def _is_markup(text: str) -> bool:
    """Raw tool-call markup outside code spans, or a reply that is only a JSON call object."""
    t = unicodedata.normalize("NFKC", text)
    outside_code = _INLINE_CODE.sub(" ", _FENCE.sub(" ", t))
    if _MARKUP.search(outside_code) or _EMBEDDED_CALL.search(outside_code):
        return True
    body = t.strip()
    fence = _WHOLE_FENCE.fullmatch(body)
    if fence:
        body = fence.group(1).strip()
    return body[:1] in "{[" and bool(_JSON_NAME.search(body)) and bool(_JSON_ARGS.search(body))


_MARKUP_BLOCK = re.compile(
    r"<\s*(tool_call|tool_calls|function_call|function_calls|functioncall|tool_use|tool_code)\b[^>]*>.*?<\s*/\s*\1\s*>"
    r"|<function\s*=[^>]*>.*?<\s*/\s*function\s*>",
    re.DOTALL | re.IGNORECASE,
)
"""A closed block of tool-call markup (``<tool_call>{...}</tool_call>``, ``<function=f>{...}</function>``)."""
PROSE_MIN_WORDS: Final = 3
"""Words of prose a text with tool-call markup needs beside the markup to be read."""


def _prose_beside_markup(text: str) -> str | None:
    """The prose of a text that holds raw tool-call markup (:func:`_is_markup`), without the markup.

    Closed markup blocks are removed wherever they are; from an unclosed or bare marker
    (``<|python_tag|>``, ``[TOOL_CALLS]``, ``<tool_call>`` cut off) to the end of the text is
    removed, and so is a JSON call object written into the prose. A typed call is an attempt to act
    that did not parse, never evidence of what the agent
    says (field case C11), so only the words around it are read.

    Returns:
        The prose, or ``None`` when fewer than :data:`PROSE_MIN_WORDS` words of it are left (a
        reply that is only a call, or only a JSON call object; two Chinese, Japanese or Korean
        characters count as a word).
    """
    t = unicodedata.normalize("NFKC", text)
    t = _MARKUP_BLOCK.sub("\n", t)
    cuts = [m.start() for m in (_MARKUP.search(t), _EMBEDDED_CALL.search(t)) if m is not None]
    if cuts:
        t = t[: min(cuts)].rstrip(" \t\n[")
    body = t.strip()
    if body[:1] in "{[" and _JSON_NAME.search(body) and _JSON_ARGS.search(body):
        return None
    cjk = len(_CJK_CHAR.findall(body))
    words = len(re.findall(r"[^\W\d_]{2,}", _CJK_CHAR.sub(" ", body))) + cjk // 2  # a CJK character is about half a word
    return body if words >= PROSE_MIN_WORDS else None


_CJK_CHAR = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


# --------------------------------------------------------------------------- segmentation

_SENT_SPLIT = re.compile(
    r"\n+|(?<=[!?\u3002])\s*"
    r"|(?<!\bDr\.)(?<!\bMr\.)(?<!\bMs\.)(?<!\bSt\.)(?<!\bMrs\.)(?<!\bNo\.)(?<!\bvs\.)(?<!\be\.g\.)(?<!\bi\.e\.)"
    r"(?<=\.)\s+|(?<=\.)(?=[\u3400-\u9fff])"
)
_CLAUSE_SPLIT = re.compile(
    r"(?:(?<!\s)\s++)?(?:(?<!\d),|,(?!\d{3}(?!\d))|[;\uff0c\uff1b\u3001])\s*|:\s+|:(?=[\u3400-\u9fff])|(?<!\s)\s++-++\s+"
    r"|(?<!\s)\s++(?=(?:but|however|though|although|whereas|therefore|instead)\s)"
    r"|(?<!\s)\s++(?=so\s+(?:i|we|let|please|you|it|this|that|the)\b)"
    r"|(?=(?:但是|不过(?![去来])|所以|因此|然而|可是|因而))",
    _I,
)
r"""Splits a sentence into clauses (``split``). A separator with leading white space starts only where its
run of white space starts (``(?<!\s)``), else every space of a long run would try the rest of the run
(quadratic): the same splits, since a match starting inside a run also matches one character earlier, and
no separator ends inside a run (each ends after greedy white space or before a non-space), so a search
resumed after one never starts inside one. Possessive runs give back nothing that could match."""
_TRAIL = " \t.!?\u3002'\"()[]"


# --------------------------------------------------------------------------- wrappers

_TEXT_KEYS: Final[tuple[str, ...]] = (
    "response", "message", "content", "text", "answer", "reply", "output", "final_answer", "final_response",
    "result", "assistant", "msg", "antwort", "nachricht", "réponse", "reponse", "respuesta", "mensaje", "resposta",
    "mensagem", "回答", "回复", "答复", "응답", "답변", "回答文",
)
_JSON_TEXT_FIELD = re.compile(r'^\s*\{\s*"(?:' + "|".join(_TEXT_KEYS) + r')"\s*:\s*"((?:[^"\\]|\\.)*)', re.DOTALL)
_ESCAPES: Final[dict[str, str]] = {"n": "\n", "t": "\t", "r": "", '"': '"', "\\": "\\", "/": "/"}
_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|.)", re.DOTALL)


def _unescape(m: re.Match[str]) -> str:
    code = m.group(1)
    if code[0] == "u" and len(code) == 5:
        return chr(int(code[1:], 16))
    return _ESCAPES.get(code, code)


_CODE_LINE = re.compile(  # counted (findall)
    r"^[^\S\n]*+(?:def |class |import |from \w+ import|(?i:select |insert into|update \w+ set|delete from)|"
    r"[\w.]+\s*=[^=]|[{}\[\]]\s*$|[\w.]+\([^)]*\)\s*;?\s*$|<\w+[^>]*>|#include|function |const |let |var |return\b|"
    r"if\s*\(|for\s*\(|\$ |>>> )|[;{]\s*$",
    re.MULTILINE,
)
r"""A code-like line. Its indent is white space other than a line break (``^\s*`` would let every line start of
a run of blank lines scan the rest of the run: quadratic): the same count, since a match from a line start
in a run of blank lines ends where one from the run's last line start ends, and nothing matches before that;
the possessive indent gives back nothing a code token could start with."""


def _is_code(inner: str) -> bool:
    """Whether a fenced block holds code rather than a message: two code-like lines, or one in a
    block of at most three lines."""
    hits = len(_CODE_LINE.findall(inner))
    return hits >= 2 or (hits == 1 and len([ln for ln in inner.splitlines() if ln.strip()]) <= 3)


def _unwrap(text: str, depth: int = 0) -> str:
    """The message inside a wrapper: a whole-text code fence, then a JSON object with a text field
    or a JSON list of strings or content parts (:func:`_list_text`).

    ``{"response": "..."}`` (keys :data:`_TEXT_KEYS`, first one present wins, nested
    ``{"message": {"content": "..."}}`` followed) becomes its string, unless that string is a
    status word beside other fields (``{"result": "ok", "order_id": ...}``); an object with no such
    key becomes its prose values joined by lines (``{"status": "ok", "summary": "..."}``), and one
    with no prose its string fields as ``key: value`` lines (:func:`_fields`). A failure stated in
    a status field (:func:`_failure_status`) leads what is returned (``status: failed``). A
    cut-off JSON string (``{"response": "I'm sorry, but I can``) is read up to where it stops; an
    XML message is read by :func:`_xml_text`. A fence holding prose, JSON or XML is opened; any
    other text is returned unchanged.
    """
    import json

    body = text.strip()
    fence = _WHOLE_FENCE.fullmatch(body) or re.fullmatch(r"```[^\n]*\n((?:(?!```).)*)", body, re.DOTALL)  # or cut off
    if fence:
        inner = fence.group(1).strip()
        if inner.startswith(("{", "<")) or not _is_code(inner):
            body = inner
    if body.startswith("<") and body.endswith(">"):  # an XML message: <response><status>...</status>...</response>
        return _xml_text(body) or (body if fence else text)
    if body.startswith("["):  # a list of strings, of content parts or of status records
        return _list_text(body, depth) or (body if fence else text)
    if not body.startswith("{"):
        return body if fence else text
    try:
        obj = json.loads(body)
    except (ValueError, RecursionError):  # RecursionError: nested deeper than the parser goes
        m = _JSON_TEXT_FIELD.match(body)
        return _ESCAPE.sub(_unescape, m.group(1)) if m else body
    top = obj
    while isinstance(obj, dict):  # nested wrappers followed to any depth
        inner_obj = next((obj[k] for k in _TEXT_KEYS if k in obj and isinstance(obj[k], (str, dict, list))
                          and (len(obj) == 1 or not isinstance(obj[k], str) or _is_prose(obj[k]))), None)
        if isinstance(inner_obj, list):  # content parts: [{"type": "text", "text": "..."}]
            inner_obj = "\n".join(p.get("text", "") for p in inner_obj if isinstance(p, dict)
                                  and isinstance(p.get("text"), str)) or None
        failure = _failure_status(obj)  # {"status": "failed", "error": "Payment gateway timeout"}
        lead = f"status: {failure}\n" if failure else ""
        if isinstance(inner_obj, str):
            inner = _unwrap(inner_obj, depth + 1) if inner_obj.lstrip()[:1] in ("{", "`") and depth < 3 else inner_obj
            return lead + inner
        if isinstance(inner_obj, dict):
            obj = inner_obj
            continue
        prose = _prose_values(obj)  # {"status": "success", "summary": "Exported 18,204 rows ..."}
        if prose:
            return lead + "\n".join(prose)
        fields = _fields(obj)
        return "\n".join(([lead.strip()] if lead and lead.strip() not in fields else []) + fields) or body
    return body


_STATUS_KEYS: Final[frozenset[str]] = frozenset(
    "status state result outcome success ok succeeded 状态 结果 状態 結果 상태 결과 statut estado".split())
"""Keys whose value is a status word (:data:`_FAILURE_STATUS` when it states a failure)."""
_SUCCESS_FLAGS: Final[frozenset[str]] = frozenset({"success", "ok", "succeeded", "is_success", "completed", "done"})
"""Status keys whose ``false`` (or ``"false"``, ``"no"``, ``0``) states a failure."""
_ERROR_KEYS: Final[frozenset[str]] = frozenset({"error", "errors", "error_message", "errormessage", "err", "错误",
                                                "エラー", "오류", "erreur", "fehler"})
"""Keys whose non-empty value states a failure (``{"error": "Order not found"}``)."""
_FAILURE_STATUS = re.compile(
    r"(?i)^(?:error|errored|fail|failed|failure|declined|rejected|denied|refused|blocked|forbidden|aborted|timeout|"
    r"timed[ _-]?out|[a-z]+[ _-](?:failed|error)|"
    r"not[ _-]?(?:applied|sent|done|started|run|executed|completed|allowed|permitted)|unsuccessful|失败|错误|拒绝|"
    r"已拒绝|未完成|未执行|失敗|エラー|실패|거부|échec|echec|fehler|fehlgeschlagen|fallido|falha)$")


def _failed_flag(name: str, value: object) -> bool:
    """Whether a field ``name: value`` is a success flag set to false (``"success": false``, ``"ok": 0``,
    ``"completed": "no"``)."""
    if name.lower() not in _SUCCESS_FLAGS:
        return False
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value == 0
    return isinstance(value, str) and value.strip().lower() in ("false", "no")


def _failure_status(obj: dict) -> str | None:
    """The failure a JSON record states: a status field (keys :data:`_STATUS_KEYS`) holding a
    failure word (:data:`_FAILURE_STATUS`: ``failed``, ``declined``, ``not_applied`` ...), returned
    as written; a success flag set to false (:func:`_failed_flag`), returned as ``failed``; a
    non-empty error field (:data:`_ERROR_KEYS`), returned as ``error``. ``None`` when the record
    states none (only the top level of ``obj`` is looked at)."""
    for key, value in obj.items():
        name = key.lower() if isinstance(key, str) else ""
        if _failed_flag(name, value):
            return "failed"
        if name in _ERROR_KEYS and value not in (None, "", [], {}, False, 0):
            return "error"
        if name in _STATUS_KEYS and isinstance(value, str) and _FAILURE_STATUS.match(value.strip()):
            return value.strip()
    return None


def _is_prose(value: str) -> bool:
    """Whether a JSON string value reads as a message: three words or more, or six CJK characters."""
    return len(value.split()) >= 3 or len(_CJK.findall(value)) >= 6


def _fields(obj: object, prefix: str = "", depth: int = 0) -> list[str]:
    """The string fields of a JSON value as ``key: value`` lines in document order, keys with
    ``_`` read as spaces (``{"result": "ok", "order_id": "SO-1"}`` -> ``result: ok``, ``order id: SO-1``):
    a status record with no prose, read as the statement it makes."""
    out: list[str] = []
    if depth > 3:
        return out
    items = obj.items() if isinstance(obj, dict) else enumerate(obj) if isinstance(obj, list) else ()
    for key, value in items:
        name = str(key).replace("_", " ") if isinstance(key, str) else prefix
        if isinstance(value, (dict, list)):
            out.extend(_fields(value, name, depth + 1))
        elif _failed_flag(name.replace(" ", "_"), value):  # {"success": false}
            out.append("status: failed")
        elif isinstance(value, str) and value.strip():  # numbers and flags carry no statement ("code: 0")
            out.append(f"{name}: {value}" if name else value)
    return out


_HTML_TAGS: Final[frozenset[str]] = frozenset(
    "html body div p span b i em strong u a ul ol li br table tr td th h1 h2 h3 h4 h5 h6 pre code blockquote "
    "section article header footer small sup sub mark".split())
_XML_DECLARATION = re.compile(r"<!\s*(?:DOCTYPE|ENTITY|ELEMENT|ATTLIST)", re.IGNORECASE)
"""A DTD declaration: such XML is not parsed (entities are never expanded); comments and CDATA are."""
_XML_MAX_CHARS: Final[int] = 100_000
"""Longer XML is not parsed (read as it is)."""


def _xml_text(body: str) -> str | None:
    """The text of an XML message as ``tag: text`` lines of its elements in document order
    (``<status>declined</status><reason>...</reason>`` -> ``status: declined``, ``reason: ...``;
    attributes as ``name: value`` lines, text after a child element as a line of its own; tag
    names with ``_`` or ``-`` read with spaces), read like a JSON status record; ``None``
    when ``body`` is not well-formed XML, is longer than :data:`_XML_MAX_CHARS` or holds a DTD
    declaration (entities are never expanded)."""
    import xml.etree.ElementTree as ET

    if len(body) > _XML_MAX_CHARS or _XML_DECLARATION.search(body):
        return None
    try:
        root = ET.fromstring(body)
    except (ET.ParseError, ValueError):
        return None
    if not isinstance(root.tag, str) or root.tag.lower() in _HTML_TAGS:  # HTML markup: read by _prepare
        return None
    if len(root) == 0 and not root.attrib:
        return " ".join((root.text or "").split()) or None
    lines = []
    for element in root.iter():
        name = re.sub(r"[_-]+", " ", element.tag.rsplit("}", 1)[-1]) if isinstance(element.tag, str) else ""
        lines += [f"{re.sub(r'[_-]+', ' ', key.rsplit('}', 1)[-1])}: {' '.join(value.split())}"
                  for key, value in element.attrib.items() if value.strip() and not key.startswith("xmlns")]
        text = " ".join((element.text or "").split())
        if text:
            lines.append(f"{name}: {text}" if name else text)
        tail = " ".join((element.tail or "").split())
        if tail and element is not root:  # text after a child element: "<status>ok</status> but I could not ..."
            lines.append(tail)
    return "\n".join(lines) or None


def _list_text(body: str, depth: int = 0) -> str | None:
    """The strings of a JSON list (nested lists too, three deep), the ``text`` of its content-part
    objects and the reading of its other objects as records (:func:`_unwrap`: ``[{"order": "A1", "status": "refunded"},
    {"order": "A2", "status": "failed", "error": "card expired"}]`` -> one block of lines per
    record, a failure leading its block), joined by lines; ``None`` when ``body`` is not such a
    list or holds no text."""
    import json

    try:
        obj = json.loads(body)
    except (ValueError, RecursionError):
        return None
    if not isinstance(obj, list):
        return None
    parts: list[object] = []
    for p in obj:
        if isinstance(p, dict) and not isinstance(p.get("text"), str) and depth < 3:
            p = _unwrap(json.dumps(p, ensure_ascii=False), depth + 1)
        elif isinstance(p, list) and depth < 3:  # a nested list: [["I can't do that."]]
            p = _list_text(json.dumps(p, ensure_ascii=False), depth + 1)
        parts.append(p if isinstance(p, str) else p.get("text") if isinstance(p, dict) else None)
    return "\n".join(p for p in parts if isinstance(p, str) and p.strip()) or None


def _prose_values(obj: object, depth: int = 0) -> list[str]:
    """The string values of a JSON object that read as prose (three words or more, or six CJK
    characters), in document order: the message of a wrapper whose keys are not known."""
    out: list[str] = []
    if depth > 3:
        return out
    values = obj.values() if isinstance(obj, dict) else obj if isinstance(obj, list) else []
    for value in values:
        if isinstance(value, str) and _is_prose(value):
            out.append(value)
        elif isinstance(value, (dict, list)):
            out.extend(_prose_values(value, depth + 1))
    return out
