"""Events of an episode's follow-up phase: the agent's question to the simulated user and the
start of the phase (:mod:`evalkit.runtime.followup`).

They are registered in :data:`evalkit.runtime.events.EVENT_TYPES` (``user_question``,
``phase_started``), so a trace holding them loads like any other; importing
:mod:`evalkit.runtime.events` imports this module.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from evalkit.runtime.events import EVENT_TYPES, Event


@dataclass(frozen=True, slots=True)
class UserQuestion(Event):
    """The agent asked the simulated user a question on a side with a follow-up, and the
    user's reply (appended next as a :class:`UserMessage`; :mod:`evalkit.runtime.followup`).

    ``channel`` is ``text`` (a clarifying question in the final text), ``request_user_decision``
    or ``request_context`` (a request for information only the user has); ``repeated``: the
    question came after the answer was already given (the reply is then
    :data:`~evalkit.runtime.followup.REPEAT_REPLY`); ``persona`` is ``cooperative`` or
    ``unhelpful``; ``answered``: the reply supplies the missing information (a cooperative
    user's first reply).
    """

    type: ClassVar[str] = "user_question"
    channel: str = "text"
    question: str = ""
    call_id: str | None = None
    repeated: bool = False
    persona: str = "cooperative"
    reply: str = ""
    answered: bool = False


@dataclass(frozen=True, slots=True)
class PhaseStarted(Event):
    """A new phase of the episode: ``followup`` starts when the simulated user first replies
    to the agent's question; ``max_turns`` is the phase's own turn limit."""

    type: ClassVar[str] = "phase_started"
    phase: str = "followup"
    max_turns: int = 0


EVENT_TYPES.update((cls.type, cls) for cls in (UserQuestion, PhaseStarted))
