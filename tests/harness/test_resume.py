"""Resumable runs: one record per episode key, half-written lines, a real SIGKILL (field case C27)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

from evalkit.errors import ConfigError
from evalkit.harness.run import RunConfig, build_plan, check_unique_keys, pending
from evalkit.pipeline import resume_run, run
from evalkit.harness.store import ResultsWarning, RunStore
from evalkit.scenarios.loader import load_suite

CASE = next(c for c in json.loads((Path(__file__).parents[1] / "fixtures" / "field_failures.json").read_text())
            if c["id"] == "C27")


def _row(sample_id, epoch, status, correct=None, ts=""):
    # C27's samples mapped onto evalkit's episode key
    return {"pair_id": sample_id, "variant": "act", "model": "m", "condition": "nl", "gate": "off", "epoch": epoch,
            "status": status, "correct": bool(correct), "ts": ts}


def test_c27_one_record_per_key_and_the_half_written_line_is_ignored(tmp_path):
    case = CASE["input"]
    lines = [json.dumps(_row(r["sample_id"], r["epoch"], r["status"], r.get("correct"), r["ts"]))
             for r in case["results_jsonl"]]
    (tmp_path / "results.jsonl").write_text("\n".join(lines) + "\n" + case["partial_last_line"])
    store = RunStore(tmp_path)
    with pytest.warns(ResultsWarning) as caught:
        latest = store.latest_results()
    messages = [str(w.message) for w in caught]
    assert any("half-written last line" in m for m in messages)
    assert any("recorded again" in m and "s2" in m for m in messages)  # the completed s2 was re-run
    assert not any("s1" in m for m in messages)  # an errored record superseded by a retry is silent
    assert sorted(k[0] for k in latest) == ["s1", "s2"]
    s1 = latest[("s1", "act", "m", "nl", "off", 1)]
    assert s1["status"] == "ok" and s1["ts"] == "2025-01-01T10:05:00Z"  # the later ok record
    with pytest.warns(ResultsWarning):
        done = store.completed_keys()
    planned = [("s1", "act", "m", "nl", "off", 1), ("s2", "act", "m", "nl", "off", 1), ("s3", "act", "m", "nl", "off", 1)]
    assert [k for k in planned if k not in done] == [planned[2]]  # 2/3 done, s3 pending; never above the plan
    store.compact(latest.values())  # one line per key, the partial line gone
    text = (tmp_path / "results.jsonl").read_text()
    assert text.endswith("\n") and len(text.splitlines()) == 2
    assert RunStore(tmp_path).read_results() == list(latest.values())


def test_duplicate_plan_keys_are_rejected_before_the_run(mini_suite, mini_tasks):
    suite = load_suite([str(mini_suite)], tasks_dir=mini_tasks)
    plan = build_plan(suite, RunConfig(tasks_dir=str(mini_tasks), models=["scripted/oracle"], conditions=["nl"]))
    check_unique_keys(plan)
    with pytest.raises(ConfigError, match="mini-missing-target/act/scripted/oracle/nl/off/1 twice"):
        check_unique_keys(plan + plan[:1])
    assert pending(plan, {plan[0].key, plan[3].key}) == [s for i, s in enumerate(plan) if i not in (0, 3)]


def test_resume_in_process_runs_only_what_is_missing_or_errored(tmp_path, mini_suite, mini_tasks):
    out = tmp_path / "run"
    config = RunConfig(suites=[str(mini_suite)], tasks_dir=str(mini_tasks), models=["scripted/oracle"],
                       conditions=["nl", "tool"], out=str(out), report=False)
    full = run(config)
    rows = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 12
    # drop two rows, turn one into an error, leave a half line: resume must give the same summary
    kept = rows[:5] + rows[7:]
    kept[0] = {**kept[0], "status": "error", "error": "provider_error", "correct": False}
    text = "".join(json.dumps(r) + "\n" for r in kept) + '{"pair_id": "mini-missing-par'
    (out / "results.jsonl").write_text(text)
    with pytest.warns(ResultsWarning, match="half-written"):
        resumed = resume_run(out)
    final = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    assert len(final) == 12 and len({(r["pair_id"], r["variant"], r["condition"]) for r in final}) == 12
    assert all(r["status"] == "ok" for r in final)
    assert resumed["rows"] == full["rows"]


def test_resume_refuses_a_changed_suite_and_a_missing_run(tmp_path, mini_suite, mini_tasks):
    with pytest.raises(ConfigError, match="nothing to resume"):
        resume_run(tmp_path / "nowhere")
    out = tmp_path / "run"
    run(RunConfig(suites=[str(mini_suite)], tasks_dir=str(mini_tasks), models=["scripted/oracle"],
                  conditions=["nl"], out=str(out), report=False, limit=1))
    manifest = json.loads((out / "config.json").read_text())
    manifest["suite"]["content_hash"] = "0" * 64
    (out / "config.json").write_text(json.dumps(manifest))
    with pytest.raises(ConfigError, match="suite changed"):
        resume_run(out)


def test_resume_refuses_an_edited_configuration(tmp_path, mini_suite, mini_tasks):
    out = tmp_path / "run"
    run(RunConfig(suites=[str(mini_suite)], tasks_dir=str(mini_tasks), models=["scripted/oracle"],
                  conditions=["nl"], out=str(out), report=False, limit=1))
    manifest = json.loads((out / "config.json").read_text())
    manifest["config"]["models"] = ["scripted/always_act"]  # the oracle's rows would silently drop out
    (out / "config.json").write_text(json.dumps(manifest))
    with pytest.raises(ConfigError, match="config.json: field config_sha256 no longer matches it: the configuration "
                                          "was edited after the run started"):
        resume_run(out)
    del manifest["config_sha256"]  # removing the fingerprint does not switch the check off
    (out / "config.json").write_text(json.dumps(manifest))
    with pytest.raises(ConfigError, match="field config_sha256 is missing"):
        resume_run(out)
    manifest["config"]["epochs"] = "many"
    (out / "config.json").write_text(json.dumps(manifest))
    with pytest.raises(ConfigError, match=r"config.json: field config.epochs: Input should be a valid integer"):
        resume_run(out)


def test_resume_refuses_a_run_whose_rule_set_policy_or_task_code_changed(tmp_path, mini_suite, mini_tasks):
    import shutil

    tasks = tmp_path / "tasks"
    shutil.copytree(mini_tasks, tasks)
    policy = tmp_path / "policy.yaml"
    policy.write_text("budgets: {tool_calls: 20}\n")
    out = tmp_path / "run"
    run(RunConfig(suites=[str(mini_suite)], tasks_dir=str(tasks), models=["scripted/oracle"], conditions=["nl"],
                  out=str(out), report=False, policy=str(policy)))
    inputs = json.loads((out / "config.json").read_text())["inputs"]
    assert inputs["policy"] and inputs["rules"] is None and any(k.startswith("tasks/") for k in inputs)
    results = out / "results.jsonl"
    results.write_text(results.read_text().splitlines(keepends=True)[0])  # one episode done
    policy.write_text("budgets: {tool_calls: 1}\n")
    with pytest.raises(ConfigError, match="policy changed since this run started"):
        resume_run(out)
    policy.write_text("budgets: {tool_calls: 20}\n")
    domain = next(tasks.glob("*/domain.py"))
    domain.write_text(domain.read_text() + "\n# edited\n")
    with pytest.raises(ConfigError, match=f"tasks/{domain.parent.name} changed since this run started"):
        resume_run(out)
    domain.write_text(domain.read_text().removesuffix("\n# edited\n"))
    assert resume_run(out)["n_episodes_completed"] == 6


def test_resume_refuses_a_run_whose_text_reader_or_condition_prompt_changed(tmp_path, mini_suite, mini_tasks,
                                                                             monkeypatch):
    import evalkit.conditions.classifier as classifier
    from evalkit.conditions.registry import get_condition

    out = tmp_path / "run"
    run(RunConfig(suites=[str(mini_suite)], tasks_dir=str(mini_tasks), models=["scripted/oracle"],
                  conditions=["nl"], out=str(out), report=False))
    results = out / "results.jsonl"
    results.write_text(results.read_text().splitlines(keepends=True)[0])  # one episode done
    version = classifier.CLASSIFIER_VERSION
    monkeypatch.setattr(classifier, "CLASSIFIER_VERSION", f"{version}-next")
    with pytest.raises(ConfigError, match=f"the final-text reader changed since this run started .version "
                                          f"'{version}' then, '{version}-next' now.; start a new run with --out"):
        resume_run(out)
    monkeypatch.undo()
    condition = get_condition("nl")
    monkeypatch.setattr(type(condition), "prompt_sha256", property(lambda self: "f" * 64), raising=False)
    with pytest.raises(ConfigError, match="condition 'nl': its system prompt changed since this run started"):
        resume_run(out)
    monkeypatch.undo()
    assert resume_run(out)["n_episodes_completed"] == 6  # unchanged: it resumes


def test_a_run_started_with_relative_paths_resumes_from_another_folder(tmp_path, mini_suite, mini_tasks,
                                                                       monkeypatch):
    start = tmp_path / "start"
    start.mkdir()
    (start / "suites").mkdir()
    suite = start / "suites" / "mini.yaml"
    suite.write_text(Path(mini_suite).read_text())
    monkeypatch.chdir(start)
    full = run(RunConfig(suites=["suites/mini.yaml"], tasks_dir=os.path.relpath(mini_tasks, start),
                         models=["scripted/oracle"], conditions=["nl"], out="run", report=False))
    manifest = json.loads((start / "run" / "config.json").read_text())
    assert manifest["config"]["suites"] == ["suites/mini.yaml"] and manifest["cwd"] == str(start)
    results = start / "run" / "results.jsonl"
    results.write_text("".join(results.read_text().splitlines(keepends=True)[:-2]))  # two episodes lost
    monkeypatch.chdir(tmp_path)
    resumed = resume_run(start / "run")
    assert resumed["n_episodes_completed"] == full["n_episodes_completed"] == 6
    assert resumed["rows"] == full["rows"]


def _evalkit(*args, **kw):
    return subprocess.Popen([sys.executable, "-m", "evalkit", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, **kw)


def _lines(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def test_sigkill_mid_run_then_resume_loses_and_duplicates_nothing(tmp_path, mini_suite, mini_tasks):
    out = tmp_path / "run"
    args = ["run", str(mini_suite), "--tasks", str(mini_tasks), "--epochs", "15", "-m", "scripted/oracle",
            "-m", "scripted/late:3", "-c", "nl", "-c", "tool", "--out", str(out), "--no-report"]
    planned = 3 * 15 * 2 * 2 * 2
    proc = _evalkit(*args)
    results = out / "results.jsonl"
    deadline = time.monotonic() + 120
    while _lines(results) < 40 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    assert proc.poll() is None, "the run finished before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    before = _lines(results)
    assert 40 <= before < planned
    assert not (out / "summary.json").exists()
    with results.open("a") as fh:  # as if the kill had hit in the middle of a write
        fh.write('{"pair_id": "mini-missing-param", "variant": "ab')

    resumed = _evalkit("run", "--resume", str(out))
    stdout, stderr = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, stderr
    assert "evalkit: warning:" in stderr and "half-written last line" in stderr
    rows = [json.loads(x) for x in results.read_text().splitlines()]
    keys = [(r["pair_id"], r["variant"], r["model"], r["condition"], r["gate"], r["epoch"]) for r in rows]
    assert len(keys) == planned and len(set(keys)) == planned  # nothing lost, nothing twice
    assert len(list((out / "traces").glob("*.jsonl"))) == planned
    summary = json.loads((out / "summary.json").read_text())
    assert (summary["n_episodes_planned"], summary["n_episodes_completed"], summary["n_missing"]) == (
        planned, planned, 0)
    # the resumed run's numbers equal those of an uninterrupted run of the same config
    fresh = run(RunConfig(suites=[str(mini_suite)], tasks_dir=str(mini_tasks), epochs=15,
                          models=["scripted/oracle", "scripted/late:3"], conditions=["nl", "tool"],
                          out=str(tmp_path / "fresh"), report=False))
    assert summary["rows"] == json.loads(json.dumps(fresh["rows"]))
    assert "resumed" in stdout


def test_finished_episodes_whose_traces_are_gone_run_again_on_resume(tmp_path, mini_suite, mini_tasks):
    import shutil

    out = tmp_path / "run"
    full = run(RunConfig(suites=[str(mini_suite)], tasks_dir=str(mini_tasks), models=["scripted/oracle"],
                         conditions=["nl"], out=str(out), report=False))
    shutil.rmtree(out / "traces")
    with pytest.warns(ResultsWarning, match="6 finished episode\\(s\\) have no whole trace file"):
        resumed = resume_run(out)
    assert resumed["rows"] == full["rows"] and len(list((out / "traces").glob("*.jsonl"))) == 6
    assert len((out / "results.jsonl").read_text().splitlines()) == 6


def test_a_resume_that_fails_before_rerunning_untraced_episodes_keeps_their_rows(tmp_path, mini_suite, mini_tasks):
    import shutil

    out = tmp_path / "run"
    run(RunConfig(suites=[str(mini_suite)], tasks_dir=str(mini_tasks), models=["scripted/oracle"], conditions=["nl"],
                  out=str(out), report=False))
    before = (out / "results.jsonl").read_text()
    shutil.rmtree(out / "traces")
    (out / "traces").write_text("")  # a file where the folder should be: the resume stops before any episode
    with pytest.warns(ResultsWarning, match="6 finished episode"), pytest.raises(OSError):
        resume_run(out)
    assert (out / "results.jsonl").read_text() == before  # the finished rows are still there
    (out / "traces").unlink()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResultsWarning)
        resumed = resume_run(out)
    assert resumed["n_episodes_completed"] == 6 and len(list((out / "traces").glob("*.jsonl"))) == 6


def test_a_trace_whose_last_event_is_longer_than_a_read_block_is_whole(tmp_path):
    from evalkit.harness.resume import whole_trace

    path = tmp_path / "t.jsonl"
    start = json.dumps({"type": "episode_started"})
    end = json.dumps({"type": "episode_ended", "final_text": "x" * 200_000})
    path.write_text(f"{start}\n{json.dumps({'type': 'model_output', 'text': 'y' * 70_000})}\n{end}\n")
    assert whole_trace(path)
    path.write_text(f"{start}\n{end}")  # no final newline
    assert whole_trace(path)
    path.write_text(end + "\n\n")  # one line: not opened by episode_started
    assert not whole_trace(path)
    path.write_text(f"{start}\n{end[:-1]}\n")  # cut
    assert not whole_trace(path)
    path.write_text("")
    assert not whole_trace(path)


def test_resume_refuses_a_deleted_input_record_and_names_a_bad_config_value(tmp_path, mini_suite, mini_tasks):
    policy = tmp_path / "policy.yaml"
    policy.write_text("budgets: {tool_calls: 20}\n")
    out = tmp_path / "run"
    run(RunConfig(suites=[str(mini_suite)], tasks_dir=str(mini_tasks), models=["scripted/oracle"], conditions=["nl"],
                  out=str(out), report=False, policy=str(policy), limit=1))
    manifest = json.loads((out / "config.json").read_text())
    edited = {**manifest, "inputs": {k: v for k, v in manifest["inputs"].items() if k != "policy"}}
    (out / "config.json").write_text(json.dumps(edited))
    with pytest.raises(ConfigError, match="policy changed since this run started"):
        resume_run(out)
    bad = {**manifest, "config": {**manifest["config"], "conditions": ["xx"]}}
    (out / "config.json").write_text(json.dumps(bad))
    with pytest.raises(ConfigError, match=r"config.json: field config: unknown condition 'xx'"):
        resume_run(out)
    (out / "config.json").write_text(json.dumps({**manifest, "cwd": 5}))
    with pytest.raises(ConfigError, match=r"config.json: field cwd: 5 is not a folder path"):
        resume_run(out)
    (out / "config.json").write_bytes(b"\xef\xbb\xbf" + json.dumps(manifest).encode())  # saved by an editor
    assert resume_run(out)["n_episodes_completed"] == 2


def test_a_manifest_without_a_plugin_record_resumes_only_without_plugin_metrics(tmp_path, mini_suite, mini_tasks):
    # with a plugin metric loaded it is refused (tests/registry/test_env_plugins.py); without, nothing is lost
    out = tmp_path / "run"
    run(RunConfig(suites=[str(mini_suite)], tasks_dir=str(mini_tasks), models=["scripted/oracle"], conditions=["nl"],
                  out=str(out), report=False, limit=1))
    manifest = json.loads((out / "config.json").read_text())
    assert manifest["plugins"] == {"env_modules": [], "entry_points": [], "metrics": []}
    (out / "config.json").write_text(json.dumps({**manifest, "plugins": {"metrics": "stop_first_rate"}}))
    with pytest.raises(ConfigError, match=r"config.json: field plugins: not the record of a run's plugins"):
        resume_run(out)
    del manifest["plugins"]  # as an evalkit that did not record plugins wrote it
    (out / "config.json").write_text(json.dumps(manifest))
    results = out / "results.jsonl"
    results.write_text(results.read_text().splitlines(keepends=True)[0])
    assert resume_run(out)["n_episodes_completed"] == 2


def _unrecorded(tmp_path, mini_suite, mini_tasks) -> Path:
    """A finished one-pair run whose config.json has no plugin record (as an older evalkit wrote it), one row cut."""
    out = tmp_path / "run"
    run(RunConfig(suites=[str(mini_suite)], tasks_dir=str(mini_tasks), models=["scripted/oracle"], conditions=["nl"],
                  out=str(out), report=False, limit=1))
    manifest = json.loads((out / "config.json").read_text())
    del manifest["plugins"]
    manifest["evalkit_version"] = "0.0.1"
    (out / "config.json").write_text(json.dumps(manifest))
    results = out / "results.jsonl"
    results.write_text(results.read_text().splitlines(keepends=True)[0])
    return out


def test_a_manifest_without_a_plugin_record_and_no_sign_of_plugins_resumes_without_a_plugin_warning(
        tmp_path, mini_suite, mini_tasks):
    out = _unrecorded(tmp_path, mini_suite, mini_tasks)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert resume_run(out)["n_episodes_completed"] == 2
    assert not [w for w in caught if "plugins" in str(w.message)], [str(w.message) for w in caught]


def test_a_manifest_without_a_plugin_record_whose_summary_has_other_metrics_resumes_with_one_warning(
        tmp_path, mini_suite, mini_tasks):
    out = _unrecorded(tmp_path, mini_suite, mini_tasks)
    summary = json.loads((out / "summary.json").read_text())
    for row in summary["rows"]:  # as a run with a plugin rate metric wrote it
        row.update(grounded_rate=0.5, grounded_rate_k=1, grounded_rate_n=2, grounded_rate_ci=[0.1, 0.9], citations=3)
    (out / "summary.json").write_text(json.dumps(summary))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert resume_run(out)["n_episodes_completed"] == 2
    about = [str(w.message) for w in caught if "plugins" in str(w.message)]
    assert about == [
        f"{out}: the run directory does not record its plugins (config.json has no field plugins: started by evalkit "
        "0.0.1), so plugin metrics cannot be checked on resume; its summary.json holds metrics that are not evalkit's "
        "own: citations, grounded_rate; if the run was started with plugin metrics, they are dropped or count only "
        "part of the episodes: start a new run to count them over all"]
    assert all(w.category is ResultsWarning for w in caught if "plugins" in str(w.message))


def test_plugins_loaded_now_are_a_sign_even_without_metrics(tmp_path):
    from evalkit.harness.resume import unrecorded_plugins_warning

    path = tmp_path / "run" / "config.json"  # no summary.json beside it: an interrupted first pass
    old = {"evalkit_version": "0.0.1"}
    none = {"env_modules": [], "entry_points": [], "metrics": []}
    assert unrecorded_plugins_warning(path, old, none) is None
    loaded = {"env_modules": ["toy_provider"], "entry_points": ["evalkit.providers:echo=echo_pkg.provider"],
              "metrics": []}
    assert unrecorded_plugins_warning(path, old, loaded) == (
        f"{tmp_path / 'run'}: the run directory does not record its plugins (config.json has no field plugins: started "
        "by evalkit 0.0.1), so plugin metrics cannot be checked on resume; plugins are loaded now "
        "(EVALKIT_PLUGINS=toy_provider; entry points evalkit.providers:echo=echo_pkg.provider); if the run was started "
        "with plugin metrics, they are dropped or count only part of the episodes: start a new run to count them over "
        "all")


def test_rows_outside_the_plan_are_named_and_kept_and_empty_traces_run_again(tmp_path, mini_suite, mini_tasks):
    out = tmp_path / "run"
    config = RunConfig(suites=[str(mini_suite)], tasks_dir=str(mini_tasks), models=["scripted/oracle"],
                       conditions=["nl"], out=str(out), report=False, limit=2)
    full = run(config)
    rows = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    stray = {**rows[0], "pair_id": "not-planned"}
    (out / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in [*rows, stray]))
    traces = sorted((out / "traces").glob("*.jsonl"))
    trace = traces[0]
    trace.write_text("")
    traces[1].write_text("garbage{\n")
    whole = traces[2].read_text()
    traces[2].write_text(whole[: len(whole) // 2])  # cut: no episode_ended
    with pytest.warns(ResultsWarning) as caught:
        resumed = resume_run(out)
    messages = [str(w.message) for w in caught]
    assert any("1 row(s) are not in this run's plan (e.g. not-planned/" in m for m in messages)
    assert any("3 finished episode(s) have no whole trace file" in m for m in messages)
    assert all(json.loads(t.read_text().splitlines()[-1])["type"] == "episode_ended" for t in traces)
    assert not any("recorded again" in m for m in messages)
    assert resumed["rows"] == full["rows"] and trace.stat().st_size > 0
    assert "not-planned" in (out / "results.jsonl").read_text()


def test_temporary_files_a_killed_run_left_are_removed_when_the_folder_is_taken_again(tmp_path, mini_suite,
                                                                                       mini_tasks):
    out = tmp_path / "run"
    config = RunConfig(suites=[str(mini_suite)], tasks_dir=str(mini_tasks), models=["scripted/oracle"],
                       conditions=["nl"], out=str(out), report=False)
    run(config)
    left = [out / ".results.parquet.4242.part0.tmp", out / ".results.parquet.4242.tmp",
            out / ".results.jsonl.abc123.tmp", out / ".summary.json.4242-1.tmp", out / "traces" / ".x.jsonl.4242-7.tmp"]
    for path in left:
        path.write_bytes(b"half")
    mine = out / ".notes.tmp"  # not a name evalkit writes: left alone
    mine.write_text("keep")
    resume_run(out)
    assert not [p for p in left if p.exists()] and mine.read_text() == "keep"


def test_an_interrupted_resume_leaves_no_summary_that_looks_current(tmp_path, mini_suite, mini_tasks, monkeypatch):
    import evalkit.harness.run as run_module
    from evalkit.errors import RunError
    from evalkit.report.html import render_report

    out = tmp_path / "run"
    run(RunConfig(suites=[str(mini_suite)], tasks_dir=str(mini_tasks), models=["scripted/oracle"], conditions=["nl"],
                  out=str(out)))
    rows = (out / "results.jsonl").read_text()

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(run_module, "execute_plan", interrupted)
    with pytest.raises(KeyboardInterrupt):
        resume_run(out)
    assert not any((out / name).exists() for name in ("summary.json", "report.html", "results.parquet"))
    assert (out / "results.jsonl").read_text() == rows
    with pytest.raises(RunError, match="the run did not finish; continue it with `evalkit run --resume"):
        render_report(out)
    monkeypatch.undo()
    assert resume_run(out)["n_episodes_completed"] == 6 and (out / "report.html").is_file()


def test_an_errored_episode_run_again_keeps_what_it_spent(tmp_path, mini_suite, mini_tasks):
    """The errored row's tokens and money stay in the totals, as failed attempts of the episode."""
    out = tmp_path / "run"
    config = RunConfig(suites=[str(mini_suite)], tasks_dir=str(mini_tasks), models=["scripted/oracle"],
                       conditions=["nl"], out=str(out), report=False)
    run(config)
    rows = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    fresh = rows[0]
    spent = {"input_tokens": 1000, "output_tokens": 500, "cost_usd": 0.004, "usage_missing": 0, "model_calls": 1}
    rows[0] = {**fresh, **spent, "status": "error", "error": "provider_error", "correct": False}
    rows[1] = {**rows[1], "status": "error", "error": "provider_error", "correct": False, "input_tokens": None,
               "output_tokens": None, "cost_usd": None, "usage_missing": 1}  # spent an unknown amount
    (out / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    from evalkit.harness.episode import episode_id
    from evalkit.harness.resume import whole_trace
    from evalkit.records import EpisodeKey

    errored_id = episode_id(*EpisodeKey.of(rows[0]))
    errored_log = '{"event": "episode_started"}\n{"event": "error", "message": "HTTP 503"}\n'
    (out / "traces" / f"{errored_id}.jsonl").write_text(errored_log)
    resume_run(out)
    final = {(r["pair_id"], r["variant"]): r for r in map(json.loads, (out / "results.jsonl").read_text().splitlines())}
    again = final[(fresh["pair_id"], fresh["variant"])]
    assert again["status"] == "ok" and again["resumed_over_error"] == 1
    # the errored run's event log is kept beside the new one, outside traces/ (replayed once)
    assert (out / "superseded" / f"{errored_id}.1.jsonl").read_text() == errored_log
    assert whole_trace(out / "traces" / f"{errored_id}.jsonl")
    assert sorted(p.name for p in (out / "superseded").iterdir()) == [
        f"{episode_id(*EpisodeKey.of(r))}.1.jsonl" for r in sorted(rows[:2], key=lambda r: episode_id(*EpisodeKey.of(r)))]
    run(config)  # a new run in the same folder replaces the old one, its kept logs too
    assert not (out / "superseded").exists()
    assert again["input_tokens"] == (fresh["input_tokens"] or 0) + 1000 if fresh["input_tokens"] is not None \
        else again["input_tokens"] is None
    assert again["retry_input_tokens"] == (None if fresh["retry_input_tokens"] is None
                                           else fresh["retry_input_tokens"] + 1000)
    assert again["model_calls"] == fresh["model_calls"] + 1
    unknown = final[(rows[1]["pair_id"], rows[1]["variant"])]
    assert unknown["input_tokens"] is None and unknown["cost_usd"] is None  # unknown stays unknown, never 0
    assert unknown["usage_missing"] >= 1 and unknown["resumed_over_error"] == 1
    untouched = [r for k, r in final.items() if k not in {(fresh["pair_id"], fresh["variant"]),
                                                          (rows[1]["pair_id"], rows[1]["variant"])}]
    assert all("resumed_over_error" not in r for r in untouched)


def test_a_superseded_log_is_never_overwritten_and_never_replayed(tmp_path):
    from evalkit.rules.replay import trace_files

    run_dir = tmp_path / "runs" / "r1"
    store = RunStore(run_dir)
    store.traces.mkdir(parents=True)
    (run_dir / "config.json").write_text("{}")
    (store.traces / "ep-1.jsonl").write_text("third\n")
    (run_dir / "superseded").mkdir()
    (run_dir / "superseded" / "ep-1.2.jsonl").write_text("second\n")  # ep-1.1 was deleted by hand
    assert store.keep_superseded_trace("ep-1") == run_dir / "superseded" / "ep-1.3.jsonl"
    assert (run_dir / "superseded" / "ep-1.2.jsonl").read_text() == "second\n"
    assert store.keep_superseded_trace("ep-1") is None  # nothing left to keep
    (store.traces / "ep-1.jsonl").write_text("fourth\n")
    (store.traces / "ep-2.jsonl").write_text("x\n")
    # a folder holding run directories: each episode's log from traces/, none from superseded/
    assert [p.name for p in trace_files([tmp_path / "runs"])] == ["ep-1.jsonl", "ep-2.jsonl"]
    assert [p.name for p in trace_files([run_dir])] == ["ep-1.jsonl", "ep-2.jsonl"]


NEW_ROW = {"input_tokens": 200, "output_tokens": 40, "cost_usd": 0.00028, "replayed_cost_usd": 0.0,
           "retry_input_tokens": 0, "retry_output_tokens": 0, "retry_cost_usd": 0.0, "cached_input_tokens": None,
           "cache_write_tokens": None, "reasoning_tokens": None, "usage_missing": 0, "model_calls": 2, "retries": 0,
           "usage_inconsistent": 0, "model_mismatch": 0, "unknown_stop_reason": 0, "cost_flags": [],
           "answered_models": ["m"]}


@pytest.mark.parametrize("bad", [-500, float("inf"), float("nan"), True, "abc", [3], None])
def test_an_errored_row_holding_no_amount_makes_the_carried_sum_unknown_and_counted(bad):
    """A hand-edited or older errored row: its unreadable amount is unknown (null, counted), never 0 or a crash."""
    from evalkit.harness.store import carry_spend

    old = {"input_tokens": bad, "output_tokens": 10, "cost_usd": 0.0001, "usage_missing": 0, "model_calls": "x"}
    out = carry_spend(NEW_ROW, old)
    assert out["input_tokens"] is None and out["retry_input_tokens"] is None
    assert out["output_tokens"] == 50 and out["usage_missing"] == 1 and out["model_calls"] == 2
    assert out["cost_usd"] == 0.00038  # rounded, not 0.00037999999999999997
    assert out["resumed_over_error"] == 1


def test_an_errored_row_without_billing_fields_counts_as_unknown():
    from evalkit.harness.store import carry_spend

    out = carry_spend(NEW_ROW, {})
    assert (out["input_tokens"], out["output_tokens"], out["cost_usd"]) == (None, None, None)
    assert out["usage_missing"] == 1


def test_an_errored_row_of_a_model_with_no_price_carries_its_tokens_and_no_usage_missing():
    from evalkit.harness.store import carry_spend

    unpriced = {**NEW_ROW, "cost_usd": None, "retry_cost_usd": None, "replayed_cost_usd": None}
    out = carry_spend(unpriced, {"input_tokens": 0, "output_tokens": 0, "cost_usd": None, "usage_missing": 0})
    assert (out["input_tokens"], out["output_tokens"], out["cost_usd"]) == (200, 40, None)
    assert out["usage_missing"] == 0 and out["resumed_over_error"] == 1


def test_the_errored_rows_cost_flags_and_models_are_carried():
    from evalkit.harness.store import carry_spend

    old = {"input_tokens": 100, "output_tokens": 10, "cost_usd": 0.00012, "usage_missing": 0,
           "cost_flags": ["server_tool_unpriced"], "answered_models": ["m", "m-fallback"], "usage_inconsistent": 1,
           "model_mismatch": 1}
    out = carry_spend({**NEW_ROW, "cost_flags": ["service_tier_unpriced"]}, old)
    assert out["cost_flags"] == ["service_tier_unpriced", "server_tool_unpriced"]
    assert out["answered_models"] == ["m", "m-fallback"]
    assert (out["usage_inconsistent"], out["model_mismatch"], out["usage_missing"]) == (1, 1, 0)
    assert out["input_tokens"] == 300 and out["cost_usd"] == 0.0004


def test_a_finished_episode_run_again_for_a_cut_trace_keeps_what_it_spent_and_its_log(tmp_path, mini_suite, mini_tasks):
    from evalkit.harness.episode import episode_id
    from evalkit.records import EpisodeKey

    out = tmp_path / "run"
    run(RunConfig(suites=[str(mini_suite)], tasks_dir=str(mini_tasks), models=["scripted/oracle"],
                  conditions=["nl"], out=str(out), report=False))
    rows = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    fresh = rows[0]
    rows[0] = {**rows[0], "input_tokens": 1000, "output_tokens": 500, "cost_usd": 0.004}
    (out / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    trace = out / "traces" / f"{episode_id(*EpisodeKey.of(rows[0]))}.jsonl"
    cut = "".join(trace.read_text().splitlines(keepends=True)[:2])
    trace.write_text(cut)
    with pytest.warns(ResultsWarning, match="1 finished episode\\(s\\) have no whole trace file"):
        resume_run(out)
    final = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    again = next(r for r in final if EpisodeKey.of(r) == EpisodeKey.of(rows[0]))
    assert again["input_tokens"] == 1000 + (fresh["input_tokens"] or 0)  # the earlier run's tokens are kept
    assert again["output_tokens"] == 500 + (fresh["output_tokens"] or 0)
    assert again["resumed_over_error"] == 1
    assert (out / "superseded" / f"{trace.stem}.1.jsonl").read_text() == cut
