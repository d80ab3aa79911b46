"""Tool results that are not strict JSON never crash the episode (adversarial round 1, items 2 and 28).

A result of another type (``datetime``, ``bytes``, an object), with NaN or Infinity, circular
or too deep, is a failed observation with ``tool_error`` and a message naming the problem;
lone surrogates are replaced; a signal given as one string is one signal.
"""

from __future__ import annotations

import datetime as dt
import json
import math

import pytest

from evalkit.runtime.events import ToolExecuted
from evalkit.runtime.executor import SandboxExecutor
from evalkit.runtime.loop import run_episode
from evalkit.runtime.controller import Limits
from evalkit.runtime.model_io import ModelOutput, ToolCall
from evalkit.runtime.tools import ToolFailure, ToolResult, ToolSpec

ANY = {"type": "object"}


def _spec(fn) -> ToolSpec:
    return ToolSpec("probe", "lookup", "Probe.", ANY, fn=fn, domain="t")


def _circular():
    data: dict = {"a": 1}
    data["self"] = data
    return data


def _deep():
    data: list = []
    for _ in range(50_000):
        data = [data]
    return {"deep": data}


NOT_JSON = {
    "datetime": (lambda: {"at": dt.datetime(2024, 5, 1, 12, 0)}, "a datetime value"),
    "date_bare": (lambda: dt.date(2024, 5, 1), "a date value"),
    "bytes": (lambda: {"blob": b"\x00\x01"}, "a bytes value"),
    "object": (lambda: [1, {"x": object()}], "a object value"),
    "nan": (lambda: {"price": math.nan}, "a non-finite number (NaN or Infinity)"),
    "inf": (lambda: [math.inf], "a non-finite number (NaN or Infinity)"),
    "tool_result_nan": (lambda: ToolResult({"price": -math.inf}, signals=("conflict",)),
                        "a non-finite number (NaN or Infinity)"),
    "circular": (_circular, "a circular reference"),
    "deep": (_deep, "nesting too deep"),
    "tuple_key": (lambda: {(1, 2): "x"}, "a tuple key"),
}


@pytest.mark.parametrize("name", sorted(NOT_JSON))
def test_a_result_that_is_not_json_is_a_failed_observation_naming_the_problem(name):
    make, problem = NOT_JSON[name]
    obs = SandboxExecutor({}).run(_spec(lambda state: make()), {})
    assert (obs.ok, obs.signals) == (False, ("tool_error",))
    assert obs.result == {"message": f"probe returned a result that is not JSON ({problem}); the result was discarded"}


def test_surrogates_in_a_result_are_replaced_and_the_call_still_succeeds():
    obs = SandboxExecutor({}).run(_spec(lambda state: {"na\udc80me": ["ok", "bad \ud800 text"], "n": 1.5}), {})
    assert obs.ok and obs.signals == ()
    assert obs.result == {"na\ufffdme": ["ok", "bad \ufffd text"], "n": 1.5}


def test_surrogates_in_a_tool_failure_or_exception_message_are_replaced():
    def fail(state):
        raise ToolFailure("no such \ud800 item", ("missing_target",))

    def crash(state):
        raise ValueError("bad k\udfff")

    assert SandboxExecutor({}).run(_spec(fail), {}).result == {"message": "no such \ufffd item"}
    assert SandboxExecutor({}).run(_spec(crash), {}).result == {"message": "ValueError: bad k\ufffd"}


def test_a_signal_given_as_one_string_is_one_signal():
    obs = SandboxExecutor({}).run(_spec(lambda state: ToolResult({"x": 1}, ok=False, signals="tool_error")), {})
    assert obs.signals == ("tool_error",)
    obs = SandboxExecutor({}).run(_spec(lambda state: ToolResult({"x": 1}, signals="conflict")), {})
    assert obs.signals == ("conflict",)

    def fail(state):
        raise ToolFailure("gone", signals="missing_target")

    assert SandboxExecutor({}).run(_spec(fail), {}).signals == ("tool_error", "missing_target")


def test_an_empty_result_still_signals_empty_result():
    assert SandboxExecutor({}).run(_spec(lambda state: {}), {}).signals == ("empty_result",)
    obs = SandboxExecutor({}).run(_spec(lambda state: ToolResult([], signals="x")), {})
    assert obs.signals == ("x", "empty_result")


class _Twice:
    name = "test/twice"

    def respond(self, context, episode):
        if context.turn == 0:
            return ModelOutput(tool_calls=(ToolCall("c1", "probe", {}),))
        return ModelOutput(text="done")


def test_the_episode_goes_on_and_its_trace_is_strict_json():
    result = run_episode(model=_Twice(), episode=None, system_prompt="S",
                         tools={"probe": _spec(lambda state: {"when": dt.datetime(2024, 1, 1), "p": math.nan})},
                         state={}, permissions=(), user_message="go", limits=Limits())
    assert result.error is None and result.log.events[-1].final_text == "done"
    (executed,) = [e for e in result.log if isinstance(e, ToolExecuted)]
    assert executed.ok is False and "a datetime value" in executed.result["message"]
    text = result.log.to_jsonl().encode("utf-8").decode("utf-8")
    for line in text.splitlines():
        json.loads(line, parse_constant=lambda c: pytest.fail(f"{c} in the trace"))
