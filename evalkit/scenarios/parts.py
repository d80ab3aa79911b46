"""The leaf parts of the scenario format (DESIGN §6), shared by its larger models.

The strict model base (unknown keys are errors, models are frozen), written text
(:data:`Text`), one planned call of a variant's plan (:class:`PlannedCall`), an expected
commit (:class:`CommitExpectation`), a predicate over the final state
(:class:`StateCheck`) and an expected meta request (:class:`MetaExpectation`). The pair
and variant models built from them are in :mod:`evalkit.scenarios.schema`.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator, model_validator

from evalkit.types import MetaType


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("is blank: write a sentence")
    return value


Text = Annotated[str, Field(min_length=1), AfterValidator(_not_blank)]
"""A sentence a person writes (a rationale, a reason): at least one character that is not
white space."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class PlannedCall(_Strict):
    """One call of a variant's plan (the eager agent's trajectory)."""

    tool: str
    args: dict[str, Any] = Field(default_factory=dict)


class CommitExpectation(_Strict):
    """An expected commit: the tool, and arguments that must match (a subset of the call's)."""

    tool: str
    args: dict[str, Any] = Field(default_factory=dict)


class StateCheck(_Strict):
    """A predicate over the final state, addressed by a dotted path (``orders.O-1.status``).

    Exactly one of ``equals`` (value at the path) or ``exists`` (whether the path resolves).
    """

    path: str
    equals: Any = None
    exists: bool | None = None

    @field_validator("path")
    @classmethod
    def _dotted(cls, path: str) -> str:
        if not path.strip():
            raise ValueError("empty path: name the keys from the state's top, joined by dots (orders.O-1.status)")
        if path.startswith(".") or path.endswith(".") or ".." in path:
            raise ValueError(f"{path!r} has an empty key (a dot at an end, or two dots in a row): a path names "
                             "keys joined by single dots (orders.O-1.status)")
        return path

    @model_validator(mode="after")
    def _one_check(self) -> "StateCheck":
        if self.exists is None and "equals" not in self.model_fields_set:
            raise ValueError("give `equals` or `exists`")
        return self


class MetaExpectation(_Strict):
    """A meta request a good agent makes: its type and, optionally, its target."""

    type: MetaType
    target: str | None = None

