"""Approvals: calls that need someone's yes before they run (DESIGN §2, issue item 4).

An :class:`ApprovalPolicy` says which calls need approval (``require``: tools, or tools
with certain arguments, as :class:`~evalkit.runtime.matching.CallPattern`) and who may
answer: a policy file may pre-approve calls (``grant``), and in offline evaluation the
scenario's simulated user answers the rest (``user``: the first matching answer wins; no
match means the user does not answer).

Rules (each with a test in ``tests/runtime/test_approvals_budgets.py``):

* a call that needs approval never runs without a ``granted`` approval;
* an approval is bound to the tool, its exact arguments and the state version it was
  asked at: a different argument needs a new approval, and when the state changes an
  open or granted approval expires (an :class:`ApprovalResolved` event with status
  ``expired``) and must be asked again;
* a denied approval is final for that call at that state version; the model is told so;
* every request and answer is an event, so the effective view folds pending and granted
  approvals and a replay rebuilds them.
"""

from __future__ import annotations

from typing import Any, Mapping

from pydantic import BaseModel, ConfigDict, Field

from evalkit.runtime.events import ApprovalRequested, ApprovalResolved
from evalkit.runtime.matching import CallPattern
from evalkit.runtime.tools import ToolSpec
from evalkit.runtime.view import args_key


class UserApproval(CallPattern):
    """The simulated user's answer for calls matching the pattern (``approve``: yes or no)."""

    approve: bool = Field(default=True, strict=True)  # "no" (a string) is not false


class ApprovalPolicy(BaseModel):
    """Which calls need approval and who answers.

    Attributes:
        require: Calls that need approval.
        grant: Calls pre-approved by policy (source ``policy``).
        user: The simulated user's answers (source ``user``), first match wins.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    require: tuple[CallPattern, ...] = Field(default=())
    grant: tuple[CallPattern, ...] = Field(default=())
    user: tuple[UserApproval, ...] = Field(default=())

    def required(self, spec: ToolSpec, arguments: Mapping[str, Any] | None) -> bool:
        """Whether a call of ``spec`` with ``arguments`` needs approval."""
        return any(p.matches(spec.name, spec.kind, arguments) for p in self.require)

    def answer(self, spec: ToolSpec, arguments: Mapping[str, Any] | None) -> tuple[str, str] | None:
        """``(status, source)`` for a call: ``("granted", "policy")``, ``("granted" |
        "denied", "user")``, or ``None`` when nobody answers."""
        if any(p.matches(spec.name, spec.kind, arguments) for p in self.grant):
            return "granted", "policy"
        for answer in self.user:
            if answer.matches(spec.name, spec.kind, arguments):
                return ("granted" if answer.approve else "denied"), "user"
        return None

    def merged(self, other: "ApprovalPolicy | None") -> "ApprovalPolicy":
        """This policy with ``other``'s requirements, grants and answers appended."""
        if other is None:
            return self
        return ApprovalPolicy(require=self.require + other.require, grant=self.grant + other.grant,
                              user=self.user + other.user)


def resolve(policy: ApprovalPolicy, spec: ToolSpec, call_id: str, arguments: Mapping[str, Any],
            recorder: Any, turn: int) -> str | None:
    """Ask for (or reuse) the approval of one call, appending its events.

    Args:
        policy: The episode's approval policy.
        spec: The tool. ``call_id``, ``arguments``: the proposed call.
        recorder: The episode's :class:`~evalkit.runtime.loop.Recorder`.
        turn: The current turn.

    Returns:
        ``None`` when the call is approved, else the message for the ``needs_approval``
        denial the model sees.
    """
    view = recorder.view
    key = args_key(arguments)
    status = view.approval(spec.name, key)
    if status == "granted":
        return None
    if status == "denied":
        return f"{spec.name} with these arguments was refused approval; do not retry it unchanged"
    if status == "pending":
        return f"{spec.name} is waiting for approval; nobody has answered yet"
    approval_id = f"ap-{len(view.approvals) + 1}"
    recorder.emit(ApprovalRequested, turn, approval_id=approval_id, call_id=call_id, tool=spec.name,
                  arguments=dict(arguments), state_version=view.state_version)
    answer = policy.answer(spec, arguments)
    if answer is None:
        return f"{spec.name} needs approval and nobody has answered; ask the user or stop"
    status, source = answer
    recorder.emit(ApprovalResolved, turn, approval_id=approval_id, status=status, source=source)
    if status == "granted":
        return None
    return f"{spec.name} needs approval and the {source} refused it"


def expire_stale(recorder: Any, turn: int) -> None:
    """Expire open or granted approvals bound to an older state version (an event each)."""
    view = recorder.view
    for approval_id, _, _, version, status in view.approvals:
        if version != view.state_version and status in ("pending", "granted"):
            recorder.emit(ApprovalResolved, turn, approval_id=approval_id, status="expired", source="runtime",
                          note=f"the state changed (version {version} -> {view.state_version})")
