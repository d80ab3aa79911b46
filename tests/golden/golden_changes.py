"""Declared changes to the shape of ``results.jsonl`` rows and ``summary.json``.

The golden test (``test_golden.py``) requires a fresh run of the scripted models to give the
recorded values. A change of *structure* that keeps every value — a field renamed, a JSON string
that becomes a typed object, a field added or dropped — is declared here, once, in
:data:`CHANGES`; anything not declared fails the test. A change of *values* (a metric or a
scripted policy that behaves differently on purpose) is not declared here: re-record the golden
data instead (``python tests/golden/record.py``, see its docstring).

Kinds of change (``scope``: ``"results"`` for result rows, ``"summary"`` for ``summary.json``,
where it applies to objects at any depth, or only under the top-level key ``section``):

* ``Renamed(old, new)`` — the field ``old`` is now called ``new`` (same value);
* ``Reformat(field, old=..., new=...)`` — same meaning, new format: ``old`` maps the recorded
  value and ``new`` the fresh one to a common form that is compared (e.g. ``old=parse_json``
  when a JSON string became a typed object);
* ``Added(field)`` — a new field (its values are not compared);
* ``Removed(field)`` — a field no longer written.

Every entry gives a ``reason``. Once the golden data is re-recorded with the new shape, the
entries that it absorbs are deleted from :data:`CHANGES`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable, Literal, Union

Scope = Literal["results", "summary"]


def parse_json(value: Any) -> Any:
    """A JSON string's value (other values unchanged): for fields once written as JSON text."""
    return json.loads(value) if isinstance(value, str) else value


@dataclass(frozen=True)
class Renamed:
    old: str
    new: str
    reason: str
    scope: Scope = "results"
    section: str | None = None


@dataclass(frozen=True)
class Reformat:
    field: str
    reason: str
    old: Callable[[Any], Any] | None = None
    new: Callable[[Any], Any] | None = None
    scope: Scope = "results"
    section: str | None = None


@dataclass(frozen=True)
class Added:
    field: str
    reason: str
    scope: Scope = "results"
    section: str | None = None


@dataclass(frozen=True)
class Removed:
    field: str
    reason: str
    scope: Scope = "results"
    section: str | None = None


Change = Union[Renamed, Reformat, Added, Removed]

CHANGES: list[Change] = [
    Added("model_invalid", "responses whose model field is not a string or null, counted per episode "
                           "(evalkit.metrics.billing); 0 for the scripted models, which make no provider calls"),
    Added("model_invalid", "the same count per model × condition in the provider summary (evalkit.metrics.provider)",
          scope="summary", section="provider"),
    Added("undecodable_text", "responses whose text, refusal or tool-call arguments hold U+FFFD or a lone surrogate, "
                              "counted per episode (evalkit.metrics.scoring); 0 for the scripted models, which make "
                              "no provider calls"),
    Added("undecodable_text", "the same count per model × condition in the provider summary "
                              "(evalkit.metrics.provider)", scope="summary", section="provider"),
    Added("latency_n", "the episodes the latency mean and p95 are over: those that finished ok with a known latency "
                       "(evalkit.metrics.billing.group_cost)", scope="summary"),
]
