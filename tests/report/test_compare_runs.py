"""`evalkit compare`: two runs made separately (different scripted models, the same suite, one
pair's content changed in between) on one leaderboard, compared on the pairs they share."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from evalkit.cli import app
from evalkit.harness.run import RunConfig
from evalkit.pipeline import run


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory, mini_suite, mini_tasks):
    base = tmp_path_factory.mktemp("cmp")
    first = base / "monday"
    run(RunConfig(suites=[str(mini_suite)], tasks_dir=str(mini_tasks), conditions=["nl", "tool"],
                  models=["scripted/oracle"], out=str(first), report=False))
    edited = base / "mini-edited.yaml"  # one pair's abstain message changed since Monday
    edited.write_text(mini_suite.read_text().replace("Buy 2 kiwis.", "Buy 2 kiwis, please."))
    second = base / "friday"
    run(RunConfig(suites=[str(edited)], tasks_dir=str(mini_tasks), conditions=["nl", "tool"],
                  models=["scripted/always_act", "scripted/oracle"], out=str(second), report=False))
    return base, first, second


def test_the_model_comparison_uses_the_shared_pairs_and_says_how_many(two_runs):
    base, first, second = two_runs
    out = base / "both"
    result = CliRunner().invoke(app, ["compare", str(first), str(second), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "2 shared pairs compared; left out: 1 with other content" in result.output
    summary = json.loads((out / "summary.json").read_text())
    c = summary["compare"]
    assert (c["shared_pairs"], c["pairs_content_differs"], c["differing"]) == (2, 1, ["mini-missing-target"])
    assert [r["label"] for r in c["runs"]] == ["monday", "friday"]
    assert c["runs"][1]["models"] == ["scripted/always_act", "scripted/oracle"]
    models = [r["model"] for r in summary["rows"]]
    # the oracle ran in both runs: its two runs stay apart
    assert set(models) == {"scripted/oracle @ monday", "scripted/always_act", "scripted/oracle @ friday"}
    rows = {(r["model"], r["condition"]): r for r in summary["rows"]}
    assert rows[("scripted/always_act", "nl")]["paired_accuracy_n"] == 2
    assert rows[("scripted/oracle @ monday", "nl")]["paired_accuracy_k"] == 2
    model_cmp = [x for x in summary["comparisons"] if x["kind"] == "model" and x["condition"] == "nl"
                 and {x["a"], x["b"]} == {"scripted/oracle @ monday", "scripted/always_act"}]
    assert len(model_cmp) == 1 and model_cmp[0]["n"] == 2
    assert model_cmp[0]["a_k"] + model_cmp[0]["b_k"] == 2  # oracle 2/2, always_act 0/2
    assert "scripted/always_act vs scripted/oracle @ monday: -1.000" in result.output
    assert ", 2 pairs" in result.output
    html = (out / "report.html").read_text()
    assert 'data-metric="shared_pairs">2<' in html and "monday" in html and "friday" in html
    # every embedded trace was read from the run it came from
    traces = json.loads(re.search(r'<script type="application/json" id="ek-traces">(.*?)</script>', html, re.S).group(1))
    assert traces and all(t["turns"] and t["user"] for t in traces.values())
    assert {t["id"].split("~")[0] for t in traces.values()} == {"monday", "friday"}
    section = html[html.index('id="fail-acted_when_should_not"'):]
    assert '"source_run"' not in section[:200]
    assert 'href="#trace/' in section[:section.index("<h3", 10)]


def test_runs_that_share_no_pair_are_refused(two_runs, tmp_path, mini_suite, mini_tasks):
    _, first, _ = two_runs
    other = tmp_path / "other"
    run(RunConfig(suites=[str(mini_suite)], tasks_dir=str(mini_tasks), conditions=["nl"],
                  models=["scripted/oracle"], pair_ids=["mini-missing-param"], out=str(other), report=False))
    lone = tmp_path / "lone"
    run(RunConfig(suites=[str(mini_suite)], tasks_dir=str(mini_tasks), conditions=["nl"],
                  models=["scripted/always_act"], pair_ids=["mini-tool-failure"], out=str(lone), report=False))
    result = CliRunner().invoke(app, ["compare", str(other), str(lone), "--out", str(tmp_path / "x")])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "share no pair" in lines[0] and lines[0].startswith("evalkit: error:")
    assert not (tmp_path / "x").exists()


def test_a_folder_with_other_files_is_refused(two_runs, tmp_path):
    _, first, second = two_runs
    (tmp_path / "notes.txt").write_text("mine")
    result = CliRunner().invoke(app, ["compare", str(first), str(second), "--out", str(tmp_path)])
    assert result.exit_code == 2 and "not an `evalkit compare` output" in result.output
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_a_run_given_twice_is_refused(two_runs, tmp_path):
    _, first, _ = two_runs
    result = CliRunner().invoke(app, ["compare", str(first), str(first) + "/", "--out", str(tmp_path / "x")])
    assert result.exit_code == 2 and "given twice" in result.output


def test_an_unfinished_run_or_a_file_is_one_line_naming_it(two_runs, tmp_path):
    import shutil

    base, first, second = two_runs
    unfinished = tmp_path / "unfinished"
    shutil.copytree(second, unfinished)
    (unfinished / "summary.json").unlink()
    result = CliRunner().invoke(app, ["compare", str(first), str(unfinished), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2
    assert result.output.strip().endswith(f"continue it with `evalkit run --resume {unfinished}`, then compare it")
    a_file = tmp_path / "suite.yaml"
    a_file.write_text("pairs: []\n")
    result = CliRunner().invoke(app, ["compare", str(first), str(a_file), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2
    assert result.output.strip() == f"evalkit: error: {a_file}: a file, not a run directory"


def test_load_run_of_a_compare_output_serves_every_trace_from_its_source_run(two_runs, tmp_path):
    import evalkit

    base, first, second = two_runs
    out = tmp_path / "both"
    assert CliRunner().invoke(app, ["compare", str(first), str(second), "--out", str(out)]).exit_code == 0
    run_data = evalkit.load_run(out)
    ids = list(run_data.episodes["episode_id"])
    assert ids and all(i.split("~")[0] in ("monday", "friday") for i in ids)
    for episode_id in ids:
        events = run_data.trace(episode_id)
        assert events and events[0]["type"] == "episode_started"
        assert events[0]["episode_id"] == episode_id.split("~", 1)[1]  # the source run's own episode
    with pytest.raises(KeyError, match="no trace of episode 'nope'"):
        run_data.trace("nope")
