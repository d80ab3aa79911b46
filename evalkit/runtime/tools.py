"""Task tools: the sandboxed functions a model can call, and the domains that hold them.

A task domain (one folder in ``tasks/``) declares its tools next to their functions, so
that what the model sees (name, description, JSON-schema arguments) cannot drift from
what the code does::

    shop = Domain("shop", "An online shop with a catalog and orders.")

    @shop.tool(kind="lookup", permission="shop.read",
               parameters={"type": "object", "properties": {"query": {"type": "string"}},
                           "required": ["query"], "additionalProperties": False})
    def search_catalog(state, query):
        \"\"\"Search the catalog by name or SKU.\"\"\"
        ...

A tool function receives the episode's mutable sandbox state (a dict) and its validated
arguments as keywords. It returns any strict-JSON value (no NaN, no ``datetime``: anything
else makes the call a failed observation with ``tool_error``), or a :class:`ToolResult` to
attach *signals* (DESIGN §2: ``missing_target``, ``conflict``, ``tool_error`` …) that
the gate and the metrics read. Raising :class:`ToolFailure` reports a failed call with
signals; any other exception is caught by the executor and reported as ``tool_error``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from evalkit.errors import TaskError
from evalkit.types import ToolKind

_KINDS = ("lookup", "verify", "commit")


@dataclass(frozen=True, slots=True)
class ToolResult:
    """What a tool returns when it has signals to report.

    Attributes:
        data: The JSON-serialisable payload shown to the model.
        ok: ``False`` when the call failed (the payload then explains why).
        signals: Signal names observed by this call (e.g. ``("missing_target",)``); one
            string counts as one signal.
    """

    data: Any
    ok: bool = True
    signals: tuple[str, ...] = ()


class ToolFailure(Exception):
    """Raised by a tool function to report a failed call with signals.

    Args:
        message: What went wrong, shown to the model.
        signals: Signals carried by the observation (one string counts as one signal);
            ``tool_error`` is added by the executor.
    """

    def __init__(self, message: str, signals: tuple[str, ...] | str = ()):
        super().__init__(message)
        self.message = message
        self.signals = (signals,) if isinstance(signals, str) else tuple(signals)


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """One callable tool.

    Attributes:
        name: Tool name as the model sees it.
        kind: ``lookup`` | ``verify`` | ``commit`` (DESIGN §4).
        description: One-paragraph description sent to the model.
        parameters: JSON Schema (draft 2020-12) of the arguments object.
        permission: Permission the episode must hold to run it, or ``None``.
        fn: ``fn(state, **arguments) -> Any``; ``None`` for tools the runtime handles itself.
        domain: Name of the owning domain (``"meta"`` for meta-request tools).
        verify_with: For a commit: the verify tools of which one must have passed since
            the last state change before the autonomy gate lets it run (DESIGN §4, "acting
            needs positive evidence"). Empty: the task requires no verification.
    """

    name: str
    kind: ToolKind
    description: str
    parameters: dict[str, Any]
    permission: str | None = None
    fn: Callable[..., Any] | None = field(default=None, compare=False, repr=False)
    domain: str = ""
    verify_with: tuple[str, ...] = ()

    def definition(self) -> dict[str, Any]:
        """The tool in OpenAI chat-completions ``tools`` format."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }


_EMPTY_OBJECT = {"type": "object", "properties": {}, "additionalProperties": False}


class Domain:
    """A task environment: named tools over a state, plus a default initial state.

    Args:
        name: Domain id (the folder name in ``tasks/``).
        description: What the environment is, shown in reports and to the model.
        initial_state: Default state; a pair's ``state`` is deep-merged over it.
        permissions: All permissions this domain's tools use (documentation and checks).

    Raises:
        TaskError: on a duplicate tool name or an invalid kind.
    """

    def __init__(
        self,
        name: str,
        description: str,
        initial_state: dict[str, Any] | None = None,
        permissions: tuple[str, ...] = (),
    ):
        self.name = name
        self.description = description
        self.initial_state: dict[str, Any] = initial_state or {}
        self.permissions = tuple(permissions)
        self.tools: dict[str, ToolSpec] = {}

    def tool(
        self,
        *,
        kind: ToolKind,
        permission: str | None = None,
        parameters: dict[str, Any] | None = None,
        description: str | None = None,
        name: str | None = None,
        verify_with: tuple[str, ...] = (),
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Decorator registering ``fn`` as a tool; the description defaults to its docstring.

        ``verify_with`` (commits only) names the verify tools whose passing result the
        autonomy gate requires before this commit (see :class:`ToolSpec`).
        """

        def register(fn: Callable[..., Any]) -> Callable[..., Any]:
            tool_name = name or fn.__name__
            if kind not in _KINDS:
                raise TaskError(f"domain {self.name}: tool {tool_name}: kind {kind!r} not in {_KINDS}")
            if tool_name in self.tools:
                raise TaskError(f"domain {self.name}: duplicate tool {tool_name}")
            if verify_with and kind != "commit":
                raise TaskError(f"domain {self.name}: tool {tool_name}: verify_with is for commit tools")
            desc = description or " ".join((fn.__doc__ or tool_name).split())
            self.tools[tool_name] = ToolSpec(
                name=tool_name,
                kind=kind,
                description=desc,
                parameters=parameters or dict(_EMPTY_OBJECT),
                permission=permission,
                fn=fn,
                domain=self.name,
                verify_with=tuple(verify_with),
            )
            return fn

        return register
