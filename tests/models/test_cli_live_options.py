"""`evalkit run` with a live model over real HTTP (a local fake OpenAI-compatible server):
the model options reach the requests, the cache answers a second run, the summary counts it."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from werkzeug import Response


def evalkit(*args, env):
    return subprocess.run([sys.executable, "-m", "evalkit", *args], capture_output=True, text=True, timeout=300,
                          env=env)


def answer(request):
    body = json.loads(request.get_data(as_text=True))
    turn = sum(1 for m in body["messages"] if m["role"] == "assistant")
    if turn == 0:  # first turn: look the item up; then refuse
        message = {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_a", "type": "function", "function": {"name": "find_item", "arguments": '{"name": "kiwi"}'}}]}
    else:
        message = {"role": "assistant", "content": "I'm sorry, but I can't buy that: there are no kiwis."}
    data = {"id": "x", "object": "chat.completion", "model": body["model"],
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}}
    return Response(json.dumps(data), content_type="application/json")


def test_run_twice_second_from_cache(api, tmp_path, mini_suite, mini_tasks):
    api.expect_request("/v1/chat/completions", method="POST").respond_with_handler(answer)
    env = {**os.environ, "EVALKIT_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("OPENAI_API_KEY", None)
    config = tmp_path / "models.yaml"
    config.write_text("models:\n  openai/fake-model:\n    price: {input_per_mtok: 1.0, output_per_mtok: 10.0}\n"
                      "    retry: {max_attempts: 2}\n")
    args = ["run", str(mini_suite), "--tasks", str(mini_tasks), "-m", "openai/fake-model", "-c", "nl", "-c", "tool",
            "--pair", "mini-missing-target", "--base-url", api.url_for("/v1"), "--temperature", "0",
            "--max-tokens", "64", "--seed", "5", "--tool-choice", "auto", "--max-connections", "3",
            "--model-config", str(config), "--no-report"]
    first = evalkit(*args, "--out", str(tmp_path / "one"), env=env)
    assert first.returncode == 0, first.stderr
    requests = len(api.log)
    assert requests == 2 * 2 * 2  # 2 conditions x 2 variants x 2 turns
    body = json.loads(api.log[0][0].get_data(as_text=True))
    assert (body["temperature"], body["max_tokens"], body["seed"], body["tool_choice"]) == (0.0, 64, 5, "auto")
    second = evalkit(*args, "--out", str(tmp_path / "two"), env=env)
    assert second.returncode == 0, second.stderr
    assert len(api.log) == requests  # every call answered by the cache
    assert "openai/fake-model: 8 model calls, 8 cache hits, 0 retries, 0 parse failures" in second.stdout
    rows = {}
    for run in ("one", "two"):
        rows[run] = [json.loads(line) for line in (tmp_path / run / "results.jsonl").read_text().splitlines()]
    keep = ("episode_id", "decision", "correct", "stated", "commits", "input_tokens", "output_tokens", "cost_usd")
    assert sorted([{k: r[k] for k in keep} for r in rows["one"]], key=str) == sorted(
        [{k: r[k] for k in keep} for r in rows["two"]], key=str)
    assert {r["cache_hits"] for r in rows["one"]} == {0} and all(r["cache_hits"] == r["model_calls"] == 2
                                                                 for r in rows["two"])
    summary = json.loads((tmp_path / "two" / "summary.json").read_text())
    provider = {p["condition"]: p for p in summary["provider"]}
    assert provider["nl"]["cache_hits"] == provider["nl"]["model_calls"] == 4 and provider["nl"]["cache_hit_rate"] == 1
    abstain = next(r for r in rows["one"] if r["variant"] == "abstain" and r["condition"] == "nl")
    assert abstain["decision"] == "abstain" and abstain["correct"] and abstain["cost_usd"] == 2 * (100 + 100) / 1e6
    manifest = json.loads((tmp_path / "one" / "config.json").read_text())
    model = manifest["models"]["openai/fake-model"]
    assert (model["max_connections"], model["retry"]["max_attempts"], model["price"]["output_per_mtok"]) == (3, 2, 10.0)
    assert manifest["config"]["temperature"] == 0.0
    # --no-cache goes to the provider again
    third = evalkit(*args, "--out", str(tmp_path / "three"), "--no-cache", env=env)
    assert third.returncode == 0, third.stderr
    assert len(api.log) == 2 * requests


def test_live_model_errors_are_one_line(tmp_path):
    env = {**os.environ, "EVALKIT_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("OPENAI_API_KEY", None)
    for args, needle in [
        (["-m", "openai/gpt-x"], "set the OPENAI_API_KEY environment variable"),
        (["-m", "local/llama-9000"], "unknown local model 'llama-9000'"),
        (["-m", "openai/gpt-x", "--base-url", "http://127.0.0.1:1/v1", "--model-config", str(tmp_path / "no.yaml")],
         "cannot read model config"),
    ]:
        proc = evalkit("run", "--limit", "1", "--out", str(tmp_path / "o"), *args, env=env)
        assert proc.returncode == 2 and needle in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


def test_an_episode_that_fails_before_its_first_call_costs_nothing_at_the_configured_price(api, tmp_path, mini_suite,
                                                                                           mini_tasks):
    def flaky(request):  # the act side's first call fails for good; the abstain side is answered
        body = json.loads(request.get_data(as_text=True))
        if "apple" in body["messages"][-1]["content"] and len(body["messages"]) <= 2:
            return Response(json.dumps({"error": {"message": "boom", "type": "server_error"}}), status=500,
                            content_type="application/json")
        return answer(request)

    api.expect_request("/v1/chat/completions", method="POST").respond_with_handler(flaky)
    env = {**os.environ, "EVALKIT_CACHE_DIR": str(tmp_path / "cache")}
    config = tmp_path / "models.yaml"  # a model the built-in price table does not know, priced here
    config.write_text("models:\n  openai/fake-model:\n    price: {input_per_mtok: 1.0, output_per_mtok: 10.0}\n"
                      "    retry: {max_attempts: 1}\n")
    result = evalkit("run", str(mini_suite), "--tasks", str(mini_tasks), "-m", "openai/fake-model", "-c", "nl",
                     "--pair", "mini-missing-target", "--base-url", api.url_for("/v1"), "--model-config", str(config),
                     "--no-report", "--no-selfcheck", "--out", str(tmp_path / "run"), env=env)
    assert result.returncode == 0, result.stderr
    rows = {r["variant"]: r for r in map(json.loads, (tmp_path / "run" / "results.jsonl").read_text().splitlines())}
    assert rows["act"]["status"] == "error" and rows["act"]["model_calls"] == 1 and rows["act"]["cost_usd"] == 0.0
    assert rows["abstain"]["cost_usd"] == 2 * (100 + 100) / 1e6
    (group,) = json.loads((tmp_path / "run" / "summary.json").read_text())["rows"]
    assert group["cost_usd"] == rows["abstain"]["cost_usd"]  # not null: every episode's cost is known
