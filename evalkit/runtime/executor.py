"""The sandbox executor: runs task tools over an episode's private state (DESIGN §2 ``E_t``).

Each episode gets its own deep copy of the pair's initial state; tools mutate only that
copy. Configured disturbances (``δ_t``) are applied here:

* ``error`` — the call fails without side effects (signals ``tool_error``);
* ``timeout`` — the call times out; whether its side effect happened is unknown to the
  runtime (``applied`` decides what really happened in the sandbox; the observation says
  only "timed out, outcome unknown", signals ``tool_error``, ``timeout``,
  ``unknown_side_effect``).

A tool exception that is not a :class:`~evalkit.runtime.tools.ToolFailure` is a bug in
the tool or a fault of the environment; it is reported as a failed call with
``tool_error`` and never crashes the episode.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from evalkit.runtime.tools import ToolFailure, ToolResult, ToolSpec


@dataclass(frozen=True, slots=True)
class Fault:
    """A disturbance injected into one tool.

    Attributes:
        mode: ``error`` or ``timeout``.
        message: Text of the observation.
        applied: For ``timeout`` on a commit: whether the side effect really happened.
        times: How many calls it affects (``None`` = every call).
    """

    mode: str = "error"
    message: str = "the service is unavailable"
    applied: bool = False
    times: int | None = None


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
        if fault.times is not None and hits >= fault.times:
            return None
        self._fault_hits[name] = hits + 1
        return fault

    def run(self, spec: ToolSpec, arguments: dict[str, Any]) -> Observation:
        """Execute ``spec`` with validated ``arguments``; never raises for tool faults."""
        fault = self._fault_for(spec.name)
        if fault is not None:
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
        if spec.fn is None:
            return Observation(False, {"message": f"{spec.name} has no implementation"}, ("tool_error",))
        try:
            out = spec.fn(self.state, **arguments)
        except ToolFailure as exc:
            signals = exc.signals if "tool_error" in exc.signals else ("tool_error", *exc.signals)
            return Observation(False, {"message": exc.message}, signals)
        except Exception as exc:  # noqa: BLE001 - a broken tool is an observation, not a crash
            return Observation(
                False, {"message": f"{type(exc).__name__}: {exc}"}, ("tool_error",)
            )
        if isinstance(out, ToolResult):
            return Observation(out.ok, out.data, tuple(out.signals))
        return Observation(True, out, ())
