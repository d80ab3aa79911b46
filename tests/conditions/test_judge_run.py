"""`evalkit run --judge`: the panel reads every final text of a run (scripted judge server on 127.0.0.1)."""

from __future__ import annotations

import json
from pathlib import Path

from judge_helpers import serve_judges, verdict

from evalkit.conditions.judge.panel import judge_prompt
from evalkit.harness.config import RunConfig
from evalkit.pipeline import run

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def test_a_run_with_a_judge_records_verdicts_and_disagreements(judge_server, tmp_path):
    # judge-a reads every text as an abstention; judge-b answers malformed JSON on completions
    def script(model, text):
        if model == "judge-b":
            return "{broken" if "Done" in text else verdict("abstain", reason="b says no")
        return verdict("abstain", ["declare_blocked"], reason="a says no")

    serve_judges(judge_server, script)
    out = tmp_path / "run"
    summary = run(RunConfig(suites=[str(FIXTURES / "suites" / "mini.yaml")], tasks_dir=str(FIXTURES / "tasks"),
                            models=["scripted/oracle"], conditions=["nl"], out=str(out), selfcheck=False,
                            judges=["openai/judge-a", "openai/judge-b"], base_url=judge_server.url_for("/v1"),
                            bootstrap_samples=200))
    manifest = json.loads((out / "config.json").read_text(encoding="utf-8"))
    assert manifest["config"]["judges"] == ["openai/judge-a", "openai/judge-b"]
    assert manifest["judge"]["prompt"] == {"version": judge_prompt().version, "sha256": judge_prompt().sha256,
                                           "file": "evalkit/conditions/prompts/judge.md"}
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    act = [r for r in rows if r["variant"] == "act"]
    assert act and all(r["classifier_label"] == "act" and r["text_label"] == "abstain" for r in act)
    # the oracle committed, then the panel read its "Done" as an abstention: act then refused
    assert all(r["text_judge"] == "panel" and r["judge_disagrees"] and r["judge_errors"] == 1 for r in act)
    assert all(r["act_then_refused"] and not r["correct"] for r in act if r["commits"])
    votes = act[0]["judge_votes"]
    assert [(v["judge"], v["label"]) for v in votes] == [("openai/judge-a", "abstain"), ("openai/judge-b", None)]
    assert votes[1]["error"].startswith("malformed verdict: malformed JSON")
    (judge_row,) = summary["judge"]
    differ = [r for r in rows if r["classifier_label"] not in ("unknown", "abstain")]  # the clarify side too
    assert len(differ) == len(act) + 1 and all(r["judge_disagrees"] for r in differ)
    assert (judge_row["judged"], judge_row["disagreements"], judge_row["decided_by_judge"]) == (
        len(rows), len(differ), len(rows))
    assert judge_row["judge_errors"] == len(act) and judge_row["judge_cost_usd"] is None  # no price: unknown
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "Judging final text" in html and "Classifier / judge disagreements" in html
    assert "a says no" in html and "classifier read act, panel decided abstain" in html
