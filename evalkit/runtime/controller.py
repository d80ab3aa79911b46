"""The controller ``C``: turns each proposed tool call into an action (DESIGN §2).

The model proposes; only code executes. For every call in ``D_t`` the controller checks,
against the effective view ``V_t``, in this order:

1. ``parse_error`` — the arguments could not be parsed (never repaired silently);
2. ``unknown_tool`` — the name is not registered for this episode;
3. ``loop_limit`` — the episode has used its turn limit (``max_turns``);
4. ``budget_exceeded`` — the tool-call budget (``max_tool_calls``), the token budget
   (``max_tokens``) or the money budget (``max_money``) is spent;
5. ``schema_mismatch`` — the arguments fail the tool's JSON Schema (validated with
   ``jsonschema``, draft 2020-12);
6. ``permission_denied`` — the episode does not hold the tool's permission;
7. ``budget_exceeded`` — the gather-step budget (``max_gather_steps``, lookups and
   verifies run) or the commit-step budget (``max_commit_steps``) is spent. With the
   autonomy gate on, these two budgets are the gate's to enforce (it abstains with reason
   ``budget_exceeded``, DESIGN §4), so the controller leaves them to it.

A call that passes is ``execute`` (a task tool) or ``meta`` (a meta-request tool, handled
by the condition). An ``execute`` action is flagged ``needs_approval`` when the episode's
approval policy requires an approval for this tool and these arguments (DESIGN §2,
"approval required?"); the agent loop then asks for it. Every denial carries a reason
code and a message that goes back to the model as the call's observation.

Every budget is a hard limit (seed 004 §2.3): the check is ``used >= budget`` before the
call, so a budget of N allows exactly N.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, Literal

from evalkit.runtime.approvals import ApprovalPolicy
from evalkit.runtime.model_io import ToolCall
from evalkit.runtime.tools import ToolSpec
from evalkit.runtime.view import View
from evalkit.patterns import compile_pattern


@dataclass(frozen=True, slots=True)
class Limits:
    """Hard limits of one episode.

    Attributes:
        max_turns: Model responses allowed; at the limit the episode ends (``loop_limit``).
        max_tool_calls: Tool calls (task and meta) allowed; later calls are denied.
        max_tokens: Input plus output tokens allowed, or ``None`` for no limit.
        context_budget: Token budget ``B`` of the context builder.
        max_money: Model and meta-request cost allowed (price-table currency), or ``None``.
        max_gather_steps: Lookups and verifies that may run, or ``None``.
        max_commit_steps: Commits that may run (successful or not), or ``None``.
        max_gate_stops: With the gate on, the episode ends (``gate_stop``) once the gate
            has stopped this many calls with ``clarify``/``abstain``.
    """

    max_turns: int = 12
    max_tool_calls: int = 20
    max_tokens: int | None = None
    context_budget: int = 16_000
    max_money: float | None = None
    max_gather_steps: int | None = None
    max_commit_steps: int | None = None
    max_gate_stops: int = 3

    def as_dict(self) -> dict[str, Any]:
        """The limits as recorded in :class:`~evalkit.runtime.events.EpisodeStarted`."""
        return {
            "max_turns": self.max_turns,
            "max_tool_calls": self.max_tool_calls,
            "max_tokens": self.max_tokens,
            "context_budget": self.context_budget,
            "max_money": self.max_money,
            "max_gather_steps": self.max_gather_steps,
            "max_commit_steps": self.max_commit_steps,
            "max_gate_stops": self.max_gate_stops,
        }

    def merged(self, budgets: dict[str, Any] | None) -> "Limits":
        """A copy with the non-``None`` entries of ``budgets`` (keys ``tool_calls``,
        ``tokens``, ``money``, ``gather_steps``, ``commit_steps``) applied, e.g. a pair's
        own budgets over the run's limits."""
        if not budgets:
            return self
        changes = {f"max_{k}": v for k, v in budgets.items() if v is not None}
        return replace(self, **changes) if changes else self


@dataclass(frozen=True, slots=True)
class Action:
    """``a_t`` for one call: ``execute``, ``meta`` or ``deny`` (with a reason code)."""

    kind: Literal["execute", "meta", "deny"]
    call: ToolCall
    tool: ToolSpec | None = None
    reason_code: str | None = None
    message: str = ""
    needs_approval: bool = False


_VALIDATORS: dict[int, tuple[dict[str, Any], Any, dict[str, tuple[str, ...]]]] = {}
_MEMO_SIZE = 256
"""Verdicts kept per schema (arguments seen again, e.g. every epoch of a scripted run)."""
_MEMO_KEY_CHARS = 500
"""Arguments whose text is longer are validated every time (the memo stays small)."""
_JSON_SCALARS = frozenset({str, int, float, bool, type(None)})


def _compiled(schema: dict[str, Any]) -> tuple[dict[str, Any], Any, dict[str, tuple[str, ...]]]:
    """``(schema, validator, memo)``: a compiled, cached draft 2020-12 validator for
    ``schema`` and the memo of its verdicts."""
    hit = _VALIDATORS.get(id(schema))
    if hit is not None and hit[0] is schema:
        return hit
    from jsonschema import Draft202012Validator

    Draft202012Validator.check_schema(schema)
    entry: tuple[dict[str, Any], Any, dict[str, tuple[str, ...]]] = (schema, _linear_validator_class()(schema), {})
    _VALIDATORS[id(schema)] = entry
    return entry


@lru_cache(maxsize=1)
def _linear_validator_class() -> Any:
    """Draft 2020-12 with the ``pattern`` keyword matched in linear time.

    A tool schema's ``pattern`` is the domain's, but the value is the model's: Python's
    backtracking ``re`` takes quadratic or worse time on some patterns (an e-mail pattern
    such as ``^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$`` against ``"a@" + "b." * n + " "``), so a long
    argument could stall an episode. The keyword goes through :mod:`evalkit.patterns` (RE2)
    instead, with jsonschema's error message. RE2 reads ``\\d`` as ASCII digits and ``$`` as
    the very end of the value, as ECMA-262 (the dialect JSON Schema specifies) does, where
    Python's ``re`` also takes other scripts' digits and a final newline. A pattern RE2 cannot
    run (lookaround in a domain's own schema) keeps Python's ``re``.
    """
    import re

    from jsonschema import Draft202012Validator, ValidationError
    from jsonschema.validators import extend

    def pattern(validator: Any, patrn: str, instance: Any, schema: dict[str, Any]) -> Any:
        if not validator.is_type(instance, "string"):
            return
        try:
            found = compile_pattern(patrn).found(instance)
        except ValueError:
            found = re.search(patrn, instance) is not None
        if not found:
            yield ValidationError(f"{instance!r} does not match {patrn!r}")

    return extend(Draft202012Validator, {"pattern": pattern})


def _validator(schema: dict[str, Any]) -> Any:
    """A compiled, cached draft 2020-12 validator for ``schema``."""
    return _compiled(schema)[1]


def _plain_json(value: Any, depth: int = 0) -> bool:
    """Whether ``value`` is made only of exact JSON types (dict with string keys, list,
    tuple, str, int, float, bool, None), at most 32 levels deep: then its ``repr`` is a
    faithful key (``1``, ``1.0``, ``True`` and ``"1"`` differ; so do a list and a tuple)."""
    t = type(value)
    if t in _JSON_SCALARS:
        return True
    if depth >= 32:
        return False
    if t is dict:
        return all(type(k) is str and _plain_json(v, depth + 1) for k, v in value.items())
    if t is list or t is tuple:
        return all(_plain_json(v, depth + 1) for v in value)
    return False


def schema_errors(schema: dict[str, Any], instance: Any) -> list[str]:
    """Human-readable JSON-Schema violations of ``instance`` (empty when valid).

    Each message is prefixed by the JSON path of the offending value (``$.qty``).
    Validation is deterministic, so the messages of arguments seen before are reused
    (per schema, the last :data:`_MEMO_SIZE` distinct argument values made of plain JSON
    types, keyed by their ``repr``).
    """
    _, validator, memo = _compiled(schema)
    key = repr(instance) if _plain_json(instance) else None
    if key is not None and len(key) <= _MEMO_KEY_CHARS:
        hit = memo.get(key)
        if hit is not None:
            return list(hit)
    else:
        key = None
    errors = sorted(validator.iter_errors(instance), key=lambda e: list(e.absolute_path))
    messages = [f"{e.json_path}: {e.message}" for e in errors]
    if key is not None:
        if len(memo) >= _MEMO_SIZE:
            memo.clear()
        memo[key] = tuple(messages)
    return messages


class Controller:
    """Checks proposed calls against ``V_t`` and the registered tools.

    Args:
        tools: Task tools registered for the episode, by name.
        meta_tools: Meta-request tools offered by the condition, by name; calls to them
            pass the same checks and come back as ``meta`` actions.
        step_budgets: Whether the controller enforces the gather- and commit-step budgets
            (``False`` when the autonomy gate does).
        approvals: The approval policy, or ``None`` when nothing needs approval.
    """

    def __init__(self, tools: dict[str, ToolSpec], meta_tools: dict[str, ToolSpec] | None = None, *,
                 step_budgets: bool = True, approvals: ApprovalPolicy | None = None):
        self.tools = tools
        self.meta_tools = meta_tools or {}
        self.step_budgets = step_budgets
        self.approvals = approvals if approvals is not None and approvals.require else None

    def decide(self, call: ToolCall, view: View) -> Action:
        """Return the action for ``call`` given the current view (pure; no side effects)."""
        if call.parse_error is not None or call.arguments is None:
            return Action(
                "deny", call, reason_code="parse_error",
                message=f"could not parse the arguments of {call.name or '(no name)'}: "
                f"{call.parse_error or 'not a JSON object'}",
            )
        spec = self.tools.get(call.name) or self.meta_tools.get(call.name)
        if spec is None:
            offered = ", ".join(sorted([*self.tools, *self.meta_tools]))
            return Action(
                "deny", call, reason_code="unknown_tool",
                message=f"no tool named {call.name!r} is available; available tools: {offered}",
            )
        max_turns = view.limit("max_turns")
        if max_turns is not None and view.turns > max_turns:
            return Action("deny", call, spec, "loop_limit", f"turn limit of {max_turns} reached")
        max_calls = view.limit("max_tool_calls")
        if max_calls is not None and view.tool_calls >= max_calls:
            return Action(
                "deny", call, spec, "budget_exceeded",
                f"tool-call budget of {max_calls} calls is spent",
            )
        max_tokens = view.limit("max_tokens")
        if max_tokens is not None and view.tokens >= max_tokens:
            return Action(
                "deny", call, spec, "budget_exceeded", f"token budget of {max_tokens} is spent"
            )
        max_money = view.limit("max_money")
        if max_money is not None and view.money >= max_money:
            return Action("deny", call, spec, "budget_exceeded", f"money budget of {max_money} is spent")
        problems = schema_errors(spec.parameters, call.arguments)
        if problems:
            return Action(
                "deny", call, spec, "schema_mismatch",
                f"arguments of {spec.name} do not match its schema: " + "; ".join(problems[:5]),
            )
        if spec.permission is not None and spec.permission not in view.permissions:
            return Action(
                "deny", call, spec, "permission_denied",
                f"{spec.name} needs permission {spec.permission!r}, which this session does not hold",
            )
        if call.name in self.meta_tools:
            return Action("meta", call, spec)
        if self.step_budgets:
            name, used = ("max_commit_steps", view.commit_steps) if spec.kind == "commit" else \
                ("max_gather_steps", view.gather_steps)
            budget = view.limit(name)
            if budget is not None and used >= budget:
                what = "commit" if spec.kind == "commit" else "gather (lookup and verify)"
                return Action("deny", call, spec, "budget_exceeded", f"{what} budget of {budget} steps is spent")
        if self.approvals is not None and self.approvals.required(spec, call.arguments):
            return Action("execute", call, spec, needs_approval=True)
        return Action("execute", call, spec)
