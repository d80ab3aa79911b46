"""The run directory under bad input (adversarial findings 5, 8, 9, 10, 12, 14, 30): a new run
never writes into a folder of other files, replacing a run removes only evalkit's files, trace
names never collide, long ids fit the file system, write failures name their file, and plans
and scripted policies stay bounded."""

from __future__ import annotations

import errno
import json
import os

import pytest
import yaml
from pydantic import ValidationError

from evalkit.errors import ConfigError, RunError
from evalkit.harness import run as run_module
from evalkit.harness import store as store_module
from evalkit.harness.episode import episode_id
from evalkit.harness.run import RunConfig, build_plan, check_unique_keys
from evalkit.pipeline import resume_run, run
from evalkit.harness.store import RunStore, check_out_dir, write_atomic
from evalkit.models.scripted import MAX_LATE, ScriptedModel, scripted
from evalkit.report.html import report_context
from evalkit.scenarios.loader import load_suite


def config(out, mini_suite, mini_tasks, **kw):
    base = dict(suites=[str(mini_suite)], tasks_dir=str(mini_tasks), models=["scripted/oracle"],
                conditions=["tool"], out=str(out), report=False, selfcheck=False)
    return RunConfig(**{**base, **kw})


def snapshot(folder):
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


# --- where a run may go (findings 8, 14) ------------------------------------------------------

def test_a_non_empty_folder_that_is_not_a_run_is_refused_and_left_untouched(tmp_path, mini_suite, mini_tasks):
    out = tmp_path / "mine"
    (out / "traces").mkdir(parents=True)
    (out / "config.json").write_text('{"my": "settings"}')
    (out / "report.html").write_text("<p>my report</p>")
    (out / "traces" / "notes.jsonl").write_text("{}\n")
    before = snapshot(out)
    with pytest.raises(RunError, match=r"mine: not empty \(config.json, report.html, traces\) and not an evalkit "
                                       r"run directory; choose a new or empty folder for --out"):
        run(config(out, mini_suite, mini_tasks))
    assert snapshot(out) == before


def test_a_new_run_goes_into_a_missing_or_empty_folder(tmp_path):
    assert check_out_dir(tmp_path / "new" / "run") is None
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / ".DS_Store").write_text("")  # hidden entries do not count
    assert check_out_dir(tmp_path / "empty") is None


def test_out_at_a_file_or_under_a_file_is_one_line(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(RunError, match="file: is a file, not a folder"):
        check_out_dir(tmp_path / "file")
    with pytest.raises(RunError, match=r"file: is a file, so .*file/sub/run cannot be created"):
        check_out_dir(tmp_path / "file" / "sub" / "run")
    with pytest.raises(RunError, match="--out is empty"):
        check_out_dir("")
    with pytest.raises(ValidationError):
        RunConfig(out="")


def test_replacing_a_run_warns_and_removes_only_evalkit_files(tmp_path, mini_suite, mini_tasks, capsys):
    out = tmp_path / "run"
    run(config(out, mini_suite, mini_tasks, selfcheck=True))
    assert (out / "selfcheck.json").is_file()
    (out / "notes.txt").write_text("mine")
    (out / "traces" / "README").write_text("mine too")
    capsys.readouterr()
    run(config(out, mini_suite, mini_tasks, conditions=["nl"], limit=1))
    err = capsys.readouterr().err
    assert err.count("evalkit: warning: replacing the earlier run in") == 1 and str(out) in err
    assert (out / "notes.txt").read_text() == "mine" and (out / "traces" / "README").read_text() == "mine too"
    assert not (out / "selfcheck.json").exists()  # this run had no self-check: no stale exclusions
    rows = RunStore(out).read_results()
    assert [r["condition"] for r in rows] == ["nl", "nl"]
    assert len(list((out / "traces").glob("*.jsonl"))) == 2


# --- trace names (findings 9, 10) -------------------------------------------------------------

def test_episode_ids_never_collide_and_stay_short():
    a = episode_id("x:y", "act", "scripted/late:3", "meta", "off", 1)
    b = episode_id("x_y", "act", "scripted/late:3", "meta", "off", 1)
    c = episode_id("x_y", "act", "scripted_late_3", "meta", "off", 1)
    d = episode_id("X_Y", "act", "scripted_late_3", "meta", "off", 1)
    assert len({a, b, c, d}) == 4 and len({x.lower() for x in (a, b, c, d)}) == 4  # case-insensitive disks too
    assert a.startswith("x_y__act__scripted_late_3__meta__off__e1-")
    long = episode_id("p" * 300, "act_resist", "m" * 300, "condition", "off", 1000)
    assert len(long) < 180 and long == episode_id("p" * 300, "act_resist", "m" * 300, "condition", "off", 1000)
    assert episode_id("p" * 300, "act", "m", "nl", "off", 1) != episode_id("p" * 299 + "q", "act", "m", "nl", "off", 1)


def test_colliding_and_very_long_pair_ids_get_their_own_traces(tmp_path, mini_suite, mini_tasks):
    doc = yaml.safe_load(mini_suite.read_text())
    first, second, third = doc["pairs"]
    first["id"], second["id"], third["id"] = "x:y", "x_y", "z" * 300
    suite = tmp_path / "suite.yaml"
    suite.write_text(yaml.safe_dump(doc))
    out = tmp_path / "run"
    run(config(out, suite, mini_tasks, report=True, models=["scripted/oracle", "scripted/always_act"]))
    rows = RunStore(out).read_results()
    traces = sorted((out / "traces").glob("*.jsonl"))
    assert len(rows) == 12 and len(traces) == 12
    for row in rows:
        started = json.loads((out / "traces" / f"{row['episode_id']}.jsonl").read_text().splitlines()[0])
        assert (started["pair_id"], started["variant"]) == (row["pair_id"], row["variant"])
    users = {(p["id"], v): p[v]["user"] for p in doc["pairs"] for v in ("act", "abstain")}
    by_id = {r["episode_id"]: r for r in rows}
    embedded = report_context(out)["traces"]
    assert {by_id[eid]["pair_id"] for eid in embedded} >= {"x:y", "x_y"}
    for eid, trace in embedded.items():  # the report shows each row its own trace
        row = by_id[eid]
        assert trace["user"] == [users[(row["pair_id"], row["variant"])]] and trace["turns"]


def test_a_plan_whose_episodes_would_share_a_trace_file_is_refused(mini_suite, mini_tasks, monkeypatch):
    import evalkit.harness.episode as episode_module

    suite = load_suite([mini_suite], tasks_dir=mini_tasks)
    plan = build_plan(suite, config("unused", mini_suite, mini_tasks))
    alike = build_plan(suite, config("unused", mini_suite, mini_tasks, models=["scripted/oracle", "scripted:oracle"]))
    real = episode_module.episode_id
    calls = []
    clash = {plan[0].key, plan[1].key}

    def fake(*key):  # as if two keys hashed alike
        calls.append(key)
        return "same" if tuple(key) in clash else real(*key)

    monkeypatch.setattr(episode_module, "episode_id", fake)
    with pytest.raises(ConfigError, match="would share the trace file"):
        check_unique_keys(list(plan))  # a list of episodes: every id is compared
    # a RunPlan whose key parts slug apart cannot share a trace file: no id is computed at all
    calls.clear()
    check_unique_keys(plan)
    assert calls == []
    # two model specs that slug alike: then the ids are compared
    assert (alike[0].model, alike[2].model) == ("scripted/oracle", "scripted:oracle")
    clash.clear()
    clash.update({alike[0].key, alike[2].key})
    with pytest.raises(ConfigError, match="episodes mini-missing-target/act/scripted/oracle/tool/off/1 and "
                                          "mini-missing-target/act/scripted:oracle/tool/off/1 would share the trace "
                                          "file same.jsonl"):
        check_unique_keys(alike)
    assert calls[:3] == [alike[0].key, alike[1].key, alike[2].key]  # in plan order, up to the clash


# --- bounded plans and policies (findings 5, 30) ----------------------------------------------

def test_epochs_are_capped_and_a_huge_plan_is_refused_before_it_is_built(mini_suite, mini_tasks, monkeypatch):
    with pytest.raises(ValidationError, match="less than or equal to 1000"):
        RunConfig(epochs=100_000_000)
    suite = load_suite([mini_suite], tasks_dir=mini_tasks)
    monkeypatch.setattr(run_module, "MAX_PLAN", 10)
    monkeypatch.setattr(run_module, "EpisodeSpec", None)  # building a single episode would fail loudly
    with pytest.raises(ConfigError, match="the run plan would hold 12 episodes \\(at most 10\\)"):
        build_plan(suite, config("unused", mini_suite, mini_tasks, epochs=2))


@pytest.mark.parametrize("spec", ["late:1001", "late:99999999999999999999", "late:-1", "late:+3", "late:"])
def test_late_k_is_capped(spec):
    with pytest.raises(ConfigError, match=f"0 to {MAX_LATE}|0 <= K <= {MAX_LATE}"):
        scripted(spec)
    with pytest.raises(ConfigError):
        ScriptedModel("late", MAX_LATE + 1)
    assert scripted(f"late:{MAX_LATE}").k == MAX_LATE


def test_the_script_is_built_once_per_episode(tmp_path, mini_suite, mini_tasks, monkeypatch):
    built = []
    original = ScriptedModel.script

    def counting(self, episode):
        built.append(episode.key)
        return original(self, episode)

    monkeypatch.setattr(ScriptedModel, "script", counting)
    run(config(tmp_path / "run", mini_suite, mini_tasks, models=["scripted/late:3"]))
    rows = RunStore(tmp_path / "run").read_results()
    assert len(rows) == 6 and max(r["turns"] for r in rows) > 2
    assert sorted(built) == sorted((r["pair_id"], r["variant"], r["model"], r["condition"], r["gate"], r["epoch"])
                                   for r in rows)


# --- write failures name their file (finding 12) ----------------------------------------------

def test_a_failed_atomic_write_names_the_file_and_leaves_no_temp(tmp_path, monkeypatch):
    def full(src, dst):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(store_module.os, "replace", full)
    with pytest.raises(OSError) as info:
        write_atomic(tmp_path / "summary.json", "{}")
    assert info.value.filename == str(tmp_path / "summary.json") and info.value.errno == errno.ENOSPC
    assert os.listdir(tmp_path) == []


def test_a_failed_results_append_names_results_jsonl(tmp_path):
    class FullDisk:
        def write(self, text):
            raise OSError(errno.ENOSPC, "No space left on device")

    store = RunStore(tmp_path)
    store._results_fh = FullDisk()
    with pytest.raises(OSError) as info:
        store.append_result({"pair_id": "p"})
    assert info.value.filename == str(tmp_path / "results.jsonl")


def test_a_full_disk_on_the_writer_thread_stops_the_run_naming_the_file_and_keeps_what_was_written(
        tmp_path, mini_suite, mini_tasks, monkeypatch):
    real = store_module.write_atomic
    written = []

    def fill_up(path, data):
        trace = os.path.basename(os.path.dirname(str(path))) == "traces"
        if trace and len(written) == 5:
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        real(path, data)
        if trace:
            written.append(os.path.basename(str(path)))

    monkeypatch.setattr(store_module, "write_atomic", fill_up)
    out = tmp_path / "run"
    with pytest.raises(OSError) as info:
        run(config(out, mini_suite, mini_tasks))
    assert info.value.errno == errno.ENOSPC and info.value.filename.startswith(str(out / "traces"))
    rows = RunStore(out).read_results()  # the five episodes before the failure: trace, then row, each
    assert [f"{r['episode_id']}.jsonl" for r in rows] == written
    assert sorted(os.listdir(out / "traces")) == sorted(written)


def test_an_unfinished_run_is_not_replaced_and_a_busy_run_directory_is_refused(tmp_path, mini_suite, mini_tasks):
    from evalkit.errors import RunError

    out = tmp_path / "run"
    run(config(out, mini_suite, mini_tasks))
    (out / "summary.json").unlink()  # as if interrupted before the end
    rows = (out / "results.jsonl").read_text()
    with pytest.raises(RunError, match=r"holds an unfinished run .* continue it with `evalkit run --resume"):
        run(config(out, mini_suite, mini_tasks))
    assert (out / "results.jsonl").read_text() == rows  # nothing removed
    held = RunStore(out).lock()
    try:
        with pytest.raises(RunError, match="another evalkit process is running or resuming this run"):
            resume_run(out)
    finally:
        held.close()
    assert resume_run(out)["n_episodes_completed"] == len(rows.splitlines())
    run(config(out, mini_suite, mini_tasks))  # a finished run is replaced, with a warning
