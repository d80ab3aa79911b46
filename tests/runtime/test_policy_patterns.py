"""Patterns in a runtime policy file run in linear time (no pattern can hang a run) or fail at load."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from evalkit.errors import ConfigError
from evalkit.runtime.policy import load_policy

HERE = Path(__file__).resolve().parent

# `require`: a buy whose item ends in "a"; `grant`: one whose item holds x…xy. Both patterns take
# exponential time in a backtracking engine on a long value that almost matches.
POLICY = r"""
approvals:
  require: [{tool: buy, args: {item: {pattern: '(a+)+$'}}}]
  grant: [{tool: buy, args: {item: {pattern: '(x+x+)+y', not_pattern: '^(\w+\s?)*!$'}}}]
"""


def test_a_catastrophic_policy_pattern_decides_a_200000_character_argument_promptly(tmp_path):
    path = tmp_path / "policy.yaml"
    path.write_text(POLICY)
    # Real episodes of the store under the loaded policy. The subprocess's timeout is a hang guard
    # only (a backtracking engine would take longer than the age of the universe on these values).
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(HERE)!r})
        from rt_helpers import call, of, run, say, turn
        from evalkit.runtime.events import ActionDecided, ApprovalResolved
        from evalkit.runtime.policy import load_policy

        approvals = load_policy({str(path)!r}).approvals
        for item in ("a" * 200_000 + "!", "a" * 200_000, "x" * 200_000 + "a", "x" * 200_000 + "ya"):
            _, result = run([turn(call("buy", {{"item": item, "qty": 1}})), say("done")], approvals=approvals)
            codes = [d.reason_code for d in of(result, ActionDecided)]
            answers = [(e.status, e.source) for e in of(result, ApprovalResolved)]
            print(codes, answers, len(result.state.get("bought", [])))
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "[None] [] 1",                                                     # no final "a": no approval needed
        "['needs_approval'] [] 0",                                         # needs one; nobody grants it
        "['needs_approval'] [] 0",                                         # no "y": the grant does not apply
        "[None] [('granted', 'policy'), ('expired', 'runtime')] 1",        # pre-approved by the policy
    ]


HINT = "is not supported by the linear-time pattern engine"


@pytest.mark.parametrize(("entry", "field", "pattern", "detail"), [
    ("require: [{tool: buy}, {tool: buy, args: {item: {pattern: '(\\w)\\1'}}}]",
     "approvals.require.1.args.item.pattern", r"(\w)\1", r"invalid escape sequence: \1"),
    ("grant: [{tool: buy, args: {qty: {le: 1}, item: {not_pattern: '(?!apple)'}}}]",
     "approvals.grant.0.args.item.not_pattern", "(?!apple)", "invalid perl operator: (?!"),
    ("user: [{tool: buy, approve: false, args: {item: {pattern: 'a{1001}'}}}]",
     "approvals.user.0.args.item.pattern", "a{1001}", "invalid repetition size: {1001}"),
])
def test_a_policy_pattern_the_engine_cannot_run_fails_at_load_naming_file_entry_and_field(tmp_path, entry, field,
                                                                                          pattern, detail):
    path = tmp_path / "policy.yaml"
    path.write_text(f"budgets: {{commit_steps: 1}}\napprovals:\n  {entry}\n")
    with pytest.raises(ConfigError) as err:
        load_policy(path)
    message = str(err.value)
    assert message.startswith(f"{path}: field {field}: regular expression `{pattern}` {HINT}"), message
    assert message.endswith(detail) and "\n" not in message, message


def test_json_policies_are_checked_too_and_supported_syntax_loads(tmp_path):
    bad = tmp_path / "policy.json"
    bad.write_text('{"approvals": {"require": [{"tool": "buy", "args": {"item": {"pattern": "(?<=x)y"}}}]}}')
    with pytest.raises(ConfigError, match=r"policy\.json: field approvals\.require\.0\.args\.item\.pattern: "
                                          r"regular expression `\(\?<=x\)y` is not supported"):
        load_policy(bad)
    good = tmp_path / "good.yaml"
    good.write_text(r"approvals: {require: [{tool: buy, args: {item: {pattern: '(?i)^\p{L}+\z'}}}]}" + "\n")
    [test] = load_policy(good).approvals.require
    assert test.matches("buy", "commit", {"item": "Äpfel"}) is True
    assert test.matches("buy", "commit", {"item": "apple 2"}) is False


def test_evalkit_run_with_such_a_policy_stops_before_any_episode_in_one_line(tmp_path, mini_suite, mini_tasks):
    policy = tmp_path / "policy.yaml"
    policy.write_text("approvals:\n  require: [{tool: buy_item, args: {name: {pattern: '(a)\\1'}}}]\n")
    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-m", "evalkit", "run", str(mini_suite), "--tasks", str(mini_tasks),
                           "-m", "scripted/oracle", "-c", "nl", "--policy", str(policy), "--no-report",
                           "--no-selfcheck", "--out", str(out)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.strip().splitlines() == [proc.stderr.strip()]
    assert f"{policy}: field approvals.require.0.args.name.pattern: regular expression `(a)\\1` {HINT}" in proc.stderr
    assert not (out / "results.jsonl").exists()


def test_a_tool_schema_pattern_is_matched_in_linear_time_with_json_schema_semantics():
    from evalkit.runtime.controller import schema_errors

    email = {"type": "object", "properties": {"to": {"type": "string", "pattern": r"^[^@\s]+@[^@\s]+\.[^@\s]+$"}}}
    hostile = "a@" + "b." * 100_000 + " "  # quadratic for a backtracking engine: about a minute at this length
    errors = schema_errors(email, {"to": hostile})
    assert len(errors) == 1 and "does not match" in errors[0]
    assert schema_errors(email, {"to": "ana@example.com"}) == []
    assert schema_errors(email, {"to": "ana@example.com\n"}) != []  # ECMA-262: $ is the very end
    day = {"type": "object", "properties": {"d": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"}}}
    assert schema_errors(day, {"d": "2024-06-18"}) == []
    assert schema_errors(day, {"d": "٢٠٢٤-٠٦-١٨"}) != []  # \d is ASCII digits, as JSON Schema reads it
    lookahead = {"type": "object", "properties": {"x": {"type": "string", "pattern": r"^(?!tmp)\w+$"}}}
    assert schema_errors(lookahead, {"x": "keep"}) == [] and schema_errors(lookahead, {"x": "tmpfile"}) != []
