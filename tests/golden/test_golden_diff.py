"""The golden comparison fails, naming the episode, the field and both values, on any change
of value that is not declared, and passes on declared shape changes and on another row order."""

from __future__ import annotations

import copy
import json
import random

import pytest

from golden_changes import Added, Reformat, Removed, Renamed, parse_json
from golden_lib import EXPECTED, compare, load


@pytest.fixture(scope="module")
def recorded():
    rows, summary = load(EXPECTED)
    return rows, summary


@pytest.fixture()
def small(recorded):
    """Every 50th recorded row (all models, conditions and gates) and the full summary."""
    rows, summary = recorded
    return rows[::50], summary


def test_the_recorded_data_covers_every_scripted_model_condition_and_gate(recorded):
    rows, summary = recorded
    combos = {(r["model"], r["condition"], r["gate"]) for r in rows}
    models = {m for m, _, _ in combos}
    assert {"scripted/oracle", "scripted/asks_ignores", "scripted/late:1", "scripted/late:3"} <= models
    assert len(models) == 8 and len(combos) == 8 * 3 * 2
    assert len(rows) == summary["n_episodes_completed"] == sum(r["n_episodes"] for r in summary["rows"])


def test_a_copy_compares_equal_in_any_row_order(small):
    rows, summary = small
    shuffled = copy.deepcopy(rows)
    random.Random(1).shuffle(shuffled)
    report = compare(small, (shuffled, copy.deepcopy(summary)), changes=[])
    assert report.ok, report.text()


def test_one_changed_value_is_named_with_its_episode_and_both_values(recorded):
    rows, summary = recorded
    new_rows = copy.deepcopy(rows)
    victim = next(r for r in new_rows if r["model"] == "scripted/late:3" and r["gate"] == "on" and r["turns"] > 3)
    victim["turns"] += 1
    report = compare(recorded, (new_rows, summary), changes=[])
    assert not report.ok
    text = report.text()
    assert "field 'turns': 1 episodes differ" in text
    key = ", ".join(f"{k}={victim[k]}" for k in ("pair_id", "variant", "model", "condition", "gate", "epoch"))
    assert f"({key}): {victim['turns'] - 1} -> {victim['turns']}" in text
    assert report.summary == []


def test_a_bool_that_becomes_a_number_differs(small):
    rows, summary = small
    new_rows = copy.deepcopy(rows)
    new_rows[3]["correct"] = int(new_rows[3]["correct"])
    report = compare(small, (new_rows, summary), changes=[])
    assert "field 'correct': 1 episodes differ" in report.text()


def test_a_changed_summary_value_is_named_by_its_path(small):
    rows, summary = small
    new_summary = copy.deepcopy(summary)
    entry = next(e for e in new_summary["breakdowns"]["trigger"]
                 if e["model"] == "scripted/post_hoc" and e["condition"] == "meta" and e["gate"] == "off")
    old = entry["post_hoc_rate"]
    entry["post_hoc_rate"] = old / 2 if old else 0.5
    new_summary["rows"].reverse()  # order of identifiable entries does not matter
    report = compare(small, (rows, new_summary), changes=[])
    assert report.results == [] and report.n_summary_diffs == 1
    line = report.summary[0]
    assert line.startswith("  breakdowns.trigger[model=scripted/post_hoc, condition=meta, gate=off, "
                           f"trigger={entry['trigger']}].post_hoc_rate: {json.dumps(old)} -> ")


def test_missing_and_extra_episodes_are_listed(small):
    rows, summary = small
    new_rows = copy.deepcopy(rows[1:])
    extra = dict(new_rows[0], pair_id="no-such-pair")
    new_rows.append(extra)
    text = compare(small, (new_rows, summary), changes=[]).text()
    assert f"1 episodes missing (recorded, not in the new run):\n    (pair_id={rows[0]['pair_id']}," in text
    assert "1 episodes extra (new, never recorded):\n    (pair_id=no-such-pair," in text


def test_a_json_string_that_becomes_an_object_passes_only_when_declared(small):
    rows, summary = small
    old_rows = copy.deepcopy(rows)  # the recorded rows as once written: the mapping as JSON text
    for row in old_rows:
        row["denials"] = json.dumps(row["denials"])
    new_rows = copy.deepcopy(rows)
    assert "field 'denials'" in compare((old_rows, summary), (new_rows, summary), changes=[]).text()
    declared = [Reformat("denials", old=parse_json, reason="a typed mapping")]
    assert compare((old_rows, summary), (new_rows, summary), changes=declared).ok
    new_rows[0]["denials"] = {"policy.deny": 1}  # a real value change still fails under the declaration
    text = compare((old_rows, summary), (new_rows, summary), changes=declared).text()
    assert "field 'denials': 1 episodes differ" in text and '-> {"policy.deny": 1}' in text


def test_renamed_added_and_removed_fields_fail_unless_declared(small):
    rows, summary = small
    new_rows = copy.deepcopy(rows)
    for row in new_rows:
        row["stop_reason"] = row.pop("end_reason")
        row["schema_version"] = 2
        del row["first_pass"]
    new_summary = copy.deepcopy(summary)
    for entry in new_summary["rows"]:
        entry["n_pair_units"] = entry.pop("n_units")
    text = compare(small, (new_rows, new_summary), changes=[]).text()
    assert "field 'end_reason' is gone from" in text and "field 'stop_reason' is new in" in text
    assert "field 'schema_version' is new in" in text and "field 'first_pass' is gone from" in text
    assert "rows[model=scripted/oracle, condition=nl, gate=off].n_units: " in text
    declared = [
        Renamed("end_reason", "stop_reason", reason="test"),
        Added("schema_version", reason="test"),
        Removed("first_pass", reason="test"),
        Renamed("n_units", "n_pair_units", reason="test", scope="summary", section="rows"),
    ]
    assert compare(small, (new_rows, new_summary), changes=declared).ok
