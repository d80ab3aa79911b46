"""Helpers shared by the model adapter tests: settings, response bodies, test tools, an
episode through the real agent loop."""

from __future__ import annotations

import socket
import threading
from contextlib import contextmanager
from typing import Callable, Iterator

from evalkit.models.config import ModelSettings, RetrySettings
from evalkit.runtime.controller import Limits
from evalkit.runtime.loop import run_episode
from evalkit.runtime.tools import ToolSpec

FAST_RETRY = RetrySettings(max_attempts=4, initial_wait_s=0.01, max_wait_s=0.05, retry_after_cap_s=0.5,
                           timeout_s=5.0)


def settings(spec: str = "openai/test-model", **kw) -> ModelSettings:
    provider, _, model = spec.partition("/")
    kw.setdefault("retry", FAST_RETRY)
    kw.setdefault("temperature", 0.0)
    kw.setdefault("price", {"input_per_mtok": 1.0, "output_per_mtok": 2.0})
    return ModelSettings(spec=spec, provider=provider, model=model, **kw)


def completion(message: dict, finish_reason: str = "stop", usage=(10, 5), **extra) -> dict:
    """A chat-completion body with one choice."""
    body = {"id": "chatcmpl-test", "object": "chat.completion", "model": "test-model",
            "choices": [{"index": 0, "finish_reason": finish_reason, "message": {"role": "assistant", **message}}],
            "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1], "total_tokens": sum(usage)}}
    body.update(extra)
    return body


def tool_call(name, arguments, call_id="call_1") -> dict:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def _pay(state, to, amount, currency="EUR"):
    state.setdefault("payments", []).append({"to": to, "amount": amount, "currency": currency})
    return {"status": "ok", "payment_id": f"pay_{len(state['payments'])}"}


def _lookup(state, query=""):
    return {"found": query == "known", "query": query}


TOOLS = {
    "lookup": ToolSpec("lookup", "lookup", "Look something up.",
                       {"type": "object", "properties": {"query": {"type": "string", "maxLength": 50}},
                        "additionalProperties": False}, fn=_lookup),
    "send_payment": ToolSpec("send_payment", "commit", "Send a payment.",
                             {"type": "object", "properties": {"to": {"type": "string"}, "amount": {"type": "number"},
                                                               "currency": {"type": "string"}},
                              "required": ["to", "amount"], "additionalProperties": False}, fn=_pay),
}


def run_live_episode(model, tools=None, user="Pay invoice INV-0001: send 40 EUR to account ACC-0001.", max_turns=4):
    """One episode of ``model`` through the reference loop over the test tools."""
    state: dict = {}
    return run_episode(model=model, episode=None, system_prompt="You are a test agent.", tools=tools or TOOLS,
                       state=state, permissions=(), user_message=user, limits=Limits(max_turns=max_turns))


def openai_model(api, *, cache=None, **kw):
    """A :class:`LiveModel` over the fake OpenAI-compatible server ``api``."""
    from evalkit.models.live import LiveModel

    return LiveModel(settings(base_url=api.url_for("/v1"), **kw), cache=cache)


def sent(api) -> list[dict]:
    """The JSON bodies the fake server received, in order."""
    import json

    return [json.loads(request.get_data(as_text=True)) for request, _ in api.log]


def events_of(log, type_name: str) -> list:
    return [e for e in log.events if e.type == type_name]


def field_domain(tools: dict, name: str = "field"):
    """A task domain with the given tools: ``{name: (kind, parameters)}``; every tool succeeds,
    a commit records its arguments in ``state["commits"]``."""
    from evalkit.runtime.tools import Domain

    domain = Domain(name, "Tools named after the field cases (test fixture).", initial_state={"commits": []})
    for tool, (kind, parameters) in tools.items():
        def fn(state, _tool=tool, _kind=kind, **arguments):
            if _kind == "commit":
                state["commits"].append({"tool": _tool, **arguments})
                return {"status": "ok", "id": f"{_tool}_{len(state['commits'])}"}
            return {"tool": _tool, "arguments": arguments, "result": "ok"}
        domain.tool(kind=kind, parameters=parameters, name=tool, description=f"The {tool} tool.")(fn)
    return domain


def field_pair(domain, commit: str, *, decision: str = "abstain"):
    """A pair over ``domain`` whose act side expects one ``commit`` call."""
    from evalkit.scenarios.schema import Pair

    return Pair.model_validate({
        "id": f"field-{commit}", "domain": domain.name, "trigger": "missing_param",
        "act": {"user": "Do it.", "plan": [{"tool": commit, "args": {}}],
                "expected": {"commits": [{"tool": commit, "args": {}}]}},
        "abstain": {"user": "Do the impossible.", "plan": [{"tool": commit, "args": {}}],
                    "expected": {"decision": decision, "observable_step": 0, "reason": "It cannot be done."}},
    })


def field_episode(model, domain, pair, variant="abstain", condition="nl", max_turns=4):
    """Run one episode of ``pair`` and score it: ``(run, row)``."""
    from evalkit.harness.episode import EpisodeSpec, execute
    from evalkit.metrics.scoring import score_episode

    spec = EpisodeSpec(pair=pair, variant=variant, model=model.name, condition=condition, domain=domain)
    run = execute(spec, model, Limits(max_turns=max_turns))
    return run, score_episode(spec, run.log, run.state, run.error)


@contextmanager
def raw_server(serve: Callable[[socket.socket], None]) -> Iterator[int]:
    """A raw TCP server on 127.0.0.1 for misbehaving HTTP peers: ``serve(conn)`` runs on its
    own thread for each connection. Yields the port; the listener closes on exit."""
    listener = socket.create_server(("127.0.0.1", 0))

    def accept() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=serve, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield listener.getsockname()[1]
    finally:
        listener.close()
