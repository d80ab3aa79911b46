"""The per-episode hot paths give the same answers as the plain computations they replace.

Reused work (the token estimate of the tool definitions, memoised argument validation and
classifier verdicts, one JSON encoder per trace, generated ``to_dict``) must never change a
context, a denial, a verdict or a trace line.
"""

from __future__ import annotations

import json
import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalkit.conditions.classifier import CACHE_MAX_CHARS, _classify, classify_text
from evalkit.conditions.meta_tools import plain_meta_tools, typed_meta_tool
from evalkit.runtime.context import _dumps, build_context, estimate_tokens, estimate_tool_tokens
from evalkit.runtime.controller import schema_errors
from evalkit.runtime.events import (
    ContextBuilt,
    EpisodeStarted,
    EventLog,
    ModelResponded,
    ToolExecuted,
    UserMessage,
    _json_default,
)

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])

JSON_LEAVES = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6),
                        st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=12))
JSON_VALUES = st.recursive(JSON_LEAVES, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)), max_leaves=12)

TOOLS = [t.definition() for t in plain_meta_tools().values()]


def _log() -> EventLog:
    log = EventLog()
    log.append(EpisodeStarted, 0, episode_id="e", tools=("find", "buy"), limits={"max_turns": 3})
    log.append(UserMessage, 0, content="Buy 2 apples, «fresh» ones.")
    log.append(ContextBuilt, 1, tokens=120, included=(0, 1))
    log.append(ModelResponded, 1, tool_calls=({"id": "c1", "name": "find", "arguments": {"name": "apple"},
                                              "parse_error": None},), latency_s=0.25)
    log.append(ToolExecuted, 1, call_id="c1", tool="find", kind="lookup", arguments={"name": "apple"},
               result={"found": True, "price": 2.5, "tags": ["red", None]}, signals=("empty_result",))
    return log


# ----------------------------------------------------------------------------- context builder

def test_a_given_tool_estimate_builds_the_same_context_as_one_computed_here():
    events = _log().events
    computed = build_context(events, system_prompt="You are careful.", tools=TOOLS, budget=4000)
    given_ = build_context(events, system_prompt="You are careful.", tools=TOOLS, budget=4000,
                           tool_tokens=estimate_tool_tokens(TOOLS))
    assert given_ == computed
    assert estimate_tool_tokens(TOOLS) == estimate_tokens(json.dumps(TOOLS, ensure_ascii=False, sort_keys=True))
    head = [{"role": "system", "content": "You are careful."}, {"role": "user", "content": "Buy 2 apples, «fresh» ones."}]
    turn = [computed.messages[2], computed.messages[3]]
    assert computed.tokens == (estimate_tokens(json.dumps(head, ensure_ascii=False, sort_keys=True))
                               + estimate_tool_tokens(TOOLS)
                               + estimate_tokens(json.dumps(turn, ensure_ascii=False, sort_keys=True)))


def test_the_head_estimate_follows_the_system_prompt_and_the_first_message():
    events = _log().events
    short = build_context(events, system_prompt="S", tools=TOOLS)
    long = build_context(events, system_prompt="S" * 400, tools=TOOLS)
    assert long.tokens - short.tokens == 100  # 399 more characters of JSON: ceil(/4) of the whole head


@SETTINGS
@given(JSON_VALUES)
def test_the_context_encoder_writes_what_json_dumps_writes(value):
    assert _dumps(value) == json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def test_meta_tools_are_the_same_objects_in_a_new_dict_each_time():
    first, second = plain_meta_tools(), plain_meta_tools()
    assert first is not second and all(first[name] is second[name] for name in first) and len(first) == 7
    first.pop("request_tool")
    assert "request_tool" in plain_meta_tools()
    assert typed_meta_tool()["meta_request"] is typed_meta_tool()["meta_request"]


# ----------------------------------------------------------------------------- argument validation

SCHEMA = {"type": "object", "properties": {"qty": {"type": "integer", "minimum": 1},
                                           "tags": {"type": "array", "items": {"type": "string"}}},
          "required": ["qty"], "additionalProperties": False}


def test_a_memoised_verdict_is_the_validators_verdict():
    assert schema_errors(SCHEMA, {"qty": 2}) == [] and schema_errors(SCHEMA, {"qty": 2}) == []
    bad = schema_errors(SCHEMA, {"qty": 0})
    assert bad == ["$.qty: 0 is less than the minimum of 1"] and schema_errors(SCHEMA, {"qty": 0}) == bad
    bad.append("changed by the caller")
    assert schema_errors(SCHEMA, {"qty": 0}) == ["$.qty: 0 is less than the minimum of 1"]


def test_values_that_print_alike_but_validate_differently_are_not_confused():
    assert schema_errors(SCHEMA, {"qty": 1}) == []
    assert schema_errors(SCHEMA, {"qty": True}) == ["$.qty: True is not of type 'integer'"]
    assert schema_errors(SCHEMA, {"qty": "1"}) == ["$.qty: '1' is not of type 'integer'"]
    assert schema_errors(SCHEMA, {"qty": 1, "tags": ["a"]}) == []
    assert schema_errors(SCHEMA, {"qty": 1, "tags": ("a",)}) == ["$.tags: ('a',) is not of type 'array'"]

    class Sneaky(int):  # not a plain JSON type: validated every time, never memoised
        def __repr__(self) -> str:
            return "1"

    assert schema_errors(SCHEMA, {"qty": Sneaky(0)}) == ["$.qty: 1 is less than the minimum of 1"]
    assert schema_errors(SCHEMA, {"qty": 1}) == []


# ----------------------------------------------------------------------------- classifier

def test_a_cached_verdict_is_the_classifiers_verdict():
    texts = ["Done: I have completed your request.", "I'm sorry, but I cannot do this request.",
             "Which account should I use?", "", None, "x" * (CACHE_MAX_CHARS + 1)]
    from evalkit.conditions.classifier.decide import _clip
    from evalkit.conditions.classifier.learned import _combine

    for text in texts:
        read = None if text is None else _clip(text)  # what every reading sees: long letter runs cut
        rules = _classify(read)
        assert classify_text(text, reader="rules") == rules
        assert classify_text(text, reader="rules") == rules  # second call: from the cache when short
        combined = rules if rules.label == "unknown" else _combine(read or "", rules)
        assert classify_text(text) == combined
        assert classify_text(text) == combined


# ----------------------------------------------------------------------------- traces

def _reference_jsonl(log: EventLog) -> str:
    lines = []
    for e in log:
        data = {"type": e.type, **{name: getattr(e, name) for name in e.__dataclass_fields__}}
        if "tool_calls" in data:  # ToolCall objects, written as their trace form
            data["tool_calls"] = [c.to_dict() for c in data["tool_calls"]]
        lines.append(json.dumps(data, ensure_ascii=False, allow_nan=False, default=_json_default) + "\n")
    return "".join(lines)


def test_a_trace_is_the_json_dumps_of_each_event():
    log = _log()
    assert log.to_jsonl() == _reference_jsonl(log)
    assert EventLog.from_jsonl(log.to_jsonl()).events == log.events
    assert list(log.events[0].to_dict()) == ["type", "seq", "turn", "episode_id", "pair_id", "variant", "condition",
                                             "model", "domain", "tools", "permissions", "limits", "gate", "rules"]


@SETTINGS
@given(JSON_VALUES, st.text(max_size=20))
def test_any_tool_result_is_written_as_json_dumps_writes_it(result, text):
    log = EventLog()
    log.append(UserMessage, 0, content=text)
    log.append(ToolExecuted, 1, call_id="c1", tool="find", kind="lookup", arguments={"q": text}, result=result)
    assert log.to_jsonl() == _reference_jsonl(log)


def test_an_event_that_is_not_strict_json_is_still_written_sanitised_after_a_good_one():
    log = EventLog()
    log.append(UserMessage, 0, content="fine")
    log.append(ToolExecuted, 1, call_id="c1", tool="find", kind="lookup", arguments={}, result={"x": math.nan})
    lines = log.to_jsonl().splitlines()
    assert json.loads(lines[0])["content"] == "fine" and json.loads(lines[1])["result"] == {"x": "<nan>"}
    assert log.to_jsonl() == "\n".join(lines) + "\n"  # a failed encoding leaves nothing behind for the next call
