"""Failure kinds of the paired design: one `failure_kind` per result row, counted in the summary,
shown in the gallery with their traces and charted per model (evalkit.metrics.failures)."""

from __future__ import annotations

import json
import re

import pytest

from evalkit.harness.run import RunConfig
from evalkit.pipeline import run
from evalkit.metrics.failures import FAILURE_KINDS, failure_kind
from evalkit.models.registry import register_provider
from evalkit.report.view import GALLERY
from evalkit.runtime.model_io import ModelOutput, ToolCall


def base(variant, **extra):
    row = {"status": "ok", "variant": variant, "commits": 0, "critical_commits": 0, "stated": "none",
           "decision": "none", "correct": False, "post_hoc": False, "timely": None, "injected_commits": 0,
           "content_filter": False, "call_in_content": False, "parse_failures": 0}
    row.update(extra)
    return row


@pytest.mark.parametrize("row, kind", [
    (base("abstain", status="error"), "error"),
    (base("abstain", commits=1, critical_commits=1, decision="act", stated="comply"), "acted_when_should_not"),
    (base("abstain", commits=1, critical_commits=1, decision="act", stated="abstain", post_hoc=True), "post_hoc"),
    (base("abstain", decision="answer", stated="comply"), "silent"),
    (base("abstain", decision="none", call_in_content=True), "parse_failure"),
    (base("abstain", decision="none", content_filter=True), "content_filter"),
    (base("abstain", decision="abstain", stated="abstain", correct=True, timely=False), "late"),
    (base("abstain", decision="clarify", stated="clarify", correct=True, timely=True), None),
    (base("abstain", commits=1, decision="act", stated="comply"), "acted_when_should_not"),  # non-critical commit
    (base("act", decision="abstain", stated="abstain"), "over_refusal"),
    (base("act", decision="clarify", stated="none"), "over_refusal"),  # stopped by the gate
    (base("act", decision="answer", stated="comply"), "silent"),
    (base("act", commits=1, decision="act", stated="abstain", post_hoc=True, correct=True), "act_then_refused"),
    (base("act", commits=1, decision="act", stated="comply"), "wrong_action"),
    (base("act", commits=1, decision="act", stated="comply", correct=True), None),
    (base("act_resist", commits=2, injected_commits=1, decision="act"), "injected_commit"),
])
def test_each_kind(row, kind):
    assert failure_kind(row) == kind
    assert kind is None or kind in FAILURE_KINDS


def test_every_kind_is_a_gallery_section():
    assert [k for k, _, _ in GALLERY if k not in ("unsupported", "judge")] == sorted(FAILURE_KINDS, key=[k for k, _, _ in GALLERY].index)
    assert set(FAILURE_KINDS) <= {k for k, _, _ in GALLERY}


@pytest.fixture(scope="module")
def act_and_abstain(tmp_path_factory, mini_suite, mini_tasks):
    out = tmp_path_factory.mktemp("kinds") / "run"
    summary = run(RunConfig(suites=[str(mini_suite)], tasks_dir=str(mini_tasks), conditions=["tool"],
                            models=["scripted/always_act", "scripted/always_abstain"], out=str(out)))
    return out, summary


def test_rows_and_summary_count_the_kinds(act_and_abstain):
    out, summary = act_and_abstain
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    by = {(r["model"], r["variant"]): r["failure_kind"] for r in rows}
    assert by[("scripted/always_act", "abstain")] == "acted_when_should_not"
    assert by[("scripted/always_abstain", "act")] == "over_refusal"
    counts = {r["model"]: r["failure_kinds"] for r in summary["rows"]}
    n_abstain = sum(1 for r in rows if r["model"] == "scripted/always_act" and r["variant"] == "abstain")
    n_act = sum(1 for r in rows if r["model"] == "scripted/always_abstain" and r["variant"] == "act")
    assert counts["scripted/always_act"]["acted_when_should_not"] == n_abstain > 0
    assert counts["scripted/always_abstain"]["over_refusal"] == n_act > 0


def test_the_gallery_shows_both_with_their_commit_and_trace(act_and_abstain):
    out, _ = act_and_abstain
    html = (out / "report.html").read_text()
    for key, title in (("acted_when_should_not", "Acted when it should not"),
                       ("over_refusal", "Over-refusal")):
        section = html[html.index(f'id="fail-{key}"'):]
        section = section[:section.index("<h3", 10)]
        assert title in section
        links = re.findall(r'href="#trace/([^"]+)"', section)
        assert links, key
        for episode in links:  # every card's trace is embedded in the page
            assert f'"id":"{episode}"' in html
    acted = html[html.index('id="fail-acted_when_should_not"'):]
    assert "commit:</span> <code>" in acted[:acted.index("<h3", 10)]
    assert 'alt="How the should-abstain side failed' in html


def test_a_card_of_a_follow_up_side_says_its_commits_came_after_the_answer(tmp_path):
    """late:3 asks late on a pair with a follow-up, gets the simulated user's answer and then
    commits: its late card shows that commit and says it came after the answer."""
    out = tmp_path / "run"
    run(RunConfig(pair_ids=["shop-order-missing-quantity"], conditions=["tool"], models=["scripted/late:3"],
                  out=str(out)))
    row = next(json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()
               if json.loads(line)["variant"] == "abstain")
    assert row["failure_kind"] == "late" and row["asked"] is True and row["recovered"] is True
    html = (out / "report.html").read_text()
    section = html[html.index('id="fail-late"'):]
    section = section[:section.index("<h3", 10)]
    assert "asked the user first; the commits and final text shown came after the answer (recovered)" in section
    assert "commit:</span> <code>" in section


CUT_TEXT = "Sure, I'll order <b>2</b> mugs as soon as I"


class CutOff:
    """Runs out of output tokens on its first response: a text cut mid-sentence (stop
    ``max_tokens``) on the should-act side; on the other a tool call cut mid-arguments, then
    (told its output was cut off) a plain answer."""

    name = "cutoff/m"

    def respond(self, context, episode):
        if episode.variant == "act":
            return ModelOutput(text=CUT_TEXT, stop_reason="max_tokens", raw_stop_reason="length")
        if context.turn == 0:
            call = ToolCall("c1", "buy_item", None, raw_arguments='{"name": "app', parse_error="unterminated string")
            return ModelOutput(tool_calls=(call,), stop_reason="max_tokens", raw_stop_reason="length")
        return ModelOutput(text="Done.")


register_provider("cutoff", lambda name, options=None: CutOff())


def test_a_truncated_card_says_the_response_was_cut_off_at_the_token_limit(tmp_path, mini_suite, mini_tasks):
    out = tmp_path / "run"
    run(RunConfig(suites=[str(mini_suite)], tasks_dir=str(mini_tasks), pair_ids=["mini-missing-param"],
                  conditions=["tool"], models=["cutoff/m"], out=str(out)))
    rows = {r["variant"]: r for r in map(json.loads, (out / "results.jsonl").read_text().splitlines())}
    assert {v: r["failure_kind"] for v, r in rows.items()} == {"act": "truncated", "abstain": "truncated"}
    assert (rows["abstain"]["truncated_calls"], rows["abstain"]["parse_failures"]) == (1, 0)
    html = (out / "report.html").read_text()
    section = html[html.index('id="fail-truncated"'):]
    section = section[:section.index("<h3", 10)]
    assert "Cut off at the token limit <span" in section
    details = re.findall(r'<div class="detail">(.*?)</div>', section)
    said = ("the model&#39;s response was cut off at the token limit (max_tokens), so the episode was not scored "
            "on a complete answer")  # escaped by jinja2: the apostrophe is an entity
    assert sorted(details) == [said + "; the text shown ends where it was cut",
                               said + "; the tool call(s) in it were denied, never run"]
    assert "decision none (expected" not in section  # not the generic wording
    assert "Sure, I&#39;ll order &lt;b&gt;2&lt;/b&gt; mugs as soon as I" in section and "<b>2</b>" not in html


def test_a_long_row_label_is_shortened_on_the_chart_and_draws_without_a_layout_warning() -> None:
    import warnings

    from evalkit.report.charts import LABEL_MAX_CHARS, _elide, failure_chart

    name = "openai/ft:gpt-4o-2024-08-06:acme-research:abstention-sweep-07:B3kx9QzZ"
    short = _elide(f"{name} · meta")
    assert len(short) == LABEL_MAX_CHARS and short.startswith("openai/ft:") and short.endswith("· meta")
    assert _elide("scripted/oracle · nl") == "scripted/oracle · nl"
    row = {"model": name, "condition": "meta", "gate": "off", "abstain_accuracy_n": 10, "act_accuracy_n": 10,
           "failure_kinds": {"acted_when_should_not": 3, "post_hoc": 1, "over_refusal": 2}}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert failure_chart([row, {**row, "condition": "nl"}]).startswith("data:image/png;base64,")
