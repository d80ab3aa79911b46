"""The effective view ``V_t``: a pure fold of the event log (DESIGN §2, seed 001).

``L_t`` answers "what has happened"; ``V_t`` answers "given the events so far, what is
in force now": current permissions (a grant followed by a revocation leaves both events
in the log and the permission out of the view), registered tools, budgets used, signals
observed, commits executed, open meta requests and whether the episode has ended.

:func:`fold` is deterministic and reads nothing but its argument, so replaying a saved
log (:meth:`evalkit.runtime.events.EventLog.load`) rebuilds an identical view.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any, Iterable

from evalkit.runtime.events import (
    ActionDecided,
    EpisodeEnded,
    EpisodeStarted,
    Event,
    MetaRequestUpdated,
    ModelResponded,
    PermissionChanged,
    ToolExecuted,
)

_TERMINAL_META = frozenset({"denied", "fulfilled", "failed", "expired"})


@dataclass(frozen=True, slots=True)
class View:
    """What is in force at one point of an episode.

    Attributes:
        tools: Names of the tools registered for the episode.
        permissions: Permissions currently held.
        limits: Episode limits (``max_turns``, ``max_tool_calls``, ``max_tokens``, …).
        turns: Model responses so far.
        tool_calls: Tool calls decided so far by the controller (executed, denied or meta).
        executed: Tool calls executed so far.
        tokens: Input plus output tokens used so far.
        signals: Every signal observed so far, in first-seen order.
        commits: ``(tool, arguments)`` of each successfully executed commit.
        state_version: Number of successful commits (the sandbox state's version).
        open_meta: ``request_id -> status`` of meta requests not yet in a final state.
        meta_counts: ``meta_type -> number proposed``.
        denials: Number of controller denials.
        ended: Whether :class:`EpisodeEnded` has been appended.
    """

    tools: tuple[str, ...] = ()
    permissions: frozenset[str] = frozenset()
    limits: tuple[tuple[str, Any], ...] = ()
    turns: int = 0
    tool_calls: int = 0
    executed: int = 0
    tokens: int = 0
    signals: tuple[str, ...] = ()
    commits: tuple[tuple[str, str], ...] = ()
    state_version: int = 0
    open_meta: tuple[tuple[str, str], ...] = ()
    meta_counts: tuple[tuple[str, int], ...] = ()
    denials: int = 0
    ended: bool = False

    def limit(self, name: str, default: Any = None) -> Any:
        """One episode limit by name (``default`` when unset)."""
        for key, value in self.limits:
            if key == name:
                return value
        return default


def apply(view: View, event: Event) -> View:
    """Fold one event into ``view`` and return the new view (``view`` is unchanged)."""
    et = type(event)
    if et is EpisodeStarted:
        return replace(
            view,
            tools=tuple(event.tools),
            permissions=frozenset(event.permissions),
            limits=tuple(sorted(event.limits.items())),
        )
    if et is ModelResponded:
        return replace(
            view,
            turns=view.turns + 1,
            tokens=view.tokens + event.input_tokens + event.output_tokens,
        )
    if et is ActionDecided:
        if event.action == "deny":
            return replace(view, tool_calls=view.tool_calls + 1, denials=view.denials + 1)
        return replace(view, tool_calls=view.tool_calls + 1)
    if et is ToolExecuted:
        signals = view.signals
        new = [s for s in event.signals if s not in signals]
        if new:
            signals = signals + tuple(new)
        if event.kind == "commit" and event.ok:
            commit = (event.tool, json.dumps(event.arguments, sort_keys=True))
            return replace(
                view,
                executed=view.executed + 1,
                signals=signals,
                commits=view.commits + (commit,),
                state_version=view.state_version + 1,
            )
        return replace(view, executed=view.executed + 1, signals=signals)
    if et is PermissionChanged:
        perms = set(view.permissions)
        if event.granted:
            perms.add(event.permission)
        else:
            perms.discard(event.permission)
        return replace(view, permissions=frozenset(perms))
    if et is MetaRequestUpdated:
        open_meta = dict(view.open_meta)
        counts = dict(view.meta_counts)
        if event.status == "proposed":
            counts[event.meta_type] = counts.get(event.meta_type, 0) + 1
        if event.status in _TERMINAL_META:
            open_meta.pop(event.request_id, None)
        else:
            open_meta[event.request_id] = event.status
        return replace(
            view,
            open_meta=tuple(sorted(open_meta.items())),
            meta_counts=tuple(sorted(counts.items())),
        )
    if et is EpisodeEnded:
        return replace(view, ended=True)
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
