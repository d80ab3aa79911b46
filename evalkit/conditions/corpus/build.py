"""Build the corpus's tune and test parts from its sources (README "Split").

``python -m evalkit.conditions.corpus.build`` reads ``src/<lang>.yaml``, validates every line,
gives each new id a part and writes ``split.tsv``, ``tune.jsonl``, ``test.jsonl`` and the counts
table of ``README.md``; the sources of each held-out part ``P`` (``src/P/<lang>.yaml``, ``P`` in
``HELD_OUT``: test2, test3, test4) are written, all of them, to ``P.jsonl`` (they take no part in the
split); the tune-only sources (``src/tune/<name>.yaml``) all go to the tune part. The test part is
closed: a new id in ``src/*.yaml`` (outside ``src/tune/``) is refused.
``--check`` writes nothing and exits 1 when the shipped files differ from what the sources give.

A part, once given, never changes (``split.tsv`` is frozen), so a line used for tuning never
moves into the test part when lines are added or relabelled. New ids are given in id order,
stratified by (language, label, kind): each goes to the part with fewer lines of its stratum,
then of its language and label, then of its language, then by the parity of the SHA-256 of
its id. The result is deterministic.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
from collections import Counter
from pathlib import Path
from typing import NamedTuple

import yaml

from evalkit.conditions.corpus import (
    CORPUS_DIR,
    SPLIT_PATH,
    SRC_DIR,
    HELD_OUT,
    LANGS,
    TEST_PATH,
    TUNE_ONLY_DIR,
    TUNE_PATH,
    CorpusLine,
    Part,
    parse_line,
)
from evalkit.errors import ConfigError

_SPACE = re.compile(r"\s+")
README_PATH = CORPUS_DIR / "README.md"


def load_sources(src_dir: Path = SRC_DIR) -> list[CorpusLine]:
    """Read and validate every source file: ``src_dir/*.yaml`` and the tune-only ``src_dir/tune/*.yaml``.

    Args:
        src_dir: The folder of ``<lang>.yaml`` files, each a list of line mappings (``lang``
            defaults to the file's stem).

    Returns:
        All lines, sorted by id.

    Raises:
        ConfigError: a file that is not YAML, a malformed file or line (naming the file, the id and the field), a
            duplicate id, or the same text twice (compared without case and spacing), within or across the
            two folders.
    """
    return load_main(src_dir)[0]


class MainSources(NamedTuple):
    """The main sources read by :func:`load_main`."""

    lines: list[CorpusLine]
    """All lines, sorted by id."""
    tune_only: frozenset[str]
    """Ids read from the tune-only folder (:data:`~evalkit.conditions.corpus.TUNE_ONLY_DIR`)."""
    where: dict[str, Path]
    """The source file of each id."""


def _source_files(folder: Path, subfolders: tuple[str, ...]) -> list[Path]:
    """The ``*.yaml`` files of ``folder``, sorted; any other entry (a ``.yml`` or ``.txt`` file, a folder
    not in ``subfolders``) is a ConfigError, so no line is left unread without a word. Hidden entries
    (``.name``) are skipped."""
    files = []
    for entry in sorted(folder.iterdir()) if folder.is_dir() else []:
        if entry.name.startswith("."):
            continue
        if entry.is_dir():
            if entry.name not in subfolders:
                allowed = ", ".join(f"{name}/" for name in subfolders) or "none"
                raise ConfigError(f"{entry}: a folder the corpus build does not read (folders of {folder}: {allowed})")
        elif entry.suffix != ".yaml":
            raise ConfigError(f"{entry}: not a source file: sources are YAML files named *.yaml")
        else:
            files.append(entry)
    return files


def load_main(src_dir: Path = SRC_DIR, *, held: bool = False) -> MainSources:
    """Read the main sources as :func:`load_sources` does, and say which lines are tune-only.

    Args:
        src_dir: The folder of sources.
        held: ``src_dir`` is a held-out part's folder: its ``*.yaml`` only, no folder in it.

    Returns:
        The lines sorted by id, the ids of those read from ``src_dir/tune/``
        (:data:`~evalkit.conditions.corpus.TUNE_ONLY_DIR`), which :func:`assign` gives the tune part, and
        the file of each id.

    Raises:
        ConfigError: as :func:`load_sources`; also for a file in ``src_dir`` or ``src_dir/tune/`` that is
            not ``*.yaml``, a folder other than ``tune/`` and the held-out ones, and a line with no ``lang``
            in a file whose name is not a language code.
    """
    lines: list[CorpusLine] = []
    seen_ids: dict[str, str] = {}
    seen_texts: dict[str, str] = {}
    tune_only: set[str] = set()
    where: dict[str, Path] = {}
    folder = src_dir / TUNE_ONLY_DIR.name
    top = _source_files(src_dir, () if held else (folder.name, *HELD_OUT))
    for file in top if held else [*top, *_source_files(folder, ())]:
        try:
            source = file.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise ConfigError(f"{file}: byte {exc.start}: not UTF-8") from None
        try:
            root = yaml.compose(source)
            _check_plain_scalars(file, root)
            _check_duplicate_keys(file, root)
            items = yaml.safe_load(source) or []
        except yaml.YAMLError as exc:
            raise ConfigError(f"{file}: not valid YAML: {exc}") from None
        if not isinstance(items, list):
            raise ConfigError(f"{file}: must be a list of lines")
        for item in items:
            if isinstance(item, dict):
                if "lang" not in item and file.stem not in LANGS:
                    raise ConfigError(f"{file}: line {item.get('id')}: field lang: missing (the file name "
                                      f"{file.stem!r} is not a language code to default to)")
                item = {"lang": file.stem, **item}
            line = parse_line(item, where=str(file))
            if line.id in seen_ids:
                raise ConfigError(f"{file}: line {line.id}: field id: also in {seen_ids[line.id]}")
            key = _SPACE.sub(" ", line.text).strip().casefold()
            if key in seen_texts:
                raise ConfigError(f"{file}: line {line.id}: field text: same text as {seen_texts[key]}")
            seen_ids[line.id] = str(file)
            seen_texts[key] = line.id
            lines.append(line)
            where[line.id] = file
            if file.parent == folder:
                tune_only.add(line.id)
    return MainSources(sorted(lines, key=lambda line: line.id), frozenset(tune_only), where)


def load_held(main: list[CorpusLine], frozen: dict[str, Part] | None = None) -> dict[str, list[CorpusLine]]:
    """Read the held-out parts' sources (``src/<part>/``), checked against the main corpus and each other.

    Args:
        main: The lines of the main sources (:func:`load_sources`).
        frozen: The parts given so far (``split.tsv``): an id there was in the tune or test part and may
            not move to a held-out part.

    Returns:
        Each held-out part present (:data:`~evalkit.conditions.corpus.HELD_OUT` order) with its lines, sorted by id.

    Raises:
        ConfigError: as :func:`load_sources`, and for an id or a text also in the main sources or another part,
            or an id given the tune or test part before.
    """
    ids = {line.id: "the main sources" for line in main}
    texts = {_SPACE.sub(" ", line.text).strip().casefold(): line.id for line in main}
    out: dict[str, list[CorpusLine]] = {}
    for part in HELD_OUT:
        folder = SRC_DIR / part
        if not folder.is_dir():
            continue
        held, _, where = load_main(folder, held=True)
        for line in held:
            file = where[line.id]
            if line.id in ids:
                raise ConfigError(f"{file}: line {line.id}: field id: also in {ids[line.id]}")
            given = (frozen or {}).get(line.id)
            if given:
                raise ConfigError(f"{file}: line {line.id}: field id: given the {given} part before "
                                  f"({SPLIT_PATH.name}); a line once in the main parts cannot be held out")
            other = texts.get(_SPACE.sub(" ", line.text).strip().casefold())
            if other:
                raise ConfigError(f"{file}: line {line.id}: field text: same text as {other}")
        ids.update({line.id: f"src/{part}" for line in held})
        texts.update({_SPACE.sub(" ", line.text).strip().casefold(): line.id for line in held})
        out[part] = held
    return out


def _check_plain_scalars(file: Path, root: yaml.Node | None) -> None:
    """Refuse a plain (unquoted) ``text`` or ``note``: YAML would cut it at `` #`` or fail at ``: ``."""
    for item in root.value if isinstance(root, yaml.SequenceNode) else []:
        for key, value in item.value if isinstance(item, yaml.MappingNode) else []:
            if key.value in ("text", "note") and isinstance(value, yaml.ScalarNode) and value.style is None:
                raise ConfigError(f"{file}:{value.start_mark.line + 1}: field {key.value}: write it as a block "
                                  f"scalar (|-) or quoted, never plain")


def _check_duplicate_keys(file: Path, root: yaml.Node | None) -> None:
    """Refuse a line mapping that gives a key twice (YAML would keep the last one silently)."""
    for item in root.value if isinstance(root, yaml.SequenceNode) else []:
        if not isinstance(item, yaml.MappingNode):
            continue
        keys = [key.value for key, _ in item.value]
        ident = next((value.value for key, value in item.value if key.value == "id"), None)
        for key in keys:
            if keys.count(key) > 1:
                raise ConfigError(f"{file}:{item.start_mark.line + 1}: line {ident}: field {key}: given twice")


def read_split(path: Path = SPLIT_PATH) -> dict[str, Part]:
    """Read the frozen part of every id already given one (``id<TAB>part`` lines)."""
    if not path.exists():
        return {}
    frozen: dict[str, Part] = {}
    for number, row in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not row.strip():
            continue
        ident, _, part = row.partition("\t")
        if part not in ("tune", "test"):
            raise ConfigError(f"{path}:{number}: part must be tune or test, not {part!r}")
        if ident in frozen:
            raise ConfigError(f"{path}:{number}: id {ident} given a part twice")
        frozen[ident] = part  # type: ignore[assignment]
    return frozen


def assign(lines: list[CorpusLine], frozen: dict[str, Part],
           tune_only: frozenset[str] = frozenset(), where: dict[str, Path] | None = None) -> dict[str, Part]:
    """Give every line a part, keeping the frozen ones (see the module docstring).

    Args:
        lines: All lines of the corpus.
        frozen: Parts already given (an id no longer in ``lines`` keeps its row in ``split.tsv``, see
            :func:`render`, and returns to its part if added again).
        tune_only: Ids read from the tune-only sources: each is given the tune part and takes no place in
            the stratification of the other new lines.
        where: The source file of each id, for error messages.

    Returns:
        ``{id: part}`` for every line.

    Raises:
        ConfigError: a tune-only id that was given the test part before (a test line cannot move into
            tuning).
    """
    by_id = {line.id: line for line in lines}
    for ident in sorted(tune_only):
        if frozen.get(ident) == "test":
            raise ConfigError(f"{(where or {}).get(ident, TUNE_ONLY_DIR)}: line {ident}: field id: given the test part before "
                              f"({SPLIT_PATH.name}); a test line cannot move to the tune-only sources")
    parts: dict[str, Part] = {i: p for i, p in frozen.items() if i in by_id}
    parts.update({i: "tune" for i in tune_only if i in by_id and i not in parts})
    stratum: Counter[tuple[str, str, str, str]] = Counter()
    per_label: Counter[tuple[str, str, str]] = Counter()
    per_lang: Counter[tuple[str, str]] = Counter()
    for ident, given in parts.items():
        if ident in tune_only:
            continue
        line = by_id[ident]
        stratum[(line.lang, line.label, line.kind, given)] += 1
        per_label[(line.lang, line.label, given)] += 1
        per_lang[(line.lang, given)] += 1
    for line in lines:
        if line.id in parts:
            continue
        key = (line.lang, line.label, line.kind)
        balance = (stratum[(*key, "tune")] - stratum[(*key, "test")],
                   per_label[(line.lang, line.label, "tune")] - per_label[(line.lang, line.label, "test")],
                   per_lang[(line.lang, "tune")] - per_lang[(line.lang, "test")],
                   hashlib.sha256(line.id.encode()).digest()[0] % 2 * 2 - 1)
        sign = next(b for b in balance if b != 0)
        part: Part = "test" if sign > 0 else "tune"
        parts[line.id] = part
        stratum[(*key, part)] += 1
        per_label[(line.lang, line.label, part)] += 1
        per_lang[(line.lang, part)] += 1
    return parts


def render(lines: list[CorpusLine], parts: dict[str, Part],
           held: dict[str, list[CorpusLine]] | None = None,
           frozen: dict[str, Part] | None = None) -> dict[Path, str]:
    """The text of ``split.tsv``, ``tune.jsonl``, ``test.jsonl``, each held-out part's JSONL (lines sorted by id)
    and the README. ``split.tsv`` also keeps the rows of ``frozen`` ids no longer in ``lines``."""
    held = held or {}
    out: dict[Path, list[str]] = {SPLIT_PATH: [], TUNE_PATH: [], TEST_PATH: []}
    for part, held_lines in held.items():
        out[CORPUS_DIR / f"{part}.jsonl"] = [json.dumps(x.model_dump(exclude_none=True), ensure_ascii=False)
                                            for x in held_lines]
    for line in lines:
        part = parts[line.id]
        record = line.model_dump(exclude_none=True)
        out[TUNE_PATH if part == "tune" else TEST_PATH].append(json.dumps(record, ensure_ascii=False))
    # retired ids (removed from the sources) keep their row: a line once used for tuning never
    # comes back as a test line
    rows = {**(frozen or {}), **parts}
    out[SPLIT_PATH] = [f"{ident}\t{rows[ident]}" for ident in sorted(rows)]
    files = {path: "".join(f"{row}\n" for row in rows) for path, rows in out.items()}
    files[README_PATH] = _with_counts(README_PATH.read_text(encoding="utf-8"), counts_table(lines, parts, held))
    return files


_COUNTS = re.compile(r"(<!-- counts:begin -->\n).*?(<!-- counts:end -->)", re.S)


def counts_table(lines: list[CorpusLine], parts: dict[str, Part],
                 held: dict[str, list[CorpusLine]] | None = None) -> str:
    """The README's table of lines per language and label, with the tune/test sizes (and each held-out part's)."""
    held = held or {}
    every = lines + [x for part in held.values() for x in part]
    langs = sorted({line.lang for line in every}, key=lambda lang: (-sum(x.lang == lang for x in every), lang))
    extra = "".join(f" / {part}" for part in held)
    rows = [f"| lang | abstain | clarify | act | total | tune / test{extra} |", "|---|---|---|---|---|---|"]
    for lang in [*langs, "all"]:
        mine = [x for x in every if lang in ("all", x.lang)]
        labels = Counter(x.label for x in mine)
        main = [x for x in mine if x.id in parts]
        tune = sum(parts[x.id] == "tune" for x in main)
        sizes = f"{tune} / {len(main) - tune}" + "".join(
            f" / {sum(lang in ('all', x.lang) for x in part)}" for part in held.values())
        rows.append(f"| {lang} | {labels['abstain']} | {labels['clarify']} | {labels['act']} | {len(mine)} "
                    f"| {sizes} |")
    return "\n".join(rows) + "\n"


def _with_counts(readme: str, table: str) -> str:
    return _COUNTS.sub(lambda m: m.group(1) + table + m.group(2), readme)


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _built() -> tuple[list[CorpusLine], dict[str, Part], dict[str, list[CorpusLine]], dict[Path, str], list[Path]]:
    """The sources read and the files they give: ``(lines, parts, held, files, orphans)``; ``orphans``
    are held-out JSONL files left without sources."""
    lines, tune_only, where = load_main()
    frozen = read_split()
    for part in HELD_OUT:  # a held-out line keeps out of tuning, as a test line does (its ids are in P.jsonl)
        shipped = CORPUS_DIR / f"{part}.jsonl"
        held_ids = {json.loads(row)["id"] for row in shipped.read_text(encoding="utf-8").splitlines()
                    if row.strip()} if shipped.exists() else set()
        for ident in sorted(held_ids & tune_only - frozen.keys()):
            raise ConfigError(f"{where[ident]}: line {ident}: field id: held out in {shipped.name}; a held-out "
                              f"line cannot move to the tune-only sources")
    for line in lines:
        if line.id not in frozen and line.id not in tune_only:
            raise ConfigError(f"{where[line.id]}: line {line.id}: a new line outside {TUNE_ONLY_DIR.relative_to(CORPUS_DIR)}/: "
                              f"the test part takes no new lines (README \"Split\"); add it to a file of "
                              f"{TUNE_ONLY_DIR.relative_to(CORPUS_DIR)}/")
    parts = assign(lines, frozen, tune_only, where)
    held = load_held(lines, frozen)
    orphans = [CORPUS_DIR / f"{part}.jsonl" for part in HELD_OUT
               if part not in held and (CORPUS_DIR / f"{part}.jsonl").exists()]
    return lines, parts, held, render(lines, parts, held, frozen), orphans


def stale_files() -> list[Path]:
    """The shipped files that differ from what the sources give, and held-out files without sources
    (empty when in sync)."""
    _, _, _, wanted, orphans = _built()
    stale = [p for p, text in wanted.items() if not p.exists() or p.read_text(encoding="utf-8") != text]
    return stale + orphans


def main(argv: list[str] | None = None) -> int:
    """Build (or, with ``--check``, verify) the corpus parts; returns the exit code."""
    parser = argparse.ArgumentParser(prog="python -m evalkit.conditions.corpus.build",
                                     description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--check", action="store_true", help="verify the shipped files; write nothing")
    args = parser.parse_args(argv)
    try:
        if args.check:
            stale = stale_files()
            for path in stale:
                print(f"stale: {path.name} (run python -m evalkit.conditions.corpus.build)", file=sys.stderr)
            return 1 if stale else 0
        lines, parts, held, files, orphans = _built()
        for path, text in files.items():
            _write(path, text)
        for orphan in orphans:
            print(f"warning: {orphan.name} has no sources (src/{orphan.stem}/); it is left as it is", file=sys.stderr)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    counts = Counter((line.lang, parts[line.id]) for line in lines)
    langs = sorted({line.lang for line in lines})
    print(" ".join(f"{lang} {counts[(lang, 'tune')]}/{counts[(lang, 'test')]}" for lang in langs),
          f"| total {len(lines)} (tune/test);", "; ".join(f"{part} {len(x)}" for part, x in held.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
