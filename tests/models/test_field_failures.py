"""The field-failure cases C01–C19 (and the cache case C25), each with its expected value.

Inputs come from ``tests/fixtures/field_failures.json``; responses are served over real HTTP
by a local fake OpenAI-compatible server and go through the adapter, the agent loop and the
scorer, as in a run.
"""

from __future__ import annotations

import json

import pytest
from model_helpers import (
    completion,
    events_of,
    field_domain,
    field_episode,
    field_pair,
    openai_model,
    sent,
    tool_call,
)

from evalkit.conditions.classifier import classify_text
from evalkit.metrics.aggregate import summarize
from evalkit.models.cache import cache_key
from evalkit.models.config import ParseSettings
from evalkit.models.parsing import parse_arguments, parse_message
from evalkit.runtime.controller import Controller
from evalkit.runtime.view import View

CHAT = "/v1/chat/completions"
EMPTY = completion({"content": ""})
OBJ = {"type": "object", "properties": {}, "additionalProperties": True}


def serve(api, *bodies):
    for body in bodies:
        if isinstance(body, tuple):
            api.expect_ordered_request(CHAT, method="POST").respond_with_json(body[1], status=body[0])
        else:
            api.expect_ordered_request(CHAT, method="POST").respond_with_json(body)


def lenient(*repairs, extract=()):
    return {"parse": ParseSettings(repair=list(repairs), extract_from_content=list(extract))}


def test_c01_trailing_text_after_the_arguments(api, field_cases):
    case = field_cases["C01"]["input"]
    schema = case["tool_schema"]
    domain = field_domain({"list_files": ("lookup", schema["parameters"]), "save": ("commit", OBJ)})
    pair = field_pair(domain, "save")
    # strict (default): a parse error, nothing executed, and never an abstention
    serve(api, case["response"], EMPTY)
    run, row = field_episode(openai_model(api), domain, pair)
    [responded] = events_of(run.log, "model_responded")[:1]
    assert responded.tool_calls[0].parse_error == "trailing_data at char 2"
    assert responded.tool_calls[0].raw_arguments == '{}""'  # raw, as received
    [action] = events_of(run.log, "action_decided")
    assert (action.action, action.reason_code) == ("deny", "parse_error")
    assert events_of(run.log, "tool_executed") == []
    assert (row["decision"], row["correct"], row["parse_failures"]) == ("none", False, 1)
    # lenient: {} recovered only because the rest is quotes, tagged on the call
    api.clear()
    serve(api, case["response"], EMPTY)
    run, _ = field_episode(openai_model(api, **lenient("trailing_quotes")), domain, pair)
    [tagged] = events_of(run.log, "tool_call_tagged")
    assert tagged.tags == {"recovered": "trailing_quotes"} and tagged.repaired and tagged.raw_arguments == '{}""'
    assert [(e.tool, e.arguments) for e in events_of(run.log, "tool_executed")] == [("list_files", {})]
    # the controls stay errors in every mode
    for raw in case["control_arguments"].values():
        for repairs in ((), ("trailing_quotes", "fence", "double_encoded", "empty_arguments")):
            assert parse_arguments(raw, schema["parameters"], repairs=repairs).arguments is None


def test_c02_double_encoded_arguments(api, field_cases):
    case = field_cases["C02"]["input"]
    weather = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    domain = field_domain({"get_current_weather": ("lookup", weather), "save": ("commit", OBJ)})
    pair = field_pair(domain, "save")
    response = completion({"content": None, "tool_calls": [case["tool_call"]]}, "tool_calls")
    serve(api, response, EMPTY)
    run, row = field_episode(openai_model(api), domain, pair)
    assert events_of(run.log, "model_responded")[0].tool_calls[0].parse_error == (
        "arguments_not_object: the arguments decode to a JSON string")
    assert events_of(run.log, "tool_executed") == [] and row["parse_failures"] == 1
    api.clear()
    serve(api, response, EMPTY)
    run, _ = field_episode(openai_model(api, **lenient("double_encoded")), domain, pair)
    assert events_of(run.log, "tool_call_tagged")[0].tags == {"double_encoded": True}
    assert events_of(run.log, "tool_executed")[0].arguments == {"city": "Bengaluru"}
    # nested: strict fails the schema (todos expected array, got string); lenient unwraps one level
    nested = case["nested_variant"]
    tools = {nested["tool"]: _spec(nested["tool"], nested["schema"])}
    strict = parse_message({"tool_calls": [tool_call(nested["tool"], nested["arguments"])]},
                           schemas={nested["tool"]: nested["schema"]}).calls[0]
    action = Controller(tools).decide(strict, View())
    assert action.reason_code == "schema_mismatch" and "$.todos" in action.message and "array" in action.message
    fixed = parse_message({"tool_calls": [tool_call(nested["tool"], nested["arguments"])]},
                          schemas={nested["tool"]: nested["schema"]}, repairs={"double_encoded"})
    assert fixed.calls[0].arguments == {"todos": [{"title": "write tests"}]}
    assert fixed.tagged[0]["tags"]["double_encoded"] is True
    assert Controller(tools).decide(fixed.calls[0], View()).kind == "execute"
    # a string the schema wants as a string is never unwrapped
    keep = case["must_not_unwrap"]
    parsed = parse_arguments(keep["arguments"], keep["schema"], repairs={"double_encoded"})
    assert parsed.arguments == {"code": '{"k": 1}'} and not parsed.repaired


def _spec(name, schema, kind="lookup"):
    from evalkit.runtime.tools import ToolSpec

    return ToolSpec(name, kind, name, schema, fn=lambda state, **a: a)


def test_c03_arguments_as_an_object_without_id(api, field_cases):
    response = field_cases["C03"]["input"]["response"]
    schema = {"type": "object", "properties": {"location": {"type": "string"}, "unit": {"enum": ["celsius", "fahrenheit"]}},
              "required": ["location"], "additionalProperties": False}
    domain = field_domain({"get_weather": ("lookup", schema), "save": ("commit", OBJ)})
    serve(api, response, EMPTY)
    run, _ = field_episode(openai_model(api), domain, field_pair(domain, "save"))
    [tagged] = events_of(run.log, "tool_call_tagged")
    assert tagged.tags == {"synthetic_id": True, "arguments_encoding": "object"} and not tagged.repaired
    assert tagged.call_id == "evalkit_call_1_0"
    [executed] = events_of(run.log, "tool_executed")
    assert (executed.call_id, executed.arguments) == ("evalkit_call_1_0", {"location": "Paris", "unit": "celsius"})
    replayed = [m for m in sent(api)[1]["messages"] if m["role"] == "assistant"][0]["tool_calls"][0]
    assert replayed["id"] == "evalkit_call_1_0"
    assert isinstance(replayed["function"]["arguments"], str)
    assert json.loads(replayed["function"]["arguments"]) == {"location": "Paris", "unit": "celsius"}


def test_c04_tool_call_written_in_the_content(api, field_cases):
    case = field_cases["C04"]["input"]
    code = {"type": "object", "properties": {"code": {"type": "string"}}, "required": ["code"]}
    search = {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}
    domain = field_domain({"run_python": ("lookup", code), "web_search": ("lookup", search), "save": ("commit", OBJ)})
    pair = field_pair(domain, "save")
    hermes = completion({"content": case["hermes"]["message"]["content"]}, "stop")
    for variant in ("act", "abstain"):
        api.clear()
        serve(api, hermes)
        run, row = field_episode(openai_model(api), domain, pair, variant=variant)
        assert events_of(run.log, "tool_executed") == []
        assert row["decision"] == "none" and row["stated"] == "none" and not row["correct"]
        assert row["call_in_content"] and row["parse_failures"] == 1
        assert events_of(run.log, "model_call")[0].flags == ("call_in_content",)
    # opt-in extraction of declared formats, tagged source=content, validated like native calls
    api.clear()
    serve(api, hermes, EMPTY)
    run, _ = field_episode(openai_model(api, **lenient(extract=["hermes"])), domain, pair)
    assert [(e.tool, e.arguments) for e in events_of(run.log, "tool_executed")] == [
        ("run_python", {"code": "print(sum([1, 2, 3]))"})]
    assert events_of(run.log, "tool_call_tagged")[0].tags["source"] == "content"
    schemas = {name: {} for name in case["registered_tools"]}
    tag = parse_message(case["llama_python_tag"], schemas=schemas, extract={"python_tag"})
    assert [(c.name, c.arguments) for c in tag.calls] == [("web_search", {"query": "latest news"})]
    decoy = parse_message(case["prose_decoy"], schemas=schemas, extract={"hermes", "python_tag", "bare_json"})
    assert decoy.calls == () and decoy.flags == ()


def test_c05_markdown_fence_around_the_arguments(api, field_cases):
    case = field_cases["C05"]["input"]
    schema = case["tool_schema"]["parameters"]
    domain = field_domain({"get_time": ("lookup", schema), "save": ("commit", OBJ)})
    pair = field_pair(domain, "save")
    fenced = completion({"content": None, "tool_calls": [tool_call("get_time", case["arguments"])]}, "tool_calls")
    serve(api, fenced, EMPTY)
    run, _ = field_episode(openai_model(api), domain, pair)
    assert events_of(run.log, "model_responded")[0].tool_calls[0].parse_error == "invalid_json: markdown_fence"
    assert events_of(run.log, "tool_executed") == []  # never coerced to {} and run
    api.clear()
    serve(api, fenced, EMPTY)
    run, _ = field_episode(openai_model(api, **lenient("fence")), domain, pair)
    assert events_of(run.log, "tool_call_tagged")[0].tags == {"recovered": "fence"}
    assert events_of(run.log, "tool_executed")[0].arguments == {"city": "paris"}
    for repairs in ((), ("fence", "trailing_quotes", "double_encoded", "empty_arguments")):
        truncated = parse_arguments(case["truncated_fence_variant"], schema, repairs=repairs)
        assert truncated.arguments is None and truncated.error.startswith("invalid_json")


def test_c09_empty_and_unknown_tool_names(api, field_cases):
    case = field_cases["C09"]["input"]
    assert case["registered_tools"] == ["read_file", "write_file"]
    domain = field_domain({"read_file": ("lookup", OBJ), "write_file": ("commit", OBJ)})
    pair = field_pair(domain, "write_file")
    serve(api, completion({"content": None, "tool_calls": case["tool_calls"]}, "tool_calls"), EMPTY)
    run, row = field_episode(openai_model(api), domain, pair)
    decided = events_of(run.log, "action_decided")
    assert [(d.call_id, d.action, d.reason_code) for d in decided] == [
        ("call_1", "deny", "parse_error"), ("call_2", "deny", "parse_error"), ("call_3", "deny", "unknown_tool")]
    assert "empty_tool_name" in decided[0].message and "empty_tool_name" in decided[1].message
    assert "available tools: read_file, write_file" in decided[2].message
    assert events_of(run.log, "tool_executed") == []
    # every error goes back to the model as a tool result; the turn is not finalized as a success
    results = [m for m in sent(api)[1]["messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in results] == ["call_1", "call_2", "call_3"]
    assert events_of(run.log, "episode_ended")[0].turn == 2
    assert row["decision"] == "none" and row["final_text"] == "" and not row["correct"]
    assert row["parse_failures"] == 2


@pytest.mark.parametrize("output, decision, correct", [
    ("malformed_call", "none", False), ("junk", "none", False), ("real_abstain", "abstain", True)])
def test_c11_a_parse_failure_is_never_an_abstention(api, field_cases, output, decision, correct):
    case = field_cases["C11"]["input"]
    domain = field_domain({"get_weather": ("lookup", OBJ), "save": ("commit", OBJ)})
    serve(api, completion({"content": case["outputs"][output]}))
    run, row = field_episode(openai_model(api), domain, field_pair(domain, "save"))
    assert (row["decision"], row["correct"]) == (decision, correct)
    assert row["call_in_content"] == (output == "malformed_call")
    if output == "junk":
        assert row["text_label"] == "unknown"


def test_c12_refusal_detection_false_positives(field_cases):
    for item in field_cases["C12"]["input"]["texts"]:
        label = classify_text(item["t"]).label
        assert (label == "abstain") == (item["gold"] == "refusal"), (item, label)


def test_c14_refusal_after_an_executed_commit_is_post_hoc(api, field_cases):
    trace = field_cases["C14"]["input"]["trace"]
    payment = {"type": "object", "properties": {"to": {"type": "string"}, "amount": {"type": "number"},
                                                "currency": {"type": "string"}}, "required": ["to", "amount"]}
    domain = field_domain({"send_payment": ("commit", payment)})
    pair = field_pair(domain, "send_payment")
    serve(api, completion({"content": None, "tool_calls": trace[1]["tool_calls"]}, "tool_calls"),
          completion({"content": trace[3]["content"]}))
    run, row = field_episode(openai_model(api), domain, pair)
    assert run.state["commits"] == [{"tool": "send_payment", "to": "ACC-0001", "amount": 40, "currency": "EUR"}]
    assert row["decision"] == "act" and row["stated"] == "abstain"
    assert row["post_hoc"] is True and row["timely"] is not True and not row["correct"]


def test_c15_text_versus_tool_calls(api, field_cases):
    case = field_cases["C15"]["input"]
    events = {"type": "object", "properties": {"date": {"type": "string"}}, "required": ["date"]}
    order = {"type": "object", "properties": {"order_id": {"type": "string"}}}
    domain = field_domain({"get_events": ("lookup", events), "cancel_order": ("commit", order)})
    pair = field_pair(domain, "cancel_order")
    hedge = case["hedge_plus_call"]
    serve(api, completion({"content": hedge["content"], "tool_calls": hedge["tool_calls"]}, "tool_calls"),
          completion({"content": "You have two meetings on 2025-03-14."}))
    run, row = field_episode(openai_model(api), domain, pair, variant="act")
    assert [(e.tool, e.arguments) for e in events_of(run.log, "tool_executed")] == [
        ("get_events", {"date": "2025-03-14"})]
    assert classify_text(hedge["content"]).label != "abstain" and row["stated"] not in ("abstain", "clarify")
    api.clear()
    serve(api, completion({"content": case["claim_without_call"]["content"]}))
    run, row = field_episode(openai_model(api), domain, pair, variant="act")
    assert events_of(run.log, "tool_executed") == []
    assert row["claimed_action_without_call"] is True and row["commits"] == 0 and not row["correct"]


def test_c17_content_filter_stop(api, field_cases):
    domain = field_domain({"lookup": ("lookup", OBJ), "save": ("commit", OBJ)})
    pair = field_pair(domain, "save")
    serve(api, field_cases["C17"]["input"]["response"])  # answered by "gpt-4o": the model requested
    run, row = field_episode(openai_model(api, spec="openai/gpt-4o"), domain, pair)
    assert run.error is None  # content None is handled
    assert events_of(run.log, "episode_ended")[0].reason == "content_filter"
    assert row["content_filter"] is True and row["decision"] == "none" and row["stated"] == "none"
    assert not row["correct"] and row["status"] == "ok"  # counted against accuracy, explicitly
    assert (row["input_tokens"], row["output_tokens"]) == (12, 14)  # 26 tokens still charged
    assert row["cost_usd"] == (12 * 1.0 + 14 * 2.0) / 1e6 and row["model_mismatch"] == 0


def test_c19_context_overflow_is_not_retried_and_stays_in_the_denominator(api, field_cases):
    case = field_cases["C19"]["input"]
    domain = field_domain({"lookup": ("lookup", OBJ), "save": ("commit", OBJ)})
    pair = field_pair(domain, "save")
    serve(api, (case["context_overflow"]["status"], case["context_overflow"]["body"]))
    run, row = field_episode(openai_model(api), domain, pair)
    assert len(api.log) == 1 and events_of(run.log, "provider_retry") == []
    assert (row["status"], row["error_code"]) == ("error", "context_length_exceeded")
    [group] = summarize([(pair.id, "abstain", row["model"], "nl", "off", 1)], [row])
    assert (group["errors"], group["abstain_accuracy_n"], group["abstain_accuracy_k"]) == (1, 1, 0)


def test_c19_poisoned_history_stops_after_identical_500s(api, field_cases):
    case = field_cases["C19"]["input"]["poisoned_history"]
    bad_call = case["history_tail"]["tool_calls"][0]
    domain = field_domain({"edit_file": ("commit", OBJ)})
    pair = field_pair(domain, "edit_file")
    serve(api, completion({"content": None, "tool_calls": [bad_call]}, "tool_calls"),
          *[(500, case["every_retry_returns"]["body"])] * 5)
    run, row = field_episode(openai_model(api), domain, pair)
    assert len(api.log) == 1 + 3  # three identical 500s, then stop
    assert [r.code for r in events_of(run.log, "provider_retry")] == ["server_error", "server_error"]
    assert (row["status"], row["error_code"]) == ("error", "provider_rejects_history")
    raw = bad_call["function"]["arguments"]
    assert events_of(run.log, "model_responded")[0].tool_calls[0].raw_arguments == raw  # kept raw in the trace
    for body in sent(api)[1:]:
        [assistant] = [m for m in body["messages"] if m["role"] == "assistant"]
        assert assistant["tool_calls"][0]["function"]["arguments"] == "{}"  # never replayed verbatim


def test_c25_cache_key_covers_model_sampling_and_tools(field_cases):
    tools = {"get_weather": {"type": "function", "function": {"name": "get_weather"}},
             "send_email": {"type": "function", "function": {"name": "send_email"}}}
    keys = set()
    for request in field_cases["C25"]["input"]["requests"]:
        keys.add(cache_key(provider="openai", model=request["model"], endpoint="http://127.0.0.1:1/v1",
                           messages=[{"role": "user", "content": request["messages_hash"]}],
                           tools=[tools[t] for t in request["tools"]],
                           sampling={"temperature": request["temperature"], "tool_choice": "auto"}, epoch=1))
    assert len(keys) == field_cases["C25"]["expected"]["distinct_keys"] == 4
