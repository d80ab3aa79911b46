"""The scripted MCP agent scores exactly what the in-process scripted model scores, row for row.

A stratified subset of the built-in suite keeps the test short (each agent episode starts a
Python MCP client process, about a second): one pair of each trigger, control pairs included,
in all three conditions with the gate off; the triggers whose evidence arrives at run time,
where the autonomy gate can stop a call, also with the gate on. Sides with a follow-up are
compared whole: over MCP the simulated user answers the agent's question and the agent
finishes the task, as the in-process oracle does.
"""

from __future__ import annotations

import pytest

from evalkit.harness.config import RunConfig
from evalkit.pipeline import run

from agent_helpers import IGNORED, rows, scripted_agent, stratified

DIFFERENT_BY_CONSTRUCTION = IGNORED
"""Every row field is compared except these (agent_helpers.IGNORED): ``episode_id`` and
``model`` name the model; ``latency_s`` is wall-clock time (the agent's time between calls);
the usage and money fields are unknown for an agent (``None``: evalkit does not see its model
calls) and 0 for a scripted model. No other field may differ, on the follow-up sides included."""


def by_key(records: list[dict], model: str) -> dict[tuple, dict]:
    return {(r["pair_id"], r["variant"], r["condition"], r["gate"], r["epoch"]): r for r in records
            if r["model"] == model}


def summary_of(summary: dict, model: str, field: str) -> dict[tuple[str, str], float]:
    return {(r["condition"], r["gate"]): r[field] for r in summary["rows"] if r["model"] == model}


def differences(theirs: dict[tuple, dict], mine: dict[tuple, dict]) -> dict[tuple, dict]:
    """``key → {field: (in process, agent)}`` for every row of ``theirs`` that ``mine`` does not equal."""
    assert mine.keys() == theirs.keys()
    out = {}
    for key, row in theirs.items():
        different = {k: (v, mine[key].get(k)) for k, v in row.items()
                     if k not in DIFFERENT_BY_CONSTRUCTION and v != mine[key].get(k)}
        if different:
            out[key] = different
    return out


GATE_ON = ("conflicting_evidence", "missing_target", "emergent_risk", "constraint_conflict")


@pytest.mark.parametrize(("gate", "triggers"), [("off", None), ("on", GATE_ON)])
def test_oracle_agent_equals_scripted_oracle_row_for_row(tmp_path, gate, triggers):
    pair_ids = stratified(1, triggers)
    agent = "agent/" + scripted_agent("oracle")
    config = RunConfig(models=["scripted/oracle", agent], pair_ids=pair_ids, gates=[gate], out=str(tmp_path / "run"),
                       report=False, max_connections=4)
    summary = run(config)
    everywhere = {(c, gate): 1.0 for c in ("nl", "tool", "meta")}
    assert summary_of(summary, agent, "paired_accuracy") == everywhere
    assert summary_of(summary, agent, "recovery_rate") == everywhere
    records = rows(tmp_path / "run")
    mine, theirs = by_key(records, agent), by_key(records, "scripted/oracle")
    assert len(theirs) > 3 * len(pair_ids)
    assert differences(theirs, mine) == {}
    followups = [key for key, row in theirs.items() if row["followup"]]
    assert len(followups) >= 6  # at least two pairs with a follow-up, in each condition
    for key in followups:
        row = mine[key]
        assert (row["status"], row["asked"], row["questions"], row["recovered"]) == ("ok", True, 1, True), key


def test_the_subsets_cover_every_trigger():
    from evalkit.types import TRIGGERS

    pair_ids = stratified(1)
    assert len(pair_ids) == len(TRIGGERS)
    assert set(GATE_ON) <= set(TRIGGERS)
