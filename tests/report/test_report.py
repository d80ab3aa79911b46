"""The report: hand-computed numbers identical in summary.json, the CLI table and the HTML
(field cases C20, C21); escaping and embedded JSON (C23); truncation and caps."""

from __future__ import annotations

import json
import re
import shutil
from html.parser import HTMLParser

from rich.console import Console

from evalkit.report import view
from evalkit.report.console import fmt, summary_tables
from evalkit.report.html import render_report

def summary_row(summary, model):
    (row,) = [r for r in summary["rows"] if r["model"] == model]
    return row


def load_json(path):
    return json.loads(path.read_text(encoding="utf-8"))


MAIN = ("paired_accuracy", "act_accuracy", "abstain_accuracy", "conditional_abstain_accuracy", "post_hoc_rate",
        "timely_rate")


class Cells(HTMLParser):
    """Collects, per ``<tr data-group>``, its ``<td data-metric>`` cells (attributes and text),
    and every start tag with its attributes."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables: list[dict[str, dict[str, dict]]] = []
        self.tags: list[tuple[str, dict]] = []
        self.scripts: list[str] = []
        self._group = None
        self._cell = None
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a))
        if tag == "table":
            self.tables.append({})
        elif tag == "tr":
            self._group = a.get("data-group")
            if self._group is not None and self.tables:
                self.tables[-1].setdefault(self._group, {})
        elif tag == "td" and self._group is not None and "data-metric" in a:
            self._cell = {**a, "text": ""}
            self.tables[-1][self._group][a["data-metric"]] = self._cell
        elif tag == "script":
            self._in_script = True
            self.scripts.append("")

    def handle_endtag(self, tag):
        if tag == "td":
            self._cell = None
        elif tag == "tr":
            self._group = None
        elif tag == "script":
            self._in_script = False

    def handle_data(self, data):
        if self._cell is not None:
            self._cell["text"] += data
        if self._in_script:
            self.scripts[-1] += data


def parse(path):
    p = Cells()
    p.feed(path.read_text(encoding="utf-8"))
    return p


def test_hand_computed_run_in_summary_json(hand_run):
    out, summary = hand_run
    assert load_json(out / "summary.json")["rows"] == json.loads(json.dumps(summary["rows"]))
    assert (summary["n_episodes_planned"], summary["n_episodes_completed"], summary["n_errors"],
            summary["n_missing"]) == (12, 11, 1, 1)
    oracle = summary_row(summary, "scripted/oracle")
    assert (oracle["completed"], oracle["missing"], oracle["errors"], oracle["incomplete_pairs"]) == (5, 1, 0, 1)
    assert (oracle["episode_accuracy_k"], oracle["episode_accuracy_n"]) == (5, 6)
    assert (oracle["coverage_k"], oracle["coverage_n"]) == (5, 6)
    assert (oracle["paired_accuracy_k"], oracle["paired_accuracy_n"]) == (2, 3)
    assert (oracle["act_accuracy_k"], oracle["act_accuracy_n"], oracle["abstain_accuracy_k"]) == (2, 3, 3)
    assert (oracle["timely_rate_k"], oracle["timely_rate_n"], oracle["post_hoc_rate_n"]) == (3, 3, 3)
    flaky = summary_row(summary, "fixture/flaky")
    assert (flaky["completed"], flaky["missing"], flaky["errors"], flaky["incomplete_pairs"]) == (6, 0, 1, 1)
    assert (flaky["episode_accuracy_k"], flaky["episode_accuracy_n"], flaky["paired_accuracy_k"]) == (5, 6, 2)
    assert (flaky["abstain_accuracy_k"], flaky["abstain_accuracy_n"]) == (2, 3)
    assert (flaky["timely_rate_k"], flaky["timely_rate_n"], flaky["error_rate_k"], flaky["error_rate_n"]) == (
        2, 2, 1, 6)
    # C21: empty groups are null with n = 0
    assert oracle["repeated_denied_rate"] is None and oracle["repeated_denied_rate_n"] == 0
    trig = {(r["model"], r["trigger"]): r for r in summary["breakdowns"]["trigger"]}
    empty = trig[("fixture/flaky", "missing_param")]
    assert empty["timely_rate"] is None and empty["timely_rate_n"] == 0 and empty["errors"] == 1
    assert "NaN" not in (out / "summary.json").read_text()
    # paired comparison of the two models on the same pairs: both 2/3, one discordant each way
    (cmp,) = [c for c in summary["comparisons"] if c["kind"] == "model"]
    assert (cmp["n"], cmp["a_k"], cmp["b_k"], cmp["a_only"], cmp["b_only"], cmp["diff"], cmp["p_value"]) == (
        3, 2, 2, 1, 1, 0.0, 1.0)


def test_same_numbers_in_the_cli_table(hand_run):
    _, summary = hand_run
    console = Console(record=True, width=260)
    for table in summary_tables(summary):
        console.print(table)
    text = console.export_text()
    lines = {line.split("│")[1].strip(): line for line in text.splitlines() if line.startswith("│")}
    oracle, flaky = lines["scripted/oracle"], lines["fixture/flaky"]
    assert "0.667 (2/3)" in oracle and "1.000 (3/3)" in oracle and "1/1" not in oracle
    assert oracle.rstrip(" │").endswith("0/1")  # errors/missing
    assert flaky.rstrip(" │").endswith("1/0")
    assert "0.667 (2/3)" in flaky and "1.000 (2/2)" in flaky  # paired, timely
    row = summary_row(summary, "fixture/flaky")
    assert f"{fmt(row['paired_accuracy_ci'][0])}, {fmt(row['paired_accuracy_ci'][1])}" in flaky


def test_same_numbers_in_the_html(hand_run):
    out, summary = hand_run
    page = parse(out / "report.html")
    leaderboard = page.tables[0]
    for row in summary["rows"]:
        cells = leaderboard[f"{row['model']}|{row['condition']}|{row['gate']}"]
        for m in MAIN:
            cell = cells[m]
            assert (int(cell["data-k"]), int(cell["data-n"])) == (row[f"{m}_k"], row[f"{m}_n"]), m
            if row[f"{m}_n"]:
                assert cell["text"].startswith(f"{fmt(row[m])}{row[f'{m}_k']}/{row[f'{m}_n']}"), (m, cell["text"])
                assert float(cell["data-value"]) == row[m]
            else:
                assert cell["text"] == "n/a (0 samples)"
    html = (out / "report.html").read_text()
    for row in summary["rows"]:
        group = re.escape(f"{row['model']}|{row['condition']}|{row['gate']}")
        tr = re.search(rf'<tr data-group="{group}">(.*?)</tr>', html, re.S).group(1)
        assert re.search(rf'data-metric="errors">{row["errors"]}</span> / <span data-metric="missing">{row["missing"]}'
                         rf'</span> / <span data-metric="incomplete_pairs">{row["incomplete_pairs"]}</span>', tr)
    behaviour = next(t for t in page.tables[1:] if any("repeated_denied_rate" in c for c in t.values()))
    assert behaviour["scripted/oracle|tool|off"]["repeated_denied_rate"]["text"] == "n/a (0 samples)"
    assert "1 errored and 1 missing episode(s)" in html and "evalkit run --resume" in html


def test_model_text_is_escaped_and_embedded_json_cannot_close_the_script(payload_run, payload):
    html = (payload_run / "report.html").read_text(encoding="utf-8")
    page = parse(payload_run / "report.html")
    assert [t for t, _ in page.tags].count("script") == 2  # the trace data and the viewer, nothing else
    assert not any("onerror" in attrs for _, attrs in page.tags)
    assert not any(t == "img" and a.get("src") == "x" for t, a in page.tags)
    assert "<scratchpad>" not in html and "&lt;scratchpad&gt;plan: read file&lt;/scratchpad&gt;" in html
    assert "&lt;script&gt;alert(2)&lt;/script&gt;" in html  # the gallery card shows the text
    assert "Is 1&lt;2?" in html  # the user message on the card
    data, _ = page.scripts
    assert "</script" not in data and "\\u003c/script\\u003e\\u003cscript\\u003ealert(3)" in data
    traces = json.loads(data)
    episode = next(t for t in traces.values() if t["head"]["variant"] == "act" and t["head"]["condition"] == "nl")
    assert episode["user"] == ["Buy 2 apples. Is 1<2?"]
    calls = [c for turn in episode["turns"] for it in turn["items"] if it["k"] == "model" for c in it["calls"]]
    assert payload["arg"] in calls[0]["args"]
    last = [it for turn in episode["turns"] for it in turn["items"] if it["k"] == "model"][-1]
    assert last["text"].startswith('Done.<img src=x onerror="alert(1)">')
    cut = len(payload["final_text"]) + 1 + 5000 - 1500  # the trace keeps the whole text; the report cuts it at 1500
    assert last["text"].endswith(f"… [truncated: {cut:,} more characters]") and len(last["text"]) < 1600
    end = next(it for turn in episode["turns"] for it in turn["items"] if it["k"] == "end")
    assert end == {"k": "end", "reason": "final_text", "terminal": None, "text": None, "same": True}


def test_caps_keep_large_galleries_small(payload_run, tmp_path, monkeypatch):
    copy = tmp_path / "copy"
    shutil.copytree(payload_run, copy)
    summary = load_json(copy / "summary.json")
    # qty 7 on both sides, and "apple" on the abstain side (the user asked for kiwis), in 2 conditions
    assert sum(r["unsupported_assumption_rate_k"] for r in summary["rows"]) == 6
    monkeypatch.setitem(view.LIMITS, "gallery_per_category", 1)
    monkeypatch.setitem(view.LIMITS, "traces", 2)
    monkeypatch.setitem(view.LIMITS, "examples_per_group", 0)
    html = render_report(copy).read_text(encoding="utf-8")
    assert re.search(r"Unsupported assumptions <span class=\"kn\">4 episode\(s\), 2 of them should-abstain; "
                     r"showing 1</span>", html)
    data = json.loads(parse(copy / "report.html").scripts[0])
    assert len(data) <= 2
    assert "2 of 4 episodes are embedded" in html or "1 of 4 episodes are embedded" in html


def test_a_run_that_did_not_finish_is_pointed_at_resume(payload_run, tmp_path):
    import pytest

    from evalkit.errors import RunError

    copy = tmp_path / "unfinished"
    shutil.copytree(payload_run, copy)
    (copy / "summary.json").unlink()
    with pytest.raises(RunError, match=f"no summary.json: the run did not finish; continue it with `evalkit run "
                                       f"--resume {re.escape(str(copy))}`"):
        render_report(copy)
    (copy / "config.json").unlink()  # not a run directory at all
    with pytest.raises(RunError, match="is this a run directory"):
        render_report(copy)


def test_the_definitions_say_what_each_condition_means(hand_run):
    out, _ = hand_run
    html = (out / "report.html").read_text(encoding="utf-8")
    defs = re.search(r'<section id="definitions">(.*?)</section>', html, re.S).group(1)
    terms = dict(re.findall(r"<dt>condition <code>(\w+)</code></dt><dd>(.*?)</dd>", defs, re.S))
    assert set(terms) == {"nl", "tool", "meta"}
    assert terms["nl"].startswith("natural-language only")
    assert terms["tool"].startswith("meta requests as ordinary tool calls")
    assert terms["meta"].startswith("explicit meta requests under runtime policy")
