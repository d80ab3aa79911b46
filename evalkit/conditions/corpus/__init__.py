"""Labelled corpus of agents' final answers, shipped with evalkit (DESIGN §5, the ``nl`` condition).

Hand-written end-of-turn messages in the style tool-using frontier models write as agents
(customer service, operations, finance, HR, calendar, cloud, deploy, mail ...), each labelled
``abstain`` / ``clarify`` / ``act`` with the meta requests it implies (seed 000 §3). The labelling
rules are in ``README.md`` next to this module; they are the definition the labels follow.

Files in this folder:
    ``src/<lang>.yaml``: the sources, one list of lines per language (edited by hand).
    ``split.tsv``: the frozen tune/test assignment of every id (``id<TAB>part``).
    ``tune.jsonl`` / ``test.jsonl``: the two parts, built from the sources by
    ``python -m evalkit.conditions.corpus.build``. The test part is never used to tune a
    classifier, a prompt or a rule.
    ``src/test2/<lang>.yaml`` -> ``test2.jsonl`` and ``src/test3/<lang>.yaml`` -> ``test3.jsonl``:
    further held-out test parts, each written and committed before any classifier was run on it
    (README "Split"); never used to tune.

Each JSONL line is a :class:`CorpusLine`; readers that only need ``text``, ``label`` and
``lang`` may ignore the other fields.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from evalkit.errors import ConfigError
from evalkit.types import MetaType

CORPUS_DIR: Final[Path] = Path(__file__).parent
"""The folder of the corpus (sources, split table, parts, README)."""
SRC_DIR: Final[Path] = CORPUS_DIR / "src"
SPLIT_PATH: Final[Path] = CORPUS_DIR / "split.tsv"
TUNE_PATH: Final[Path] = CORPUS_DIR / "tune.jsonl"
TEST_PATH: Final[Path] = CORPUS_DIR / "test.jsonl"
TEST2_SRC_DIR: Final[Path] = SRC_DIR / "test2"
"""Sources of the held-out part ``test2`` (every line of it is in that part)."""
TEST2_PATH: Final[Path] = CORPUS_DIR / "test2.jsonl"
HELD_OUT: Final[tuple[str, ...]] = ("test2", "test3", "test4")
"""The held-out parts: part ``P`` is built from ``src/P/<lang>.yaml`` into ``P.jsonl``, whole (no split)."""
TUNE_ONLY_DIR: Final[Path] = SRC_DIR / "tune"
"""Sources whose every line goes to the tune part (README "Split": the test part is closed to new lines
from the eighth batch on, so every version is measured on the same test lines)."""

CorpusLabel = Literal["abstain", "clarify", "act"]
"""The three labels of a final answer (README "Labels")."""
Part = Literal["tune", "test", "test2", "test3", "test4"]

CORE_LANGS: Final[tuple[str, ...]] = ("en", "zh", "fr", "de", "es", "ja", "ko", "pt")
"""The eight languages the corpus covers in full (every kind, every label; ISO 639-1)."""
EXTRA_LANGS: Final[tuple[str, ...]] = ("it", "nl", "ru")
"""Smaller sets in further languages, to check that a reader which does not support a language says
so (``unknown``) instead of guessing."""
LANGS: Final[tuple[str, ...]] = CORE_LANGS + EXTRA_LANGS
"""Languages of the corpus (ISO 639-1)."""
MIN_PER_LANG: Final[dict[str, int]] = {"en": 250, "zh": 150, "fr": 50, "de": 50, "es": 50, "ja": 50, "ko": 50,
                                        "pt": 50}
"""Minimum number of lines per language over both parts."""

KINDS: Final[dict[str, str]] = {
    "plain": "a plain instance of its label, no special difficulty",
    "quoted_request": "a refusal (or other answer) that quotes the user's request",
    "nothing_done_report": "a structured (markdown) report saying that nothing was done",
    "plain_decline": "a plain statement that the agent declined, without 'cannot'",
    "left_unchanged": "says that something was left unchanged / stays as it is",
    "negation_elsewhere": "a completion containing a negation about something else",
    "offer_after_action": "a completion that ends with an offer ('Would you like me to ...?')",
    "hedged_completion": "a completion with hedges or caveats",
    "refusal_with_question": "a refusal and a question in the same message",
    "courtesy_closing": "a courtesy closing after a completion or a refusal",
    "transfer_offer": "a refusal with an offer to transfer to a human agent",
    "policy_no_verb": "a policy refusal without a refusal verb",
    "json_wrapped": "the message wrapped in JSON",
    "code_fenced": "the message wrapped in a markdown code fence",
    "cut_off": "a message cut off mid-sentence",
    "multi_part_clarify": "a polite clarifying question in several parts",
    "confirm_irreversible": "asks for confirmation before an irreversible action",
    "partial_completion": "part of the request done, the rest refused, failed or pending",
    "not_found_confirm": "cannot find a record, with or without asking to confirm it",
    "alternative_offer": "the request cannot be done; an alternative is offered as a question",
    "alternative_done": "the request was not done; another action was done instead (a return, a ticket)",
    "failed_attempt": "the agent tried and the action failed",
    "markdown_report": "a structured (markdown) report of completed work",
    "answer": "delivers information that was asked for",
}
"""The hard-kind tags (README "Kinds"); every line has exactly one."""


class CorpusLine(BaseModel):
    """One labelled final answer.

    Attributes:
        id: Unique id, ``<lang>-<4 or 5 digits>`` (numbers grow as lines are added).
        text: The final answer, exactly as the agent would send it (may be JSON or fenced).
        label: ``abstain`` | ``clarify`` | ``act`` under the README's rules.
        lang: ISO 639-1 language of the text (one of :data:`LANGS`).
        meta_requests: The meta requests the text implies (seed 000 §3), sorted, by the
            README's rules.
        kind: The hard-kind tag (a key of :data:`KINDS`).
        source: ``written`` (written for this corpus) or a public source's URL.
        licence: The licence of a text taken from a public source (``None`` when written).
        domain: The agent's domain (``retail``, ``airline``, ``cloud`` ...), informative.
        note: Why the label holds, for a boundary case.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=r"^[a-z]{2}-\d{4,5}$")
    text: str = Field(min_length=1)
    label: CorpusLabel
    lang: str
    meta_requests: list[MetaType]
    kind: str
    source: str = "written"
    licence: str | None = None
    domain: str | None = None
    note: str | None = None


def parse_line(raw: object, *, where: str) -> CorpusLine:
    """Validate one corpus line and the rules a schema cannot state.

    Args:
        raw: The decoded line (a mapping).
        where: The file (and line number) it came from, for the error.

    Returns:
        The validated line.

    Raises:
        ConfigError: naming ``where``, the line's id and the offending field.
    """
    ident = raw.get("id") if isinstance(raw, dict) else None
    try:
        line = CorpusLine.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(p) for p in err["loc"]) or "(line)"
        raise ConfigError(f"{where}: line {ident}: field {field}: {err['msg']}") from None
    problems = []
    if line.lang not in LANGS:
        problems.append(("lang", f"{line.lang!r} is not one of {', '.join(LANGS)}"))
    if not line.id.startswith(f"{line.lang}-"):
        problems.append(("id", f"must start with the language, {line.lang}-"))
    if line.kind not in KINDS:
        problems.append(("kind", f"{line.kind!r} is not a known kind (see README 'Kinds')"))
    if line.meta_requests != sorted(set(line.meta_requests)):
        problems.append(("meta_requests", "must be sorted and unique"))
    if line.source != "written" and not line.licence:
        problems.append(("licence", "a text from a public source needs its licence"))
    if problems:
        field, message = problems[0]
        raise ConfigError(f"{where}: line {line.id}: field {field}: {message}")
    return line


def load_part(part: Part, path: Path | None = None) -> list[CorpusLine]:
    """Load one part of the corpus.

    Args:
        part: ``tune``, ``test`` or a held-out part (:data:`HELD_OUT`).
        path: Another JSONL file in the same format (default: the shipped part).

    Returns:
        The lines, in file order.

    Raises:
        ConfigError: naming the file, the line and the field of the first bad line.
    """
    file = path or CORPUS_DIR / f"{part}.jsonl"
    if path is None and part in HELD_OUT and not file.exists():
        return []
    lines = []
    for number, text in enumerate(file.read_text(encoding="utf-8").split("\n"), 1):
        if not text.strip():
            continue
        try:
            raw = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{file}:{number}: not JSON: {exc.msg}") from None
        lines.append(parse_line(raw, where=f"{file}:{number}"))
    return lines


__all__ = [
    "CORE_LANGS", "CORPUS_DIR", "EXTRA_LANGS", "HELD_OUT", "KINDS", "LANGS", "MIN_PER_LANG", "SPLIT_PATH", "SRC_DIR", "TUNE_ONLY_DIR", "TEST2_PATH", "TEST2_SRC_DIR",
    "TEST_PATH", "TUNE_PATH",
    "CorpusLabel", "CorpusLine", "Part", "load_part", "parse_line",
]
