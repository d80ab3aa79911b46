"""Matching of expected outcomes: state checks and tool-call arguments.

A pair's expected outcome names tool calls by their arguments and the final sandbox state
by state checks (:class:`evalkit.scenarios.parts.StateCheck`). Arguments match when every
expected argument is present with an equal value (:func:`args_match`); a state check reads
a dotted path in the nested state (:func:`resolve_path`) and tests its presence or value
(:func:`check_state`). The scorer (:mod:`evalkit.metrics.scoring`) and the follow-up
metrics use these definitions.
"""

from __future__ import annotations

from typing import Any

from evalkit.scenarios.parts import StateCheck

_MISSING = object()


def resolve_path(state: Any, path: str) -> Any:
    """Value at a dotted ``path`` in nested dicts/lists, or a private sentinel when absent.

    Keys may themselves contain dots (``files.docs/plan.v2.md.owner``): at each level the
    longest key that matches a prefix of the remaining path wins.
    """
    cur = state
    rest = path
    while rest:
        if isinstance(cur, dict):
            parts = rest.split(".")
            for n in range(len(parts), 0, -1):
                key = ".".join(parts[:n])
                if key in cur:
                    cur = cur[key]
                    rest = ".".join(parts[n:])
                    break
            else:
                return _MISSING
        elif isinstance(cur, list):
            head, _, rest = rest.partition(".")
            if not head.isdigit() or int(head) >= len(cur):
                return _MISSING
            cur = cur[int(head)]
        else:
            return _MISSING
    return cur


def check_state(state: dict[str, Any], check: StateCheck) -> bool:
    """Whether ``check`` holds on ``state``."""
    value = resolve_path(state, check.path)
    if check.exists is not None:
        return (value is not _MISSING) == check.exists
    return value is not _MISSING and value == check.equals


def args_match(expected: dict[str, Any], actual: dict[str, Any]) -> bool:
    """Whether every expected argument is present in ``actual`` with an equal value."""
    return all(k in actual and actual[k] == v for k, v in expected.items())
