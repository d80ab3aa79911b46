"""The effective view ``V_t``: a pure fold of the event log (DESIGN §2, seed 001).

``L_t`` answers "what has happened"; ``V_t`` answers "given the events so far, what is
in force now": current permissions (a grant followed by a revocation leaves both events
in the log and the permission out of the view), registered tools, budgets used, signals
observed and whether they are still unresolved, commits executed, the state version,
open meta requests and the loop-authority counters, approvals pending or granted, and
whether the episode has ended.

Rules the fold applies (each is what the controller, the gate and the meta-request
protocol read):

* **permissions** change only on :class:`PermissionChanged` (and start from
  :class:`EpisodeStarted`); nothing else can widen them.
* **state version** counts the changes the runtime knows of or must assume: each
  successful commit, and each observation signalling ``state_changed`` (concurrent
  modification) or ``unknown_side_effect`` (a timeout whose effect is unknown).
  Approvals and open meta requests are bound to the version they were made at.
* **open signals** are ``(signal, tool, kind, arguments)`` of observations whose signal
  has not been resolved. A signal is resolved when the same tool with the same arguments
  later runs without it (a retry that now succeeds); ``state_changed`` is also resolved
  by any later successful lookup or verify (the agent re-read the state).
* **verified** holds the verify tools that passed (ok, no adverse signal, non-empty
  result) since the last state change: the positive evidence the gate asks for.
* **budgets used**: tokens, money (each :class:`ModelCall`'s ``cost_usd`` plus
  :class:`BudgetCharged`), tool calls decided, gather steps (lookups and verifies run) and commit steps (commits run).

:func:`fold` is deterministic and reads nothing but its argument, so replaying a saved
log (:meth:`evalkit.runtime.events.EventLog.load`) rebuilds an identical view.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from typing import Any, Iterable

from evalkit.runtime.events import (
    ActionDecided,
    ApprovalRequested,
    ApprovalResolved,
    BudgetCharged,
    EpisodeEnded,
    EpisodeStarted,
    Event,
    GateDecided,
    MetaRequestUpdated,
    ModelCall,
    ModelResponded,
    PermissionChanged,
    ToolExecuted,
)
from evalkit.runtime.followup_events import PhaseStarted, UserQuestion

TERMINAL_META = frozenset({"denied", "fulfilled", "failed", "expired"})
"""Meta-request states after which a request is closed (DESIGN §3)."""

ADVERSE_SIGNALS = frozenset({"missing_target", "conflict", "tool_error", "empty_result", "timeout",
                             "unknown_side_effect", "state_changed"})
"""Signals that stop an observation from counting as positive evidence."""

_STATE_SIGNALS = frozenset({"state_changed", "unknown_side_effect"})


def args_key(arguments: Any) -> str:
    """Canonical text of a call's arguments (sorted-key JSON), used to bind approvals and
    to match a retry to the call it repeats."""
    return json.dumps(arguments, sort_keys=True, ensure_ascii=False, default=str)


@dataclass(frozen=True, slots=True)
class MetaView:
    """Meta-request state (DESIGN §3): what is open and the loop-authority counters.

    Attributes:
        open: ``(request_id, status)`` of requests not in a final state.
        bound: ``(request_id, state_version)`` the open requests are bound to.
        counts: ``(meta_type, number proposed)``.
        turn: The turn of the latest proposal; ``in_turn``: proposals in that turn.
        fingerprints: ``(fingerprint, evidence mark)`` of each distinct request when it
            was last proposed (the evidence mark is :attr:`View.evidence` at that time).
        escalations: Model escalations accepted. ``reviews``: independent reviews accepted.
        denied: Requests denied. ``injection_flags``: denials flagged as injection attempts.
        drafts: Names of skill drafts recorded (never active).
        partial_output: Safe partial output of a fulfilled ``declare_blocked``.
        cost: Money charged for meta requests (escalations, reviews).
    """

    open: tuple[tuple[str, str], ...] = ()
    bound: tuple[tuple[str, int], ...] = ()
    counts: tuple[tuple[str, int], ...] = ()
    turn: int = 0
    in_turn: int = 0
    fingerprints: tuple[tuple[str, int], ...] = ()
    escalations: int = 0
    reviews: int = 0
    denied: int = 0
    injection_flags: int = 0
    drafts: tuple[str, ...] = ()
    partial_output: str | None = None
    cost: float = 0.0

    def count(self, meta_type: str) -> int:
        """Requests of ``meta_type`` proposed so far."""
        for key, n in self.counts:
            if key == meta_type:
                return n
        return 0

    def mark(self, fingerprint: str) -> int | None:
        """Evidence mark when ``fingerprint`` was last proposed, or ``None``."""
        for key, n in self.fingerprints:
            if key == fingerprint:
                return n
        return None


@dataclass(frozen=True, slots=True)
class View:
    """What is in force at one point of an episode.

    Attributes:
        tools: Names of the tools registered for the episode.
        permissions: Permissions currently held.
        limits: Episode limits and budgets (``max_turns``, ``max_tool_calls``,
            ``max_tokens``, ``max_money``, ``max_gather_steps``, ``max_commit_steps``, …).
        domain: The episode's task domain. ``gate``: ``on`` or ``off``.
        turns: Model responses so far.
        tool_calls: Tool calls decided so far by the controller (executed, denied or meta).
        executed: Tool calls executed so far.
        tokens: Input plus output tokens used so far. ``money``: cost so far.
        gather_steps: Lookups and verifies executed. ``commit_steps``: commits executed
            (successful or not).
        signals: Every signal observed so far, in first-seen order.
        open_signals: ``(signal, tool, kind, arguments key)`` not yet resolved.
        verified: Verify tools that passed since the last state change.
        commits: ``(tool, arguments)`` of each successfully executed commit.
        state_version: Known or assumed state changes so far (see the module docstring).
        denials: Number of controller denials (gate stops included).
        gate_stops: Calls the gate stopped with ``clarify`` or ``abstain``.
        gate_last: ``(decision, reason, rule id or "", answers)`` of the gate's latest
            ``clarify``/``abstain``, with :attr:`answers` at that time; ``None`` before any.
        approvals: ``(approval_id, tool, arguments key, state_version, status)`` with
            status ``pending``, ``granted``, ``denied`` or ``expired``.
        answers: Answers received from the (simulated) user.
        meta: The :class:`MetaView`.
        ended: Whether :class:`EpisodeEnded` has been appended.
    """

    tools: tuple[str, ...] = ()
    permissions: frozenset[str] = frozenset()
    limits: tuple[tuple[str, Any], ...] = ()
    domain: str = ""
    gate: str = "off"
    turns: int = 0
    tool_calls: int = 0
    executed: int = 0
    tokens: int = 0
    money: float = 0.0
    gather_steps: int = 0
    commit_steps: int = 0
    signals: tuple[str, ...] = ()
    open_signals: tuple[tuple[str, str, str, str], ...] = ()
    verified: tuple[str, ...] = ()
    commits: tuple[tuple[str, str], ...] = ()
    state_version: int = 0
    denials: int = 0
    gate_stops: int = 0
    gate_last: tuple[str, str, str, int] | None = None
    approvals: tuple[tuple[str, str, str, int, str], ...] = ()
    answers: int = 0
    meta: MetaView = MetaView()
    ended: bool = False

    def limit(self, name: str, default: Any = None) -> Any:
        """One episode limit by name (``default`` when unset or ``None``)."""
        for key, value in self.limits:
            if key == name:
                return default if value is None else value
        return default

    @property
    def open_meta(self) -> tuple[tuple[str, str], ...]:
        """``(request_id, status)`` of meta requests not yet in a final state."""
        return self.meta.open

    @property
    def meta_counts(self) -> tuple[tuple[str, int], ...]:
        """``(meta_type, number proposed)``."""
        return self.meta.counts

    @property
    def meta_cost(self) -> float:
        """Money charged for meta requests so far."""
        return self.meta.cost

    @property
    def evidence(self) -> int:
        """New-evidence mark: tool executions plus user answers so far. A repeated meta
        request with the same mark brings no new evidence (DESIGN §3 loop authority)."""
        return self.executed + self.answers

    def approval(self, tool: str, key: str) -> str | None:
        """Status of the approval for ``tool`` with arguments ``key`` at the current state
        version, or ``None`` when none was asked."""
        status = None
        for _, a_tool, a_key, version, a_status in self.approvals:
            if a_tool == tool and a_key == key and version == self.state_version:
                status = a_status
        return status

    def open_signal(self, signal: str,
                    kinds: tuple[str, ...] = ("lookup", "verify", "commit")) -> tuple[str, str] | None:
        """``(tool, arguments key)`` of the first unresolved ``signal`` from a call of one of
        ``kinds``, or ``None``."""
        for sig, tool, kind, key in self.open_signals:
            if sig == signal and kind in kinds:
                return tool, key
        return None


def _evolver(cls: type) -> Any:
    """A fast ``dataclasses.replace`` for the frozen, slotted ``cls``: copies every field
    with ``object.__setattr__`` (no ``__init__`` call, no per-call field introspection).
    The fold runs on every appended event, so this is the runtime's hottest path."""
    names = [f.name for f in fields(cls)]
    body = "".join(f"    _set(new, {n!r}, changes[{n!r}] if {n!r} in changes else old.{n})\n" for n in names)
    namespace = {"_new": object.__new__, "_set": object.__setattr__, "cls": cls}
    exec(f"def evolve(old, changes):\n    new = _new(cls)\n{body}    return new\n", namespace)  # noqa: S102
    return namespace["evolve"]


_evolve_view = _evolver(View)
_evolve_meta = _evolver(MetaView)


def _replace(obj: Any, **changes: Any) -> Any:
    """``obj`` with ``changes`` applied (a :class:`View` or :class:`MetaView`)."""
    return (_evolve_view if type(obj) is View else _evolve_meta)(obj, changes)


def _tool_executed(view: View, event: ToolExecuted) -> View:
    signals = view.signals
    new = [s for s in event.signals if s not in signals]
    if new:
        signals = signals + tuple(new)
    changes: dict[str, Any] = {"executed": view.executed + 1, "signals": signals}
    kind = event.kind
    if kind == "commit":
        changes["commit_steps"] = view.commit_steps + 1
    else:
        changes["gather_steps"] = view.gather_steps + 1
    open_signals = view.open_signals
    key: str | None = None
    if open_signals:
        key = args_key(event.arguments)
        kept = tuple(
            s for s in open_signals
            if not (event.ok and s[1] == event.tool and s[3] == key and s[0] not in event.signals)
            and not (s[0] == "state_changed" and event.ok and kind != "commit" and not event.signals)
        )
        if kept != open_signals:
            open_signals = kept
    if event.signals:
        key = key if key is not None else args_key(event.arguments)
        present = {(s[0], s[1], s[3]) for s in open_signals}
        added = tuple((s, event.tool, kind, key) for s in event.signals if (s, event.tool, key) not in present)
        open_signals = open_signals + added
    changes["open_signals"] = open_signals
    state_change = (kind == "commit" and event.ok) or any(s in _STATE_SIGNALS for s in event.signals)
    if kind == "commit" and event.ok:
        changes["commits"] = view.commits + ((event.tool, args_key(event.arguments)),)
    if state_change:
        changes["state_version"] = view.state_version + 1
        changes["verified"] = ()
    elif (kind == "verify" and event.ok and event.tool not in view.verified
          and not any(s in ADVERSE_SIGNALS for s in event.signals)):
        changes["verified"] = view.verified + (event.tool,)
    return _replace(view, **changes)


def _meta_updated(view: View, event: MetaRequestUpdated) -> View:
    meta = view.meta
    status = event.status
    detail = event.detail
    changes: dict[str, Any] = {}
    open_ = dict(meta.open)
    bound = dict(meta.bound)
    if status == "proposed":
        counts = dict(meta.counts)
        counts[event.meta_type] = counts.get(event.meta_type, 0) + 1
        changes["counts"] = tuple(sorted(counts.items()))
        if event.turn == meta.turn:
            changes["in_turn"] = meta.in_turn + 1
        else:
            changes["turn"], changes["in_turn"] = event.turn, 1
        fingerprint = detail.get("fingerprint")
        if fingerprint:
            marks = dict(meta.fingerprints)
            marks[fingerprint] = int(detail.get("evidence", 0))
            changes["fingerprints"] = tuple(sorted(marks.items()))
        bound[event.request_id] = int(detail.get("state_version", view.state_version))
    elif status in ("accepted", "modified"):
        if event.meta_type == "request_model_escalation":
            changes["escalations"] = meta.escalations + 1
        elif event.meta_type == "request_independent_review":
            changes["reviews"] = meta.reviews + 1
    elif status == "denied":
        changes["denied"] = meta.denied + 1
        if detail.get("flag") == "injection_attempt":
            changes["injection_flags"] = meta.injection_flags + 1
    elif status == "fulfilled":
        if event.meta_type == "propose_skill":
            draft = detail.get("draft") or {}
            changes["drafts"] = meta.drafts + (str(draft.get("name", "")),)
        elif event.meta_type == "declare_blocked":
            changes["partial_output"] = detail.get("safe_partial_output")
    if status in TERMINAL_META:
        open_.pop(event.request_id, None)
        bound.pop(event.request_id, None)
    else:
        open_[event.request_id] = status
    changes["open"] = tuple(sorted(open_.items()))
    changes["bound"] = tuple(sorted(bound.items()))
    out = _replace(view, meta=_replace(meta, **changes))
    if status == "fulfilled" and "answer" in (detail.get("response") or {}):
        out = _replace(out, answers=out.answers + 1)
    return out


def apply(view: View, event: Event) -> View:
    """Fold one event into ``view`` and return the new view (``view`` is unchanged)."""
    if type(event) is ToolExecuted:
        return _tool_executed(view, event)
    if type(event) is ActionDecided:
        if event.action == "deny":
            if event.reason_code in ("gate_abstain", "gate_clarify"):
                return _replace(view, tool_calls=view.tool_calls + 1, denials=view.denials + 1,
                               gate_stops=view.gate_stops + 1)
            return _replace(view, tool_calls=view.tool_calls + 1, denials=view.denials + 1)
        return _replace(view, tool_calls=view.tool_calls + 1)
    if type(event) is ModelResponded:
        # tokens a provider did not report count 0 here (the row and summary keep them null)
        used = (event.input_tokens or 0) + (event.output_tokens or 0)
        return _replace(view, turns=view.turns + 1, tokens=view.tokens + used)
    if type(event) is ModelCall:
        return _replace(view, money=view.money + event.cost_usd) if event.cost_usd else view
    if type(event) is GateDecided:
        if event.decision in ("abstain", "clarify"):
            return _replace(view, gate_last=(event.decision, event.reason, event.rule_id or "", view.answers))
        return view
    if type(event) is EpisodeStarted:
        return _replace(
            view,
            tools=tuple(event.tools),
            permissions=frozenset(event.permissions),
            limits=tuple(sorted(event.limits.items())),
            domain=str(getattr(event, "domain", "") or ""),
            gate=event.gate,
        )
    if type(event) is PermissionChanged:
        perms = set(view.permissions)
        if event.granted:
            perms.add(event.permission)
        else:
            perms.discard(event.permission)
        return _replace(view, permissions=frozenset(perms))
    if type(event) is MetaRequestUpdated:
        return _meta_updated(view, event)
    if type(event) is ApprovalRequested:
        entry = (event.approval_id, event.tool, args_key(event.arguments), event.state_version, "pending")
        return _replace(view, approvals=view.approvals + (entry,))
    if type(event) is ApprovalResolved:
        approvals = tuple(
            (a[0], a[1], a[2], a[3], event.status) if a[0] == event.approval_id else a for a in view.approvals
        )
        return _replace(view, approvals=approvals)
    if type(event) is BudgetCharged:
        if event.budget != "money":
            return view
        if event.source.startswith("mr-"):
            return _replace(view, money=view.money + event.amount,
                           meta=_replace(view.meta, cost=view.meta.cost + event.amount))
        return _replace(view, money=view.money + event.amount)
    if type(event) is EpisodeEnded:
        return _replace(view, ended=True)
    if type(event) is UserQuestion:  # a reply that supplies the missing information is a user answer
        return _replace(view, answers=view.answers + 1) if event.answered else view
    if type(event) is PhaseStarted:  # the follow-up phase has its own turn limit, counted from its start
        limits = dict(view.limits)
        limits["max_turns"] = event.turn + event.max_turns
        return _replace(view, limits=tuple(sorted(limits.items())))
    return view


def fold(events: Iterable[Event], view: View | None = None) -> View:
    """Fold a sequence of events into a view, starting from ``view`` (or an empty one).

    Args:
        events: Events in log order.
        view: Starting view; defaults to the empty :class:`View`.

    Returns:
        The view after every event has been applied.
    """
    current = view if view is not None else View()
    for event in events:
        current = apply(current, event)
    return current
