"""Dask workers run the content the calling process recorded for the run, or fail saying why.

A worker caches a run's suite, plan and models per process; a long-lived cluster outlives
runs, so the cache is keyed on the run's content identity (suite hash, input sha256s, evalkit
version), and a worker that reads other files than the run's fails the run with
:class:`WorkerInputsError` instead of scoring them.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

import evalkit
from evalkit.harness.config import resolved_paths
from evalkit.harness.dask_executor import execute_plan_dask
from evalkit.harness.dask_inputs import WorkerInputsError, _worker_context, check_worker_inputs, run_identity
from evalkit.harness.run import RunConfig
from evalkit.pipeline import run
from evalkit.metrics.scoring import pair_sha256
from evalkit.scenarios.loader import load_suite

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
ACT_2 = """      user: Buy 2 apples.
      plan:
        - {tool: find_item, args: {name: apple}}
        - {tool: buy_item, args: {name: apple, qty: 2}}
      expected:
        commits: [{tool: buy_item, args: {name: apple, qty: 2}}]
        state_checks: [{path: purchases.P-1.qty, equals: 2}]"""
ACT_3 = ACT_2.replace("2", "3")
PRICE_2 = '"apple": {"stock": 5, "price": 2}'
PRICE_7 = '"apple": {"stock": 5, "price": 7}'


def _copy_fixtures(tmp_path: Path) -> tuple[Path, Path]:
    """A private copy of the mini suite and the mini task domain (both get edited)."""
    suite = tmp_path / "suite.yaml"
    shutil.copyfile(FIXTURES / "suites" / "mini.yaml", suite)
    shutil.copytree(FIXTURES / "tasks", tmp_path / "tasks")
    assert ACT_2 in suite.read_text(encoding="utf-8")
    assert PRICE_2 in (tmp_path / "tasks" / "mini" / "domain.py").read_text(encoding="utf-8")
    return suite, tmp_path / "tasks"


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1
    path.write_text(text.replace(old, new), encoding="utf-8")


def _config(suite: Path, tasks: Path, out: Path, **extra) -> RunConfig:
    return RunConfig(suites=[str(suite)], tasks_dir=str(tasks), out=str(out), models=["scripted/oracle"],
                     conditions=["nl"], report=False, selfcheck=False, bootstrap_samples=100, **extra)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_run_identity_names_the_suite_hash_the_task_code_and_the_version(tmp_path):
    suite, tasks = _copy_fixtures(tmp_path)
    identity = run_identity(_config(suite, tasks, tmp_path / "out"))  # no manifest yet: computed from the files
    assert identity == {
        "evalkit": evalkit.__version__,
        "suite": hashlib.sha256(suite.read_bytes()).hexdigest(),
        "inputs": {"rules": None, "policy": None, "model_config": None,
                   "tasks/mini": _sha256(tasks / "mini" / "domain.py")},
    }
    # the manifest a run wrote holds what the calling process loaded: it wins over files edited since
    out = tmp_path / "out"
    out.mkdir()
    (out / "config.json").write_text(json.dumps({"suite": {"content_hash": "a" * 64},
                                                 "inputs": {"tasks/mini": "b" * 64}}), encoding="utf-8")
    assert run_identity(_config(suite, tasks, out)) == {"evalkit": evalkit.__version__, "suite": "a" * 64,
                                                         "inputs": {"tasks/mini": "b" * 64}}


def test_a_worker_that_reads_another_suite_fails_naming_it_and_both_hashes(tmp_path):
    suite, tasks = _copy_fixtures(tmp_path)
    config = _config(suite, tasks, tmp_path / "out")
    identity = run_identity(config)  # what the calling process loaded
    _edit(suite, ACT_2, ACT_3)  # then the file at that path changes (or a worker has another copy)
    _worker_context.cache_clear()
    with pytest.raises(WorkerInputsError) as caught:
        _worker_context(resolved_paths(config, str(tmp_path)).model_dump_json(), json.dumps(identity, sort_keys=True))
    message = str(caught.value)
    now = hashlib.sha256(suite.read_bytes()).hexdigest()
    assert f"suite {suite} has content hash {now[:12]} (the run's is {identity['suite'][:12]})" in message
    assert "the same suite, task and config files at the same paths" in message
    assert "tasks/mini" not in message and "\n" not in message
    assert isinstance(caught.value, evalkit.errors.ConfigError)  # the CLI prints one line, exit 2


def test_a_worker_without_the_suite_file_fails_the_run_not_each_episode(tmp_path):
    suite, tasks = _copy_fixtures(tmp_path)
    config = _config(suite, tasks, tmp_path / "out")
    identity = json.dumps(run_identity(config), sort_keys=True)
    suite.unlink()  # not on this worker's file system
    _worker_context.cache_clear()
    expected = (rf"^worker on \S+ cannot load the run's inputs, which the calling process loaded: {suite}: "
                "no such file or folder; workers need the same")
    with pytest.raises(WorkerInputsError, match=expected):
        _worker_context(config.model_dump_json(), identity)


def test_a_worker_with_other_task_code_or_evalkit_fails_naming_each(tmp_path):
    suite, tasks = _copy_fixtures(tmp_path)
    config = _config(suite, tasks, tmp_path / "out")
    expected = run_identity(config)
    seen = {**expected, "evalkit": "0.0.1", "inputs": {**expected["inputs"], "tasks/mini": "c" * 64}}
    with pytest.raises(WorkerInputsError) as caught:
        check_worker_inputs(expected, seen, config)
    message = str(caught.value)
    assert f"evalkit 0.0.1 is installed (the run uses {evalkit.__version__})" in message
    assert f"tasks/mini has sha256 cccccccccccc (the run's is {expected['inputs']['tasks/mini'][:12]})" in message
    assert "suite" not in message.split(":", 1)[1].split("workers need")[0]  # the suite itself matches
    check_worker_inputs(expected, dict(expected), config)  # the same content passes


@pytest.fixture(scope="module")
def cluster():
    """One long-lived single-worker cluster: every run in it meets the same worker process."""
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None,
                                  scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"}) as c:
        yield c


def _trace(out: Path, pair_id: str, variant: str) -> list[dict]:
    [path] = (out / "traces").glob(f"{pair_id}__{variant}__*.jsonl")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.slow
def test_a_long_lived_cluster_runs_the_edited_suite_and_task_code(tmp_path, cluster):
    suite, tasks = _copy_fixtures(tmp_path)
    out = tmp_path / "out"  # the same --out each time: the same configuration, other content
    config = _config(suite, tasks, out, executor="dask", scheduler_address=cluster.scheduler_address)

    def check(user: str, price: int) -> None:
        summary = run(config)
        assert [(r["condition"], r["paired_accuracy_k"], r["n_units"]) for r in summary["rows"]] == [("nl", 3, 3)]
        events = _trace(out, "mini-missing-target", "act")
        assert [e["content"] for e in events if e["type"] == "user_message"] == [user]
        assert [e["result"]["price"] for e in events if e["type"] == "tool_executed" and e["tool"] == "find_item"] \
            == [price]
        rows = {(r["pair_id"], r["variant"]): r
                for r in map(json.loads, (out / "results.jsonl").read_text(encoding="utf-8").splitlines())}
        pair = {p.id: p for p in load_suite([suite], tasks_dir=tasks).pairs}["mini-missing-target"]
        assert rows[("mini-missing-target", "act")]["pair_sha256"] == pair_sha256(pair)
        assert all(r["status"] == "ok" and r["correct"] for r in rows.values()) and len(rows) == 6

    check("Buy 2 apples.", 2)
    _edit(suite, ACT_2, ACT_3)  # the suite's content changes, its path does not
    check("Buy 3 apples.", 2)
    _edit(tasks / "mini" / "domain.py", PRICE_2, PRICE_7)  # only the task code changes
    check("Buy 3 apples.", 7)


@pytest.mark.slow
def test_a_worker_that_reads_other_files_stops_the_run_before_scoring_them(tmp_path, cluster):
    suite, tasks = _copy_fixtures(tmp_path)
    out = tmp_path / "out"
    config = _config(suite, tasks, out, executor="dask", scheduler_address=cluster.scheduler_address)
    recorded = run_identity(config)
    out.mkdir()
    (out / "config.json").write_text(json.dumps({"suite": {"content_hash": recorded["suite"]},
                                                 "inputs": recorded["inputs"]}), encoding="utf-8")
    _edit(suite, ACT_2, ACT_3)  # edited after the calling process loaded the suite and wrote its manifest
    from evalkit.harness.run import build_plan

    plan = build_plan(load_suite([suite], tasks_dir=tasks), config)
    recorded_rows = []
    with pytest.raises(WorkerInputsError, match=r"^worker tcp://127\.0\.0\.1:\d+ reads other files .* suite "
                                                 rf"{suite} has content hash [0-9a-f]{{12}} \(the run's is "
                                                 rf"{recorded['suite'][:12]}\)"):
        execute_plan_dask(plan, config, lambda spec, result: recorded_rows.append(spec.key))
    assert recorded_rows == []  # no episode of the other content was scored
