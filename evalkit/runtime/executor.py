"""The sandbox executor: runs task tools over an episode's private state (DESIGN §2 ``E_t``).

Each episode gets its own deep copy of the pair's initial state; tools mutate only that
copy. Configured disturbances (``δ_t``, seed 001) are applied here, and each observation
says what the runtime knows, not more:

* ``error`` — the call fails without side effects (signals ``tool_error``);
* ``transient`` — the call fails with a retryable error (signals ``tool_error``,
  ``transient``); after ``times`` failures (default 1) the same call succeeds;
* ``timeout`` — the call times out; whether its side effect happened is unknown to the
  runtime (``applied`` decides what really happened in the sandbox; the observation says
  only "timed out, outcome unknown", signals ``tool_error``, ``timeout``,
  ``unknown_side_effect``);
* ``concurrent`` — someone else changes the state just before the call (``patch`` is
  deep-merged into the state; a ``None`` value deletes a key). With ``detect`` (the
  environment checks versions, as an ETag would), a commit is rejected without side
  effect and signals ``tool_error``, ``state_changed``; without it the call silently runs
  on the changed state and the observation carries no signal — the runtime cannot know.
  Applied once unless ``times`` says otherwise.

A call that succeeds with an empty result (``None``, ``{}``, ``[]``, ``""``) signals
``empty_result``: the observation goes back to the model and the scorer as it is, and it
never counts as positive evidence (seed 004, failure path 4).

A tool exception that is not a :class:`~evalkit.runtime.tools.ToolFailure` is a bug in
the tool or a fault of the environment; it is reported as a failed call with
``tool_error`` and never crashes the episode. So is a result that is not strict JSON (a
``datetime``, ``bytes``, an object, NaN or Infinity, a circular or too-deep value): the
observation fails with ``tool_error`` and a message naming the problem, and the result is
not recorded. Lone surrogates in a result's strings are replaced by U+FFFD
(:mod:`evalkit.runtime.jsonsafe`); the check is one ``json.dumps`` per call. A tool's
``signals`` given as one string count as one signal.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from evalkit.runtime.jsonsafe import SURROGATE, clean_text, json_problem, sanitize
from evalkit.runtime.tools import ToolFailure, ToolResult, ToolSpec


@dataclass(frozen=True, slots=True)
class Fault:
    """A disturbance injected into one tool.

    Attributes:
        mode: ``error``, ``transient``, ``timeout`` or ``concurrent``.
        message: Text of the observation.
        applied: For ``timeout`` on a commit: whether the side effect really happened.
        times: How many calls it affects (``None`` = every call; ``transient`` and
            ``concurrent`` default to 1).
        patch: For ``concurrent``: the change made underneath the call.
        detect: For ``concurrent``: whether the environment detects it on a commit.
    """

    mode: str = "error"
    message: str = "the service is unavailable"
    applied: bool = False
    times: int | None = None
    patch: dict[str, Any] | None = None
    detect: bool = True


@dataclass(frozen=True, slots=True)
class Observation:
    """``O_t`` for one executed call: what the runtime knows, not more."""

    ok: bool
    result: Any
    signals: tuple[str, ...] = ()


class SandboxExecutor:
    """Runs task tools over a private state.

    Args:
        state: The episode's state; it is mutated in place by commits.
        faults: Disturbances by tool name.
    """

    def __init__(self, state: dict[str, Any], faults: dict[str, Fault] | None = None):
        self.state = state
        self.faults = dict(faults or {})
        self._fault_hits: dict[str, int] = {}

    def _fault_for(self, name: str) -> Fault | None:
        fault = self.faults.get(name)
        if fault is None:
            return None
        hits = self._fault_hits.get(name, 0)
        times = fault.times if fault.times is not None or fault.mode not in ("transient", "concurrent") else 1
        if times is not None and hits >= times:
            return None
        self._fault_hits[name] = hits + 1
        return fault

    def run(self, spec: ToolSpec, arguments: dict[str, Any]) -> Observation:
        """Execute ``spec`` with validated ``arguments``; never raises for tool faults."""
        fault = self._fault_for(spec.name) if self.faults else None
        if fault is not None:
            if fault.mode == "concurrent":
                _merge_into(self.state, fault.patch or {})
                if fault.detect and spec.kind == "commit":
                    return Observation(
                        False,
                        {"message": f"{spec.name} rejected: the record changed since it was last read "
                                    "(concurrent modification); nothing was changed"},
                        ("tool_error", "state_changed"),
                    )
                return self._call(spec, arguments)
            if fault.mode == "transient":
                return Observation(False, {"message": fault.message, "retryable": True}, ("tool_error", "transient"))
            if fault.mode == "timeout":
                if fault.applied and spec.fn is not None:
                    try:
                        spec.fn(self.state, **arguments)
                    except Exception:  # noqa: BLE001 - the outcome stays unknown either way
                        pass
                return Observation(
                    False,
                    {"message": f"{spec.name} timed out; whether it took effect is unknown"},
                    ("tool_error", "timeout", "unknown_side_effect"),
                )
            return Observation(False, {"message": fault.message}, ("tool_error",))
        return self._call(spec, arguments)

    def _call(self, spec: ToolSpec, arguments: dict[str, Any]) -> Observation:
        if spec.fn is None:
            return Observation(False, {"message": f"{spec.name} has no implementation"}, ("tool_error",))
        try:
            out = spec.fn(self.state, **arguments)
        except ToolFailure as exc:
            signals = _signals(exc.signals)
            signals = signals if "tool_error" in signals else ("tool_error", *signals)
            return Observation(False, {"message": clean_text(str(exc.message))}, signals)
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - a broken tool is an observation, not a crash
            # SystemExit too: a domain tool calling sys.exit() must not end the run or the validator
            return Observation(False, {"message": clean_text(f"{type(exc).__name__}: {_text(exc)}")}, ("tool_error",))
        if isinstance(out, ToolResult):
            data, ok, signals = out.data, out.ok, _signals(out.signals)
        else:
            data, ok, signals = out, True, ()
        problem = json_problem(data)
        if problem is not None:
            if problem != SURROGATE:
                return Observation(False, {"message": f"{spec.name} returned a result that is not JSON ({problem}); "
                                                      "the result was discarded"}, ("tool_error",))
            data = sanitize(data)
        if ok and _empty(data) and "empty_result" not in signals:
            signals += ("empty_result",)
        return Observation(ok, data, signals)


def _signals(signals: object) -> tuple[str, ...]:
    """A tool's signals as a tuple; one string is one signal (not its characters)."""
    if isinstance(signals, str):
        return (signals,)
    return tuple(signals)  # type: ignore[arg-type]


def _text(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception:  # noqa: BLE001 - an exception whose __str__ fails still names its type
        return "(no message)"


def _empty(value: Any) -> bool:
    return value is None or (isinstance(value, (dict, list, str, tuple)) and len(value) == 0)


def _merge_into(state: dict[str, Any], patch: dict[str, Any]) -> None:
    """Deep-merge ``patch`` into ``state`` in place (a ``None`` value deletes the key)."""
    for key, value in patch.items():
        if value is None:
            state.pop(key, None)
        elif isinstance(value, dict) and isinstance(state.get(key), dict):
            _merge_into(state[key], value)
        else:
            state[key] = copy.deepcopy(value)
