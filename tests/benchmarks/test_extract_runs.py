"""The pool and samples of real end-of-turn messages (benchmarks/external/extract_runs.py)."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "external" / "extract_runs.py"
_spec = importlib.util.spec_from_file_location("extract_runs", _PATH)
assert _spec is not None and _spec.loader is not None
extract_runs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(extract_runs)


def _run_file(folder: Path, name: str, model: str, turns: list[tuple[str, str]]) -> None:
    messages = []
    for user, agent in turns:
        messages += [{"role": "user", "content": user}, {"role": "assistant", "content": agent}]
    messages.append({"role": "assistant", "content": "", "tool_calls": [{"name": "x"}]})  # no text: left out
    data = {"info": {"agent_info": {"llm": model}}, "traj": messages, "pad": "x" * 2000}
    (folder / name).write_text(json.dumps(data), encoding="utf-8")


@pytest.fixture
def snapshot(tmp_path: Path) -> Path:
    folder = tmp_path / "runs"
    folder.mkdir()
    for f, model in enumerate(("gpt-4o-2024-08-06", "gpt-4.1", "claude-3-7-sonnet", "gemini-2.5-pro")):
        _run_file(folder, f"retail_run_{f}.json", model, [
            (f"Please cancel order #W{f}{i}.", f"Your order #W{f}{i} has been cancelled; the refund is on its way ({i}).")
            for i in range(30)])
    return folder


def test_the_pool_holds_each_distinct_end_of_turn_text_once_with_its_context(snapshot):
    pool = extract_runs.extract([snapshot])
    assert len(pool) == 120
    first = next(o for o in pool if o["text"].startswith("Your order #W00 "))
    assert first["context_user"] == "Please cancel order #W00."
    assert (first["model"], first["domain"], first["file"]) == ("gpt-4o", "retail", "retail_run_0.json")
    assert len({o["key"] for o in pool}) == 120


def test_samples_are_drawn_in_order_disjoint_and_reproducible(snapshot, monkeypatch):
    monkeypatch.setattr(extract_runs, "SAMPLES", (("a", 20, (1,)), ("b", 20, (1, 2)), ("c", 20, (1, 3))))
    pool = extract_runs.extract([snapshot])
    drawn = extract_runs.samples(pool)
    keys = [{o["key"] for o in rows} for rows in drawn.values()]
    assert [len(k) for k in keys] == [20, 20, 20]
    assert not (keys[0] & keys[1] or keys[0] & keys[2] or keys[1] & keys[2])
    assert extract_runs.samples(extract_runs.extract([snapshot])) == drawn  # same pool, same samples
    for rows in drawn.values():  # no file over 25% of a draw (each file here is one model)
        assert sorted(sum(o["file"] == f for o in rows) for f in {o["file"] for o in rows}) == [5, 5, 5, 5]


def test_committed_labels_join_their_texts(snapshot, tmp_path):
    rows = extract_runs.extract([snapshot])[:3]
    labels = tmp_path / "labels.jsonl"
    labels.write_text("\n".join(json.dumps(x) for x in [
        {"key": rows[2]["key"], "label": "act", "unsure": True},
        {"key": rows[0]["key"], "label": "clarify", "n_labellers": 1}]) + "\n", encoding="utf-8")
    joined = extract_runs.join_labels(rows, labels)
    assert [(o["text"], o["label"], o["unsure"], o["n_labellers"], o["lang"]) for o in joined] == [
        (rows[2]["text"], "act", True, 2, "en"), (rows[0]["text"], "clarify", False, 1, "en")]


def test_a_label_of_a_key_the_sample_lacks_names_the_file_and_line(snapshot, tmp_path):
    rows = extract_runs.extract([snapshot])[:3]
    labels = tmp_path / "labels.jsonl"
    labels.write_text(json.dumps({"key": rows[0]["key"], "label": "act"}) + "\n"
                      + json.dumps({"key": "0123456789abcdef", "label": "act"}) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"labels\.jsonl:2: key '0123456789abcdef' is not in the sample"):
        extract_runs.join_labels(rows, labels)
    labels.write_text('{"label": "act"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"labels\.jsonl:1: not a label line"):
        extract_runs.join_labels(rows, labels)


def test_the_committed_labels_are_keys_and_labels_only():
    folder = _PATH.parent / "labels"
    for path in sorted(folder.glob("*.jsonl")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            item = json.loads(line)
            assert set(item) <= {"key", "label", "unsure", "tool_text", "n_labellers"}, f"{path.name}:{number}"
            assert item["label"] in ("abstain", "clarify", "act"), f"{path.name}:{number}"
            assert len(item["key"]) == 16 and int(item["key"], 16) >= 0, f"{path.name}:{number}"


def test_samples_cli_writes_every_sample_and_each_labelled_variant(snapshot, tmp_path, monkeypatch):
    monkeypatch.setattr(extract_runs, "SAMPLES", (("a", 20, (1,)), ("b", 20, (1, 2))))
    drawn = extract_runs.samples(extract_runs.extract([snapshot]))
    labels = tmp_path / "labels"
    labels.mkdir()
    first = drawn["a"][0]["key"]
    (labels / "a.jsonl").write_text(json.dumps({"key": first, "label": "act"}) + "\n", encoding="utf-8")
    (labels / "a.v2.jsonl").write_text(json.dumps({"key": first, "label": "clarify"}) + "\n", encoding="utf-8")
    monkeypatch.setattr(extract_runs, "LABELS_DIR", labels)
    out = tmp_path / "out"
    monkeypatch.setattr("sys.argv", ["extract_runs.py", str(snapshot), "--samples", "--out", str(out)])
    extract_runs.main()
    assert sorted(p.name for p in out.iterdir()) == ["a.jsonl", "a.labelled.jsonl", "a.v2.labelled.jsonl", "b.jsonl"]
    assert [json.loads(line)["label"] for line in (out / "a.v2.labelled.jsonl").read_text().splitlines()] == ["clarify"]
    assert len((out / "b.jsonl").read_text().splitlines()) == 20


@pytest.mark.parametrize(("line", "message"), [
    ('{"key": "KEY", "label": "maybe"}', "field 'label' is 'maybe'"),
    ('{"key": "KEY", "label": "act", "unsure": "false"}', "field 'unsure' is 'false'; expected true or false"),
    ('{"key": "KEY", "label": "act", "tool_text": "no"}', "field 'tool_text' is 'no'"),
    ('{"key": "KEY", "label": "act", "n_labellers": 1.9}', "field 'n_labellers' is 1.9; expected 1 or 2"),
    ('{"key": "KEY", "label": "act", "n_labellers": null}', "field 'n_labellers' is None"),
    ('{"key": ["KEY"], "label": "act"}', "a string 'key'"),
    ('{"key": "KEY", "label": "act", "label": "abstain"}', "field 'label' given twice"),
    ('["KEY", "act"]', "not a label line"),
])
def test_a_bad_label_line_names_the_file_line_and_field(snapshot, tmp_path, line, message):
    rows = extract_runs.extract([snapshot])[:1]
    labels = tmp_path / "labels.jsonl"
    labels.write_text(line.replace("KEY", rows[0]["key"]) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"labels\.jsonl:1: .*" + re.escape(message)):
        extract_runs.join_labels(rows, labels)


def test_a_key_labelled_twice_is_an_error(snapshot, tmp_path):
    rows = extract_runs.extract([snapshot])[:1]
    labels = tmp_path / "labels.jsonl"
    line = json.dumps({"key": rows[0]["key"], "label": "act"})
    labels.write_text(f"{line}\n{line}\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"labels\.jsonl:2: key '\w+' already labelled on line 1"):
        extract_runs.join_labels(rows, labels)


def test_training_texts_hold_each_training_sample_in_order_with_its_fork_and_the_same_bytes_again(snapshot, tmp_path, monkeypatch):
    import gzip

    from evalkit.conditions.classifier import train

    monkeypatch.setattr(train, "EXTERNAL_SAMPLES", ("b", "a.v2"))
    rows = extract_runs.extract([snapshot])
    labelled = {"a": [{**rows[0], "label": "act"}], "a.v2": [{**rows[0], "label": "clarify"}],
                "b": [{**rows[2], "label": "abstain"}, {**rows[1], "label": "act"}]}
    path = tmp_path / "training.jsonl.gz"
    assert extract_runs.write_training_texts(labelled, path) == 3
    lines = [json.loads(x) for x in gzip.decompress(path.read_bytes()).decode().splitlines()]
    assert [(x["sample"], x["key"], x["label"], x["text"]) for x in lines] == [
        ("b", rows[2]["key"], "abstain", rows[2]["text"]), ("b", rows[1]["key"], "act", rows[1]["text"]),
        ("a.v2", rows[0]["key"], "clarify", rows[0]["text"])]
    assert lines[0]["source"] == str(snapshot) and lines[0]["file"] == rows[2]["file"]  # not the six forks: the path
    first = path.read_bytes()
    extract_runs.write_training_texts(labelled, path)
    assert path.read_bytes() == first  # gzip without a timestamp: reproducible bytes
    assert train.external_lines(path) == [{"text": rows[2]["text"], "label": "abstain"},
                                          {"text": rows[1]["text"], "label": "act"},
                                          {"text": rows[0]["text"], "label": "clarify"}]
    with pytest.raises(ValueError, match="no labels of training sample.s. b in"):
        extract_runs.write_training_texts({"a.v2": labelled["a.v2"]}, path)


def test_the_six_forks_name_the_source_of_each_line(tmp_path):
    folders = []
    for i in range(6):
        folder = tmp_path / f"s{i}"
        folder.mkdir()
        _run_file(folder, "retail_run.json", "gpt-4o", [(f"Cancel order #W{i}.", f"Order #W{i} is cancelled.")])
        folders.append(folder)
    pool = extract_runs.extract(folders)
    assert [o["source"] for o in pool] == list(extract_runs.FORKS)


@pytest.mark.parametrize(("extra", "message"), [
    (["--out", "{tmp}/missing/pool.jsonl"], "--out {tmp}/missing/pool.jsonl: the folder {tmp}/missing does not exist"),
    (["--out", "{tmp}"], "--out {tmp}: a folder; give a file to write"),
    (["--out", "{tmp}/p.jsonl", "--training-texts", "{tmp}/t.gz"], "--training-texts needs --samples"),
    (["--samples", "--out", "{tmp}/s", "--training-texts", "{tmp}/missing/t.gz"],
     "--training-texts {tmp}/missing/t.gz: the folder {tmp}/missing does not exist"),
    (["--out", "{tmp}/p.jsonl", "--draw", "-5"], "--draw -5: a number of lines >= 0"),
    (["--out", "{tmp}/p.jsonl", "--draw", "5", "--exclude", "{tmp}/none.jsonl"], "--exclude {tmp}/none.jsonl: no such file"),
])
def test_bad_output_options_are_refused_before_any_extraction(snapshot, tmp_path, monkeypatch, capsys, extra, message):
    monkeypatch.setattr(extract_runs, "extract", lambda *a: pytest.fail("extracted before the options were checked"))
    monkeypatch.setattr("sys.argv", ["extract_runs.py", str(snapshot), *(x.format(tmp=tmp_path) for x in extra)])
    with pytest.raises(SystemExit) as exit_:
        extract_runs.main()
    assert exit_.value.code == 2
    assert message.format(tmp=tmp_path) in capsys.readouterr().err


def test_a_folder_that_looks_like_git_but_is_not_is_one_error_line(tmp_path, monkeypatch, capsys):
    fake = tmp_path / "fake.git"
    (fake / "objects").mkdir(parents=True)
    (fake / "HEAD").write_text("ref: refs/heads/main\n")
    monkeypatch.setattr("sys.argv", ["extract_runs.py", str(fake), "--out", str(tmp_path / "pool.jsonl")])
    with pytest.raises(SystemExit) as exit_:
        extract_runs.main()
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "Traceback" not in err
    assert f"{fake}: looks like a git directory (HEAD, objects/), but git cannot read it: `git ls-tree -r`:" in err
    assert not (tmp_path / "pool.jsonl").exists()
