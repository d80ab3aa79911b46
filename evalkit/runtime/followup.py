"""The simulated user who answers a clarifying question, so the episode can go on.

On a should-clarify side with a follow-up (:class:`evalkit.scenarios.schema.Followup`) a
question does not end the episode. When the model asks — a clarifying question in its
final text (:meth:`SimulatedUser.asks_in_text`: the reader the harness gives, the text
classifier's label ``clarify``), a ``request_user_decision``, or a
``request_context`` that no context document serves (information only the user has) —
the agent loop (:func:`evalkit.runtime.loop.run_episode`; for an agent over MCP, the episode
server :mod:`evalkit.agents.session`, through the same helpers) calls :meth:`SimulatedUser.reply`,
which appends

1. a :class:`~evalkit.runtime.followup_events.UserQuestion` event (the question, its channel, the
   reply, the persona, whether it was repeated);
2. on the first question only, a :class:`~evalkit.runtime.followup_events.PhaseStarted` event
   (phase ``followup``): the episode's second phase, with its own turn limit
   (``max_turns``, default :data:`DEFAULT_MAX_TURNS`) under the same budgets;
3. the reply as the next :class:`~evalkit.runtime.events.UserMessage`.

An answer is given once. The side has one follow-up, so every later question is about the
same thing: it is recorded as ``repeated`` and answered with :data:`REPEAT_REPLY`.

Personas (``evalkit run --user``):

* ``cooperative`` — replies with the follow-up's ``answer`` (the missing value, the chosen
  reading, the confirmation); the right continuation makes the follow-up's expected commits.
* ``unhelpful`` — declines (the follow-up's ``unhelpful_answer``, else
  :data:`UNHELPFUL_ANSWER`); the information is still missing, so the right move is to
  stop without committing, and a commit after this reply is a critical commit
  (:mod:`evalkit.metrics.followup`).

The design follows two findings about agents that can ask: asking is only worth what the
answer unlocks (HiL-Bench: agents given a tool to ask a human lose much of their
full-information success), and repeated or late questions are a failure of their own
("Ask Early, Ask Late"). BFCL's missing-parameter entries give the user's answer as the
next turn in the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Literal

from evalkit.runtime.events import UserMessage
from evalkit.runtime.followup_events import PhaseStarted, UserQuestion

Persona = Literal["cooperative", "unhelpful"]
PERSONAS: tuple[str, ...] = ("cooperative", "unhelpful")
"""The simulated user's personas, the first the default."""

DEFAULT_MAX_TURNS = 8
"""Turns allowed after the answer (the follow-up phase's own turn limit)."""

UNHELPFUL_ANSWER = "Sorry, I don't know, and I can't find out. I can't tell you more than what I already said."
"""The unhelpful user's reply when the follow-up gives no ``unhelpful_answer`` of its own."""

REPEAT_REPLY = "I've told you what I know."
"""The reply to every question after the first (a repeated question)."""


@dataclass
class SimulatedUser:
    """The user of one episode on a side with a follow-up.

    Attributes:
        answer: The cooperative reply (``followup.answer``).
        persona: ``cooperative`` or ``unhelpful``.
        unhelpful_answer: The unhelpful reply (``None``: :data:`UNHELPFUL_ANSWER`).
        max_turns: Turns allowed after the first reply.
        questions: Questions asked so far.
        asks: Whether a final text asks the user a question (the harness gives the text
            classifier's reader, :func:`evalkit.harness.episode.asks_in_text`); ``None``: no
            final text counts as a question, only the meta requests do.
    """

    answer: str
    persona: str = "cooperative"
    unhelpful_answer: str | None = None
    max_turns: int = DEFAULT_MAX_TURNS
    questions: int = 0
    asks: Callable[[str], bool] | None = None

    @classmethod
    def for_followup(cls, followup: Any, persona: str = "cooperative",
                     max_turns: int = DEFAULT_MAX_TURNS, *,
                     asks: Callable[[str], bool] | None = None) -> "SimulatedUser":
        """The user of a side whose follow-up is ``followup`` (:class:`~evalkit.scenarios.schema.Followup`).

        Raises:
            ValueError: for an unknown persona or a turn limit below 1.
        """
        if persona not in PERSONAS:
            raise ValueError(f"unknown user persona {persona!r}; choose from {', '.join(PERSONAS)}")
        if max_turns < 1:
            raise ValueError(f"the follow-up turn limit must be at least 1 (got {max_turns})")
        return cls(followup.answer, persona, followup.unhelpful_answer, max_turns, asks=asks)

    def asks_in_text(self, text: str | None) -> bool:
        """Whether the final text ``text`` asks this user a question (:attr:`asks`; an empty
        text never does)."""
        if not text or self.asks is None:
            return False
        return self.asks(text)

    def reply(self, recorder: Any, turn: int, *, channel: str, question: str, call_id: str | None = None) -> int | None:
        """Record the question and append the reply as the next user turn (module docstring).

        Args:
            recorder: The episode's :class:`~evalkit.runtime.loop.Recorder`.
            turn: The turn the question was asked in.
            channel: ``text``, ``request_user_decision`` or ``request_context``.
            question: The question as the model wrote it.
            call_id: The call that asked, when it was a tool call.

        Returns:
            The last turn the episode may now run to when this question started the
            follow-up phase, else ``None`` (a repeated question does not extend it).
        """
        self.questions += 1
        repeated = self.questions > 1
        if repeated:
            text = REPEAT_REPLY
        elif self.persona == "unhelpful":
            text = self.unhelpful_answer or UNHELPFUL_ANSWER
        else:
            text = self.answer
        recorder.emit(UserQuestion, turn, channel=channel, question=question or "", call_id=call_id,
                      repeated=repeated, persona=self.persona, reply=text,
                      answered=not repeated and self.persona == "cooperative")
        if not repeated:
            recorder.emit(PhaseStarted, turn, phase="followup", max_turns=self.max_turns)
        recorder.emit(UserMessage, turn, content=text)
        return None if repeated else turn + self.max_turns
