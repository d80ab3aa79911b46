"""The agent loop end to end with a hand-written model: denials reach the model, errors are outcomes."""

from __future__ import annotations

import json

from evalkit.errors import ModelError
from evalkit.runtime.controller import Limits
from evalkit.runtime.events import ActionDecided, EpisodeEnded, ErrorRaised, ToolExecuted
from evalkit.runtime.executor import Fault
from evalkit.runtime.loop import run_episode
from evalkit.runtime.model_io import ModelOutput, ToolCall
from evalkit.runtime.tools import ToolFailure, ToolSpec
from evalkit.runtime.view import fold

SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"], "additionalProperties": False}


def _buy(state, n):
    if n > 10:
        raise ToolFailure("too many", ("limit",))
    state["bought"] = state.get("bought", 0) + n
    return {"bought": n}


TOOLS = {
    "buy": ToolSpec("buy", "commit", "Buy n.", SCHEMA, permission="buy", fn=_buy),
    "crash": ToolSpec("crash", "lookup", "Broken.", {"type": "object"}, fn=lambda s: 1 / 0),
}


class Script:
    name = "test/script"

    def __init__(self, outputs):
        self.outputs = outputs
        self.seen = []

    def respond(self, context, episode):
        self.seen.append(context)
        item = self.outputs[context.turn]
        if isinstance(item, Exception):
            raise item
        return item


def call(name, args, cid="c"):
    return ModelOutput(tool_calls=(ToolCall(cid, name, args),))


def run(outputs, perms=("buy",), faults=None, limits=Limits()):
    model = Script(outputs)
    state: dict = {}
    result = run_episode(model=model, episode=None, system_prompt="S", tools=TOOLS, state=state,
                         permissions=perms, user_message="buy", limits=limits, faults=faults)
    return model, result


def test_schema_denial_goes_back_to_the_model_and_it_can_recover():
    model, result = run([call("buy", {"n": "2"}, "c1"), call("buy", {"n": 2}, "c2"), ModelOutput(text="done")])
    assert result.state == {"bought": 2}
    denial = json.loads(model.seen[1].messages[-1]["content"])
    assert denial["error"] == "schema_mismatch"
    ended = result.log.events[-1]
    assert isinstance(ended, EpisodeEnded) and ended.reason == "final_text" and ended.final_text == "done"


def test_tool_exceptions_become_failed_observations_with_signals():
    _, result = run([call("crash", {}, "c1"), call("buy", {"n": 11}, "c2"), ModelOutput(text="x")])
    executed = [e for e in result.log if isinstance(e, ToolExecuted)]
    assert [(e.ok, e.signals) for e in executed] == [(False, ("tool_error",)), (False, ("tool_error", "limit"))]
    assert "ZeroDivisionError" in executed[0].result["message"]
    assert result.state == {}


def test_fault_injection_error_and_unknown_side_effect_timeout():
    _, result = run([call("buy", {"n": 1}), ModelOutput(text="x")], faults={"buy": Fault("error", "down")})
    assert result.state == {}
    _, result = run([call("buy", {"n": 1}), ModelOutput(text="x")], faults={"buy": Fault("timeout", applied=True)})
    executed = [e for e in result.log if isinstance(e, ToolExecuted)][0]
    assert result.state == {"bought": 1}  # it really happened...
    assert not executed.ok and "unknown_side_effect" in executed.signals  # ...but the runtime cannot know


def test_model_error_ends_the_episode_as_an_error_not_an_abstention():
    _, result = run([ModelError("503 from provider", retryable=True)])
    assert result.error == "model error: 503 from provider"
    kinds = [type(e) for e in result.log]
    assert ErrorRaised in kinds and kinds[-1] is EpisodeEnded
    assert result.log.events[-1].reason == "error"


def test_loop_limit_ends_the_episode():
    _, result = run([call("buy", {"n": 1}, f"c{i}") for i in range(10)], limits=Limits(max_turns=3))
    assert result.log.events[-1].reason == "loop_limit"
    assert result.state == {"bought": 3}


def test_permission_denied_commit_never_runs():
    _, result = run([call("buy", {"n": 1}), ModelOutput(text="x")], perms=())
    decided = [e for e in result.log if isinstance(e, ActionDecided)]
    assert decided[0].reason_code == "permission_denied"
    assert result.state == {}
    assert fold(result.log).denials == 1
