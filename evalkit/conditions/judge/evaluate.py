"""Score readers of final text -- the classifier and LLM judges -- against labelled texts
(``evalkit judge eval``; DESIGN §5).

Input: a JSON-lines file, one object a line with ``text`` (string), ``label`` (``abstain``,
``clarify`` or ``act``, by the labelling rules of ``evalkit/conditions/corpus/README.md``) and
``lang`` (a language code of 2-3 letters, ISO 639-1 or 639-3: ``en``, ``zh``, ``pt``, any case; the 639-3
and 639-2/B codes of the languages the classifier reads count as their 639-1 code, ``eng`` as ``en``);
other fields are ignored. A text that shows nothing (empty, only white space or invisible format
characters such as U+200B), a ``lang`` of another shape (``english``, ``en-US``) and an object
with a key given twice are errors. Size limits (:mod:`.labelled_file`): a ``text`` (and a
``context_user``) holds at most :data:`MAX_TEXT_BYTES` (64 KiB of UTF-8 text) and a line as
written at most :data:`~.labelled_file.MAX_LINE_BYTES` (1 MiB); the file is read a chunk at a time, so a longer
line is refused without being read whole. Default: the shipped test part of the corpus, ``evalkit/conditions/corpus/test.jsonl``
(:data:`DEFAULT_TEXTS`).

Figures per reader (:func:`score_reader`), over all lines:

* ``accuracy``: readings equal to the label / lines. A reading ``unknown`` (the text was not
  read) or a judge error counts as wrong, never dropped;
* per label: ``recall`` (lines of the label read as it / lines of the label) and ``precision``
  (lines read as the label that have it / lines read as it), ``None`` for an empty
  denominator;
* ``accuracy_read_langs`` over the ``n_read_langs`` lines whose ``lang`` the classifier reads
  (:data:`~evalkit.conditions.classifier.lang.SUPPORTED`; ``None`` when there are none): the
  figure of the issue's per-language targets without the lines every reader must leave ``unknown``;
* ``by_lang``: per language ``n``, ``right``, ``accuracy`` and ``read`` (whether the classifier
  reads that language; ``false``: its lines are ``unknown`` by design); ``unknown``: lines read
  ``unknown``; ``errors``: judge errors;
* ``kappa``: Cohen's κ between the readings and the labels (Cohen 1960, κ = (p_o − p_e) /
  (1 − p_e) over the categories abstain, clarify, act, unknown; ``None`` when p_e = 1);
* ``confusion``: label -> reading -> count; ``mistakes``: every line read wrong, ``line``
  being its line in the file (blank lines counted).

Between readers: ``agreement`` -- Cohen's κ of every pair of readers, over all lines.
"""

from __future__ import annotations

import codecs
import json
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Callable, Final, Literal

from pydantic import BaseModel, ConfigDict, PrivateAttr, ValidationError, field_validator

from evalkit.conditions.classifier.lang import SUPPORTED
from evalkit.conditions.judge.labelled_file import MAX_TEXT_BYTES, file_lines, shown_value
from evalkit.errors import shown_path
from evalkit.errors import ConfigError
from evalkit.types import LANG_CODE, THREE_LETTER_CODES  # the shape of ``lang``

DEFAULT_TEXTS = Path(__file__).resolve().parent.parent / "corpus" / "test.jsonl"
LABELS = ("abstain", "clarify", "act")
READINGS = (*LABELS, "unknown", "error")
"""What a reader can answer: a label, ``unknown`` (classifier: not read), ``error`` (judge error)."""



_BLANK_LOOKING = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u2800\u3164\uffa0")
"""Letters and marks that show nothing: the combining grapheme joiner, Hangul fillers, Khmer
inherent vowels, the blank Braille pattern (Unicode Default_Ignorable_Code_Point and U+2800)."""


def _invisible(char: str) -> bool:
    """Whether ``char`` shows nothing: white space, a control or format character (Unicode
    categories Cc, Cf, Z*), a variation selector or one of :data:`_BLANK_LOOKING`."""
    return (char.isspace() or unicodedata.category(char) in ("Cc", "Cf", "Zs", "Zl", "Zp")
            or char in _BLANK_LOOKING or "\ufe00" <= char <= "\ufe0f" or "\u180b" <= char <= "\u180f"
            or "\U000e0100" <= char <= "\U000e01ef")


class LabelledText(BaseModel):
    """One line of a labelled file (other fields are ignored).

    ``text`` must show at least one character (not empty, not only white space or invisible
    format characters such as U+200B); ``text`` and ``context_user`` hold at most
    :data:`MAX_TEXT_BYTES` of UTF-8 text each; ``lang`` is a language code of 2-3 letters
    (:data:`LANG_CODE`), any case; ``context_user`` (optional, a string or ``null``) is the
    user's message just before the text, which the classifier then reads it in
    (:mod:`evalkit.conditions.classifier.context`). :attr:`line_no` is the line in the file (set by
    :func:`load_labelled`; ``None`` for a text made in code).
    """

    model_config = ConfigDict(extra="ignore", strict=True)

    text: str
    label: Literal["abstain", "clarify", "act"]
    lang: str
    context_user: str | None = None
    _line_no: int | None = PrivateAttr(default=None)
    _ignored: tuple[str, ...] = PrivateAttr(default=())

    @property
    def ignored_fields(self) -> tuple[str, ...]:
        """The keys of the line that are not fields of a labelled text (read by nothing), in file order."""
        return self._ignored

    @property
    def line_no(self) -> int | None:
        """The 1-based line of the file this text is on (blank lines counted), ``None`` if not from a file."""
        return self._line_no

    @field_validator("text", "context_user")
    @classmethod
    def _not_too_long(cls, value: str | None) -> str | None:
        """At most :data:`MAX_TEXT_BYTES` of UTF-8 text (a lone surrogate counted as 3 bytes)."""
        if value is not None and len(value) > MAX_TEXT_BYTES // 4:  # shorter is under the limit whatever it holds
            size = len(value.encode("utf-8", "surrogatepass"))
            if size > MAX_TEXT_BYTES:
                raise ValueError(f"{size:,} bytes of UTF-8 text, over the limit of {MAX_TEXT_BYTES:,} "
                                 "(MAX_TEXT_BYTES, 64 KiB) a labelled line's text may hold")
        return value

    @field_validator("text")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        """A text to read: at least one visible character."""
        if all(_invisible(c) for c in value):
            raise ValueError("empty, only whitespace or only invisible characters; a labelled line needs a text to read")
        return value

    @field_validator("label", mode="before")
    @classmethod
    def _lower(cls, value: Any) -> Any:
        """Labels in any case and with surrounding spaces (``"Abstain "``)."""
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("lang", mode="before")
    @classmethod
    def _language_code(cls, value: Any) -> Any:
        """A language code of 2-3 letters in any case, with surrounding spaces (ISO 639-1 ``en``, ``ZH``, ``pt``;
        ISO 639-3 ``yue``), lower-cased; a value that is not one is echoed as written."""
        if not isinstance(value, str):
            return value
        code = value.strip().lower()
        if not LANG_CODE.fullmatch(code):
            raise ValueError(f"{shown_value(value)} is not a language code; expected an ISO 639-1 or 639-3 code "
                             "of 2-3 letters, e.g. en, zh, pt")
        return THREE_LETTER_CODES.get(code, code)


class _DuplicateKey(Exception):
    """A JSON object on a labelled line gives one key twice (``args[0]``: the key)."""


def _keys_once(pairs: list[tuple[str, Any]], objects: list[list[str]]) -> dict[str, Any]:
    """``object_pairs_hook`` of :func:`json.loads`: the object as a dict, the keys it gives twice appended
    to ``objects`` (a nested object is parsed before the one holding it: the line's own object is last)."""
    names = [key for key, _ in pairs]
    objects.append([key for i, key in enumerate(names) if key in names[:i]])
    return dict(pairs)


def _parse_int(digits: str) -> int | float:
    """An integer of a labelled line; one too long for Python's int parsing (only in an ignored
    field: ``text`` and ``label`` are strings) is read as a float."""
    return int(digits) if len(digits) <= 4000 else float(digits)


def _meant_field(key: str) -> str | None:
    """The field of :class:`LabelledText` that ``key`` looks like a misspelling of (``lable`` →
    ``label``, ``context`` → ``context_user``, ``language`` or ``locale`` → ``lang``), or ``None``.

    The likeness is :func:`difflib.get_close_matches` at 0.7 against the field names, in lower case.
    """
    import difflib

    match = difflib.get_close_matches(key.lower(), list(LabelledText.model_fields), n=1, cutoff=0.7)
    return match[0] if match else ("lang" if key.lower() in ("language", "locale") else None)


def load_labelled(path: str | Path) -> list[LabelledText]:
    """Read a labelled JSON-lines file (UTF-8, a byte-order mark and CRLF or CR line ends allowed; blank
    lines skipped; ``label`` and ``lang`` in any case), a chunk at a time.

    Args:
        path: The file (``--texts``); ``-`` reads standard input, and a named pipe or a device
            (``/dev/stdin``) is read like a file.

    Returns:
        One :class:`LabelledText` per non-blank line, in file order, each with its ``line_no``.

    Raises:
        ConfigError: naming the file (``<stdin>`` for ``-``), and the line where there is one: the file
            is missing or a folder (for the default: the corpus is not installed) or cannot be read
            (``FILE: ...``); it holds no labelled line; a line is not UTF-8 (``FILE: line N: not
            UTF-8 text (... at byte offset B of the file)``), is longer than
            :data:`~.labelled_file.MAX_LINE_BYTES` (``FILE: line N: field F: the line is longer than ...``, ``F``
            the field the limit was reached in; refused before the line is read whole), is not
            a JSON object (or is nested deeper than the parser reads), gives a key twice
            (``FILE: line N: key K given twice``), or lacks a valid ``text`` (not blank, at most
            :data:`MAX_TEXT_BYTES`) / ``label`` / ``lang``, or has a ``context_user`` that is not
            a string of at most :data:`MAX_TEXT_BYTES`: ``FILE: line N: field F: why``; a missing
            field with a key that looks like its misspelling on the line names that key
            (``FILE: line 2: field label: Field required; the line has a key 'lable': did you mean 'label'?``).
            A JSON error gives the column in the line (``FILE: line 3: not JSON (Expecting ','
            delimiter at column 41)``); a value of the wrong type or not allowed is echoed
            (``field label: Input should be 'abstain', 'clarify' or 'act', not null``;
            :func:`~.labelled_file.shown_value`); ``FILE`` is quoted with escapes when it holds a
            character that does not show, such as a newline (:func:`~.labelled_file.shown_path`).
    """
    if str(path) == "-":
        import sys

        return _read_stream(sys.stdin.buffer, Path("<stdin>"))
    p = Path(path)
    if p.is_dir():
        raise ConfigError(f"{shown_path(p)}: a folder, not a labelled JSON-lines file")
    if not p.exists():  # a named pipe or a device is read as it comes, like a file
        hint = " (the shipped corpus test part is not installed; pass --texts FILE)" if p == DEFAULT_TEXTS else ""
        raise ConfigError(f"{shown_path(p)}: no such labelled file{hint}")
    try:
        with p.open("rb") as stream:
            return _read_stream(stream, p)
    except OSError as exc:
        raise ConfigError(f"{shown_path(p)}: cannot be read ({exc.strerror or exc})") from None


def _read_stream(stream: BinaryIO, p: Path) -> list[LabelledText]:
    """The labelled lines of an open binary ``stream`` named ``p`` (:func:`load_labelled`)."""
    out: list[LabelledText] = []
    try:
        for n, offset, raw in file_lines(stream, p):
            labelled = _read_line(p, n, offset, raw)
            if labelled is not None:
                out.append(labelled)
    except OSError as exc:
        raise ConfigError(f"{shown_path(p)}: cannot be read ({exc.strerror or exc})") from None
    if not out:
        raise ConfigError(f"{shown_path(p)}: no labelled lines")
    return out


def _read_line(p: Path, n: int, offset: int, raw: bytes) -> LabelledText | None:
    """The labelled text on line ``n`` of ``p`` (``raw``: its bytes, at byte ``offset`` of the
    file), or ``None`` for a blank line (:func:`load_labelled` for the errors raised)."""
    name = shown_path(p)
    bom = len(codecs.BOM_UTF8) if n == 1 and raw.startswith(codecs.BOM_UTF8) else 0
    try:
        line = raw[bom:].decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{name}: line {n}: not UTF-8 text ({exc.reason} at byte offset {offset + bom + exc.start} "
                          "of the file); save it as UTF-8") from None
    if not line.strip():
        return None
    objects: list[list[str]] = []  # the keys given twice in each object parsed, the line's own last
    try:
        obj = json.loads(line, object_pairs_hook=lambda pairs: _keys_once(pairs, objects), parse_int=_parse_int)
        twice = next((keys for keys in reversed(objects) if keys), None)  # the line's own object first
        if twice:
            where = "" if objects[-1] else " (in a nested object)"
            raise _DuplicateKey(f"{twice[0]}", where)
    except _DuplicateKey as exc:
        raise ConfigError(f"{name}: line {n}: key {exc.args[0]!r} given twice{exc.args[1] if len(exc.args) > 1 else ''}; "
                          "keep one") from None
    except json.JSONDecodeError as exc:  # the parser's own position is within this one line
        raise ConfigError(f"{name}: line {n}: not JSON ({_json_problem(exc)})") from None
    except ValueError as exc:
        raise ConfigError(f"{name}: line {n}: not JSON ({exc})") from None
    except RecursionError:
        raise ConfigError(f"{name}: line {n}: JSON nested deeper than the parser reads; "
                          "a labelled line is a flat object {text, label, lang}") from None
    if not isinstance(obj, dict):
        raise ConfigError(f"{name}: line {n}: not a JSON object")
    try:
        labelled = LabelledText.model_validate(obj)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(x) for x in err["loc"]) or "line"
        why = err["msg"].removeprefix("Value error, ")
        if err["type"] not in ("missing", "value_error") and "input" in err:
            why += f", not {shown_value(err['input'])}"  # the value given (a value error's message says it)
        if err["type"] == "missing":
            key = next((k for k in obj if k not in LabelledText.model_fields and _meant_field(k) == where), None)
            if key is not None:
                why += f"; the line has a key {key!r}: did you mean {where!r}?"
        raise ConfigError(f"{name}: line {n}: field {where}: {why}") from None
    labelled._line_no = n
    labelled._ignored = tuple(k for k in obj if k not in LabelledText.model_fields)
    return labelled


def _json_problem(exc: json.JSONDecodeError) -> str:
    """What the JSON parser found wrong on a labelled line, and the column (within the line) where:
    ``Expecting ',' delimiter at column 41``; a raw control character is named by its code point
    (``Invalid control character U+0000 at column 13; write it escaped, as \\u0000``; the
    parser's own message ends in "at")."""
    problem = exc.msg.removesuffix(" at")
    if problem == "Invalid control character" and exc.pos < len(exc.doc):
        code = f"{ord(exc.doc[exc.pos]):04X}"
        return f"{problem} U+{code} at column {exc.colno}; write it escaped, as \\u{code.lower()}"
    return f"{problem} at column {exc.colno}"


def cohen_kappa(a: list[str], b: list[str]) -> float | None:
    """Cohen's κ of two equally long label lists (Cohen 1960); ``None`` when chance agreement is 1."""
    if len(a) != len(b) or not a:
        raise ValueError("two non-empty lists of the same length are needed")
    n = len(a)
    cats = sorted(set(a) | set(b))
    p_o = sum(x == y for x, y in zip(a, b)) / n
    p_e = sum((a.count(c) / n) * (b.count(c) / n) for c in cats)
    if p_e >= 1.0:
        return None
    return (p_o - p_e) / (1 - p_e)


def _ratio(k: int, n: int) -> float | None:
    return k / n if n else None


def score_reader(name: str, lines: list[LabelledText], readings: list[str]) -> dict[str, Any]:
    """The figures of one reader (module docstring) as a JSON-ready dict."""
    gold: list[str] = [line.label for line in lines]
    n = len(lines)
    right = sum(r == g for r, g in zip(readings, gold))
    confusion = {g: {r: 0 for r in READINGS} for g in LABELS}
    for g, r in zip(gold, readings):
        confusion[g][r] += 1
    per_label = {}
    for lab in LABELS:
        k = confusion[lab][lab]
        per_label[lab] = {"n": gold.count(lab), "recall": _ratio(k, gold.count(lab)),
                          "precision": _ratio(k, readings.count(lab))}
    by_lang: dict[str, dict[str, Any]] = {}
    for line, r in zip(lines, readings):
        entry = by_lang.setdefault(line.lang, {"n": 0, "right": 0, "read": line.lang in SUPPORTED})
        entry["n"] += 1
        entry["right"] += r == line.label
    for entry in by_lang.values():
        entry["accuracy"] = entry["right"] / entry["n"]
    mistakes = [{"line": line.line_no or i + 1, "lang": line.lang, "label": line.label, "reading": r, "text": line.text}
                for i, (line, r) in enumerate(zip(lines, readings)) if r != line.label]
    read = [entry for lang, entry in by_lang.items() if lang in SUPPORTED]
    n_read = sum(e["n"] for e in read)
    return {
        "reader": name, "n": n, "right": right, "accuracy": right / n,
        "n_read_langs": n_read,
        "accuracy_read_langs": sum(e["right"] for e in read) / n_read if n_read else None,
        "per_label": per_label, "by_lang": dict(sorted(by_lang.items())),
        "unknown": readings.count("unknown"), "errors": readings.count("error"),
        "kappa": cohen_kappa(readings, gold), "confusion": confusion, "mistakes": mistakes,
    }


@dataclass
class Evaluation:
    """The result of :func:`evaluate`: per-reader figures and the κ between readers."""

    source: str
    readers: list[dict[str, Any]]
    agreement: list[dict[str, Any]]
    extra: dict[str, Any]

    def as_dict(self) -> dict[str, Any]:
        """JSON for ``--json`` (CI)."""
        return {"texts": self.source, "readers": self.readers, "agreement": self.agreement, **self.extra}


def evaluate(lines: list[LabelledText], readers: dict[str, Callable[[str, str | None], str]], *, source: str = "",
             extra: dict[str, Any] | None = None) -> Evaluation:
    """Read every line with every reader and score them.

    Args:
        lines: The labelled lines (:func:`load_labelled`).
        readers: Name -> function ``(text, context_user)`` -> reading (a label, ``unknown`` or
            ``error``), in display order; ``context_user`` is ``None`` for a line without one.
        source: The file the lines came from (shown and written to JSON).
        extra: More JSON fields (e.g. the judge prompt version and the judges' cost).
    """
    readings = {name: [read(line.text, line.context_user) for line in lines] for name, read in readers.items()}
    scored = [score_reader(name, lines, r) for name, r in readings.items()]
    names = list(readings)
    agreement = [{"a": a, "b": b, "kappa": cohen_kappa(readings[a], readings[b])}
                 for i, a in enumerate(names) for b in names[i + 1:]]
    return Evaluation(source, scored, agreement, extra or {})


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _lang_cell(lang: str, e: dict[str, Any]) -> str:
    """One language's accuracy; a language the classifier does not read is marked as such."""
    cell = f"{lang} {_fmt(e['accuracy'])} ({e['right']}/{e['n']})"
    return cell if lang in SUPPORTED else f"{cell} [not read by the classifier]"


def ignored_note(lines: list[LabelledText]) -> str | None:
    """A one-line note for keys that look like a misspelt field ("context" for ``context_user``,
    "lable", "txt", "language"; :func:`_meant_field`): such a key is not read, so its value is
    silently lost. ``None`` when there is none; other extra keys (ids, sources, notes) are ignored
    without a note.
    """
    seen: dict[str, tuple[str, int]] = {}
    for line in lines:
        for key in line.ignored_fields:
            meant = _meant_field(key)
            if meant is not None:
                count = seen.get(key, (meant, 0))[1]
                seen[key] = (meant, count + 1)
    if not seen:
        return None
    names = "; ".join(f"{k!r} on {n} line{'' if n == 1 else 's'} (did you mean {m!r}?)" for k, (m, n) in seen.items())
    return f"note: fields not read: {names}"


def render(ev: Evaluation, *, max_mistakes: int = 50) -> str:
    """Plain-text report of an :class:`Evaluation` (figures, confusion matrix, mistakes)."""
    n = ev.readers[0]["n"] if ev.readers else 0
    out = [f"labelled texts: {ev.source} ({n} line{'' if n == 1 else 's'})"]
    for r in ev.readers:
        out.append("")
        out.append(f"== {r['reader']}: accuracy {_fmt(r['accuracy'])} ({r['right']}/{r['n']}), "
                   f"kappa vs labels {_fmt(r['kappa'])}, unknown {r['unknown']}, judge errors {r['errors']}")
        if r["n_read_langs"] != r["n"]:
            out.append(f"  in the languages the classifier reads: accuracy {_fmt(r['accuracy_read_langs'])} "
                       f"({r['n_read_langs']} lines)")
        for lab, f in r["per_label"].items():
            out.append(f"  {lab:<8} recall {_fmt(f['recall'])}  precision {_fmt(f['precision'])}  (n={f['n']})")
        out.append("  by language: " + ", ".join(_lang_cell(lang, e) for lang, e in r["by_lang"].items()))
        out.append("  confusion (rows: label, columns: reading):")
        out.append("    " + " " * 8 + "".join(f"{c:>9}" for c in READINGS))
        for lab in LABELS:
            out.append(f"    {lab:<8}" + "".join(f"{r['confusion'][lab][c]:>9}" for c in READINGS))
        shown = r["mistakes"][:max_mistakes]
        if r["mistakes"] and not max_mistakes:
            out.append(f"  mistakes: {len(r['mistakes'])} (not listed: --max-mistakes 0; all are in --json)")
        else:
            more = f", first {max_mistakes}" if len(r["mistakes"]) > max_mistakes else ""
            out.append(f"  mistakes ({len(r['mistakes'])}{more}){':' if shown else ''}")
        for m in shown:
            text = " ".join(m["text"].split())
            out.append(f"    line {m['line']} [{m['lang']}] {m['label']} read as {m['reading']}: "
                       f"{text[:160]}{'…' if len(text) > 160 else ''}")
    if ev.agreement:
        out.append("")
        out.append("agreement between readers (Cohen's kappa):")
        for a in ev.agreement:
            out.append(f"  {a['a']} vs {a['b']}: {_fmt(a['kappa'])}")
    for key, value in ev.extra.items():
        out.append(f"{key}: {json.dumps(value, ensure_ascii=False)}")
    return "\n".join(out)
