"""Progress on a stream that is not a terminal: a line every few seconds on stderr (episodes
done / planned, errors, rate, ETA), so a run writing to a log file is never silent for minutes."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import time

import pytest

from evalkit.errors import ConfigError
from evalkit.harness.progress import DEFAULT_INTERVAL, ProgressLines, progress_interval

LINE = re.compile(r"^evalkit: progress (\d+)/(\d+) episodes \((\d+\.\d)%\), (\d+) errors?, "
                  r"(no episode finished yet|nothing left to run|\d+\.\d\d episodes/s), elapsed \d+:\d\d:\d\d, "
                  r"(ETA unknown|ETA \d+:\d\d:\d\d|every episode done, writing the results)$")


def test_a_run_whose_stderr_is_a_file_prints_progress_lines(tmp_path):
    log = tmp_path / "stderr.log"
    env = {**os.environ, "EVALKIT_PROGRESS_INTERVAL": "0.2"}
    with log.open("w") as err:
        proc = subprocess.run([sys.executable, "-m", "evalkit", "run", "--model", "scripted/oracle",
                               "--condition", "meta", "--no-report", "--out", str(tmp_path / "run")],
                              stdout=subprocess.PIPE, stderr=err, text=True, timeout=600, env=env, cwd=tmp_path)
    assert proc.returncode == 0
    rows = (tmp_path / "run" / "results.jsonl").read_text().splitlines()
    lines = [line for line in log.read_text().splitlines() if line.startswith("evalkit: progress ")]
    assert len(lines) >= 2, log.read_text()[-2000:]
    parsed = [LINE.match(line) for line in lines]
    assert all(parsed), lines
    done = [int(m.group(1)) for m in parsed]
    assert {int(m.group(2)) for m in parsed} == {len(rows)}  # planned = episodes of the run
    assert done == sorted(done) and done[-1] == len(rows)  # the last line: every episode done
    assert parsed[-1].group(3) == "100.0" and parsed[-1].group(6) == "every episode done, writing the results"
    assert "episodes/s" in lines[-1]


def test_lines_count_errors_rate_and_eta():
    now = [100.0]
    out = io.StringIO()
    lines = ProgressLines(60, stream=out, clock=lambda: now[0])
    with lines:
        lines(10, 110, None)  # a resumed run: 10 episodes done before this process started
        assert lines.line() == ("evalkit: progress 10/110 episodes (9.1%), 0 errors, no episode finished yet, "
                                "elapsed 0:00:00, ETA unknown")
        now[0] += 20
        for i in range(11, 51):
            lines(i, 110, {"status": "error" if i % 10 == 0 else "ok"})
        # 40 episodes in 20 s: 2/s, 60 left: 30 s; the 10 earlier episodes are not in the rate
        assert lines.line() == ("evalkit: progress 50/110 episodes (45.5%), 4 errors, 2.00 episodes/s, "
                                "elapsed 0:00:20, ETA 0:00:30")
    assert out.getvalue() == ""  # shorter than one interval: no line


def test_a_resumed_run_with_nothing_left_says_so():
    lines = ProgressLines(60, stream=io.StringIO(), clock=lambda: 5.0)
    with lines:
        lines(12, 12, None)  # every episode was done before this process started
        assert lines.line() == ("evalkit: progress 12/12 episodes (100.0%), 0 errors, nothing left to run, "
                                "elapsed 0:00:00, every episode done, writing the results")


def test_the_timer_writes_while_no_episode_finishes():
    out = io.StringIO()
    with ProgressLines(0.05, stream=out) as lines:
        time.sleep(0.12)
        lines(0, 8, None)
        time.sleep(0.3)
    text = out.getvalue().splitlines()
    assert text[0].startswith("evalkit: progress: preparing the run (suite, self-check, models), elapsed 0:00:00")
    planned = [line for line in text if line.startswith("evalkit: progress 0/8")]
    assert len(planned) >= 2 and all(LINE.match(line) for line in planned)
    assert planned[0].startswith("evalkit: progress 0/8 episodes (0.0%), 0 errors, no episode finished yet")


def test_an_interrupted_run_gets_no_last_line():
    out = io.StringIO()
    with pytest.raises(KeyboardInterrupt):
        with ProgressLines(0.05, stream=out) as lines:
            lines(0, 8, None)
            time.sleep(0.12)
            printed = out.getvalue()
            lines(1, 8, {"status": "ok"})
            raise KeyboardInterrupt
    assert out.getvalue() == printed and printed


def test_the_interval_setting():
    assert progress_interval({}) == DEFAULT_INTERVAL == 5.0
    assert progress_interval({"EVALKIT_PROGRESS_INTERVAL": "2.5"}) == 2.5
    assert progress_interval({"EVALKIT_PROGRESS_INTERVAL": "0"}) is None
    for bad in ("-1", "soon", "inf", "nan"):
        with pytest.raises(ConfigError, match="EVALKIT_PROGRESS_INTERVAL"):
            progress_interval({"EVALKIT_PROGRESS_INTERVAL": bad})
