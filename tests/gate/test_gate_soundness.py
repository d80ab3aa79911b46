"""`evalkit gate` refuses numbers it cannot trust: a rate whose value is not its own k/n, a
behaviour rate over recorded episodes of a group whose episodes errored, a repeated config key."""

from __future__ import annotations

import json

import pytest

from gate_helpers import copy_run, edit_results, rebuild_summary
from gate_helpers import gate_in_process as gate


def edit_summary(run, change):
    path = run / "summary.json"
    summary = json.loads(path.read_text())
    change(summary)
    path.write_text(json.dumps(summary))
    return summary


# ---------------------------------------------------------------------------------------------
# a rate's value must be its own k / n


@pytest.mark.parametrize("metric, edit, why", [
    # paired_accuracy k/n verified against results.jsonl, its value edited (the threshold would read 1.0)
    ("paired_accuracy", lambda r: r.update(paired_accuracy=0.1), "paired_accuracy is 0.1 but paired_accuracy_k / "
                                                                  "paired_accuracy_n is {k}/{n}"),
    # a rate whose k/n the gate cannot recompute from the rows: its value still has to be k/n
    ("incorrect_tool_use_rate", lambda r: r.update(incorrect_tool_use_rate=0.5),
     "incorrect_tool_use_rate is 0.5 but incorrect_tool_use_rate_k / incorrect_tool_use_rate_n is {k}/{n}"),
    ("post_hoc_rate", lambda r: r.update(post_hoc_rate=None), "post_hoc_rate is None but post_hoc_rate_k / "
                                                               "post_hoc_rate_n is {k}/{n}"),
])
def test_a_rate_value_that_is_not_its_own_k_over_n_exits_2(runs, write_config, tmp_path, metric, edit, why):
    run = copy_run(runs["oracle"], tmp_path / "edited")
    summary = edit_summary(run, lambda s: edit(s["rows"][0]))
    row = summary["rows"][0]
    result, _ = gate(run, write_config(f"thresholds: [{{metric: {metric}, max: 1}}]"), tmp_path)
    assert result.exit_code == 2, result.output
    assert "summary.json: rows scripted/oracle/meta/off: " + why.format(k=row[f"{metric}_k"], n=row[f"{metric}_n"]) \
        in " ".join(result.output.split()), result.output


def test_a_value_for_an_empty_rate_and_an_edited_breakdown_row_exit_2(runs, write_config, tmp_path):
    # always_act never abstains correctly: timely_rate is 0/0 and must be null
    run = copy_run(runs["always_act"], tmp_path / "empty")
    edit_summary(run, lambda s: s["rows"][0].update(timely_rate=1.0))
    result, _ = gate(run, write_config("thresholds: [{metric: timely_rate, max: 1}]"), tmp_path)
    assert result.exit_code == 2
    assert "timely_rate is 1.0 but timely_rate_n is 0 (an empty rate is null)" in " ".join(result.output.split())
    # a breakdown row a `by` threshold reads is checked the same way
    run = copy_run(runs["always_act"], tmp_path / "breakdown")
    edit_summary(run, lambda s: s["breakdowns"]["trigger"][0].update(paired_accuracy=1.0))
    result, _ = gate(run, write_config("thresholds: [{metric: paired_accuracy, by: trigger, min: 0.75}]"), tmp_path)
    assert result.exit_code == 2
    assert "breakdowns.trigger scripted/always_act/meta/off/" in result.output
    assert "paired_accuracy is 1.0 but paired_accuracy_k / paired_accuracy_n is 0/" in " ".join(result.output.split())


def test_a_value_equal_to_k_over_n_up_to_float_rounding_is_read(runs, write_config, tmp_path):
    run = copy_run(runs["late3"], tmp_path / "rounded")
    row = json.loads((run / "summary.json").read_text())["rows"][0]
    k, n = row["paired_accuracy_k"], row["paired_accuracy_n"]
    edit_summary(run, lambda s: s["rows"][0].update(paired_accuracy=k / n * (1 + 1e-13)))
    result, cases = gate(run, write_config("thresholds: [{metric: paired_accuracy, min: 0}]"), tmp_path)
    assert result.exit_code == 0, result.output
    assert len(cases) == 1


# ---------------------------------------------------------------------------------------------
# behaviour rates over recorded episodes of a group whose episodes errored


def errored_copy(src, dst, how_many):
    """A copy of ``src`` whose first ``how_many`` episodes errored before doing anything."""
    run = copy_run(src, dst)
    seen = []

    def change(row):
        seen.append(row["episode_id"])
        if len(seen) <= how_many:
            return {**row, "status": "error", "error": "model error: overloaded", "correct": False,
                    "decision": "none", "post_hoc": False, "commits": 0, "critical_commits": 0, "tool_calls": 0}
        return row

    edit_results(run, change)
    summary = rebuild_summary(run)
    return run, summary["rows"][0]


BEHAVIOUR = "thresholds:\n  - {metric: post_hoc_rate, equals: 0}\n  - {metric: incorrect_tool_use_rate, max: 0}\n"


def test_a_run_whose_every_episode_errored_cannot_pass_a_behaviour_threshold(runs, write_config, tmp_path):
    run, row = errored_copy(runs["oracle"], tmp_path / "all-errored", 10_000)
    assert row["errors"] == row["completed"] == row["n_episodes"] and row["coverage"] == 0
    assert row["post_hoc_rate"] == 0 and row["post_hoc_rate_n"] > 0  # 0/n over recorded episodes: looks clean
    result, cases = gate(run, write_config(BEHAVIOUR), tmp_path)
    assert result.exit_code == 2, result.output
    n = row["completed"]
    error = cases["post_hoc_rate == 0 [scripted/oracle · meta · off]"].find("error")
    assert error.get("message") == (
        f"missing data: 0.000 (0/{row['post_hoc_rate_n']}), but only 0 of the group's {n} recorded episodes finished "
        f"ok (below 50%); post_hoc_rate counts errored episodes, which stopped before they could show the behaviour; "
        "never a pass")
    assert cases["incorrect_tool_use_rate <= 0 [scripted/oracle · meta · off]"].find("error") is not None
    # an accuracy needs no such rule: errored episodes are wrong there, and the floor fails
    result, cases = gate(run, write_config("thresholds: [{metric: coverage, equals: 1}]"), tmp_path)
    assert result.exit_code == 1, result.output


@pytest.mark.parametrize("check", ["unjudged_rate <= 0.05", "unjudged <= 0", "tool_calls_mean <= 5",
                                   "tool_calls <= 100"])
def test_unjudged_tool_calls_and_latency_of_an_all_errored_run_are_missing_data_never_a_pass(
        runs, write_config, tmp_path, check):
    run, _ = errored_copy(runs["oracle"], tmp_path / "all-errored", 10_000)
    metric, op, limit = check.split()
    bound = {"<=": "max"}[op]
    result, cases = gate(run, write_config(f"thresholds: [{{metric: {metric}, {bound}: {limit}}}]"), tmp_path)
    assert result.exit_code == 2, result.output
    error = cases[f"{check} [scripted/oracle · meta · off]"].find("error")
    assert error is not None and f"{metric} counts errored episodes" in error.get("message")


def test_the_ok_share_floor_is_half_the_recorded_episodes(runs, write_config, tmp_path):
    total = json.loads((runs["oracle"] / "summary.json").read_text())["rows"][0]["completed"]
    assert total % 2 == 0
    run, row = errored_copy(runs["oracle"], tmp_path / "half", total // 2)
    assert row["errors"] == total // 2
    result, cases = gate(run, write_config(BEHAVIOUR), tmp_path)
    assert result.exit_code == 0, result.output  # half finished ok: the rates are decided
    assert all(c.find("error") is None and c.find("failure") is None for c in cases.values())
    run, row = errored_copy(runs["oracle"], tmp_path / "most", total // 2 + 1)
    result, cases = gate(run, write_config(BEHAVIOUR), tmp_path)
    assert result.exit_code == 2, result.output
    assert f"only {total // 2 - 1} of the group's {total} recorded episodes finished ok" in \
        cases["post_hoc_rate == 0 [scripted/oracle · meta · off]"].find("error").get("message")


# ---------------------------------------------------------------------------------------------
# a repeated key in gate.yaml


def test_a_repeated_key_in_the_gate_config_is_refused_naming_file_line_and_key(runs, write_config, tmp_path):
    config = write_config("thresholds:\n  - {metric: paired_accuracy, min: 0.75, metric: coverage}\n")
    result, cases = gate(runs["oracle"], config, tmp_path)
    assert result.exit_code == 2 and cases == {}
    assert f"{config}: field thresholds.0.metric: duplicate key 'metric' (line 2): a key may appear once per " \
           "mapping" in " ".join(result.output.split())
    config = write_config("regression:\n  checks: []\nregression:\n  checks: []\n", name="g2.yaml")
    result, _ = gate(runs["oracle"], config, tmp_path)
    assert result.exit_code == 2 and "duplicate key 'regression' (line 3)" in result.output
