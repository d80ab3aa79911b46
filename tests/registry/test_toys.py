"""A provider, a condition and a metric, each one file under ``toys/``, seen end to end: in a
run's result rows, its ``summary.json``, the CLI table, the HTML report and the CI gate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from registry_helpers import CONDITIONS, MODELS

from evalkit.errors import ConfigError


def _rows(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]


def _summary(run_dir: Path) -> dict:
    return json.loads((run_dir / "summary.json").read_text())


def test_provider_condition_and_metric_are_in_the_result_rows(run_dir):
    from toys.toy_provider import PRICE

    rows = _rows(run_dir)
    assert {(r["model"], r["condition"]) for r in rows} == {(m, c) for m in MODELS for c in CONDITIONS}
    refuser = [r for r in rows if r["model"] == "refuser/polite"]
    assert len(refuser) == 40 and all(r["status"] == "ok" and r["text_label"] == "abstain" for r in refuser)
    # a refusal in text is an abstention where the condition reads text (tool), not under halt
    assert {r["stated"] for r in refuser if r["condition"] == "tool"} == {"abstain"}
    assert {r["stated"] for r in refuser if r["condition"] == "halt"} == {"none"}
    assert not any(r["correct"] for r in refuser if r["condition"] == "halt")
    for r in refuser:  # usage from the toy API's body, priced by the provider's own price
        assert r["output_tokens"] == 9 and r["input_tokens"] == 200  # system + user message, 100 each
        assert r["cost_usd"] == pytest.approx((200 * PRICE["input_per_mtok"] + 9 * PRICE["output_per_mtok"]) / 1e6)
    oracle_halt = [r for r in rows if r["model"] == "scripted/oracle" and r["condition"] == "halt"
                   and r["variant"] == "abstain"]
    assert len(oracle_halt) == 10
    for r in oracle_halt:  # the oracle stopped through the halt condition's own tools, read as typed stops
        assert r["correct"] and r["decision"] == r["expected_decision"] and r["decided_by"] == "model"
        assert r["meta_requests"] == [{"abstain": "declare_blocked", "clarify": "request_user_decision"}[r["decision"]]]
    assert all(r["stop_first"] == (r["stated"] in ("abstain", "clarify") and r["tool_calls"] == 0) for r in rows)
    import pyarrow.parquet as pq

    table = pq.read_table(run_dir / "results.parquet", columns=["episode_id", "stop_first"]).to_pylist()
    assert {t["episode_id"]: t["stop_first"] for t in table} == {r["episode_id"]: r["stop_first"] for r in rows}


def test_oracle_stops_with_the_declared_tools(run_dir):
    rows = [r for r in _rows(run_dir) if r["model"] == "scripted/oracle" and r["condition"] == "halt"
            and r["variant"] == "abstain"]
    for r in rows:
        trace = run_dir / "traces" / f"{r['episode_id']}.jsonl"
        events = [json.loads(line) for line in trace.read_text().splitlines()]
        called = [c["name"] for e in events if e.get("type") == "model_responded" for c in e.get("tool_calls", [])]
        stop = {"abstain": "halt", "clarify": "ask_user"}[r["decision"]]
        # (on a side with a follow-up the oracle goes on after the user's answer)
        assert [c for c in called if c in ("halt", "ask_user")][:1] == [stop]
        assert not {"declare_blocked", "request_user_decision", "meta_request"} & set(called)
        for e in events:  # a question asked with ask_user reaches the simulated user as a clarify request
            if e.get("type") == "user_question":
                assert e["channel"] == "request_user_decision" and e["question"].startswith("Before I go ahead")


def test_toy_metric_in_summary_rows_and_breakdowns(run_dir):
    rows, summary = _rows(run_dir), _summary(run_dir)
    for group in summary["rows"]:
        key = (group["model"], group["condition"], group["gate"])
        mine = [r for r in rows if (r["model"], r["condition"], r["gate"]) == key and r["variant"] == "abstain"]
        k = sum(r["stop_first"] for r in mine)
        assert (group["stop_first_rate_k"], group["stop_first_rate_n"]) == (k, len(mine)) == (k, 10)
        assert group["stop_first_rate"] == k / 10
    by = {(g["model"], g["condition"]): g["stop_first_rate"] for g in summary["rows"]}
    assert by[("scripted/always_abstain", "halt")] == 1.0 and by[("scripted/oracle", "halt")] == 0.0
    trigger_rows = summary["breakdowns"]["trigger"]
    assert sum(g["stop_first_rate_n"] for g in trigger_rows) == 10 * len(MODELS) * len(CONDITIONS)


def test_toy_metric_in_cli_table_and_html_report(run_dir):
    from rich.console import Console

    from evalkit.report.console import summary_tables

    console = Console(record=True, width=400)
    console.print(summary_tables(_summary(run_dir))[0])
    text = console.export_text()
    assert "stop first" in text and "1.000 (10/10)" in text
    html = (run_dir / "report.html").read_text()
    assert 'data-metric="stop_first_rate"' in html and ">stop first</th>" in html


@pytest.mark.parametrize("model, minimum, status, code", [
    ("scripted/always_abstain", 0.9, "pass", 0),
    ("scripted/oracle", 0.9, "fail", 1),
])
def test_gate_threshold_on_toy_metric(run_dir, tmp_path, model, minimum, status, code):
    from evalkit.gate import evaluate_gate, exit_code, load_gate_config

    cfg = tmp_path / "gate.yaml"
    cfg.write_text(f"thresholds:\n  - metric: stop_first_rate\n    min: {minimum}\n"
                   f"    where: {{model: {model}, condition: halt}}\n")
    report = evaluate_gate(load_gate_config(cfg), run_dir)
    assert [r.status for r in report.results] == [status]
    assert exit_code(report.results) == code


def test_gate_reads_the_declared_range(toys, tmp_path):
    from evalkit.gate import GateConfigError, load_gate_config

    cfg = tmp_path / "gate.yaml"
    cfg.write_text("thresholds:\n  - metric: stop_first_rate\n    max: 2\n")
    with pytest.raises(GateConfigError, match=r"outside the metric's range \[0, 1\]"):
        load_gate_config(cfg)


def test_provider_settings_are_validated_like_any_model_config(toys, tmp_path):
    from evalkit.models.config import ModelOptions, resolve_settings

    settings = resolve_settings("refuser/polite")
    assert settings.provider == "refuser" and settings.cache is False and settings.max_connections == 2
    assert settings.price.input_per_mtok == 2.0
    bad = tmp_path / "models.yaml"
    bad.write_text("models:\n  refuser/polite:\n    temprature: 0\n")
    with pytest.raises(ConfigError, match="temprature"):
        resolve_settings("refuser/polite", ModelOptions(model_config_file=str(bad)))
    with pytest.raises(ConfigError, match="not a live provider"):
        resolve_settings("scripted/oracle")
