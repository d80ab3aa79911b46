"""A response whose answer holds U+FFFD (bytes that were not valid UTF-8, a multi-byte character
cut apart) or a lone surrogate: the text is kept as received and the response is flagged
``undecodable_text`` once by either translator, counted in the row, the provider summary, the
CLI line and the report. Clean text is never flagged."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
from provider_helpers import PAIR, Endpoint, events, pair_suite, run_pair

from evalkit.models.anthropic_messages import translate_anthropic
from evalkit.models.openai_compat import translate_openai
from evalkit.models.reply import UNDECODABLE_TEXT, text_flags

BAD = "I can\ufffd\ufffd not do that"
"""The text of :data:`INVALID_UTF8_BODY` once decoded: each invalid byte is one U+FFFD."""

INVALID_UTF8_BODY = (b'{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"message":'
                     b'{"role":"assistant","content":"I can\xff\xfe not do that"},"finish_reason":"stop"}],'
                     b'"usage":{"prompt_tokens":100,"completion_tokens":10,"total_tokens":110}}')
"""A chat completion whose content holds the raw bytes ``FF FE``, never valid in UTF-8."""

CLEAN_BODY = {"id": "y", "object": "chat.completion", "model": "m",
              "choices": [{"index": 0, "message": {"role": "assistant", "content": "How many mugs would you like?"},
                           "finish_reason": "stop"}],
              "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}}


def openai_message(**message) -> dict:
    """A chat completion holding ``message`` (an assistant message's fields)."""
    finish = "tool_calls" if message.get("tool_calls") else "stop"
    return {"id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o",
            "choices": [{"index": 0, "finish_reason": finish, "message": {"role": "assistant", **message}}],
            "usage": {"prompt_tokens": 900, "completion_tokens": 10, "total_tokens": 910}}


def anthropic_body(*content: dict, stop: str = "end_turn") -> dict:
    """A Messages API response holding the content blocks ``content``."""
    return {"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": list(content), "stop_reason": stop, "stop_sequence": None,
            "usage": {"input_tokens": 900, "output_tokens": 10}}


def call(arguments: object, kind: str = "function") -> dict:
    return {"id": "call_1", "type": kind, kind: {"name": "pay", "arguments": arguments}}


OPENAI_UNDECODABLE = {
    "content": {"content": BAD},
    "content parts": {"content": [{"type": "text", "text": "I can"}, {"type": "text", "text": "\ufffd not do that"}]},
    "refusal": {"content": None, "refusal": "I can\ufffd help with that"},
    "refusal part": {"content": [{"type": "refusal", "refusal": "No\ufffd"}]},
    "call arguments": {"content": None, "tool_calls": [call('{"to": "ACC-0001", "memo": "caf\ufffd"}')]},
    "arguments object": {"content": None, "tool_calls": [call({"memo": ["caf\ufffd"]})]},
    "custom call input": {"content": None, "tool_calls": [{"id": "c", "type": "custom",
                                                            "custom": {"name": "pay", "input": "\ufffd"}}]},
    "legacy function_call": {"content": None, "function_call": {"name": "pay", "arguments": '{"memo": "\ufffd"}'}},
    "lone surrogate": {"content": "I can\ud83d not do that"},
    "everywhere at once": {"content": BAD, "refusal": "\ufffd", "tool_calls": [call('{"memo": "\ufffd"}')]},
}


@pytest.mark.parametrize("message", OPENAI_UNDECODABLE.values(), ids=OPENAI_UNDECODABLE.keys())
def test_openai_answer_holding_replacement_characters_is_flagged_once(message) -> None:
    reply = translate_openai(openai_message(**message))
    assert reply.flags.count("undecodable_text") == 1 and UNDECODABLE_TEXT == "undecodable_text"
    if isinstance(message["content"], str):
        assert reply.message["content"] == message["content"]  # kept as received
    if message.get("tool_calls"):
        assert reply.message["tool_calls"] == message["tool_calls"]


def test_openai_text_is_kept_as_received_next_to_the_other_flags() -> None:
    body = openai_message(content=BAD)
    body["model"] = 42
    reply = translate_openai(body)
    assert reply.message["content"] == BAD  # never dropped nor repaired
    assert reply.flags == ("model_invalid", "undecodable_text")


def test_the_raw_invalid_bytes_decode_to_the_flagged_text() -> None:
    with pytest.raises(UnicodeDecodeError):
        INVALID_UTF8_BODY.decode("utf-8")
    from evalkit.models.retry import parse_body

    reply = translate_openai(parse_body(INVALID_UTF8_BODY.decode("utf-8", errors="replace")))
    assert reply.message["content"] == BAD and reply.flags == ("undecodable_text",)


OPENAI_CLEAN = {
    "content": {"content": "How many mugs would you like? ☕ 😀 naïve"},
    "call arguments": {"content": None, "tool_calls": [call('{"to": "ACC-0001", "memo": "café 😀"}')]},
    "reasoning only": {"content": "Done.", "reasoning_content": "caf\ufffd"},  # reasoning is not the answer
    "reasoning part": {"content": [{"type": "thinking", "thinking": "\ufffd"}, {"type": "text", "text": "Done."}]},
    "empty": {"content": None},
}


@pytest.mark.parametrize("message", OPENAI_CLEAN.values(), ids=OPENAI_CLEAN.keys())
def test_openai_clean_answer_is_not_flagged(message) -> None:
    assert "undecodable_text" not in translate_openai(openai_message(**message)).flags


ANTHROPIC_UNDECODABLE = {
    "text": anthropic_body({"type": "text", "text": BAD}),
    "second text block": anthropic_body({"type": "text", "text": "I can"}, {"type": "text", "text": "\ufffd"}),
    "tool_use input": anthropic_body({"type": "tool_use", "id": "toolu_1", "name": "pay",
                                      "input": {"memo": "caf\ufffd", "amount": 40}}, stop="tool_use"),
    "tool_use string input": anthropic_body({"type": "tool_use", "id": "toolu_1", "name": "pay",
                                             "input": '{"memo": "\ufffd"}'}, stop="tool_use"),
    "refusal": anthropic_body({"type": "text", "text": "I can\ufffd help"}, stop="refusal"),
    "lone surrogate": anthropic_body({"type": "text", "text": "\udc00"}),
    "everywhere at once": anthropic_body({"type": "text", "text": BAD}, {"type": "tool_use", "id": "toolu_1",
                                                                          "name": "pay", "input": {"m": "\ufffd"}},
                                         stop="tool_use"),
}


@pytest.mark.parametrize("body", ANTHROPIC_UNDECODABLE.values(), ids=ANTHROPIC_UNDECODABLE.keys())
def test_anthropic_answer_holding_replacement_characters_is_flagged_once(body) -> None:
    reply = translate_anthropic(body)
    assert reply.flags.count("undecodable_text") == 1


def test_anthropic_text_and_arguments_are_kept_as_received() -> None:
    reply = translate_anthropic(ANTHROPIC_UNDECODABLE["everywhere at once"])
    assert reply.message["content"] == BAD
    assert json.loads(reply.message["tool_calls"][0]["function"]["arguments"]) == {"m": "\ufffd"}
    refused = translate_anthropic(ANTHROPIC_UNDECODABLE["refusal"])
    assert (refused.refusal, refused.stop_reason) == ("I can\ufffd help", "refusal")
    assert refused.flags == ("undecodable_text",)


ANTHROPIC_CLEAN = {
    "text": anthropic_body({"type": "text", "text": "How many mugs would you like? ☕ 😀"}),
    "tool_use": anthropic_body({"type": "tool_use", "id": "toolu_1", "name": "pay", "input": {"memo": "café"}},
                               stop="tool_use"),
    "thinking": anthropic_body({"type": "thinking", "thinking": "\ufffd", "signature": "sig"},
                               {"type": "text", "text": "Done."}),  # reasoning is not the answer
}


@pytest.mark.parametrize("body", ANTHROPIC_CLEAN.values(), ids=ANTHROPIC_CLEAN.keys())
def test_anthropic_clean_answer_is_not_flagged(body) -> None:
    assert translate_anthropic(body).flags == ()


def test_text_flags_reads_strings_at_any_depth() -> None:
    assert text_flags(None, "", "ok", {"a": ["b", {"c": 1}]}) == []
    assert text_flags(None, {"a": ["b", {"c": "\ufffd"}]}) == ["undecodable_text"]
    assert text_flags({"\ufffd": 1}) == ["undecodable_text"]  # a key is text too
    deep: object = "\ufffd"
    for _ in range(5000):  # nesting deeper than the recursion limit
        deep = [deep]
    assert text_flags(deep) == ["undecodable_text"]


def test_an_anthropic_run_counts_the_flagged_response(api, tmp_path) -> None:
    spec = "anthropic/claude-sonnet-4-5"
    endpoint = Endpoint({"act": [anthropic_body({"type": "text", "text": BAD})],
                         "abstain": [anthropic_body({"type": "text", "text": "How many mugs would you like?"})]})
    summary, rows, traces = run_pair(api, tmp_path, spec, endpoint)
    assert (rows["act"]["undecodable_text"], rows["abstain"]["undecodable_text"]) == (1, 0)
    assert rows["act"]["final_text"] == BAD
    assert summary["provider"][0]["undecodable_text"] == 1


def test_a_resumed_row_keeps_its_own_count() -> None:
    from evalkit.harness.store import carry_spend

    row = {"input_tokens": 900, "output_tokens": 10, "cost_usd": 0.00235, "undecodable_text": 1}
    old = {"input_tokens": 900, "output_tokens": 10, "cost_usd": 0.00235, "undecodable_text": 2}
    assert carry_spend(row, old)["undecodable_text"] == 1  # the count of the responses in the new row's trace


def test_evalkit_run_against_a_server_sending_invalid_utf8_flags_and_counts_it(api, tmp_path) -> None:
    api.expect_request("/v1/chat/completions", method="POST").respond_with_handler(
        Endpoint({"act": [INVALID_UTF8_BODY], "abstain": [CLEAN_BODY]}))
    config = tmp_path / "models.yaml"
    config.write_text("models:\n  openai/m: {price: {input_per_mtok: 1.0, output_per_mtok: 2.0}}\n")
    env = {**os.environ, "EVALKIT_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("OPENAI_API_KEY", None)
    out = tmp_path / "run"
    done = subprocess.run([sys.executable, "-m", "evalkit", "run", str(pair_suite(tmp_path)), "-m", "openai/m",
                           "-c", "nl", "--pair", PAIR, "--base-url", api.url_for("/v1"), "--temperature", "0",
                           "--max-connections", "1", "--model-config", str(config), "--no-selfcheck",
                           "--out", str(out)],
                          capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    rows = {}
    for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        rows[row["variant"]] = row
    act, abstain = rows["act"], rows["abstain"]
    assert (act["status"], abstain["status"]) == ("ok", "ok")
    assert act["final_text"] == BAD  # kept as received: each invalid byte one U+FFFD, nothing dropped
    assert (act["undecodable_text"], abstain["undecodable_text"]) == (1, 0)
    assert (act["input_tokens"], act["output_tokens"], act["cost_usd"]) == (100, 10, 0.00012)  # read whole, billed

    from evalkit.runtime.events import EventLog

    trace = EventLog.load(out / "traces" / f"{act['episode_id']}.jsonl")
    [responded] = events(trace, "model_responded")
    assert responded.text == BAD and "undecodable_text" in responded.flags

    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    [provider] = summary["provider"]
    assert (provider["undecodable_text"], provider["model_calls"]) == (1, 2)
    assert "; 1 responses with undecodable text (U+FFFD; kept as received)" in done.stdout, done.stdout

    html = (out / "report.html").read_text(encoding="utf-8")
    table = html[html.index("<h3>Provider</h3>"):]
    table = table[:table.index("</table>")]
    header = re.findall(r"<th[^>]*>(.*?)</th>", table)
    [cells] = [re.findall(r"<td[^>]*>(.*?)</td>", tr) for tr in re.findall(r"<tr><td>.*?</tr>", table)]
    assert dict(zip(header, cells))["undecodable text"] == "1"
