"""The scripted MCP agent scores exactly what the in-process scripted model scores.

A stratified subset of the built-in suite keeps the test short (each agent episode starts a
Python MCP client process, about a second): one pair of each trigger, control pairs
included, in all three conditions; the triggers whose evidence arrives at run time, where the
autonomy gate can stop a call, with the gate on, the others with the gate off.
"""

from __future__ import annotations

import pytest

from evalkit.harness.config import RunConfig
from evalkit.pipeline import run

from agent_helpers import IGNORED, rows, scripted_agent, stratified


def _by_key(records: list[dict], model: str) -> dict[tuple, dict]:
    return {(r["pair_id"], r["variant"], r["condition"], r["gate"], r["epoch"]): r for r in records
            if r["model"] == model}


def _paired(summary: dict, model: str) -> dict[tuple[str, str], float]:
    return {(r["condition"], r["gate"]): r["paired_accuracy"] for r in summary["rows"] if r["model"] == model}


GATE_ON = ("conflicting_evidence", "missing_target", "emergent_risk", "constraint_conflict")
GATE_OFF = ("none", "missing_param", "ambiguous_intent", "high_risk", "tool_gap", "permission_scope", "tool_failure",
            "prompt_injection")


FIRST_DECISION = ("status", "correct", "decision", "decided_by", "stated", "decision_match", "critical_commits",
                  "post_hoc", "lag", "timely", "meta_made_n", "meta_matched_n", "meta_expected_n")
"""The fields of a side's first decision (up to the question on a side with a follow-up)."""


@pytest.mark.parametrize(("gate", "triggers"), [("off", GATE_OFF), ("on", GATE_ON)])
def test_oracle_agent_equals_scripted_oracle(tmp_path, gate, triggers):
    pair_ids = stratified(1, triggers)
    agent = "agent/" + scripted_agent("oracle")
    config = RunConfig(models=["scripted/oracle", agent], pair_ids=pair_ids, gates=[gate], out=str(tmp_path / "run"),
                       report=False, max_connections=4)
    summary = run(config)
    assert _paired(summary, agent) == {(c, gate): 1.0 for c in ("nl", "tool", "meta")}
    records = rows(tmp_path / "run")
    mine, theirs = _by_key(records, agent), _by_key(records, "scripted/oracle")
    assert len(mine) == len(theirs) > 3 * len(pair_ids)
    for key, row in theirs.items():
        other = mine[key]
        assert other["status"] == "ok"
        # over MCP the simulated user does not answer yet: a side with a follow-up ends at the
        # question, so only its first decision is compared (and the agent does not recover)
        fields = FIRST_DECISION if row.get("followup") else [k for k in row if k not in IGNORED]
        different = {k: (row[k], other[k]) for k in fields if row[k] != other[k]}
        assert different == {}, key
        if row.get("followup"):
            assert row["recovered"] is True and not other["recovered"], key


def test_the_two_subsets_cover_every_trigger():
    from evalkit.types import TRIGGERS

    assert sorted(GATE_ON + GATE_OFF) == sorted(TRIGGERS)
