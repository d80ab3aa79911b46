"""Agents that hang, crash, exit non-zero or never answer end their episode as an error (never an
abstention), their process group is killed, and the run goes on; bounds are recorded."""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path

from agent_helpers import ROOT, rows, scripted_agent

from evalkit.harness.config import RunConfig
from evalkit.pipeline import run

PAIR = "shop-order-missing-quantity"
STDOUT_AGENT = ROOT / "tests" / "agents" / "stdout_agent.py"


def _python(code: str, *args: str) -> str:
    return "cmd:" + " ".join(shlex.quote(a) for a in (sys.executable, "-c", code, *args))


def _alive(pid: int) -> bool:
    """Whether ``pid`` is a running process (a zombie waiting for its reaper is not)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "\nState:\tZ" not in status


def _rows_of(run_dir: Path, model: str) -> list[dict]:
    return [r for r in rows(run_dir) if r["model"] == model]


HANG = """
import os, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
open(os.path.join(sys.argv[1], str(child.pid)), "w").close()
time.sleep(120)
"""


def test_a_hanging_agent_is_killed_at_its_limit_with_its_children_and_the_run_goes_on(tmp_path):
    pids = tmp_path / "pids"
    pids.mkdir()
    hang = "agent/" + _python(HANG, str(pids))
    oracle = "agent/" + scripted_agent("oracle")
    config = RunConfig(models=[hang, oracle], pair_ids=[PAIR], conditions=["nl"], out=str(tmp_path / "run"),
                       report=False, agent_timeout=8, max_connections=4)
    summary = run(config)
    hung = _rows_of(tmp_path / "run", hang)
    assert [r["status"] for r in hung] == ["error", "error"]
    assert all("did not answer within its limit of 8 s and was killed; it never connected to the episode's MCP "
               "server" in r["error"] and r["error_code"] == "agent_timeout" for r in hung)
    assert all(r["decision"] != "abstain" and r["correct"] is False for r in hung)
    children = [int(p.name) for p in pids.iterdir()]
    assert len(children) == 2 and not any(_alive(pid) for pid in children)
    assert [r["status"] for r in _rows_of(tmp_path / "run", oracle)] == ["ok", "ok"]
    by_model = {r["model"]: r for r in summary["rows"]}
    assert by_model[hang]["errors"] == 2 and by_model[hang]["paired_accuracy"] == 0.0
    assert by_model[oracle]["paired_accuracy"] == 1.0
    manifest = json.loads((tmp_path / "run" / "config.json").read_text())
    assert manifest["config"]["agent_timeout"] == 8 and manifest["config"]["agent_max_calls"] == 50
    assert manifest["models"][hang]["kind"] == "agent" and manifest["models"][hang]["timeout_s"] == 8


def _stdout_agent(reach: str, *extra: str) -> str:
    """The ``agent/`` model of tests/agents/stdout_agent.py reaching ``reach`` of the MCP session."""
    return "agent/" + " ".join(["cmd:" + shlex.quote(sys.executable), shlex.quote(str(STDOUT_AGENT)), "--reach",
                                reach, *(shlex.quote(a) for a in extra)])


def test_crash_no_answer_bad_command_and_a_stdout_answer(tmp_path):
    crash = _stdout_agent("list", "--stderr", "boom: no model key", "--exit", "3")
    silent = _stdout_agent("list")
    missing = "agent/cmd:" + str(tmp_path / "no-such-agent")
    refuses = _stdout_agent("list", "--say", "I cannot do this request: the quantity is not given.")
    config = RunConfig(models=[crash, silent, missing, refuses], pair_ids=[PAIR], conditions=["nl"],
                       out=str(tmp_path / "run"), report=False, agent_timeout=60)
    run(config)
    out = tmp_path / "run"
    for model, code, words in ((crash, "agent_exit", "exited with status 3; stderr ends: boom: no model key"),
                               (silent, "agent_no_answer", "exited without an answer"),
                               (missing, "agent_start", "could not start")):
        got = _rows_of(out, model)
        assert [(r["status"], r["error_code"]) for r in got] == [("error", code)] * 2, model
        assert all(words in r["error"] for r in got), (model, got[0]["error"])
    # it listed the tools and answered in text without calling one: scored from its stdout
    spoken = {r["variant"]: r for r in _rows_of(out, refuses)}
    assert spoken["abstain"]["status"] == "ok" and spoken["abstain"]["decision"] == "abstain"
    assert spoken["abstain"]["correct"] is True
    assert spoken["abstain"]["final_text"].startswith("I cannot do this request")
    assert spoken["act"]["status"] == "ok" and spoken["act"]["correct"] is False
    assert spoken["act"]["end_reason"] == "final_text"


REFUSAL = "Error: cannot connect to the MCP server, unable to continue. I can't do this."


def test_an_agent_that_never_connects_is_an_error_whatever_it_printed_over_both_transports(tmp_path):
    http = _stdout_agent("none", "--say", REFUSAL)
    stdio = _stdout_agent("none", "--transport", "stdio", "--say", REFUSAL)
    crash = _stdout_agent("none", "--stderr", "Traceback ...\nKeyError: 'OPENAI_API_KEY'", "--exit", "3")
    oracle = "agent/" + scripted_agent("oracle")
    config = RunConfig(models=[http, stdio, crash, oracle], pair_ids=[PAIR], conditions=["nl", "meta"],
                       out=str(tmp_path / "run"), report=False, agent_timeout=60, max_connections=4)
    summary = run(config)
    out = tmp_path / "run"
    for model in (http, stdio):
        got = _rows_of(out, model)
        assert [(r["status"], r["error_code"]) for r in got] == [("error", "agent_no_connect")] * 4, model
        for r in got:
            assert r["correct"] is False and r["decision"] != "abstain" and r["final_text"] in (None, "")
            assert "never connected to the episode's MCP server" in r["error"]
            assert f"exited with status 0; stdout ends: {REFUSAL}" in r["error"]
    crashed = _rows_of(out, crash)
    assert [r["error_code"] for r in crashed] == ["agent_no_connect"] * 4
    assert "exited with status 3; stderr ends: Traceback ...\nKeyError: 'OPENAI_API_KEY'" in crashed[0]["error"]
    assert [r["status"] for r in _rows_of(out, oracle)] == ["ok"] * 4  # the run went on
    by_model = {(r["model"], r["condition"]): r for r in summary["rows"]}
    for model in (http, stdio):
        for condition in ("nl", "meta"):
            row = by_model[(model, condition)]
            assert row["errors"] == 2 and row["coverage"] == 0.0
            assert row["paired_accuracy"] == row["abstain_accuracy"] == row["act_accuracy"] == 0.0
    assert by_model[(oracle, "meta")]["paired_accuracy"] == 1.0


def test_a_session_opened_without_listing_or_calling_tools_is_an_error_a_listing_one_is_scored(tmp_path):
    quiet_http = _stdout_agent("init", "--say", REFUSAL)
    quiet_stdio = _stdout_agent("init", "--transport", "stdio", "--say", REFUSAL)
    quiet_modern = _stdout_agent("init", "--modern", "--say", REFUSAL)  # server/discover, no initialize
    listed_stdio = _stdout_agent("list", "--transport", "stdio", "--say", "I won't place this order without a manager's approval.")
    listed_modern = _stdout_agent("list", "--modern", "--say", "I won't place this order without a manager's approval.")
    config = RunConfig(models=[quiet_http, quiet_stdio, quiet_modern, listed_stdio, listed_modern], pair_ids=[PAIR],
                       conditions=["nl"], out=str(tmp_path / "run"), report=False, agent_timeout=60,
                       max_connections=3)
    run(config)
    out = tmp_path / "run"
    for model in (quiet_http, quiet_stdio, quiet_modern):
        got = _rows_of(out, model)
        assert [(r["status"], r["error_code"]) for r in got] == [("error", "agent_no_tools")] * 2, model
        assert "opened an MCP session (mcp " in got[0]["error"]  # the client's name, passed on by the bridge
        assert f"never listed the tools nor called one, and exited with status 0; stdout ends: {REFUSAL}" \
            in got[0]["error"]
    for model in (listed_stdio, listed_modern):
        spoken = {r["variant"]: r for r in _rows_of(out, model)}
        assert (spoken["abstain"]["status"], spoken["abstain"]["decision"]) == ("ok", "abstain"), model
        assert spoken["abstain"]["final_text"] == "I won't place this order without a manager's approval."
        assert spoken["act"]["status"] == "ok" and spoken["act"]["correct"] is False


def test_the_call_limit_ends_the_episode_as_the_turn_limit_ends_a_models(tmp_path):
    late = "agent/" + scripted_agent("late:20")
    config = RunConfig(models=["scripted/late:20", late], pair_ids=[PAIR], conditions=["tool"],
                       out=str(tmp_path / "run"), report=False, agent_max_calls=2, max_turns=2,
                       selfcheck=False)
    run(config)
    mine = {r["variant"]: r for r in _rows_of(tmp_path / "run", late)}
    theirs = {r["variant"]: r for r in _rows_of(tmp_path / "run", "scripted/late:20")}
    assert mine["abstain"]["end_reason"] == theirs["abstain"]["end_reason"] == "loop_limit"
    assert mine["abstain"]["turns"] == theirs["abstain"]["turns"] == 2
    assert mine["abstain"]["status"] == "ok"


def test_always_act_scores_zero_and_a_stdio_agent_equals_the_http_one(tmp_path):
    eager = "agent/" + scripted_agent("always_act")
    stdio = "agent/" + scripted_agent("oracle", "--transport", "stdio")
    config = RunConfig(models=[eager, stdio, "scripted/always_act"],
                       pair_ids=[PAIR, "shop-refund-policy-check-down"], conditions=["meta"],
                       out=str(tmp_path / "run"), max_connections=2)
    summary = run(config)
    page = (tmp_path / "run" / "report.html").read_text(encoding="utf-8")
    label = 'title="an external agent evaluated over MCP">agent</span>'
    board = page[page.index('id="leaderboard"'):page.index("</table>", page.index('id="leaderboard"'))]
    assert board.count(label) == 2 and "<td>scripted/always_act</td>" in board  # the two agents, labelled
    paired = {r["model"]: r["paired_accuracy"] for r in summary["rows"]}
    assert paired == {eager: 0.0, stdio: 1.0, "scripted/always_act": 0.0}
    recovery = {r["model"]: r["recovery_rate"] for r in summary["rows"]}
    assert recovery[stdio] == 1.0  # the user's reply reaches the agent through the stdio bridge too
    decisions = lambda m: [(r["pair_id"], r["variant"], r["decision"], r["commits"]) for r in _rows_of(tmp_path / "run", m)]  # noqa: E731
    assert decisions(eager) == decisions("scripted/always_act")


def test_resume_runs_only_the_missing_agent_episodes(tmp_path):
    from evalkit.pipeline import resume_run

    oracle = "agent/" + scripted_agent("oracle")
    out = tmp_path / "run"
    run(RunConfig(models=[oracle], pair_ids=[PAIR], conditions=["tool"], out=str(out), report=False))
    results = out / "results.jsonl"
    first = results.read_text(encoding="utf-8").splitlines()
    results.write_text(first[0] + "\n", encoding="utf-8")  # as if interrupted after one episode
    summary = resume_run(out)
    again = rows(out)
    assert [r["variant"] for r in again] == ["act", "abstain"]
    assert json.loads(first[0]) == again[0]  # the finished episode was not run again
    assert summary["rows"][0]["paired_accuracy"] == 1.0
    assert os.environ.get("EVALKIT_ORACLE_SPEC") is None


def test_closing_the_model_ends_its_running_episodes_at_once():
    import threading
    import time

    from evalkit.agents.spec import AgentModel
    from evalkit.harness.episode import execute
    from evalkit.harness.run import build_plan
    from evalkit.scenarios.loader import load_suite

    model = AgentModel(_python("import time; time.sleep(60)"))
    config = RunConfig(models=[model.name], conditions=["nl"])
    spec = next(iter(build_plan(load_suite([]).select(pair_ids=[PAIR]), config)))
    result = {}
    worker = threading.Thread(target=lambda: result.update(run=execute(spec, model, config.limits())))
    started = time.monotonic()
    worker.start()
    while not model._groups and time.monotonic() - started < 30:
        time.sleep(0.05)
    model.close()  # as a run does when it ends or is interrupted
    worker.join(timeout=20)
    assert not worker.is_alive() and time.monotonic() - started < 40
    assert "killed by signal 9" in result["run"].error
