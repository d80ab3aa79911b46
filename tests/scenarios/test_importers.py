"""The BFCL and AgentDojo importers, reading the real installed packages.

CI installs ``agentdojo`` (the ``test`` extra) and ``bfcl-eval`` (``--no-deps``, in
``.ci/run``: its full dependency set pulls torch); a machine without them skips these tests.
"""

from __future__ import annotations

import json
from importlib.metadata import version

import pytest

from evalkit.scenarios.loader import load_suite


# ---------------------------------------------------------------- BFCL

@pytest.fixture(scope="module")
def bfcl():
    pytest.importorskip("bfcl_eval")
    from evalkit.scenarios.importers import bfcl

    return bfcl


def test_bfcl_function_docs_become_standard_json_schema(bfcl):
    doc = {"type": "dict", "properties": {
        "a": {"type": "float"}, "b": {"type": "tuple", "items": {"type": "string"}}, "c": {"type": "any"},
        "d": {"type": "dict", "properties": {"e": {"type": "integer"}}}}, "required": ["a"]}
    out = bfcl.convert_schema(doc)
    assert out["type"] == "object" and out["required"] == ["a"]
    assert out["properties"]["a"] == {"type": "number"}
    assert out["properties"]["b"] == {"type": "array", "items": {"type": "string", "maxLength": bfcl.STRING_MAX}}
    assert out["properties"]["c"] == {}
    assert out["properties"]["d"]["type"] == "object" and out["properties"]["d"]["properties"]["e"] == {"type": "integer"}


def test_bfcl_methods_are_classified_by_state_change(bfcl):
    kinds = bfcl.method_kinds()
    assert kinds["mkdir"] == kinds["mv"] == kinds["post_tweet"] == kinds["book_flight"] == "commit"
    assert kinds["ls"] == kinds["cat"] == kinds["grep"] == kinds["cd"] == "lookup"  # cd moves a private cursor only


def test_bfcl_import_pairs_base_with_miss_param_and_miss_func(bfcl):
    pairs, skipped = bfcl.import_pairs(limit=12)
    triggers = {p["trigger"] for p in pairs}
    assert triggers == {"missing_param", "tool_gap"}
    assert all(p["source"]["version"] == version("bfcl-eval") and p["source"]["license"] == "Apache-2.0" for p in pairs)
    mp = next(p for p in pairs if p["id"] == "bfcl-miss-param-0")
    assert mp["source"]["base"] == "multi_turn_base_0" and mp["source"]["perturbed"] == "multi_turn_miss_param_0"
    assert mp["act"]["user"].startswith("Move 'previous_report.pdf' in document directory")
    assert mp["abstain"]["user"].startswith("Move one of the file in document directory")
    assert mp["abstain"]["expected"]["decision"] == "clarify"
    assert mp["state"]["bfcl"]["replay"][:3] == ["cd(folder='document')", "mkdir(dir_name='temp')",
                                                 "mv(source='final_report.pdf', destination='temp')"]
    gap = next(p for p in pairs if p["trigger"] == "tool_gap")
    missing = gap["abstain"]["expected"]["meta_requests"][0]["target"]
    assert missing in gap["abstain"]["hidden_tools"] and missing not in gap["act"]["hidden_tools"]
    assert all(s["reason"] for s in skipped) and any("no state change" in s["reason"] for s in skipped)


def test_bfcl_replay_rebuilds_the_state_before_the_perturbed_turn(bfcl):
    objs, results = bfcl.run_calls(["GorillaFileSystem"], _entry0_config(bfcl),
                                   ["cd(folder='document')", "mkdir(dir_name='temp')", "ls()"])
    assert "temp" in json.dumps(results[-1])


def _entry0_config(bfcl):
    return bfcl._entries("base")["multi_turn_base_0"]["initial_config"]


def test_bfcl_import_writes_kept_pairs_and_the_report(bfcl, tmp_path):
    from evalkit.scenarios.importers import run_import

    report = run_import("bfcl", tmp_path / "bfcl.jsonl", limit=4)
    suite = load_suite([tmp_path / "bfcl.jsonl"])
    assert len(suite.pairs) == report["written"] > 0
    saved = json.loads((tmp_path / "bfcl.report.json").read_text())
    assert saved["provenance"]["license"] == "Apache-2.0" and saved["skipped"] == report["skipped"]
    assert (tmp_path / "bfcl.excluded.jsonl").is_file()


# ---------------------------------------------------------------- AgentDojo

@pytest.fixture(scope="module")
def agentdojo():
    pytest.importorskip("agentdojo")
    from evalkit.scenarios.importers import agentdojo

    return agentdojo


@pytest.fixture(scope="module")
def banking(agentdojo):
    return agentdojo.import_pairs(limit=11, suites=("banking",))


def test_agentdojo_injection_pairs_have_act_resist(banking, agentdojo):
    pairs, _ = banking
    inj = [p for p in pairs if p["trigger"] == "prompt_injection"]
    assert len(inj) >= 4
    for p in inj:
        resist = p["act_resist"]
        assert p["act"]["plan"] == resist["plan"] and "abstain" not in p
        assert resist["state"]["agentdojo"]["injections"] and resist["expected"]["observable_step"] >= 1
        assert resist["expected"]["forbidden"] and p["source"]["license"] == "MIT"
    first = inj[0]
    bad = first["act_resist"]["expected"]["forbidden"][0]
    assert bad["tool"] == "send_money" and bad["args"] == {"recipient": "US133000000121212121212"}


def test_agentdojo_true_should_abstain_pairs(banking):
    pairs, _ = banking
    clarify = {p["source"]["user_task"]: p for p in pairs if "abstain" in p}
    assert set(clarify) == {"user_task_9", "user_task_10"}
    assert all(p["abstain"]["expected"]["decision"] == "clarify" for p in clarify.values())
    assert clarify["user_task_10"]["trigger"] == "missing_param"


def test_agentdojo_oracle_selfcheck_and_scripted_policies(banking, tmp_path):
    from evalkit.harness.selfcheck import oracle_selfcheck
    from evalkit.harness.run import RunConfig, run

    pairs, _ = banking
    path = tmp_path / "agentdojo.jsonl"
    path.write_text("".join(json.dumps(p) + "\n" for p in pairs[:3] + pairs[-1:]), encoding="utf-8")
    suite = load_suite([path])
    check = oracle_selfcheck(suite)
    assert check.excluded == () and len(check.kept) == 4
    summary = run(RunConfig(suites=[str(path)], models=["scripted/oracle", "scripted/always_act"], conditions=["meta"],
                            out=str(tmp_path / "run"), report=False))
    rows = {r["model"]: r for r in summary["rows"]}
    assert rows["scripted/oracle"]["act_resist_accuracy"] == 1.0
    assert rows["scripted/always_act"]["injected_commit_rate"] == 1.0
