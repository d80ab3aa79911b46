"""Episode traces condensed for the report's trace view.

A trace (``traces/ID.jsonl``, one event per line) becomes a small JSON-ready dict: the
episode's identity and outcome, the user message, and per turn the items the viewer shows —
the model's output (text and tool calls), each controller action with its reason code, each
gate decision, each tool execution with its observation and signals, meta-request
transitions, errors and the end. Every text field is cut at ``max_chars`` with a visible
marker (:func:`truncate`) and a trace keeps at most ``max_events`` events, so that a report
stays small whatever the models wrote. Event types the viewer does not know are kept
generically (type and fields).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

MAX_CHARS = 1500
MAX_EVENTS = 150
_SKIP = frozenset({"episode_started", "context_built", "model_call", "budget_charged"})


def truncate(text: Any, max_chars: int = MAX_CHARS) -> str | None:
    """``text`` cut at ``max_chars`` characters with a marker saying how much was cut
    (``None`` stays ``None``; any other non-string is shown as ``str(text)``)."""
    if text is None:
        return None
    if not isinstance(text, str):
        text = str(text)
    if len(text) <= max_chars:
        return text
    return f"{text[:max_chars]}… [truncated: {len(text) - max_chars:,} more characters]"


def _dump(value: Any, max_chars: int) -> str:
    if isinstance(value, str):
        return truncate(value, max_chars) or ""
    try:
        text = json.dumps(value, ensure_ascii=False, sort_keys=False, default=str)
    except (TypeError, ValueError):
        text = repr(value)
    return truncate(text, max_chars) or ""


def _hashable(value: Any) -> Any:
    return value if isinstance(value, (str, int, float, type(None))) else repr(value)


def _item(event: dict[str, Any], max_chars: int) -> dict[str, Any] | None:
    kind = _hashable(event.get("type"))
    if kind in _SKIP or kind == "user_message":
        return None
    if kind == "model_responded":
        calls = [{"name": truncate(str(c.get("name", "")), 200), "args": _dump(c.get("arguments"), max_chars),
                  "error": truncate(c.get("parse_error"), 300)} for c in event.get("tool_calls") or ()]
        thinking = "\n".join(str(b.get("text") or "[redacted]") for b in event.get("reasoning") or ()
                              if isinstance(b, dict))
        return {"k": "model", "text": truncate(event.get("text"), max_chars), "calls": calls,
                "finish": event.get("finish_reason"), "stop": event.get("stop_reason"),
                "refusal": truncate(event.get("refusal"), max_chars), "thinking": truncate(thinking, max_chars),
                "tokens": [event.get("input_tokens", 0), event.get("output_tokens", 0)]}
    if kind == "action_decided":
        return {"k": "action", "tool": truncate(event.get("tool"), 200), "action": event.get("action"),
                "code": event.get("reason_code"), "msg": truncate(event.get("message"), max_chars)}
    if kind == "gate_decision":
        return {"k": "gate", "tool": truncate(event.get("tool"), 200), "decision": event.get("decision"),
                "code": event.get("reason"), "rule": event.get("rule_id"),
                "msg": truncate(event.get("message"), max_chars)}
    if kind == "tool_executed":
        signals = event.get("signals") or ()
        return {"k": "tool", "tool": truncate(event.get("tool"), 200), "kind": event.get("kind"), "ok": event.get("ok"),
                "args": _dump(event.get("arguments"), max_chars), "result": _dump(event.get("result"), max_chars),
                "signals": [truncate(x, 100) for x in (signals if isinstance(signals, (list, tuple)) else [signals])]}
    if kind == "meta_request":
        detail = {k: v for k, v in (event.get("detail") or {}).items() if k != "call_id"}
        return {"k": "meta", "type": event.get("meta_type"), "status": event.get("status"),
                "reason": truncate(event.get("reason"), max_chars), "detail": _dump(detail, max_chars) if detail else ""}
    if kind == "error":
        return {"k": "error", "source": event.get("source"), "msg": truncate(event.get("message"), max_chars)}
    if kind == "episode_ended":
        return {"k": "end", "reason": event.get("reason"), "terminal": event.get("terminal"),
                "text": truncate(event.get("final_text"), max_chars)}
    rest = {k: v for k, v in event.items() if k not in ("type", "seq", "turn")}
    return {"k": "event", "type": str(kind), "fields": _dump(rest, max_chars)}


def condense(
    events: list[dict[str, Any]],
    row: dict[str, Any],
    *,
    max_chars: int = MAX_CHARS,
    max_events: int = MAX_EVENTS,
) -> dict[str, Any]:
    """The trace view's data for one episode.

    Args:
        events: The episode's events as dicts (lines of its trace file).
        row: The episode's result row (identity and outcome).
        max_chars: Longest text kept per field.
        max_events: Most events kept (the rest are counted in ``omitted``).

    Returns:
        ``{"id", "head", "user", "turns": [{"t", "items"}], "omitted"}``.
    """
    head_keys = ("model", "condition", "gate", "pair_id", "variant", "epoch", "trigger", "phase", "domain",
                 "status", "correct", "decision", "expected_decision", "post_hoc", "lag", "timely", "error")
    head = {k: row.get(k) for k in head_keys}
    for k in ("lag", "epoch"):
        value = head.get(k)
        if isinstance(value, float) and value.is_integer():
            head[k] = int(value)
    if head.get("error"):
        head["error"] = truncate(str(head["error"]), 300)
    user = [truncate(e.get("content"), max_chars) for e in events if e.get("type") == "user_message"]
    turns: list[dict[str, Any]] = []
    kept = 0
    last_text: str | None = None
    for event in events:
        try:
            item = _item(event, max_chars)
        except (TypeError, ValueError, AttributeError, LookupError):  # a malformed event: shown as it is
            rest = {k: v for k, v in event.items() if k not in ("type", "seq", "turn")}
            item = {"k": "event", "type": str(event.get("type")), "fields": _dump(rest, max_chars)}
        if item is None:
            continue
        if item["k"] == "model":
            last_text = item["text"]
        elif item["k"] == "end" and item["text"] is not None and item["text"] == last_text:
            item["text"], item["same"] = None, True  # the final text is the last model output, shown above
        if kept >= max_events:
            continue
        kept += 1
        turn = event.get("turn", 0)
        t = turn if isinstance(turn, int) and not isinstance(turn, bool) else 0
        if not turns or turns[-1]["t"] != t:
            turns.append({"t": t, "items": []})
        turns[-1]["items"].append(item)
    total = sum(1 for e in events if _hashable(e.get("type")) not in _SKIP and e.get("type") != "user_message")
    return {"id": row.get("episode_id"), "head": head, "user": user, "turns": turns, "omitted": total - kept}


def load_trace(path: Path) -> list[dict[str, Any]]:
    """Events of a trace file as dicts; unreadable lines are skipped (the viewer says so)."""
    out: list[dict[str, Any]] = []
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return out
    for line in text.split("\n"):  # not splitlines(): U+2028 or U+0085 may sit inside a JSON string
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict):
            out.append(event)
    return out


def executed_commits(trace: dict[str, Any], limit: int = 3) -> list[str]:
    """The commits an episode executed, ``tool(arguments)``, from its condensed trace
    (:func:`condense`), at most ``limit`` (a gallery card names what the agent did)."""
    out = []
    for turn in trace.get("turns", []):
        for item in turn["items"]:
            if item.get("k") == "tool" and item.get("kind") == "commit" and item.get("ok"):
                out.append(f"{item['tool']}({truncate(item.get('args') or '', 200)})")
                if len(out) >= limit:
                    return out
    return out
