"""A Ctrl-C during a Dask run prints evalkit's one line, not Dask's tracebacks and logs.

The run goes through the real CLI in its own session; the Ctrl-C is a SIGINT sent to the
session's whole process group, as a terminal sends it (the LocalCluster's worker
processes get it too), at a fixed point: while the cluster starts, or after the first
episode was recorded.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
EPISODES = 3 * 2 * 2 * 3 * 4  # pairs x variants x models x conditions x epochs

DRIVER = '''
import os, signal, sys


def main():
    phase, out, suite, tasks = sys.argv[1:5]
    import evalkit.harness.dask_executor as dask_executor
    import evalkit.harness.run as run_module

    if phase == "startup":
        make = dask_executor._local_cluster

        def started_then_interrupted(*args):
            cluster = make(*args)
            os.killpg(0, signal.SIGINT)  # Ctrl-C at the terminal while the cluster starts
            return cluster

        dask_executor._local_cluster = started_then_interrupted
    else:
        score, calls = run_module.score_episode, []

        def scored(*args, **kwargs):
            calls.append(1)
            if len(calls) == 2:  # the first episode is recorded; the second is not
                os.killpg(0, signal.SIGINT)
            return score(*args, **kwargs)

        run_module.score_episode = scored
    from evalkit.cli import app

    app(["run", suite, "--tasks", tasks, "-m", "scripted/oracle", "-m", "scripted/always_act", "--epochs", "4",
         "--out", out, "--no-report", "--executor", "dask"], prog_name="evalkit")


if __name__ == "__main__":
    main()
'''


def _marked(mark: str) -> list[int]:
    """Processes whose environment holds ``mark`` (the driver and what it started)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if mark.encode() in (entry / "environ").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="process groups and /proc")
@pytest.mark.parametrize("phase", ["startup", "running"])
def test_a_ctrl_c_prints_only_evalkits_line_and_leaves_no_worker(tmp_path, phase):
    pytest.importorskip("dask.distributed")
    driver, out, mark = tmp_path / "driver.py", tmp_path / "out", f"evalkit-test-{uuid.uuid4().hex}"
    driver.write_text(DRIVER, encoding="utf-8")
    env = {**os.environ, "EVALKIT_TEST_MARK": mark}
    done = subprocess.run([sys.executable, str(driver), phase, str(out), str(FIXTURES / "suites" / "mini.yaml"),
                           str(FIXTURES / "tasks")], capture_output=True, text=True, timeout=180, env=env,
                          cwd=tmp_path, start_new_session=True)
    assert done.returncode == 130, done.stderr
    if phase == "startup" and (out / "config.json").is_file():
        assert done.stderr == (f"evalkit: interrupted before any episode finished; {out} holds the run's settings: "
                               f"`evalkit run --resume {out}` starts it again with them\n")
    elif phase == "startup":
        assert done.stderr == "evalkit: interrupted before any episode finished; nothing to resume\n"
    else:
        kept = len((out / "results.jsonl").read_text(encoding="utf-8").splitlines())
        assert 1 <= kept < EPISODES
        assert done.stderr == (f"evalkit: interrupted; {kept} finished episode(s) are kept in {out}: "
                               f"continue with `evalkit run --resume {out}`\n")
    deadline = time.monotonic() + 10  # the resource tracker leaves once its last user has gone
    while _marked(mark) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = _marked(mark)
    for pid in left:  # a leak must not outlive the test
        os.kill(pid, signal.SIGKILL)
    assert left == []


def test_quiet_distributed_silences_dasks_loggers_only_while_closing(caplog):
    pytest.importorskip("dask.distributed")
    import logging

    from evalkit.harness.dask_executor import _quiet_distributed

    scheduler = logging.getLogger("distributed.scheduler")
    caplog.set_level(logging.INFO)
    with _quiet_distributed():
        scheduler.error("closing: a cancelled task")
        logging.getLogger("tornado.application").error("closing: a closed stream")
        logging.getLogger("evalkit.test").error("not Dask's")
        assert scheduler.disabled
    assert [(r.name, r.getMessage()) for r in caplog.records] == [("evalkit.test", "not Dask's")]
    assert not scheduler.disabled
    scheduler.error("a real error")  # outside a close, Dask's errors show as before
    assert [(r.name, r.levelname) for r in caplog.records][-1] == ("distributed.scheduler", "ERROR")
