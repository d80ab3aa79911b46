"""The notebook API (evalkit.load_run / load_runs) and its documented example (docs/notebook.md)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import evalkit
from evalkit.harness.run import RunConfig
from evalkit.pipeline import run

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def latest(tmp_path_factory, mini_suite, mini_tasks):
    base = tmp_path_factory.mktemp("nb")
    out = base / "reports" / "latest"
    run(RunConfig(suites=[str(mini_suite)], tasks_dir=str(mini_tasks), conditions=["nl", "tool"],
                  models=["scripted/oracle", "scripted/always_act"], out=str(out), report=False))
    return base, out


def test_the_documented_example_runs(latest, monkeypatch, capsys):
    base, _ = latest
    text = (ROOT / "docs" / "notebook.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks
    monkeypatch.chdir(base)
    for block in blocks:
        exec(compile(block, "docs/notebook.md", "exec"), {})
    printed = capsys.readouterr().out
    assert "acted_when_should_not" in printed


def test_episodes_are_typed_and_match_the_summary(latest):
    _, out = latest
    r = evalkit.load_run(out)
    eps = r.episodes
    assert len(eps) == sum(row["n_episodes"] for row in r.summary_json["rows"])
    assert str(eps["model"].dtype) == "category" and eps["correct"].dtype == bool
    assert str(eps["timely"].dtype) == "boolean" and str(eps["lag"].dtype) == "Int64"
    assert eps.loc[eps.variant == "act", "timely"].isna().all()  # undefined, never False or 0
    units = r.pairs.groupby(["model", "condition"], observed=True)["timely_right"].agg(["sum", "count"])
    for row in r.summary_json["rows"]:
        k, n = units.loc[(row["model"], row["condition"])]
        assert (k, n) == (row["timely_paired_accuracy_k"], row["timely_paired_accuracy_n"])
    wrong = eps[(eps.model == "scripted/always_act") & (eps.variant == "abstain")]
    assert set(wrong.failure_kind) == {"acted_when_should_not"}
    events = r.trace(wrong.episode_id.iloc[0])
    assert events[0]["type"] == "episode_started" and events[-1]["type"] == "episode_ended"
    with pytest.raises(KeyError):
        r.trace("no-such-episode")
    assert list(r.breakdown("trigger").columns[:4]) == ["model", "condition", "gate", "trigger"]


def test_load_runs_adds_a_run_column(latest, hand_run):
    _, out = latest
    hand, _ = hand_run
    both = evalkit.load_runs([out, hand])
    counts = both.episodes.groupby("run", observed=True).size()
    assert counts[str(out)] == len(evalkit.load_run(out).episodes)
    assert counts[str(hand)] == len(evalkit.load_run(hand).episodes)
    assert set(both.summary["run"]) == {str(out), str(hand)}
    first = evalkit.load_run(hand).episodes.episode_id.iloc[0]
    assert both.trace(first, run=hand)[0]["type"] == "episode_started"


def test_load_runs_refuses_a_run_given_twice_and_a_bare_path(latest):
    from evalkit.errors import RunError

    _, out = latest
    with pytest.raises(RunError, match="given twice"):
        evalkit.load_runs([out, str(out) + "/"])
    with pytest.raises(TypeError, match="load_runs takes a list of run directories"):
        evalkit.load_runs(str(out))


def test_import_evalkit_does_not_import_pandas():
    code = "import sys, evalkit; evalkit.load_run; evalkit.load_runs; print('pandas' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "False"
