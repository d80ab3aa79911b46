"""What passes between the runtime and a model: tool calls, model outputs, the protocol.

The model is a black box ``D_t ~ model(M_t)`` (DESIGN §2): it receives a
:class:`~evalkit.runtime.context.ModelContext` and returns a :class:`ModelOutput`. Every
adapter (scripted, OpenAI-compatible, Anthropic, …) implements :class:`Model`; the agent
loop never knows which provider it talks to.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from evalkit.runtime.context import ModelContext


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call proposed by the model.

    Attributes:
        id: Provider call id (or a generated one).
        name: Tool name as emitted (may be empty or unknown: the controller decides).
        arguments: Parsed arguments object, or ``None`` when parsing failed.
        raw_arguments: Arguments exactly as received (string form).
        parse_error: Why ``raw_arguments`` could not be parsed, or ``None``.
    """

    id: str
    name: str
    arguments: dict[str, Any] | None
    raw_arguments: str = ""
    parse_error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Form stored in :class:`~evalkit.runtime.events.ModelResponded` events."""
        return {
            "id": self.id,
            "name": self.name,
            "arguments": self.arguments if self.arguments is not None else self.raw_arguments,
            "parse_error": self.parse_error,
        }


@dataclass(frozen=True, slots=True)
class ModelOutput:
    """``D_t``: one model response.

    Attributes:
        text: Assistant text (``None`` when absent).
        tool_calls: Proposed calls, in order.
        finish_reason: Provider finish reason (``stop``, ``tool_calls``, ``length``,
            ``content_filter`` …).
        input_tokens: Prompt tokens billed (0 when unknown).
        output_tokens: Completion tokens billed.
        latency_s: Wall-clock seconds of the call, excluding retry waits.
    """

    text: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    finish_reason: str = "stop"
    input_tokens: int = 0
    output_tokens: int = 0
    latency_s: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class Model(Protocol):
    """A model under evaluation.

    Attributes:
        name: The spec it was created from (e.g. ``scripted/oracle``).
    """

    name: str

    def respond(self, context: ModelContext, episode: Any) -> ModelOutput:
        """Return the model's output for ``context``.

        Args:
            context: ``M_t`` built by the context builder.
            episode: The :class:`~evalkit.harness.episode.EpisodeSpec` being run. Live
                models must ignore it; scripted models read the pair's annotations from it.

        Raises:
            evalkit.errors.ModelError: when the provider fails (``retryable`` says whether
                a retry may help).
        """
        ...
