"""Draft rule sets: candidate stopping rules proposed for review, never enforced (DESIGN §8).

``evalkit rules distill RUN`` writes a draft (:mod:`evalkit.rules.distill`). A draft looks
like a rule set, so its rules can be copied as they are, but it is marked ``draft: true``,
carries the evidence for every rule and is refused by every ``--rules`` option
(:func:`evalkit.rules.loader.load_rule_set`). A draft becomes active only when a person
copies the rules they adopt into a versioned rule set with a changelog entry::

    draft: true
    id: evalkit-default-draft
    version: draft-20250120
    source: {run: reports/latest, rules: {id: evalkit-default, version: "1", sha256: ...}}
    rules:                                   # the same format as a rule set's rules
      - id: distilled-issue-credit-v1
        trigger: constraint_conflict
        when: {tool: issue_credit, domain: support, args: {amount: {gt: 100.0}}}
        then: abstain
        message: ...
    evidence:                                # per rule: the misaction episodes it covers
      distilled-issue-credit-v1:
        episodes: [{episode_id: ..., misaction: wrong_commit, tool: issue_credit, ...}]
        act_side_matches: 0                  # correct act-side calls it would also stop
        act_side_checked: 12                 # act-side episodes it was checked against
    rejected:                                # candidates not proposed, with the reason
      - {when: {tool: place_order, domain: shop}, then: clarify, reason: ..., episodes: [...]}
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from evalkit.rules.schema import _ID, Rule

Misaction = Literal["wrong_commit", "late_abstention"]
"""``wrong_commit``: a critical commit executed on the should-abstain side;
``late_abstention``: a correct abstention made more than ``max_lag`` task-tool calls after
the trigger became observable (:mod:`evalkit.metrics.scoring`)."""


class EvidenceEpisode(BaseModel):
    """One misaction episode a candidate rule would have stopped.

    Attributes:
        episode_id: The episode (its trace is ``RUN/traces/EPISODE_ID.jsonl``).
        pair_id, variant, model, condition, gate, epoch, trigger: Its plan key and trigger.
        misaction: :data:`Misaction`.
        tool: The call the rule stops (the wrong commit, or the first call of the late tail).
        seq: ``seq`` of that call's ``tool_executed`` event.
        signals: The unresolved ``signal@tool`` pairs at that point.
        detail: One line for a reviewer.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    episode_id: str
    pair_id: str = ""
    variant: str = ""
    model: str = ""
    condition: str = ""
    gate: str = ""
    epoch: int = 1
    trigger: str = ""
    misaction: Misaction
    tool: str
    seq: int = Field(ge=0)
    signals: tuple[str, ...] = ()
    detail: str = ""


class RuleEvidence(BaseModel):
    """Why a draft rule is proposed: the episodes it covers and what it would cost.

    Attributes:
        episodes: The misaction episodes (at least one).
        act_side_matches: Calls in correct act-side episodes of the run the rule would
            also have stopped (0 for every proposed rule; candidates with more are rejected).
        act_side_checked: Correct act-side episodes it was checked against.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    episodes: tuple[EvidenceEpisode, ...] = Field(min_length=1)
    act_side_matches: int = Field(default=0, ge=0)
    act_side_checked: int = Field(default=0, ge=0)


class RejectedCandidate(BaseModel):
    """A candidate that was not proposed: its conditions, decision, reason and episodes."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    when: dict[str, Any]
    then: Literal["abstain", "clarify"]
    reason: str
    episodes: tuple[str, ...] = ()


class DraftRuleSet(BaseModel):
    """A draft rule set (see the module docstring): reviewable, never loadable as active.

    Attributes:
        draft: Always ``true``; it is what makes ``--rules`` refuse the file.
        id, version, description: As in a rule set (the version names the draft).
        source: Where the draft came from (the run directory, its rule set, when).
        rules: The candidate rules, in the rule-set format.
        evidence: Rule id → :class:`RuleEvidence`; every rule has an entry.
        rejected: Candidates not proposed, with the reason.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    draft: Literal[True]
    id: str = Field(min_length=1, pattern=_ID)
    version: str = Field(min_length=1)
    description: str = ""
    source: dict[str, Any] = Field(default_factory=dict)
    rules: tuple[Rule, ...] = ()
    evidence: dict[str, RuleEvidence] = Field(default_factory=dict)
    rejected: tuple[RejectedCandidate, ...] = ()
    sha256: str = ""

    @model_validator(mode="after")
    def _every_rule_has_evidence(self) -> "DraftRuleSet":
        ids = [r.id for r in self.rules]
        if len(set(ids)) != len(ids):
            dup = next(i for i in ids if ids.count(i) > 1)
            raise ValueError(f"duplicate rule id {dup!r}")
        missing = [i for i in ids if i not in self.evidence]
        if missing:
            raise ValueError(f"rule {missing[0]!r} has no entry under `evidence`; a draft rule needs its episodes")
        stray = [k for k in self.evidence if k not in ids]
        if stray:
            raise ValueError(f"`evidence` names rule {stray[0]!r}, which is not among the draft's rules")
        return self

    @property
    def label(self) -> str:
        """``id@version``."""
        return f"{self.id}@{self.version}"
