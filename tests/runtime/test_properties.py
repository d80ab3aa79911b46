"""Property tests of the runtime's invariants (hypothesis), over random episodes and random logs.

* replaying any log from its JSON Lines rebuilds the identical events and the same view;
* permissions never grow without a grant event;
* with the gate on, every executed commit has a preceding ``act`` decision for that call;
* every meta request moves only along the protocol's state machine.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rt_helpers import policy_handler, run

from evalkit.runtime.approvals import ApprovalPolicy
from evalkit.runtime.controller import Limits
from evalkit.runtime.events import (
    ActionDecided,
    ApprovalRequested,
    ApprovalResolved,
    BudgetCharged,
    EpisodeStarted,
    EventLog,
    GateDecided,
    MetaRequestUpdated,
    ModelCall,
    ModelResponded,
    PermissionChanged,
    ToolExecuted,
    UserMessage,
)
from evalkit.runtime.executor import Fault
from evalkit.runtime.meta import TRANSITIONS, ContextDoc, MetaPolicy
from evalkit.runtime.model_io import ModelOutput, ToolCall
from evalkit.runtime.view import View, apply, fold
from evalkit.usage import Usage

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

ITEMS = st.sampled_from(["apple", "pear", "kiwi"])
PERMS = st.lists(st.sampled_from(["store.admin", "store.buy", "store.read", "bank.transfer"]), max_size=3, unique=True)

TASK_CALL = st.one_of(
    st.builds(lambda i: ("find", {"item": i}), ITEMS),
    st.builds(lambda i: ("check", {"item": i}), ITEMS),
    st.builds(lambda i, q: ("buy", {"item": i, "qty": q}), ITEMS, st.integers(1, 3)),
    st.just(("empty", {})),
    st.just(("buy", {"item": "apple", "qty": "many"})),     # schema mismatch
    st.just(("teleport", {})),                              # unknown tool
)
META_CALL = st.one_of(
    st.builds(lambda p: ("meta_request", {"type": "request_tool", "reason": "need it", "capability": "access",
                                          "requested_resources": {"permissions": p}}), PERMS),
    st.builds(lambda t: ("meta_request", {"type": "request_user_decision", "reason": "r", "question": "?",
                                          "target": t}), st.sampled_from(["qty", "size"])),
    st.builds(lambda t: ("meta_request", {"type": "request_context", "reason": "r", "target": t}),
              st.sampled_from(["docs/", "docs/a.md", "hr/pay.csv", "../x", "nope"])),
    st.just(("meta_request", {"type": "propose_skill", "reason": "r", "target": "restock"})),
    st.just(("meta_request", {"type": "request_model_escalation", "reason": "hard", "capability": "deep"})),
    st.just(("meta_request", {"type": "request_independent_review", "reason": "unsure"})),
    st.just(("meta_request", {"type": "declare_blocked", "reason": "stop"})),
)
TURN = st.lists(st.one_of(TASK_CALL, TASK_CALL, META_CALL), min_size=1, max_size=3)


@st.composite
def episodes(draw):
    turns = draw(st.lists(TURN, min_size=1, max_size=7))
    outputs = [ModelOutput(tool_calls=tuple(ToolCall(f"c{t}_{i}", name, args) for i, (name, args) in enumerate(calls)),
                           usage=Usage(draw(st.integers(0, 50)), output_tokens=0))
               for t, calls in enumerate(turns)]
    outputs.append(ModelOutput(text="done"))
    faults = draw(st.sampled_from([{}, {"check": Fault("transient")}, {"buy": Fault("timeout", applied=True)},
                                   {"buy": Fault("concurrent", patch={"stock": {"apple": 1}})}]))
    approvals = draw(st.sampled_from([None, ApprovalPolicy.model_validate(
        {"require": [{"tool": "buy", "args": {"qty": {"gt": 1}}}], "user": [{"tool": "buy", "approve": True}]})]))
    handler = policy_handler(
        policy=MetaPolicy(grantable=tuple(draw(PERMS)), escalation_capabilities=("deep",), escalation_cost=0.1,
                          max_per_turn=2),
        user_grants=tuple(draw(PERMS)), user_answers=draw(st.sampled_from([{}, {"qty": "2"}])),
        context={"docs/a.md": ContextDoc(content="A"), "hr/pay.csv": ContextDoc(content="P", sensitive=True)},
        review=draw(st.sampled_from([None, "ok"])))
    limits = Limits(max_turns=8, max_tool_calls=draw(st.integers(3, 20)),
                    max_commit_steps=draw(st.sampled_from([None, 1, 2])),
                    max_gather_steps=draw(st.sampled_from([None, 2, 5])))
    gate = draw(st.booleans())
    perms = tuple(draw(st.lists(st.sampled_from(["store.read", "store.buy"]), unique=True)))
    return run(outputs, gate=gate, handler=handler, faults=faults, approvals=approvals, limits=limits,
               perms=perms)[1], gate


@SETTINGS
@given(episodes())
def test_replaying_a_saved_log_rebuilds_the_same_events_and_view(case):
    result, _ = case
    loaded = EventLog.from_jsonl(result.log.to_jsonl())
    assert loaded.events == result.log.events
    assert fold(loaded) == fold(result.log)


@SETTINGS
@given(episodes())
def test_permissions_never_grow_without_a_grant_event(case):
    result, _ = case
    view = View()
    for event in result.log:
        after = apply(view, event)
        grown = after.permissions - view.permissions
        if isinstance(event, PermissionChanged) and event.granted:
            assert grown <= {event.permission}
        elif not isinstance(event, EpisodeStarted):
            assert not grown, (event, grown)
        view = after


@SETTINGS
@given(episodes())
def test_with_the_gate_on_every_executed_commit_has_a_preceding_act(case):
    result, gate = case
    events = result.log.events
    decisions = [e for e in events if isinstance(e, GateDecided)]
    if not gate:
        assert decisions == []
        return
    for e in events:
        if isinstance(e, ToolExecuted) and e.kind == "commit":
            assert any(g.call_id == e.call_id and g.decision == "act" and g.seq < e.seq for g in decisions), e


@SETTINGS
@given(episodes())
def test_meta_requests_only_move_along_the_state_machine(case):
    result, _ = case
    current: dict[str, str | None] = {}
    for e in result.log:
        if isinstance(e, MetaRequestUpdated):
            before = current.get(e.request_id)
            assert e.status in TRANSITIONS.get(before, frozenset()), (e.request_id, before, e.status)
            current[e.request_id] = e.status
    assert {k for k, v in current.items() if v not in ("denied", "fulfilled", "failed", "expired")} == \
        {k for k, _ in fold(result.log).open_meta}


# ------------------------------------------------------------------ arbitrary logs, not only runtime-made ones

TEXT = st.text(max_size=12)
JSONISH = st.recursive(st.none() | st.booleans() | st.integers(-5, 5) | TEXT,
                       lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
                       max_leaves=8)
SIGNALS = st.lists(st.sampled_from(["missing_target", "conflict", "tool_error", "state_changed",
                                    "unknown_side_effect", "empty_result"]), max_size=2, unique=True).map(tuple)
STATUS = st.sampled_from(["proposed", "validating", "accepted", "modified", "denied", "needs_user", "fulfilled",
                          "failed", "expired"])
EVENT = st.one_of(
    st.builds(lambda p: (UserMessage, {"content": p}), TEXT),
    st.builds(lambda i: (ModelResponded, {"input_tokens": i}), st.integers(0, 100)),
    st.builds(lambda c: (ModelCall, {"cost_usd": c}), st.none() | st.floats(0, 1, allow_nan=False)),
    st.builds(lambda a, r: (ActionDecided, {"call_id": "c", "tool": "buy", "action": a, "reason_code": r}),
              st.sampled_from(["execute", "deny", "meta"]),
              st.none() | st.sampled_from(["gate_abstain", "gate_clarify", "budget_exceeded"])),
    st.builds(lambda d, r: (GateDecided, {"decision": d, "reason": r}),
              st.sampled_from(["gather", "act", "clarify", "abstain"]), st.sampled_from(["missing_target", "rule"])),
    st.builds(lambda t, k, ok, a, s: (ToolExecuted, {"tool": t, "kind": k, "ok": ok, "arguments": a, "signals": s,
                                                     "result": None}),
              st.sampled_from(["find", "check", "buy"]), st.sampled_from(["lookup", "verify", "commit"]),
              st.booleans(), st.dictionaries(st.sampled_from(["item", "qty"]), st.integers(0, 2), max_size=2), SIGNALS),
    st.builds(lambda p, g: (PermissionChanged, {"permission": p, "granted": g}), st.sampled_from(["a", "b"]),
              st.booleans()),
    st.builds(lambda i, s, d: (MetaRequestUpdated, {"request_id": i, "meta_type": "request_context", "status": s,
                                                    "detail": d}),
              st.sampled_from(["mr-1", "mr-2"]), STATUS,
              st.fixed_dictionaries({}, optional={"fingerprint": TEXT, "evidence": st.integers(0, 3),
                                                  "response": st.fixed_dictionaries({}, optional={"answer": TEXT}),
                                                  "extra": JSONISH})),
    st.builds(lambda i: (ApprovalRequested, {"approval_id": i, "tool": "buy", "arguments": {"qty": 1}}),
              st.sampled_from(["ap-1", "ap-2"])),
    st.builds(lambda i, s: (ApprovalResolved, {"approval_id": i, "status": s}), st.sampled_from(["ap-1", "ap-2"]),
              st.sampled_from(["granted", "denied", "expired"])),
    st.builds(lambda a, s: (BudgetCharged, {"amount": a, "source": s}), st.floats(0, 1, allow_nan=False),
              st.sampled_from(["mr-1", "runtime"])),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(EVENT, max_size=25), st.lists(st.sampled_from(["a", "b"]), unique=True))
def test_any_log_replays_into_the_same_view(events, start_perms):
    log = EventLog()
    log.append(EpisodeStarted, 0, permissions=tuple(start_perms), domain="d", limits={"max_turns": 3})
    for cls, data in events:
        log.append(cls, 1, **data)
    loaded = EventLog.from_jsonl(log.to_jsonl())
    assert loaded.events == log.events
    assert fold(loaded) == fold(log)
    # folding in two halves is folding at once (the view is a pure left fold)
    half = len(log) // 2
    assert fold(log.events[half:], fold(log.events[:half])) == fold(log)
