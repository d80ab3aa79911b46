"""A trace holding U+2028 or U+0085 inside a JSON string (model text, a user message) reads
back whole: JSON Lines are split on "\\n" only (str.splitlines() would also break there)."""

from __future__ import annotations

import json

from evalkit.conditions.judge.evaluate import load_labelled
from evalkit.report.traces import load_trace


def test_load_trace_keeps_events_whose_text_holds_line_separators(tmp_path):
    events = [{"type": "user_message", "seq": 0, "text": "order\u2028two mugs"},
              {"type": "model_responded", "seq": 1, "text": "How many\u0085mugs\u2029would you like?"},
              {"type": "episode_ended", "seq": 2, "reason": "final_text"}]
    path = tmp_path / "trace.jsonl"
    path.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in events), encoding="utf-8")
    assert load_trace(path) == events


def test_a_labelled_file_with_a_line_separator_in_a_text_reads_every_line(tmp_path):
    path = tmp_path / "texts.jsonl"
    rows = [{"text": "I can't do that.\u2028Sorry.", "label": "abstain", "lang": "en"},
            {"text": "Done.", "label": "act", "lang": "en"}]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    assert [t.text for t in load_labelled(path)] == [r["text"] for r in rows]


def test_the_cli_summary_names_its_abbreviated_columns(tmp_path, capsys):
    """Under the main table, one legend line says what each abbreviated column measures."""
    from evalkit.harness.run import RunConfig
    from evalkit.pipeline import run
    from evalkit.report.console import print_summary

    summary = run(RunConfig(pair_ids=["shop-order-missing-quantity"], conditions=["tool"],
                            models=["scripted/oracle"], out=str(tmp_path / "run"), report=False))
    print_summary(summary)
    out = capsys.readouterr().out
    legend = next(line for line in out.splitlines() if line.startswith("columns:"))
    for label in ("timely paired", "post-hoc", "meta P/R", "unsupp.", "unjudged", "err/miss"):
        assert label in legend
    assert out.index("columns:") > out.index("scripted/oracle")
