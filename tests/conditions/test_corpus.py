"""The shipped corpus of labelled final answers (evalkit/conditions/corpus/README.md)."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from evalkit.conditions.corpus import (
    CORE_LANGS,
    CORPUS_DIR,
    EXTRA_LANGS,
    KINDS,
    LANGS,
    MIN_PER_LANG,
    CorpusLine,
    load_part,
    parse_line,
)
from evalkit.conditions.corpus.build import assign, load_main, load_sources, main, read_split, stale_files
from evalkit.errors import ConfigError

TUNE = load_part("tune")
TEST = load_part("test")
ALL = TUNE + TEST
TEST2 = load_part("test2")


def _key(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().casefold()


def test_parts_are_built_from_the_sources() -> None:
    assert stale_files() == []
    assert sorted(line.id for line in ALL) == [line.id for line in load_sources()]
    frozen = read_split()
    present = {line.id: "tune" for line in TUNE} | {line.id: "test" for line in TEST}
    assert {i: p for i, p in frozen.items() if i in present} == present
    retired = set(frozen) - set(present)  # removed by the audit; their rows stay
    assert retired >= {"en-1668", "zh-0014"} and not retired & {x.id for x in load_sources()}


def test_ids_unique_and_no_text_in_both_parts() -> None:
    ids = [line.id for line in ALL]
    assert len(ids) == len(set(ids))
    assert not {_key(x.text) for x in TUNE} & {_key(x.text) for x in TEST}
    assert len({_key(x.text) for x in ALL}) == len(ALL)


def test_split_is_balanced_per_language_and_label() -> None:
    """The lines that went through the split (not the tune-only sources) are about half in each part."""
    tune_only = load_main()[1]
    assert tune_only and tune_only <= {x.id for x in TUNE}
    split = [x for x in TUNE if x.id not in tune_only]
    for field in ("lang", "label"):
        tune = Counter(getattr(x, field) for x in split)
        test = Counter(getattr(x, field) for x in TEST)
        for value in tune | test:
            total = tune[value] + test[value]
            assert abs(tune[value] - test[value]) <= max(2, total // 10), (field, value, tune[value], test[value])


def test_held_out_part_is_apart_and_sized() -> None:
    """README "Split": test2 shares no id or text with the main parts; English and Chinese lead."""
    assert not {x.id for x in TEST2} & {x.id for x in ALL}
    assert not {_key(x.text) for x in TEST2} & {_key(x.text) for x in ALL}
    langs = Counter(x.lang for x in TEST2)
    assert langs["en"] >= 90 and langs["zh"] >= 70 and len(TEST2) >= 240
    assert all(langs[lang] >= 10 for lang in ("fr", "de", "es", "ja", "ko", "pt"))


def test_meta_requests_follow_the_label_rules() -> None:
    for line in ALL + TEST2:
        meta = set(line.meta_requests)
        if line.label == "abstain":
            assert "declare_blocked" in meta and "request_user_decision" not in meta, line.id
        elif line.label == "clarify":
            assert "request_user_decision" in meta and not meta & {"declare_blocked", "request_tool"}, line.id
        else:
            assert meta <= {"request_independent_review", "request_model_escalation", "propose_skill"}, line.id


KIND_LABEL = {
    "alternative_done": "abstain", "alternative_offer": "abstain", "failed_attempt": "abstain",
    "nothing_done_report": "abstain", "plain_decline": "abstain", "policy_no_verb": "abstain",
    "transfer_offer": "abstain", "confirm_irreversible": "clarify", "multi_part_clarify": "clarify",
    "answer": "act", "hedged_completion": "act", "markdown_report": "act", "negation_elsewhere": "act",
    "offer_after_action": "act", "partial_completion": "act",
}


def test_kinds_that_fix_a_label_agree_with_it() -> None:
    """README "Kinds": these kinds are defined by their label; the others occur under several."""
    for line in ALL + TEST2:
        assert KIND_LABEL.get(line.kind, line.label) == line.label, (line.id, line.kind, line.label)
    for kind in set(KINDS) - set(KIND_LABEL):
        assert len({x.label for x in ALL if x.kind == kind}) >= 2, kind


def test_json_wrapped_lines_are_json_and_languages_are_known() -> None:
    for line in ALL + TEST2:
        assert line.lang in LANGS and line.kind in KINDS
        if line.kind == "json_wrapped":  # plain JSON, or JSON in a ```json fence
            body = re.sub(r"^```(?:json)?\n|\n```$", "", line.text.strip())
            assert isinstance(json.loads(body), dict), line.id
        if line.kind == "code_fenced":
            assert "```" in line.text, line.id


def test_counts_languages_labels_and_kinds() -> None:
    assert len(ALL) >= 700
    langs = Counter(x.lang for x in ALL)
    for lang, minimum in MIN_PER_LANG.items():
        assert langs[lang] >= minimum, (lang, langs[lang])
    assert min(langs["en"], langs["zh"]) > max(langs[x] for x in LANGS if x not in ("en", "zh"))  # the largest two
    for lang in LANGS:
        labels = Counter(x.label for x in ALL if x.lang == lang)
        assert min(labels[label] for label in ("abstain", "clarify", "act")) >= langs[lang] // 5, (lang, labels)
    for lang in CORE_LANGS:
        assert {x.kind for x in ALL if x.lang == lang} == set(KINDS), lang
    for lang in EXTRA_LANGS:  # in both parts, so the test part measures unsupported languages too
        assert {x.lang for x in TEST} >= {lang} and {x.lang for x in TUNE} >= {lang}


def test_bad_line_names_the_file_the_id_and_the_field(tmp_path: Path) -> None:
    good = ALL[0].model_dump()
    with pytest.raises(ConfigError, match=r"x\.jsonl:3: line en-0001: field label"):
        parse_line({**good, "id": "en-0001", "lang": "en", "label": "comply"}, where="x.jsonl:3")
    with pytest.raises(ConfigError, match="field kind"):
        parse_line({**good, "id": "en-0001", "lang": "en", "kind": "odd"}, where="x.jsonl:3")
    with pytest.raises(ConfigError, match="field meta_requests: must be sorted"):
        parse_line({**good, "id": "en-0001", "lang": "en", "label": "abstain",
                    "meta_requests": ["request_tool", "declare_blocked"]}, where="x")
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(good) + "\n{oops\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"bad\.jsonl:2: not JSON"):
        load_part("test", bad)


def test_plain_text_scalar_is_refused(tmp_path: Path) -> None:
    (tmp_path / "en.yaml").write_text(
        "- id: en-0001\n  label: act\n  meta_requests: []\n  kind: plain\n  text: Sent PR #482 today.\n",
        encoding="utf-8")
    with pytest.raises(ConfigError, match=r"en\.yaml:5: field text: write it as a block scalar"):
        load_sources(tmp_path)
    (tmp_path / "en.yaml").write_text(
        "- id: en-0001\n  label: act\n  meta_requests: []\n  kind: plain\n  text: |-\n    Sent PR #482 today.\n",
        encoding="utf-8")
    assert [x.text for x in load_sources(tmp_path)] == ["Sent PR #482 today."]


def _line(ident: str, label: str = "act", kind: str = "plain") -> CorpusLine:
    meta = {"act": [], "clarify": ["request_user_decision"], "abstain": ["declare_blocked"]}[label]
    return CorpusLine(id=ident, text=f"text {ident}", label=label, lang=ident[:2], meta_requests=meta, kind=kind)


def test_assign_keeps_given_parts_and_stratifies_new_lines() -> None:
    first = [_line(f"en-{n:04d}", label) for n, label in enumerate(["act"] * 4 + ["abstain"] * 3, 1)]
    parts = assign(first, {})
    assert Counter(parts[x.id] for x in first if x.label == "act") == {"tune": 2, "test": 2}
    assert assign(first, {}) == parts  # deterministic
    more = first + [_line(f"en-{n:04d}", "abstain") for n in range(8, 12)]
    again = assign(more, parts)
    assert {i: again[i] for i in parts} == parts
    assert Counter(again[x.id] for x in more if x.label == "abstain") == {"tune": 4, "test": 3} or \
        Counter(again[x.id] for x in more if x.label == "abstain") == {"tune": 3, "test": 4}


def test_check_mode_reports_in_sync(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--check"]) == 0
    assert capsys.readouterr().err == ""


def test_audit_outcomes_are_applied_to_the_sources() -> None:
    """audit.tsv: a kept line has its written label, a relabelled one the two auditors' label, a disputed one
    is gone; the outcome follows the majority of the three labels (README "Quality")."""
    rows = [line.split("\t") for line in (CORPUS_DIR / "audit.tsv").read_text(encoding="utf-8").splitlines()[1:]]
    by_id = {line.id: line for line in load_sources()}
    outcomes: Counter[str] = Counter()
    for ident, written, first, second, outcome in rows:
        expected = ("kept" if written in (first, second)
                    else "relabelled" if first == second != "unclear" else "disputed")
        assert outcome == expected, ident
        outcomes[outcome] += 1
        if outcome == "disputed":
            assert ident not in by_id, ident
        elif ident in by_id:  # a kept line may have been rewritten since
            assert by_id[ident].label == (written if outcome == "kept" else first), ident
    assert len({row[0] for row in rows}) == len(rows)
    assert outcomes["kept"] > 0.99 * len(rows)
    audited = {row[0] for row in rows}
    main_ids = {x.id for x in load_part("tune") + load_part("test") if x.lang in ("en", "zh")}
    assert main_ids <= audited


def test_a_removed_line_keeps_its_split_row_and_returns_to_its_part() -> None:
    from evalkit.conditions.corpus.build import SPLIT_PATH, render

    lines = [_line(f"en-{n:04d}") for n in range(1, 7)]
    parts = assign(lines, {})
    tuned = next(i for i, p in parts.items() if p == "tune")
    kept = [x for x in lines if x.id != tuned]
    split = render(kept, assign(kept, parts), frozen=parts)[SPLIT_PATH]
    assert f"{tuned}\ttune" in split.splitlines()
    frozen = dict(row.split("\t") for row in split.splitlines())
    assert assign(lines, frozen)[tuned] == "tune"  # added again: back to tune, never test


def test_a_tuning_line_cannot_move_to_a_held_out_part(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from evalkit.conditions.corpus import build

    (tmp_path / "test2").mkdir()
    (tmp_path / "test2" / "en.yaml").write_text(
        "- id: en-0001\n  label: act\n  meta_requests: []\n  kind: plain\n  text: |-\n    Sent PR #482 today.\n",
        encoding="utf-8")
    monkeypatch.setattr(build, "SRC_DIR", tmp_path)
    with pytest.raises(ConfigError, match=r"line en-0001: field id: given the tune part before"):
        build.load_held([], {"en-0001": "tune"})


def test_source_errors_name_the_file_and_the_line(tmp_path: Path) -> None:
    (tmp_path / "en.yaml").write_bytes("- id: en-0001\n  label: act\n".encode() + b"\xff\n")
    with pytest.raises(ConfigError, match=r"en\.yaml: byte \d+: not UTF-8"):
        load_sources(tmp_path)
    (tmp_path / "en.yaml").write_text(
        "- id: en-0001\n  label: act\n  label: abstain\n  meta_requests: []\n  kind: plain\n  text: |-\n    Hi.\n",
        encoding="utf-8")
    with pytest.raises(ConfigError, match=r"en\.yaml:1: line en-0001: field label: given twice"):
        load_sources(tmp_path)
    split = tmp_path / "split.tsv"
    split.write_text("en-0001\ttest\nen-0001\ttune\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"split\.tsv:2: id en-0001 given a part twice"):
        read_split(split)


def test_tune_only_lines_go_to_tune_and_leave_the_split_of_the_others_alone() -> None:
    lines = [_line(f"en-{n:04d}", label) for n, label in enumerate(["act"] * 4 + ["abstain"] * 4, 1)]
    extra = [_line(f"en-{n:04d}", "act") for n in range(20, 26)]
    plain = assign(lines, {})
    parts = assign(lines + extra, {}, frozenset(x.id for x in extra))
    assert {x.id: parts[x.id] for x in extra} == {x.id: "tune" for x in extra}
    assert {x.id: parts[x.id] for x in lines} == plain  # six more tuning lines move no other line to test
    assert Counter(parts[x.id] for x in lines) == {"tune": 4, "test": 4}


def test_a_test_line_cannot_move_to_the_tune_only_sources(tmp_path: Path) -> None:
    from evalkit.conditions.corpus.build import load_main

    source = "- id: {id}\n  lang: en\n  label: act\n  meta_requests: []\n  kind: plain\n  text: |-\n    {text}\n"
    (tmp_path / "en.yaml").write_text(source.format(id="en-0001", text="Sent PR #482 today."), encoding="utf-8")
    (tmp_path / "tune").mkdir()
    (tmp_path / "tune" / "en_more.yaml").write_text(source.format(id="en-0002", text="Merged PR #483."),
                                                   encoding="utf-8")
    lines, tune_only, where = load_main(tmp_path)
    assert [x.id for x in lines] == ["en-0001", "en-0002"] and tune_only == {"en-0002"}
    assert where["en-0002"] == tmp_path / "tune" / "en_more.yaml"
    assert assign(lines, {}, tune_only)["en-0002"] == "tune"
    with pytest.raises(ConfigError, match=r"en_more\.yaml: line en-0002: field id: given the test part before"):
        assign(lines, {"en-0002": "test"}, tune_only, where)
    (tmp_path / "tune" / "en_more.yaml").write_text(source.format(id="en-0003", text="Sent PR #482 today."),
                                                   encoding="utf-8")
    with pytest.raises(ConfigError, match=r"en_more\.yaml: line en-0003: field text: same text as en-0001"):
        load_main(tmp_path)


@pytest.mark.parametrize("entry, message", [
    ("tune/extra.yml", r"extra\.yml: not a source file: sources are YAML files named \*\.yaml"),
    ("tune/notes.txt", r"notes\.txt: not a source file"),
    ("other/y.yaml", r"other: a folder the corpus build does not read"),
    ("tune/sub/x.yaml", r"sub: a folder the corpus build does not read"),
])
def test_a_source_the_build_would_not_read_is_an_error(tmp_path: Path, entry: str, message: str) -> None:
    from evalkit.conditions.corpus.build import load_main

    (tmp_path / "en.yaml").write_text(
        "- id: en-0001\n  label: act\n  meta_requests: []\n  kind: plain\n  text: |-\n    Sent PR #482 today.\n",
        encoding="utf-8")
    (tmp_path / entry).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / entry).write_text("- id: en-0002\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=message):
        load_main(tmp_path)


def test_a_tune_only_line_without_lang_names_the_missing_field(tmp_path: Path) -> None:
    from evalkit.conditions.corpus.build import load_main

    (tmp_path / "tune").mkdir()
    (tmp_path / "tune" / "zh_more.yaml").write_text(
        "- id: zh-0001\n  label: act\n  meta_requests: []\n  kind: plain\n  text: |-\n    已退款。\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"zh_more\.yaml: line zh-0001: field lang: missing"):
        load_main(tmp_path)


def test_a_new_line_outside_the_tune_only_sources_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """README "Split": the test part is closed, so a new id in a split source is an error naming it."""
    from evalkit.conditions.corpus import build

    src = tmp_path / "src"
    src.mkdir()
    line = "- id: {id}\n  lang: en\n  label: act\n  meta_requests: []\n  kind: plain\n  text: |-\n    {text}\n"
    (src / "en.yaml").write_text(line.format(id="en-0001", text="Sent PR #482 today.")
                                 + line.format(id="en-0002", text="Merged PR #483."), encoding="utf-8")
    (tmp_path / "split.tsv").write_text("en-0001\ttest\n", encoding="utf-8")
    monkeypatch.setattr(build, "load_main", lambda: load_main(src))
    monkeypatch.setattr(build, "read_split", lambda: read_split(tmp_path / "split.tsv"))
    with pytest.raises(ConfigError, match=r"en\.yaml: line en-0002: a new line outside src/tune/: the test part takes no new lines"):
        build._built()


def test_a_held_out_line_cannot_move_to_the_tune_only_sources(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from evalkit.conditions.corpus import build

    src = tmp_path / "src"
    (src / "tune").mkdir(parents=True)
    (src / "tune" / "moved.yaml").write_text(
        "- id: en-0002\n  lang: en\n  label: act\n  meta_requests: []\n  kind: plain\n  text: |-\n    Merged PR #483.\n",
        encoding="utf-8")
    (tmp_path / "test4.jsonl").write_text('{"id": "en-0002", "text": "Merged PR #483.", "label": "act"}\n',
                                          encoding="utf-8")
    monkeypatch.setattr(build, "CORPUS_DIR", tmp_path)
    monkeypatch.setattr(build, "load_main", lambda: load_main(src))
    monkeypatch.setattr(build, "read_split", lambda: {})
    with pytest.raises(ConfigError, match=r"moved\.yaml: line en-0002: field id: held out in test4\.jsonl"):
        build._built()


@pytest.mark.parametrize("folder", ["tune", "test2", "sub"])
def test_a_folder_inside_a_held_out_part_is_an_error(tmp_path: Path, folder: str) -> None:
    (tmp_path / folder).mkdir()
    (tmp_path / folder / "x.yaml").write_text("[]\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=rf"{folder}: a folder the corpus build does not read \(folders of .*: none\)"):
        load_main(tmp_path, held=True)
