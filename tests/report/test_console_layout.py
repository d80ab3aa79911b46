"""The CLI summary at a terminal's width (80–120 columns: no number or name wraps, what is left
out is named), the split of the pairs into paired and control pairs (CLI and report header),
every lag column up to the largest observed in the report, and each comparison printed once."""

from __future__ import annotations

import re

import pytest

from evalkit.harness.run import RunConfig
from evalkit.pipeline import run
from evalkit.report.console import print_summary, verdict_lines
from evalkit.report.html import render_report
from evalkit.scenarios.loader import load_suite

PAIRS = ["shop-order-missing-quantity", "ws-share-missing-recipient", "cal-create-sync-control",
         "cloud-stop-dev-control"]
MODELS = ["scripted/oracle", "scripted/always_abstain", "scripted/late:3"]
NUMBER = re.compile(r"^(\d\.\d{3}|n/a|\d+/\d+)$")


@pytest.fixture(scope="module")
def lag_run(tmp_path_factory):
    """Two paired and two control pairs under nl and tool; the late model abstains 3 calls late."""
    out = tmp_path_factory.mktemp("layout") / "run"
    summary = run(RunConfig(pair_ids=PAIRS, conditions=["nl", "tool"], models=MODELS, out=str(out)))
    return out, summary


def _table_rows(text: str) -> list[list[str]]:
    return [[cell.strip() for cell in line.strip("│").split("│")]
            for line in text.splitlines() if line.startswith("│")]


@pytest.mark.parametrize("width", [80, 100, 120])
def test_a_narrow_terminal_gets_one_line_per_row_and_the_columns_left_out(lag_run, width, monkeypatch, capsys):
    _, summary = lag_run
    monkeypatch.setenv("COLUMNS", str(width))
    print_summary(summary)
    out = capsys.readouterr().out
    table = out[:out.index("└")]
    assert max(len(line) for line in table.splitlines()) <= width
    rows = _table_rows(table)
    assert len(rows) == len(summary["rows"])  # one line per row: nothing wrapped onto a second line
    for cells in rows:
        assert cells[0] in MODELS and cells[1] in ("nl", "tool") and cells[2] == "off"
        assert all(NUMBER.match(c) for c in cells[3:]), cells
    note = next(line for line in out.splitlines() if line.startswith("not shown at"))
    assert note.startswith(f"not shown at {width} columns: k/n counts, ")
    header = table.split("┡")[0]
    for label in ("timely", "paired", "err/miss"):  # the ranking metric and the errors are always there
        assert label in header


def test_wide_prints_every_column_with_its_counts(lag_run, monkeypatch, capsys):
    _, summary = lag_run
    monkeypatch.setenv("COLUMNS", "80")
    print_summary(summary, wide=True)
    out = capsys.readouterr().out
    assert "not shown at" not in out
    oracle = next(cells for cells in _table_rows(out) if cells[:2] == ["scripted/oracle", "tool"])
    row = next(r for r in summary["rows"] if (r["model"], r["condition"]) == ("scripted/oracle", "tool"))
    k, n = row["paired_accuracy_k"], row["paired_accuracy_n"]
    assert f"1.000 ({k}/{n})" in oracle
    assert any(c.startswith("[") for c in oracle)  # the interval column


def test_the_pairs_split_into_paired_and_control_in_the_cli_and_the_report(lag_run, capsys):
    out, summary = lag_run
    suite = [p for p in load_suite().pairs if p.id in PAIRS]
    control = sum(p.is_control for p in suite)
    assert (len(suite), control) == (4, 2)
    expected = (f"{len(suite)} pairs: {len(suite) - control} paired (should-act + should-abstain), "
                f"{control} control (act only, not in paired accuracy)")
    print_summary(summary)
    assert expected in capsys.readouterr().out.splitlines()
    row = summary["rows"][0]
    assert row["n_pairs"] == len(suite) - control  # the denominator of paired accuracy
    html = (out / "report.html").read_text(encoding="utf-8")
    assert f'<span id="pair-split">{expected}</span>' in html


def test_the_lag_table_has_every_lag_up_to_the_largest_observed(lag_run):
    out, summary = lag_run
    observed = {int(k) for r in summary["rows"] for k in (r.get("lag_hist") or {})}
    assert max(observed) >= 2 and 1 not in observed  # a gap at the threshold (max_lag 1)
    render_report(out)
    html = (out / "report.html").read_text(encoding="utf-8")
    section = html[html.index("Timely abstention: lag after the trigger"):]
    header = section[:section.index("</thead>")]
    shown = [int(x) for x in re.findall(r">lag (\d+)</th>", header)]
    assert shown == list(range(max(observed) + 1))
    assert summary["settings"]["max_lag"] in shown


def test_each_comparison_is_printed_once(lag_run, capsys):
    _, summary = lag_run
    print_summary(summary)
    out = capsys.readouterr().out
    lines = verdict_lines(summary)
    assert len(lines) == len(summary["comparisons"]) > 0
    for line in lines:
        assert out.count(line) == 1
    # no second form of the same comparisons (a table row naming "B vs A")
    pairs_named = [line for line in out.splitlines() if re.search(r"\b(tool vs nl|scripted/\S+ vs scripted/)", line)]
    assert len(pairs_named) == len(lines)


def test_the_condition_section_of_the_report_lists_only_condition_comparisons(lag_run):
    out, summary = lag_run
    html = (out / "report.html").read_text()
    section = html[html.index('<section id="comparisons">'):]
    items = re.findall(r"<li>(.*?)</li>", section[section.index('<ul class="verdicts">'):section.index("</ul>")])
    kinds = [c["kind"] for c in summary["comparisons"]]
    assert "model" in kinds and len(items) == kinds.count("condition") > 0
    assert all(" vs nl: " in item or " vs tool: " in item for item in items)  # conditions, never two models
    assert verdict_lines(summary, kinds=("model",)) and not any("scripted/" in item.split(":")[1] for item in items)
