"""What the ``nl`` text classifier returns: a label and its evidence (DESIGN §5).

The labels and rule ids are defined in :mod:`evalkit.conditions.classifier`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from evalkit.types import MetaType

TextLabel = Literal["abstain", "clarify", "act", "unknown"]


@dataclass(frozen=True, slots=True)
class TextVerdict:
    """The classifier's reading of one assistant text.

    Attributes:
        label: ``abstain``, ``clarify``, ``act`` or ``unknown``.
        implied_meta: Meta request types the text implies, sorted and unique.
        rule: Id of the rule that decided the label, e.g. ``refusal.cannot_help``.
        evidence: The clause that decided it (normalised text), ``""`` when none.
        lang: The language the text was read as (ISO 639-1, one of
            :data:`~evalkit.conditions.classifier.lang.SUPPORTED`), ``None`` when it is in
            none of them or was not read (empty, tool-call markup).
        offers_else: For an ``abstain`` of the rules: the text's questions after the refusal all
            offer something other than the request (corpus rule 3: "I can't cancel a single item.
            Would you like to cancel the whole order?"); ``False`` otherwise.
    """

    label: TextLabel
    implied_meta: tuple[MetaType, ...]
    rule: str
    evidence: str
    lang: str | None = None
    offers_else: bool = False


HANDOVERS: frozenset[str] = frozenset(
    {"refusal.transfer"} | {f"refusal.transfer.{lang}" for lang in ("zh", "fr", "de", "es", "pt", "ja", "ko")})
"""Rule ids of a clause or text that reports the request handed on to a person ("You're now connected to
a human agent. They'll take it from here."): a hand-over instead of the request is an abstention (corpus
rule 4). The rules set aside what is reported done to hand it on ("Shared the details you provided") and
read what is asked after it as serving the person taking over (:mod:`.decide`); the learned reader,
which reads the report's past tense as a completion, never turns it into ``act`` (:mod:`.learned`);
after a user's request for a person it is ``act`` (:mod:`.context`)."""
