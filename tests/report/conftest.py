"""Runs for the report tests: a hand-computed run (an error, a missing twin, empty groups) and a
run whose model writes HTML and script payloads (field case C23)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from evalkit.errors import ModelError
from evalkit.harness.run import RunConfig, build_plan
from evalkit.pipeline import finish, run
from evalkit.harness.store import RunStore
from evalkit.metrics.keys import pair_attributes
from evalkit.models.registry import register_provider
from evalkit.models.scripted import ScriptedModel
from evalkit.runtime.model_io import ModelOutput, ToolCall
from evalkit.report.viewer import Viewer, make_server
from evalkit.scenarios.loader import load_suite

DATA = Path(__file__).resolve().parent / "data"
FINAL_TEXT = ('Done.<img src=x onerror="alert(1)"><script>alert(2)</script> '
              "<scratchpad>plan: read file</scratchpad>")
ARG_PAYLOAD = "</script><script>alert(3)</script>"


class FlakyOracle(ScriptedModel):
    """The oracle, except that the provider fails on mini-missing-param's abstain side."""

    def __init__(self) -> None:
        super().__init__("oracle")
        self.name = "fixture/flaky"

    def respond(self, context, episode):
        if episode.pair.id == "mini-missing-param" and episode.variant == "abstain":
            raise ModelError("provider_error: 503 from upstream", retryable=False)
        return super().respond(context, episode)


class PayloadModel:
    """Writes markup into its tool arguments and final text, and commits a guessed quantity."""

    name = "payload/evil"

    def respond(self, context, episode):
        turn = context.turn
        if turn == 0:
            return ModelOutput(tool_calls=(ToolCall("c1", "find_item", {"name": "apple", "note": ARG_PAYLOAD}),),
                               stop_reason="tool_use")
        if turn == 1:
            return ModelOutput(tool_calls=(ToolCall("c2", "buy_item", {"name": "apple", "qty": 7}),),
                               stop_reason="tool_use")
        return ModelOutput(text=FINAL_TEXT + " " + "x" * 5000)


register_provider("fixture", lambda name, options=None: FlakyOracle())
register_provider("payload", lambda name, options=None: PayloadModel())


@pytest.fixture(scope="session")
def hand_run(tmp_path_factory, mini_suite, mini_tasks):
    """The mini suite (3 pairs) under the tool condition for the oracle and the flaky oracle; the
    oracle's act episode of mini-tool-failure is then removed (a missing twin).

    Hand-computed (per model, 6 planned episodes, 3 pairs):
      oracle: recorded 5, missing 1, errors 0; episode accuracy 5/6; paired 2/3 (1 incomplete);
              act 2/3; abstain 3/3; timely 3/3; post-hoc 0/3.
      flaky:  recorded 6, missing 0, errors 1; episode accuracy 5/6; paired 2/3 (1 incomplete);
              act 3/3; abstain 2/3; timely 2/2; post-hoc 0/3.
    Empty groups: repeated-denied rate (no request was denied) and, in the breakdown by
    trigger, flaky's timely rate on missing_param (its only abstain episode errored).
    """
    out = tmp_path_factory.mktemp("hand") / "run"
    config = RunConfig(suites=[str(mini_suite)], tasks_dir=str(mini_tasks), models=["scripted/oracle", "fixture/flaky"],
                       conditions=["tool"], out=str(out), report=False)
    run(config)
    store = RunStore(out)
    rows = [r for r in store.read_results()
            if not (r["model"] == "scripted/oracle" and r["pair_id"] == "mini-tool-failure" and r["variant"] == "act")]
    store.compact(rows)
    suite = load_suite([str(mini_suite)], tasks_dir=mini_tasks)
    plan = [s.key for s in build_plan(suite, config)]
    summary = finish(store, plan, config.model_copy(update={"report": True}), pairs=pair_attributes(suite.pairs))
    return out, summary


@pytest.fixture(scope="session")
def payload_run(tmp_path_factory, mini_tasks):
    out = tmp_path_factory.mktemp("payload") / "run"
    run(RunConfig(suites=[str(DATA / "payload.yaml")], tasks_dir=str(mini_tasks), models=["payload/evil"],
                  conditions=["nl", "tool"], out=str(out)))
    return out


@pytest.fixture(scope="session")
def payload():
    """The markup the payload model writes: its final text and a tool-call argument."""
    return {"final_text": FINAL_TEXT, "arg": ARG_PAYLOAD}


@pytest.fixture(scope="session")
def kinds_run(tmp_path_factory, mini_suite, mini_tasks):
    out = tmp_path_factory.mktemp("view") / "kinds"
    run(RunConfig(suites=[str(mini_suite)], tasks_dir=str(mini_tasks), conditions=["tool"],
                  models=["scripted/oracle", "scripted/always_act", "scripted/always_abstain"], out=str(out)))
    return out


@pytest.fixture(scope="session")
def served(kinds_run, payload_run):
    viewer = Viewer([kinds_run, payload_run])
    server = make_server(viewer, 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}", viewer
    server.shutdown()
    server.server_close()
