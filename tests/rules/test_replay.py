"""`evalkit rules replay`: recorded traces against a rule set, without a model."""

from __future__ import annotations

import json

import pytest
from rules_helpers import evalkit, run_dir

from evalkit.errors import ConfigError
from evalkit.rules import load_rule_set, scan_log
from evalkit.rules.replay import TraceEpisode, load_traces, replay
from evalkit.runtime.events import EpisodeStarted, GateDecided, MetaRequestUpdated, ToolExecuted

PAIR = "shop-bulk-order-confirm"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """A clean run: the oracle, gate off; its act side orders 5 units."""
    return run_dir(tmp_path_factory.mktemp("replay") / "run", "scripted/oracle", [PAIR], rules="", gate="off")


def plant(trace_in, trace_out, quantity):
    """Copy a recorded trace with the executed order's quantity changed (and nothing else)."""
    lines = []
    for line in trace_in.read_text().splitlines():
        event = json.loads(line)
        if event["type"] == "tool_executed" and event["tool"] == "place_order":
            event["arguments"]["quantity"] = quantity
            seq = event["seq"]
        lines.append(json.dumps(event))
    trace_out.write_text("\n".join(lines) + "\n")
    return seq


def test_replay_finds_a_planted_regression_in_a_recorded_trace(recorded, tmp_path):
    [act] = (recorded / "traces").glob(f"{PAIR}__act__*.jsonl")
    proc = evalkit("rules", "replay", act, "--rules", "default")
    assert proc.returncode == 0, proc.stderr
    assert "replayed 1 episode(s), 1 executed commit(s), against evalkit-default@1: no regression" in proc.stdout
    planted = tmp_path / "planted.jsonl"
    seq = plant(act, planted, 500)
    proc = evalkit("rules", "replay", act, planted, "--rules", "default", "--json", tmp_path / "replay.json")
    assert proc.returncode == 1, proc.stderr
    assert "1 episode(s) with a regression (1 commit(s) a rule would have stopped: bulk-order-confirm-v1 1)" \
        in proc.stdout
    report = json.loads((tmp_path / "replay.json").read_text())
    [reg] = report["regressions"]
    assert reg["source"] == str(planted) and reg["variant"] == "act" and reg["format"] == "evalkit"
    assert [(m["seq"], m["tool"], m["rule_id"], m["then"]) for m in reg["matches"]] == [
        (seq, "place_order", "bulk-order-confirm-v1", "clarify")]
    assert report["n_episodes"] == 2 and report["n_commits"] == 2


def test_replay_reads_a_run_directory(recorded, tmp_path):
    proc = evalkit("rules", "replay", recorded, "--rules", "default")
    assert proc.returncode == 0, proc.stderr
    # act and abstain sides: the act side's order and, on the abstain side, the order the
    # oracle places after the simulated user's answer to its question (the pair's follow-up)
    assert "replayed 2 episode(s), 2 executed commit(s)" in proc.stdout
    eager = run_dir(tmp_path / "eager", "scripted/always_act", [PAIR], rules="", gate="off")
    proc = evalkit("rules", "replay", eager, "--rules", "default", "--json", tmp_path / "r.json")
    assert proc.returncode == 1  # the eager agent's 500-unit order on the abstain side
    [reg] = json.loads((tmp_path / "r.json").read_text())["regressions"]
    assert reg["episode_id"].startswith(f"{PAIR}__abstain__scripted_always_act") and reg["variant"] == "abstain"
    assert reg["model"] == "scripted/always_act" and reg["gate"] == "off" and "bulk-order-confirm-v1" in proc.stdout
    # the same agent with the gate on and the same rules never committed it: nothing to report
    gated = run_dir(tmp_path / "gated", "scripted/always_act", [PAIR], rules="default", gate="on")
    assert evalkit("rules", "replay", gated, "--rules", "default").returncode == 0


CLEAN = {"episode_id": "ep-clean", "domain": "shop", "variant": "act", "meta": {"model": "vendor/agent-7"},
         "steps": [{"tool": "check_refund_eligibility", "kind": "verify", "arguments": {"order_id": "O-1"}},
                   {"tool": "refund_order", "kind": "commit", "arguments": {"order_id": "O-1", "amount": 20}}]}
PLANTED = {"episode_id": "ep-planted", "domain": "shop", "variant": "abstain",
           "steps": [{"tool": "check_refund_eligibility", "kind": "verify", "arguments": {"order_id": "O-2"},
                      "ok": False, "signals": ["tool_error"]},
                     {"tool": "get_order", "kind": "lookup", "arguments": {"order_id": "O-2"}},
                     {"tool": "refund_order", "kind": "commit", "arguments": {"order_id": "O-2", "amount": 20}}]}


def write_jsonl(path, *episodes):
    path.write_text("".join(json.dumps(e) + "\n" for e in episodes))
    return path


def test_replay_of_the_import_format(tmp_path):
    clean = write_jsonl(tmp_path / "clean.jsonl", CLEAN)
    proc = evalkit("rules", "replay", clean, "--rules", "default")
    assert proc.returncode == 0 and "no regression" in proc.stdout, proc.stderr
    mixed = write_jsonl(tmp_path / "mixed.jsonl", CLEAN, PLANTED)
    proc = evalkit("rules", "replay", mixed, "--rules", "default")
    assert proc.returncode == 1
    assert "ep-planted" in proc.stdout and "ep-clean" not in proc.stdout
    assert "refund-after-failed-check-v1" in proc.stdout and f"{mixed}:2" in proc.stdout
    # a retry of the check that now passes resolves the signal: no regression
    retried = {**PLANTED, "steps": [PLANTED["steps"][0], {**PLANTED["steps"][0], "ok": True, "signals": []},
                                    PLANTED["steps"][2]]}
    assert evalkit("rules", "replay", write_jsonl(tmp_path / "r.jsonl", retried), "--rules", "default").returncode == 0


@pytest.mark.parametrize(("content", "needle"), [
    ('{"episode_id": "ep-1", "steps": [{"tool": "x", "kind": "write"}]}\n',
     "{f}:1: episode ep-1: field steps.0.kind: Input should be 'lookup', 'verify' or 'commit'"),
    (json.dumps(CLEAN) + '\n{"episode_id": "ep-2", "steps": [], "modle": "m"}\n',
     "{f}:2: episode ep-2: field modle: Extra inputs are not permitted"),
    (json.dumps(CLEAN) + "\n{not json\n", "{f}:2: not valid JSON"),
    ('{"hello": 1}\n', "{f}:1: not a trace: expected an evalkit event"),
    ("\n\n", "{f}: empty trace file"),
    ('{"type": "episode_started", "seq": 0, "turn": 0}\n{"type": "warp", "seq": 1, "turn": 0}\n',
     "{f}:2: unknown event type 'warp'"),
])
def test_bad_traces_exit_2_with_one_line_naming_file_and_line(tmp_path, content, needle):
    f = tmp_path / "t.jsonl"
    f.write_text(content)
    proc = evalkit("rules", "replay", f, "--rules", "default")
    assert proc.returncode == 2, proc.stdout
    assert proc.stderr.strip().splitlines() == [proc.stderr.strip()] and needle.format(f=f) in proc.stderr, proc.stderr


def test_missing_inputs_and_draft_rules_exit_2(tmp_path):
    (tmp_path / "empty").mkdir()
    draft = tmp_path / "draft.yaml"
    draft.write_text("draft: true\nid: d\nversion: draft-1\nrules: []\n")
    good = write_jsonl(tmp_path / "ok.jsonl", CLEAN)
    for args, needle in [([tmp_path / "nope.jsonl", "--rules", "default"], "no such trace file or folder"),
                         ([tmp_path / "empty", "--rules", "default"], "no trace files found"),
                         ([good, "--rules", draft], "is a draft rule set")]:
        proc = evalkit("rules", "replay", *args)
        assert proc.returncode == 2 and needle in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


def test_import_episodes_fold_like_recorded_ones():
    ep = TraceEpisode.model_validate(PLANTED)
    events = ep.events()
    assert type(events[0]) is EpisodeStarted and events[0].domain == "shop"
    assert [(type(e).__name__, e.seq) for e in events[1:]] == [("ToolExecuted", 1), ("ToolExecuted", 2),
                                                               ("ToolExecuted", 3)]
    [m] = scan_log(events, load_rule_set("default"))
    assert (m.seq, m.rule_id) == (3, "refund-after-failed-check-v1")
    report = replay([], load_rule_set("default"))
    assert report["n_episodes"] == 0 and report["regressions"] == [] and report["rules"]["version"] == "1"


def test_scan_log_reads_trace_lines_parsed_from_json():
    events = TraceEpisode.model_validate(PLANTED).events()
    as_dicts = [json.loads(json.dumps(e.to_dict())) for e in events]
    [m] = scan_log(as_dicts, load_rule_set("default"))
    assert (m.seq, m.rule_id) == (3, "refund-after-failed-check-v1")


def test_a_clarify_rule_the_user_answered_is_not_a_regression():
    rules = load_rule_set("default")
    order = dict(tool="place_order", kind="commit", arguments={"customer_id": "C-3", "sku": "S", "quantity": 500})
    asked = [EpisodeStarted(seq=0, turn=0, domain="shop", gate="on"),
             GateDecided(seq=1, turn=1, call_id="c1", tool="place_order", kind="commit", decision="clarify",
                         reason="stopping_rule", rule_id="bulk-order-confirm-v1")]
    answered = MetaRequestUpdated(seq=2, turn=2, request_id="mr-1", meta_type="request_user_decision",
                                  status="fulfilled", detail={"response": {"answer": "yes, 500"}})
    commit = ToolExecuted(seq=3, turn=3, call_id="c2", **order)
    assert scan_log([*asked, answered, commit], rules) == []
    assert [m.rule_id for m in scan_log([*asked, commit], rules)] == ["bulk-order-confirm-v1"]


def test_load_traces_rejects_nothing_given():
    with pytest.raises(ConfigError, match="no trace files found"):
        load_traces([])


def test_deeply_nested_or_non_standard_json_is_bad_input_not_a_regression(tmp_path):
    deep = tmp_path / "deep.jsonl"
    deep.write_text('{"format": "evalkit-trace/1", "episode_id": "e", "events": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    with pytest.raises(ConfigError, match=r"deep.jsonl"):
        load_traces([deep])
    nan = tmp_path / "nan.jsonl"
    nan.write_text('{"format": "evalkit-trace/1", "episode_id": "e", "x": NaN}\n')
    with pytest.raises(ConfigError, match=r"nan.jsonl:1: not valid JSON \(NaN is not a JSON number\)"):
        load_traces([nan])

