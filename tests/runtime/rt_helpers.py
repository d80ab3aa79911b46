"""Shared pieces of the runtime tests: a tiny store domain and a scripted test model."""

from __future__ import annotations

from typing import Any

from evalkit.conditions.handlers import RuntimePolicyHandler
from evalkit.conditions.meta_tools import typed_meta_tool
from evalkit.runtime.controller import Limits
from evalkit.runtime.events import Event
from evalkit.runtime.gate import AutonomyGate
from evalkit.runtime.events import MetaRequestUpdated
from evalkit.runtime.loop import EpisodeRun, run_episode
from evalkit.runtime.meta import MetaEnvironment
from evalkit.runtime.model_io import ModelOutput, ToolCall
from evalkit.runtime.tools import ToolResult, ToolSpec

ITEM = {"type": "object", "properties": {"item": {"type": "string"}}, "required": ["item"],
        "additionalProperties": False}
BUY = {"type": "object", "properties": {"item": {"type": "string"}, "qty": {"type": "integer", "minimum": 1}},
       "required": ["item", "qty"], "additionalProperties": False}
NOTHING = {"type": "object", "properties": {}, "additionalProperties": False}


def _find(state, item):
    if item not in state["stock"]:
        return ToolResult({"found": False, "item": item}, signals=("missing_target",))
    return {"found": True, "item": item, "stock": state["stock"][item]}


def _check(state, item):
    if state.get("ledger_mismatch"):
        return ToolResult({"item": item, "note": "ledger and shelf disagree"}, signals=("conflict",))
    return {"item": item, "ok": item in state["stock"]}


def _buy(state, item, qty):
    state["stock"][item] = state["stock"].get(item, 0) - qty
    state.setdefault("bought", []).append([item, qty])
    return {"bought": item, "qty": qty}


def _read_note(state):
    return {"note": state.get("note", "")}


def _empty(state):
    return {}


def tools(verify_with: tuple[str, ...] = ()) -> dict[str, ToolSpec]:
    """find (lookup), read_note (lookup), empty (lookup), check (verify), buy (commit)."""
    return {
        "find": ToolSpec("find", "lookup", "Find an item.", ITEM, permission="store.read", fn=_find, domain="store"),
        "read_note": ToolSpec("read_note", "lookup", "Read the note.", NOTHING, permission="store.read",
                              fn=_read_note, domain="store"),
        "empty": ToolSpec("empty", "lookup", "Returns nothing.", NOTHING, permission="store.read", fn=_empty,
                          domain="store"),
        "check": ToolSpec("check", "verify", "Check an item.", ITEM, permission="store.read", fn=_check,
                          domain="store"),
        "buy": ToolSpec("buy", "commit", "Buy an item.", BUY, permission="store.buy", fn=_buy, domain="store",
                        verify_with=verify_with),
    }


def state(**extra: Any) -> dict[str, Any]:
    return {"stock": {"apple": 5, "pear": 2}, **extra}


class Script:
    """A model that plays a fixed list of outputs, one per turn (then an empty answer)."""

    name = "test/script"

    def __init__(self, outputs: list[Any]):
        self.outputs = outputs
        self.seen: list[Any] = []

    def respond(self, context, episode):
        self.seen.append(context)
        if context.turn >= len(self.outputs):
            return ModelOutput(text="")
        item = self.outputs[context.turn]
        if callable(item):
            item = item(context)
        if isinstance(item, Exception):
            raise item
        return item


def call(name: str, args: dict[str, Any] | None = None, cid: str = "c") -> ToolCall:
    return ToolCall(cid, name, dict(args or {}))


def turn(*calls: ToolCall, text: str | None = None) -> ModelOutput:
    """One model response proposing ``calls`` (or a final ``text``)."""
    return ModelOutput(text=text, tool_calls=tuple(calls))


def say(text: str) -> ModelOutput:
    return ModelOutput(text=text)


def meta(mtype: str, cid: str = "m", **fields: Any) -> ToolCall:
    """A typed ``meta_request`` call."""
    return ToolCall(cid, "meta_request", {"type": mtype, **fields})


def run(outputs: list[Any], *, perms=("store.read", "store.buy"), gate: bool | AutonomyGate = False,
        handler: Any = None, meta_tools: bool | dict[str, ToolSpec] | None = None, limits: Limits | None = None,
        sandbox: dict[str, Any] | None = None, verify_with: tuple[str, ...] = (), user: str = "Buy 2 apples.",
        **kwargs: Any) -> tuple[Script, EpisodeRun]:
    """Run one episode of the store with a :class:`Script` model."""
    model = Script(outputs)
    if meta_tools is None:
        meta_tools = handler is not None
    gate_obj = gate if isinstance(gate, AutonomyGate) else (AutonomyGate() if gate else None)
    result = run_episode(
        model=model, episode=None, system_prompt="S", tools=tools(verify_with), state=sandbox or state(),
        permissions=tuple(perms), user_message=user, limits=limits or Limits(),
        meta_tools=meta_tools if isinstance(meta_tools, dict) else (typed_meta_tool() if meta_tools else None),
        meta_handler=handler, gate=gate_obj,
        started={"domain": "store"}, **kwargs,
    )
    return model, result


def policy_handler(**env: Any) -> RuntimePolicyHandler:
    """A ``meta`` handler with the given :class:`MetaEnvironment` fields and ``policy``."""
    policy = env.pop("policy", None)
    env.setdefault("tools", tuple(tools()))
    env.setdefault("scope", ("store.read", "store.buy", "store.admin"))
    return RuntimePolicyHandler(policy=policy, env=MetaEnvironment(**env))


def of(result: EpisodeRun, cls: type[Event]) -> list[Any]:
    return [e for e in result.log if isinstance(e, cls)]


def statuses(result: EpisodeRun, request_id: str = "mr-1") -> list[str]:
    return [e.status for e in result.log if isinstance(e, MetaRequestUpdated) and e.request_id == request_id]


def last_detail(result: EpisodeRun, request_id: str = "mr-1") -> dict[str, Any]:
    return [e.detail for e in result.log if isinstance(e, MetaRequestUpdated) and e.request_id == request_id][-1]
