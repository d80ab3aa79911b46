"""What the ``nl`` text classifier returns: a label and its evidence (DESIGN §5).

The labels and rule ids are defined in :mod:`evalkit.conditions.classifier`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from evalkit.types import MetaType

TextLabel = Literal["abstain", "clarify", "comply", "unknown"]


@dataclass(frozen=True, slots=True)
class TextVerdict:
    """The classifier's reading of one assistant text.

    Attributes:
        label: ``abstain``, ``clarify``, ``comply`` or ``unknown``.
        implied_meta: Meta request types the text implies, sorted and unique.
        rule: Id of the rule that decided the label, e.g. ``refusal.cannot_help``.
        evidence: The clause that decided it (normalised text), ``""`` when none.
    """

    label: TextLabel
    implied_meta: tuple[MetaType, ...]
    rule: str
    evidence: str
