"""What an agent sees over MCP: the episode's tools and channel per condition, denials as tool
errors with the reason code, and every call in the episode's event log."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

from agent_helpers import rows

from evalkit.conditions.meta_tools import plain_meta_tools
from evalkit.harness.config import RunConfig
from evalkit.pipeline import run
from evalkit.runtime.events import EventLog

PROBE = Path(__file__).with_name("probe_agent.py")


def test_tools_channel_denials_and_event_log(tmp_path):
    seen = tmp_path / "seen"
    seen.mkdir()
    agent = "agent/cmd:" + " ".join(shlex.quote(a) for a in (sys.executable, str(PROBE), str(seen),
                                                             "{user_message_file}"))
    out = tmp_path / "run"
    run(RunConfig(models=[agent], pair_ids=["shop-order-missing-quantity"], out=str(out), report=False,
                  max_connections=2))
    records = {p.name.split("-")[0]: json.loads(p.read_text()) for p in seen.iterdir()}
    assert set(records) == {"nl", "tool", "meta"}
    domain = set(records["nl"]["tools"]) - {"final_answer"}
    assert "final_answer" in records["nl"]["tools"] and domain
    assert set(records["tool"]["tools"]) == domain | {"final_answer"} | set(plain_meta_tools())
    assert set(records["meta"]["tools"]) == domain | {"final_answer", "meta_request"}
    meta = records["meta"]["results"].pop(3)  # a request_tool for a capability no tool has
    denied = json.loads(meta["text"].splitlines()[0])
    assert meta["is_error"] and denied["decision"] == "denied" and denied["code"] == "capability_gap"
    for condition, record in records.items():
        unknown, mismatch, missing, after = record["results"]
        assert unknown["is_error"] and json.loads(unknown["text"])["error"] == "unknown_tool"
        assert mismatch["is_error"] and json.loads(mismatch["text"])["error"] == "schema_mismatch"
        assert after["is_error"] and json.loads(after["text"].splitlines()[0])["error"] == "episode_ended"
        assert unknown["meta"] == {"evalkit/episode_ended": False, "evalkit/end_reason": None, "evalkit/user_reply": None}
        assert record["instructions"] == record["prompt"] and record["message"] and record["history"] == []
    for row in rows(out):
        assert row["status"] == "ok" and row["final_text"] == "Done."
        assert row["turns"] == (5 if row["condition"] == "meta" else 4)
        assert row["denials"] != {}
        trace = EventLog.load(out / "traces" / f"{row['episode_id']}.jsonl").events
        kinds = [e.type for e in trace]
        assert kinds[:2] == ["episode_started", "user_message"] and kinds[-1] == "episode_ended"
        denied = [e.reason_code for e in trace if e.type == "action_decided" and e.action == "deny"]
        assert denied[:2] == ["unknown_tool", "schema_mismatch"]
