"""A run against a server that omits usage: tokens and money are null, never 0, and the
episodes without usage are counted in summary.json, the CLI lines and the report."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from provider_helpers import PAIR, Endpoint, field_cases_2, pair_suite


def test_unreported_usage_is_shown_as_unknown_everywhere(api, tmp_path):
    bodies = field_cases_2()["F03"]["input"]["missing_usage"]["responses"]
    api.expect_request("/v1/chat/completions", method="POST").respond_with_handler(
        Endpoint({"act": [bodies[0]], "abstain": [bodies[1]]}))
    config = tmp_path / "models.yaml"
    config.write_text("models:\n  openai/fake: {price: {input_per_mtok: 1.0, output_per_mtok: 2.0}}\n")
    env = {**os.environ, "EVALKIT_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("OPENAI_API_KEY", None)
    out = tmp_path / "run"
    done = subprocess.run([sys.executable, "-m", "evalkit", "run", str(pair_suite(tmp_path)), "-m", "openai/fake", "-c", "nl",
                           "--pair", PAIR,
                           "--base-url", api.url_for("/v1"), "--temperature", "0", "--max-connections", "1",
                           "--model-config", str(config), "--no-selfcheck", "--out", str(out)],
                          capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    summary = json.loads((out / "summary.json").read_text())
    [group] = summary["rows"]
    assert (group["input_tokens"], group["output_tokens"], group["cost_usd"]) == (None, None, None)
    assert group["usage_unknown"] == 2 and group["tokens_per_episode"] is None
    assert summary["provider"][0]["usage_missing"] == 2
    assert ("tokens n/a in / n/a out, money n/a (usage not reported in 2 of 2 episodes)" in done.stdout), done.stdout
    report = (out / "report.html").read_text()
    assert "usage unknown" in report and "2 of 2" in report and "$0.0000" not in report


def test_a_total_over_episodes_with_unknown_usage_is_a_lower_bound():
    from evalkit.metrics.aggregate import summarize
    from evalkit.report.console import provider_lines

    base = {"model": "openai/m", "condition": "nl", "gate": "off", "epoch": 1, "status": "ok", "correct": True}
    rows = [{**base, "pair_id": "p1", "variant": "act", "input_tokens": 100, "output_tokens": 10, "cost_usd": 0.00012,
             "retry_cost_usd": 0.0},
            {**base, "pair_id": "p2", "variant": "act", "input_tokens": None, "output_tokens": None, "cost_usd": None,
             "usage_missing": 1}]
    [group] = summarize([(r["pair_id"], "act", "openai/m", "nl", "off", 1) for r in rows], rows)
    assert (group["input_tokens"], group["output_tokens"], group["cost_usd"]) == (100, 10, 0.00012)
    assert group["tokens_lower_bound"] and group["cost_lower_bound"] and group["usage_unknown"] == 1
    assert group["tokens_per_success"] is None and group["cost_per_success_usd"] is None
    summary = {"rows": [{**group, "model": "openai/m"}],
               "provider": [{"model": "openai/m", "condition": "nl", "model_calls": 2, "cache_hits": 0, "retries": 0,
                             "parse_failures": 0, "content_filter": 0, "usage_missing": 1}]}
    [line] = provider_lines(summary)
    assert line.endswith("tokens ≥ 100 in / ≥ 10 out, money ≥ $0.000120 (usage not reported in 1 of 2 episodes)")
