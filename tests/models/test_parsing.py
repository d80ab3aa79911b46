"""Tool-call parsing: strict by default, each repair opt-in and tagged, every fault kind covered."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalkit.models.parsing import (
    find_calls_in_content,
    parse_arguments,
    parse_message,
    replay_arguments,
)

ALL = ("trailing_quotes", "fence", "double_encoded", "empty_arguments")
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
objects = st.dictionaries(st.text(max_size=10), json_values, max_size=5)


@settings(max_examples=150, deadline=None)
@given(objects, st.sampled_from(["", " ", "\n", "\t "]))
def test_any_json_object_parses_unchanged_in_every_mode(obj, pad):
    text = pad + json.dumps(obj) + pad
    for repairs in ((), ALL):
        parsed = parse_arguments(text, repairs=repairs)
        assert parsed.error is None and parsed.arguments == obj and not parsed.repaired


@settings(max_examples=60, deadline=None)
@given(objects, st.text(min_size=1, max_size=10).filter(lambda t: t.strip() and not set(t) <= set(" \t\n\r\"'`")))
def test_trailing_text_other_than_quotes_is_never_accepted(obj, tail):
    text = json.dumps(obj) + tail
    for repairs in ((), ALL):
        parsed = parse_arguments(text, repairs=repairs)
        assert parsed.arguments is None, (text, parsed)
        assert parsed.error.startswith(("trailing_data", "invalid_json"))


@pytest.mark.parametrize("tail", ['""', "'", '" "', "``", '"\n'])
def test_trailing_quotes_kind(tail):
    text = '{"dir": "a"}' + tail
    strict = parse_arguments(text)
    assert strict.arguments is None and strict.error == "trailing_data at char 12"
    lenient = parse_arguments(text, repairs={"trailing_quotes"})
    assert lenient.arguments == {"dir": "a"} and lenient.tags == {"recovered": "trailing_quotes"} and lenient.repaired


@pytest.mark.parametrize("text", ['{"a": 1}{"a": 2}', '{"a": 1', '{"a": 1} {"b": 2}', '{"a": 1}]', "{'a': 1}", "{a: 1}"])
def test_concatenated_truncated_and_non_json_stay_errors(text):
    for repairs in ((), ALL):
        assert parse_arguments(text, repairs=repairs).arguments is None


@pytest.mark.parametrize("value, kind", [("[1, 2]", "array"), ("3", "number"), ("null", "null"), ("true", "boolean")])
def test_arguments_that_are_not_an_object(value, kind):
    parsed = parse_arguments(value, repairs=ALL)
    assert parsed.arguments is None and parsed.error == f"arguments_not_object: the arguments decode to a JSON {kind}"
    assert parse_arguments([1, 2]).error == "arguments_not_object: the arguments are a JSON array"


@pytest.mark.parametrize("fence", ["```json\n{}\n```", "```\n{}\n```", "  ```JSON\n{}```  ", "```js\n{}\n```\n"])
def test_markdown_fences_kind(fence):
    text = fence.replace("{}", '{"city": "paris"}')
    assert parse_arguments(text).error == "invalid_json: markdown_fence"
    lenient = parse_arguments(text, repairs={"fence"})
    assert lenient.arguments == {"city": "paris"} and lenient.tags == {"recovered": "fence"}
    # a fence around trailing garbage is still garbage
    assert parse_arguments(fence.replace("{}", '{"a": 1} tail'), repairs={"fence"}).arguments is None


def test_empty_arguments_are_an_error_unless_opted_in():
    for raw in ("", "   ", None):
        assert parse_arguments(raw).error == "invalid_json: empty arguments"
        repaired = parse_arguments(raw, repairs={"empty_arguments"})
        assert repaired.arguments == {} and repaired.tags == {"recovered": "empty"} and repaired.repaired


def test_double_encoding_is_unwrapped_once_and_only_to_the_schema_type():
    once = json.dumps(json.dumps({"city": "Oslo"}))
    twice = json.dumps(once)
    assert parse_arguments(once, repairs={"double_encoded"}).arguments == {"city": "Oslo"}
    assert parse_arguments(twice, repairs={"double_encoded"}).arguments is None  # exactly one extra level
    schema = {"type": "object", "properties": {"items": {"type": "array"}, "meta": {"type": "object"},
                                               "note": {"type": "string"}, "either": {"type": ["string", "array"]},
                                               "nested": {"type": "object", "properties": {"xs": {"type": "array"}}}}}
    args = json.dumps({"items": "[1, 2]", "meta": '{"k": 1}', "note": "[1, 2]", "either": "[3]",
                       "nested": {"xs": "[4]"}})
    strict = parse_arguments(args, schema)
    assert strict.arguments["items"] == "[1, 2]" and not strict.repaired
    fixed = parse_arguments(args, schema, repairs={"double_encoded"})
    assert fixed.arguments == {"items": [1, 2], "meta": {"k": 1}, "note": "[1, 2]", "either": "[3]",
                               "nested": {"xs": [4]}}
    assert fixed.tags["double_encoded_paths"] == ["$.items", "$.meta", "$.nested.xs"]
    # a string that decodes to the wrong container type is left alone
    assert parse_arguments(json.dumps({"items": '{"k": 1}'}), schema, repairs={"double_encoded"}).arguments == {
        "items": '{"k": 1}'}


def test_ids_are_synthesized_when_missing_or_repeated():
    message = {"tool_calls": [
        {"function": {"name": "a", "arguments": "{}"}},
        {"id": "call_0", "function": {"name": "a", "arguments": "{}"}},
        {"id": "call_0", "function": {"name": "a", "arguments": "{}"}},
        {"id": "", "function": {"name": "a", "arguments": "{}"}},
    ]}
    parsed = parse_message(message, schemas={"a": {}}, id_prefix="evalkit_call_3_", taken_ids={"call_9"})
    ids = [c.id for c in parsed.calls]
    assert len(set(ids)) == 4 and ids[1] == "call_0" and ids[0].startswith("evalkit_call_3_")
    tags = {t["call_id"]: t["tags"] for t in parsed.tagged}
    assert tags[ids[2]] == {"synthetic_id": True, "duplicate_id": "call_0"}
    # an id already used earlier in the episode (some servers restart numbering every turn)
    again = parse_message({"tool_calls": [{"id": "call_9", "function": {"name": "a", "arguments": "{}"}}]},
                          schemas={"a": {}}, id_prefix="evalkit_call_4_", taken_ids={"call_9"})
    assert again.calls[0].id == "evalkit_call_4_0"


def test_empty_names_and_junk_entries_are_kept_as_failed_calls():
    message = {"tool_calls": [{"id": "x", "function": {"name": "  ", "arguments": "{}"}}, "junk", {"id": "y"}]}
    calls = parse_message(message, schemas={}).calls
    assert len(calls) == 3
    assert all(c.arguments is None and c.parse_error.startswith("empty_tool_name") for c in calls)


def test_legacy_function_call_is_read_when_there_are_no_tool_calls():
    parsed = parse_message({"content": None, "function_call": {"name": "a", "arguments": '{"q": 1}'}}, schemas={"a": {}})
    assert parsed.calls[0].arguments == {"q": 1} and parsed.tagged[0]["tags"]["legacy_function_call"]
    # llama.cpp sends an empty legacy field next to real tool calls: ignored
    both = parse_message({"tool_calls": [{"id": "c", "function": {"name": "a", "arguments": "{}"}}],
                          "function_call": {"name": "", "arguments": "{}"}}, schemas={"a": {}})
    assert [c.name for c in both.calls] == ["a"]


@pytest.mark.parametrize("text, fmt, name", [
    ('<tool_call>{"name": "lookup", "arguments": {"query": "x"}}</tool_call>', "hermes", "lookup"),
    ('<tool_call>\n{"name": "lookup", "arguments": "{\\"query\\": \\"x\\"}"}', "hermes", "lookup"),  # unterminated
    ('<|python_tag|>{"name": "lookup", "parameters": {"query": "x"}}<|eom_id|>', "python_tag", "lookup"),
    ('{"name": "lookup", "parameters": {"query": "x"}}', "bare_json", "lookup"),
    ('Sure: [{"name": "lookup", "arguments": {"query": "x"}}]', "bare_json", "lookup"),
])
def test_calls_written_as_text_are_flagged_or_extracted(text, fmt, name):
    schemas = {"lookup": {"type": "object"}}
    default = parse_message({"content": text}, schemas=schemas)
    assert default.calls == () and default.flags == ("call_in_content",)
    extracted = parse_message({"content": text}, schemas=schemas, extract={fmt})
    assert [c.name for c in extracted.calls] == [name] and extracted.calls[0].arguments == {"query": "x"}
    assert extracted.flags == () and extracted.tagged[0]["tags"]["source"] == "content"
    assert extracted.tagged[0]["tags"]["format"] == fmt
    # another format's extraction leaves it flagged
    other = "hermes" if fmt != "hermes" else "bare_json"
    assert parse_message({"content": text}, schemas=schemas, extract={other}).flags == ("call_in_content",)


@pytest.mark.parametrize("text", [
    'Here is the record: {"name": "Alice", "age": 30}',
    '{"name": "lookup"}',  # no arguments key
    '{"name": "not_offered", "arguments": {}}',
    "I looked it up for you.",
    "Use `<tool_call>` tags to call tools.",
])
def test_prose_and_decoys_are_never_calls(text):
    parsed = parse_message({"content": text}, schemas={"lookup": {}}, extract={"hermes", "python_tag", "bare_json"})
    assert parsed.calls == ()
    assert find_calls_in_content(text, {"lookup"}) == []


def test_unreadable_markup_is_an_act_attempt_even_when_extraction_is_on():
    text = '<tool_call>\n<tool_call name="math.solve" arguments={"a": 1}/>\n</tool_call>'
    parsed = parse_message({"content": text}, schemas={"get_weather": {}}, extract={"hermes"})
    assert parsed.calls == () and parsed.flags == ("call_in_content",)


@pytest.mark.parametrize("recorded, sent", [
    ({"b": 1, "a": [1]}, '{"a": [1], "b": 1}'),
    ('{"x": 1}', '{"x": 1}'),
    ('{}""', "{}"),
    ('"{\\"x\\": 1}"', "{}"),
    ("```json\n{}\n```", "{}"),
    ('{"path": "main.py", "new_str": "def f(:', "{}"),
    (None, "{}"),
])
def test_replay_never_sends_invalid_arguments(recorded, sent):
    assert replay_arguments(recorded) == sent


DEEP = '{"a": [' + "[" * 100_000 + "]" * 100_000 + "]}"


@pytest.mark.parametrize("text, reason", [
    ('{"customer_id": NaN}', "NaN is not JSON"),
    ('{"amount": Infinity}', "Infinity is not JSON"),
    ('{"amount": -Infinity}', "-Infinity is not JSON"),
    ('{"amount": 1e999}', "1e999 overflows to infinity"),
    (DEEP, "nested too deep"),
    ('{"quantity": 1' + "0" * 5000 + "}", "an integer too long to convert"),
    ('{"customer_id": "C-9", "customer_id": "C-1"}', "duplicate key 'customer_id'"),
    ('{"refund": {"amount": 5, "amount": 500}}', "duplicate key 'amount'"),
], ids=["nan", "inf", "-inf", "overflow", "deep", "huge-int", "duplicate-key", "nested-duplicate-key"])
def test_non_finite_numbers_and_deep_nesting_are_parse_errors_in_every_mode(text, reason):
    for repairs in ((), ALL):
        parsed = parse_arguments(text, repairs=repairs)
        assert (parsed.arguments, parsed.error) == (None, f"invalid_json: {reason}")
    (call,) = parse_message({"tool_calls": [{"id": "c1", "function": {"name": "pay", "arguments": text}}]},
                            schemas={"pay": {}}).calls
    assert call.arguments is None and call.parse_error == f"invalid_json: {reason}"
    assert parse_arguments('{"amount": 1e308, "x": -0.5}').arguments == {"amount": 1e308, "x": -0.5}
    assert parse_arguments('{"a": {"id": 1}, "b": {"id": 2}}').arguments == {"a": {"id": 1}, "b": {"id": 2}}


@pytest.mark.parametrize("kind", ["custom", "banana", 5, ["function"]])
def test_a_call_of_a_type_other_than_function_is_denied_even_with_a_function_body(kind):
    message = {"tool_calls": [{"id": "c1", "type": kind, "function": {"name": "a", "arguments": '{"x": 1}'}}]}
    [call] = parse_message(message, schemas={"a": {}}).calls
    assert call.name == "a" and call.arguments is None
    assert call.parse_error.startswith("unsupported_call_type: a ")


@pytest.mark.parametrize("extra", [{"type": "function"}, {}])
def test_a_function_call_with_or_without_a_type_is_read(extra):
    message = {"tool_calls": [{"id": "c1", **extra, "function": {"name": "a", "arguments": '{"x": 1}'}}]}
    [call] = parse_message(message, schemas={"a": {}}).calls
    assert (call.name, call.arguments, call.parse_error) == ("a", {"x": 1}, None)
