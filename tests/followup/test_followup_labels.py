"""The follow-up in the pair schema (validation errors) and the ``followup`` label check."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from evalkit.errors import ScenarioError
from evalkit.suite.checks import CHECKS, CRITERIA, check_suite
from evalkit.scenarios.loader import load_suite
from evalkit.scenarios.schema import Pair

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "followup"


def _raw(**abstain_extra):
    return {
        "id": "p", "domain": "shop", "trigger": "missing_param",
        "act": {"user": "Order 2 of SKU-100 for C-1.",
                "plan": [{"tool": "place_order", "args": {"customer_id": "C-1", "sku": "SKU-100", "quantity": 2}}],
                "expected": {"commits": [{"tool": "place_order", "args": {"quantity": 2}}]}},
        "abstain": {"user": "Order some SKU-100 for C-1.",
                    "plan": [{"tool": "get_product", "args": {"sku": "SKU-100"}},
                             {"tool": "place_order", "args": {"customer_id": "C-1", "sku": "SKU-100", "quantity": 1}}],
                    "expected": {"decision": "clarify", "observable_step": 0, "reason": "no quantity"},
                    **abstain_extra},
    }


FOLLOWUP = {"answer": "3 units.", "expected": {"commits": [{"tool": "place_order", "args": {"quantity": 3}}]}}


def test_a_followup_validates_and_defaults_its_calls_to_the_expected_commits():
    pair = Pair.model_validate(_raw(followup=FOLLOWUP))
    assert [(c.tool, c.args) for c in pair.abstain.followup.calls] == [("place_order", {"quantity": 3})]
    assert pair.abstain.followup.unhelpful_answer is None


@pytest.mark.parametrize("change, message", [
    ({"expected": {"decision": "abstain", "observable_step": 0, "reason": "x"}},
     r"only a side whose expected decision is clarify has a follow-up \(this one expects abstain\)"),
    ({"user_answers": {"default": "3"}}, "user_answers also answers request_user_decision"),
    ({"followup": {**FOLLOWUP, "plan": [{"tool": "place_order", "args": {"quantity": 4}}]}},
     r"expected.commits\[0\] \(place_order\) is made by no call of `plan`"),
    ({"followup": {"answer": "", "expected": FOLLOWUP["expected"]}}, "at least 1 character"),
    ({"followup": {**FOLLOWUP, "anwser": "typo"}}, "Extra inputs are not permitted"),
])
def test_bad_followups_fail_validation_naming_the_field(change, message):
    with pytest.raises(ValidationError, match=message) as info:
        Pair.model_validate(_raw(**{"followup": FOLLOWUP, **change}))
    assert info.value.errors()[0]["loc"][0] == "abstain"


def test_the_loader_names_the_file_pair_and_field_of_an_unknown_followup_tool(tmp_path):
    text = (FIXTURES / "shop_followup.yaml").read_text().replace(
        "- {tool: check_stock, args: {sku: SKU-100, quantity: 3}}", "- {tool: check_stocks, args: {sku: SKU-100}}")
    path = tmp_path / "s.yaml"
    path.write_text(text)
    with pytest.raises(ScenarioError, match=r"s.yaml: pair fu-shop-missing-quantity: field abstain.followup.plan.0.tool"
                                            r": domain shop has no tool 'check_stocks'"):
        load_suite([str(path)])


def test_followup_check_is_registered_and_passes_the_fixture_suite():
    assert "followup" in CHECKS and "L8" in CRITERIA
    report = check_suite(load_suite([str(FIXTURES / "shop_followup.yaml")]))
    assert report.counts["followup"] == {"applicable": 2, "passed": 2, "clean": 2, "errors": 0, "warnings": 0}
    assert report.issues == []


def test_followup_check_flags_ungrounded_unsupplied_refused_and_unmet_followups():
    report = check_suite(load_suite([str(FIXTURES / "bad_followups.yaml")]), names=["followup"])
    found = [(i.pair_id, i.field, i.criterion, i.severity) for i in report.issues]
    assert found == [
        ("bad-answer-supplies-nothing", "abstain.followup.plan", "L5", "error"),
        ("bad-answer-supplies-nothing", "abstain.followup.answer", "L8", "error"),
        ("bad-answer-vague", "abstain.followup.answer", "L8", "warning"),
        ("bad-refused-and-state", "abstain.followup.plan", "L8", "error"),
        ("bad-refused-and-state", "abstain.followup.expected.commits[0]", "L8", "error"),
        ("bad-refused-and-state", "abstain.followup.expected.state_checks[0]", "L8", "error"),
    ]
    messages = [i.message for i in report.issues]
    assert "place_order.quantity=5" in messages[0]
    assert messages[1] == "the answer supplies none of the values the abstain message lacks: 5"
    assert messages[3].startswith("place_order after the answer is refused: permission_denied")


def test_bfcl_miss_param_pairs_take_turn_k_plus_1_as_their_followup():
    pytest.importorskip("bfcl_eval")
    from evalkit.suite.importers import bfcl

    pairs, _ = bfcl.import_pairs(limit=12)
    mp = {p["id"]: p for p in pairs if p["trigger"] == "missing_param"}
    followup = mp["bfcl-miss-param-0"]["abstain"]["followup"]
    assert followup["answer"] == "The specific file is previous_report.pdf."
    assert followup["expected"]["commits"] == [{"tool": "mv", "args": {"source": "previous_report.pdf",
                                                                       "destination": "temp"}}]
    filled = [(Pair.model_validate(p), "bfcl.jsonl") for p in mp.values() if "followup" in p["abstain"]]
    assert len(filled) >= 3
    from evalkit.suite.checks import check_pairs

    report = check_pairs(filled, names=["followup"])
    assert report.counts["followup"]["applicable"] == len(filled)
    assert all(i.severity == "warning" or i.criterion == "L5" for i in report.issues)


def test_oracle_selfcheck_excludes_a_pair_whose_followup_the_oracle_cannot_finish():
    from evalkit.harness.selfcheck import oracle_selfcheck

    report = oracle_selfcheck(load_suite([str(FIXTURES / "bad_followups.yaml")]), conditions=("tool",))
    excluded = {e["pair_id"]: e["reasons"] for e in report.excluded}
    assert "bad-answer-supplies-nothing" in report.kept  # the oracle finishes it; the label check flags it
    assert any(r == "abstain variant, tool condition, gate off: did not recover after the simulated user's reply "
               "(cooperative): the follow-up's expected commits or state checks not met; denied: permission_denied"
               for r in excluded["bad-refused-and-state"])
    good = oracle_selfcheck(load_suite([str(FIXTURES / "shop_followup.yaml")]), conditions=("nl", "tool", "meta"))
    assert good.excluded == ()
