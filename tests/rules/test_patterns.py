"""Rule patterns in linear time (no pattern can hang evalkit) and typed argument comparisons."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from rules_helpers import RULES_DIR, evalkit

from evalkit.errors import ConfigError
from evalkit.rules import RuleSet, load_rule_set, scan_log
from evalkit.rules.matcher import scan
from evalkit.rules.patterns import compile_pattern
from evalkit.rules.replay import TraceEpisode, replay
from evalkit.runtime.gate import Situation

HEADER = 'id: t\nversion: "1"\nchangelog: [{version: "1", changes: [x]}]\n'
CATASTROPHIC = [r"(a+)+$", r"(a|aa)*c", r"(x+x+)+y", r"^(\w+\s?)*$", r"(.*a){12}b"]


def rule_file(tmp_path, patterns: dict[str, str], name: str = "rules.yaml"):
    """A rule set with one rule per ``id → pattern``, each on tool ``echo``'s argument ``q``."""
    rules = [{"id": rid, "when": {"tool": "echo", "args": {"q": {"pattern": p}}}, "then": "abstain", "message": "m"}
             for rid, p in patterns.items()]
    path = tmp_path / name
    path.write_text(HEADER + yaml.safe_dump({"rules": rules}))
    return path


def test_catastrophic_patterns_cannot_hang_replay_or_the_gate(tmp_path):
    # Each of these takes exponential time in a backtracking engine on a long non-matching value
    # (minutes at 30 characters); here every value is 200,000 characters. The subprocess's timeout is a
    # hang guard only: the real cost is milliseconds.
    rules = rule_file(tmp_path, {f"r{i}": p for i, p in enumerate(CATASTROPHIC)})
    long_values = ["a" * 200_000 + "!", "x" * 200_000 + "!", "word " * 40_000 + "!", "a" * 200_000]
    trace = tmp_path / "t.jsonl"
    trace.write_text("".join(json.dumps({"episode_id": f"ep{i}", "steps": [
        {"tool": "echo", "kind": "commit", "arguments": {"q": v}}]}) + "\n" for i, v in enumerate(long_values)))
    proc = evalkit("rules", "replay", trace, "--rules", rules, timeout=120)
    # "a" * 200_000 ends without "!": r0 `(a+)+$` matches it (the first matching rule wins), and only it
    assert proc.returncode == 1, proc.stderr
    assert "ep3" in proc.stdout and "r0" in proc.stdout and "1 episode(s) with a regression" in proc.stdout
    # the live path: the autonomy gate deciding on a proposed call with such an argument
    code = textwrap.dedent(f"""
        from evalkit.rules import load_rule_set
        from evalkit.runtime.gate import AutonomyGate
        from evalkit.runtime.tools import ToolSpec
        from evalkit.runtime.view import View
        gate = AutonomyGate(load_rule_set({str(rules)!r}))
        spec = ToolSpec("echo", "lookup", "echo", {{"type": "object"}})
        for value in ("a" * 200_000 + "!", "x" * 200_000 + "!", "word " * 40_000 + "!"):
            v = gate.decide(spec, {{"q": value}}, View())
            print(v.decision, v.rule_id)
        v = gate.decide(spec, {{"q": "a" * 200_000}}, View())
        print(v.decision, v.rule_id)
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n")[:4] == ["gather None", "gather None", "gather None", "abstain r0"]


@pytest.mark.parametrize(("pattern", "detail"), [
    (r"(\w)\1", r"invalid escape sequence: \1"),               # backreference
    (r"foo(?=bar)", "invalid perl operator: (?="),              # lookahead
    (r"(?<!x)y", "invalid perl operator: (?<!"),                # lookbehind
    (r"(?>a+)b", "invalid perl operator: (?>"),                 # atomic group
    (r"a++b", "bad repetition operator: ++"),                   # possessive quantifier
    (r"(?x) a b", "invalid perl operator: (?x"),                # verbose flag
    (r"end\Z", r"invalid escape sequence: \Z"),                 # write \z
    (r"a{1001}", "invalid repetition size: {1001}"),
])
def test_a_pattern_the_engine_cannot_run_is_refused_on_load_naming_file_rule_and_field(tmp_path, pattern, detail):
    path = rule_file(tmp_path, {"ok-v1": "fine", "bad-v1": pattern})
    with pytest.raises(ConfigError) as err:
        load_rule_set(path)
    message = str(err.value)
    assert message.startswith(f"{path}: rule bad-v1: field when.args.q.pattern: regular expression `{pattern}` is "
                              "not supported by the linear-time pattern engine"), message
    assert message.endswith(detail) and "\n" not in message, message


@pytest.mark.parametrize(("pattern", "message"), [
    ("(", "regular expression `(` is not valid: missing ), unterminated subpattern at position 0"),
    ("[ab]{999}" * 3, "regular expression `[ab]{999}[ab]{999}[ab]{999}` is too large for linear-time matching "
                      "(program size 3001 > 2000)"),
    ("x" * 3000, "regular expression `" + "x" * 59 + "… (3,000 characters) is too large"),
    ("a\ud800", "regular expression 'a\\ud800' holds a lone surrogate"),
])
def test_an_invalid_oversized_or_non_text_pattern_is_refused_with_what_is_wrong(tmp_path, pattern, message):
    from evalkit.patterns import compile_pattern

    with pytest.raises(ValueError) as err:
        compile_pattern(pattern)
    assert str(err.value).startswith(message) and len(str(err.value)) < 300, str(err.value)


def test_not_pattern_drafts_and_the_cli_refuse_it_too(tmp_path):
    path = tmp_path / "np.yaml"
    path.write_text(HEADER + "rules:\n  - {id: ext-v1, when: {tool: share, args: {email: {not_pattern: '(?!a)b'}}}, "
                             "then: clarify, message: m}\n")
    with pytest.raises(ConfigError, match=r"rule ext-v1: field when\.args\.email\.not_pattern: regular expression"):
        load_rule_set(path)
    draft = tmp_path / "draft.yaml"
    draft.write_text("draft: true\nid: d\nversion: draft-1\nrules:\n"
                     "  - {id: d-v1, when: {tool: x, args: {q: {pattern: '(a)\\1'}}}, then: abstain, message: m}\n")
    proc = evalkit("rules", "validate", draft)
    assert proc.returncode == 2 and "rule d-v1: field when.args.q.pattern" in proc.stderr, proc.stderr
    # a run with --rules fails before any episode, in one line
    out = tmp_path / "run"
    proc = evalkit("run", "-m", "scripted/oracle", "-c", "nl", "--limit", "1", "--gate", "on", "--rules", path,
                   "--no-report", "--no-selfcheck", "--out", out)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.strip().splitlines() == [proc.stderr.strip()]
    assert f"{path}: rule ext-v1: field when.args.email.not_pattern" in proc.stderr
    assert not (out / "results.jsonl").exists()


def _shipped_patterns() -> list[tuple[str, str]]:
    out = []
    for f in sorted(RULES_DIR.glob("*.yaml")):
        for rule in yaml.safe_load(f.read_text())["rules"]:
            for test in rule["when"].get("args", {}).values():
                out += [(name, test[name]) for name in ("pattern", "not_pattern") if name in test]
    return out


SHIPPED = _shipped_patterns()
KEYWORDS = ["financ", "FINANCE", "Payroll", "confidential", "@ourco.com", "@ourco.co", "@ourcoXcom", "contracts/",
            "Contracts/", "signed", "SIGNED", "é", "\n", "财务", "/"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.text(max_size=8), st.sampled_from(KEYWORDS)), max_size=6).map("".join))
def test_the_shipped_patterns_decide_as_before_on_any_value_without_a_final_newline(value):
    # The shipped rule sets behave as they did with Python's re, except on a value ending in a
    # newline (documented: `$` matches only at the very end; see the next test).
    assert len(SHIPPED) >= 3
    value = value.rstrip("\n")  # "a\n\n" stripped once still ends in a newline
    for _, pattern in SHIPPED:
        assert compile_pattern(pattern).found(value) == (re.search(pattern, value) is not None), (pattern, value)


def test_documented_differences_from_python_re():
    assert compile_pattern(r"@ourco\.com$").found("a@ourco.com") is True
    assert compile_pattern(r"@ourco\.com$").found("a@ourco.com\n") is False  # `$`: the very end only
    assert compile_pattern(r"(?m)@ourco\.com$").found("a@ourco.com\nb") is True
    assert compile_pattern(r"\w").found("财务") is False and compile_pattern(r"\p{Han}").found("财务") is True
    assert compile_pattern(r"\d").found("٣") is False and compile_pattern(r"\p{N}").found("٣") is True
    assert compile_pattern(r"a{,2}").found("a{,2}") is True  # literal text; write {0,2}
    # a non-string value is matched in its string form; a lone surrogate cannot break matching
    assert compile_pattern(r"^5\d\d$").found(500) is True and compile_pattern("x.y").found("x\ud800y") is True


def test_a_value_ending_in_a_newline_is_an_external_address_for_the_shipped_share_rule():
    rules = load_rule_set("default")
    share = {"path": "reports/payroll-2024.xlsx", "email": "me@ourco.com"}
    assert rules.match(Situation("share_file", "commit", share, "workspace")) is None
    hit = rules.match(Situation("share_file", "commit", {**share, "email": "me@ourco.com\n"}, "workspace"))
    assert hit is not None and hit.rule_id == "confidential-share-external-v1"


TYPED = RuleSet.model_validate({
    "id": "typed", "version": "1", "changelog": [{"version": "1", "changes": ["x"]}],
    "rules": [
        {"id": "bulk-v1", "when": {"tool": "order", "args": {"qty": {"gt": 100}}}, "then": "clarify", "message": "m"},
        {"id": "code-v1", "when": {"tool": "refund", "args": {"code": {"eq": 500}, "note": {"exists": False}}},
         "then": "abstain", "message": "m"},
        {"id": "tier-v1", "when": {"tool": "upgrade", "args": {"tier": {"in": [1, 2]}}}, "then": "clarify",
         "message": "m"},
    ],
})


def sit(tool, **args):
    return Situation(tool, "commit", args, "shop")


@pytest.mark.parametrize(("situation", "hit", "mismatch"), [
    (sit("order", qty=500), "bulk-v1", None),
    (sit("order", qty=500.5), "bulk-v1", None),
    (sit("order", qty=50), None, None),                                   # a number below the bound: no note
    (sit("order", qty="500"), None, ("args.qty", "500", "args.qty is a string '500', not a finite number: "
                                     "bound gt 100 not applied (numeric bounds hold only for JSON numbers)")),
    (sit("order", qty="lots"), None, ("args.qty", "lots", "args.qty is a string 'lots', not a finite number")),
    (sit("order", qty=True), None, ("args.qty", True, "args.qty is a boolean true, not a finite number")),
    (sit("order", qty=None), None, ("args.qty", None, "args.qty is null, not a finite number")),
    (sit("order", qty=float("nan")), None, ("args.qty", None, "args.qty is a number nan, not a finite number")),
    (sit("order"), None, None),                                           # absent: not a type question
    (sit("buy", qty="500"), None, None),                                  # another tool: the rule does not apply
    (sit("refund", code=500), "code-v1", None),
    (sit("refund", code="500"), None, ("args.code", "500", "args.code is a string '500', the rule's eq 500 a "
                                       "different JSON type: not equal (eq compares JSON values exactly)")),
    (sit("refund", code="500", note="x"), None, None),                    # fails on `note` anyway: no note
    (sit("refund", code="501"), None, None),                              # another value, not a type question
    (sit("upgrade", tier="2"), None, ("args.tier", "2", "args.tier is a string '2', the rule's in [1, 2]")),
    (sit("upgrade", tier=2.0), "tier-v1", None),
])
def test_typed_comparisons_are_a_non_match_with_a_reason(situation, hit, mismatch):
    found = TYPED.match(situation)
    assert (found.rule_id if found else None) == hit
    notes = TYPED.type_mismatches(situation)
    if mismatch is None:
        assert notes == []
        return
    [note] = notes
    field, value, reason = mismatch
    assert note.field == field and note.reason.startswith(reason), note.reason
    assert note.value == value or (value is None and note.value != note.value)  # NaN


BOOLS = RuleSet.model_validate({
    "id": "bools", "version": "1", "changelog": [{"version": "1", "changes": ["x"]}],
    "rules": [
        {"id": "one-v1", "when": {"tool": "order", "args": {"qty": {"eq": 1}}}, "then": "abstain", "message": "m"},
        {"id": "zero-v1", "when": {"tool": "refund", "args": {"full": {"in": [0]}}}, "then": "abstain", "message": "m"},
        {"id": "flag-v1", "when": {"tool": "share", "args": {"opts": {"eq": {"notify": True, "ids": [1, True]}}}},
         "then": "clarify", "message": "m"},
        {"id": "not-off-v1", "when": {"tool": "close", "args": {"keep": {"ne": False}}}, "then": "clarify",
         "message": "m"},
    ],
})


@pytest.mark.parametrize(("situation", "hit"), [
    (sit("order", qty=True), None),            # JSON true is not the number 1
    (sit("order", qty=1), "one-v1"),
    (sit("order", qty=1.0), "one-v1"),         # one JSON number type: 1 and 1.0 are the same value
    (sit("refund", full=False), None),         # JSON false is not 0
    (sit("refund", full=0), "zero-v1"),
    (sit("share", opts={"notify": True, "ids": [1, True]}), "flag-v1"),
    (sit("share", opts={"notify": 1, "ids": [1, True]}), None),        # inside objects too
    (sit("share", opts={"notify": True, "ids": [True, True]}), None),  # and inside arrays
    (sit("share", opts={"notify": True, "ids": [1, True], "x": 1}), None),
    (sit("close", keep=0), "not-off-v1"),      # 0 is not false, so `ne: false` holds
    (sit("close", keep=False), None),
])
def test_eq_ne_in_compare_json_types_so_a_boolean_never_equals_a_number(situation, hit):
    found = BOOLS.match(situation)
    assert (found.rule_id if found else None) == hit


def test_a_boolean_against_a_numeric_eq_or_in_is_a_type_mismatch_with_a_reason():
    [note] = BOOLS.type_mismatches(sit("order", qty=True))
    assert note.rule_id == "one-v1" and note.field == "args.qty" and note.value is True
    assert note.reason == ("args.qty is a boolean true, the rule's eq 1 a different JSON type: not equal "
                           "(eq compares JSON values exactly)")
    [note] = BOOLS.type_mismatches(sit("refund", full=False))
    assert note.rule_id == "zero-v1" and note.reason.startswith("args.full is a boolean false, the rule's in [0]")
    assert BOOLS.type_mismatches(sit("order", qty=2)) == []  # another value, not a type question


def test_json_equal_is_typed_as_in_json():
    from evalkit.runtime.matching import json_equal

    assert json_equal(True, True) and json_equal(None, None) and json_equal("a", "a") and json_equal(2, 2.0)
    assert not json_equal(True, 1) and not json_equal(0, False) and not json_equal(1.0, True)
    assert not json_equal("1", 1) and not json_equal(None, False) and not json_equal(None, 0)
    assert json_equal([1, {"a": [False]}], (1, {"a": (False,)}))
    assert not json_equal([1, {"a": [False]}], [1, {"a": [0]}])
    assert not json_equal({"a": 1}, {"a": 1, "b": 2}) and not json_equal([1], [1, 1])


def test_a_type_mismatch_behind_the_matching_rule_is_not_reported():
    rules = RuleSet.model_validate({
        "id": "two", "version": "1", "changelog": [{"version": "1", "changes": ["x"]}],
        "rules": [{"id": "any-order-v1", "when": {"tool": "order"}, "then": "clarify", "message": "m"},
                  {"id": "bulk-v1", "when": {"tool": "order", "args": {"qty": {"gt": 100}}}, "then": "clarify",
                   "message": "m"}]})
    assert rules.match(sit("order", qty="500")).rule_id == "any-order-v1"
    assert rules.type_mismatches(sit("order", qty="500")) == []


STRING_QTY = {"episode_id": "ep-string", "domain": "shop", "variant": "abstain",
              "steps": [{"tool": "place_order", "kind": "commit",
                         "arguments": {"customer_id": "C-3", "sku": "KB-1", "quantity": "500"}}]}


def test_replay_lists_a_string_quantity_as_a_type_mismatch_not_a_silent_pass(tmp_path):
    rules = load_rule_set("default")
    events = TraceEpisode.model_validate(STRING_QTY).events()
    assert scan_log(events, rules) == []
    [t] = scan(events, rules).type_mismatches
    assert (t.seq, t.tool, t.rule_id, t.field, t.value) == (1, "place_order", "bulk-order-confirm-v1",
                                                             "args.quantity", "500")
    number = {**STRING_QTY, "episode_id": "ep-number",
              "steps": [{**STRING_QTY["steps"][0], "arguments": {**STRING_QTY["steps"][0]["arguments"],
                                                                 "quantity": 500}}]}
    trace = tmp_path / "t.jsonl"
    trace.write_text(json.dumps(STRING_QTY) + "\n")
    out = tmp_path / "replay.json"
    proc = evalkit("rules", "replay", trace, "--rules", "default", "--json", out)
    assert proc.returncode == 0, proc.stderr  # a non-match is not a regression ...
    assert "no regression" in proc.stdout
    assert ("1 rule test(s) not applied because an argument has another JSON type than the test needs"
            in proc.stdout)  # ... but it is said
    assert (f"ep-string seq 1 place_order: rule bulk-order-confirm-v1: args.quantity is a string '500', not a "
            f"finite number: bound gt 100 not applied") in proc.stdout and f"{trace}:1" in proc.stdout
    report = json.loads(out.read_text())
    assert report["n_type_mismatches"] == 1 and report["type_mismatches"][0]["value"] == "500"
    assert report["type_mismatches"][0]["source"] == f"{trace}:1"
    # the same commit with the number 500 is a regression
    both = replay([*_episodes(STRING_QTY, number)], rules)
    assert [r["episode_id"] for r in both["regressions"]] == ["ep-number"] and both["n_type_mismatches"] == 1


def _episodes(*raw):
    from evalkit.rules.replay import RecordedEpisode

    for data in raw:
        ep = TraceEpisode.model_validate(data)
        yield RecordedEpisode(ep.episode_id, "mem", "import", tuple(ep.events()), variant=ep.variant or "")
