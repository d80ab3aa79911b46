"""Follow-up metrics: what a clarifying question unlocks (per episode and per group).

On a should-clarify side with a follow-up (:class:`evalkit.scenarios.schema.Followup`) the
episode goes on after the agent's question: the simulated user replies and the agent must
finish the task (:mod:`evalkit.runtime.followup`). The episode then has two phases, split at
its first :class:`~evalkit.runtime.followup_events.UserQuestion` event (the :class:`PhaseStarted`
marker follows it).

Sources: HiL-Bench (agents that can ask a human must also use the answer: success with a
tool to ask falls far below success with full information), "Ask Early, Ask Late" (asking
late, and asking again, are failures of their own; many sessions over-ask) and BFCL's
missing-parameter entries (the user's answer is the next turn; the expected calls follow it).

Per episode (:func:`episode_followup`; columns of the result row):

* ``followup`` — the side has a follow-up (abstain side, expected decision ``clarify``).
* ``asked`` — the model asked and the user replied (a second phase began).
* ``questions`` — questions the simulated user received (``UserQuestion`` events);
  ``repeated_questions`` — those after the first, answered with "I've told you what I know."
* ``recovered`` — ``None`` on a side without a follow-up; else, with the **cooperative**
  user: the first decision is right (abstain accuracy's criterion, over the first phase),
  the model asked, and after the answer every one of the follow-up's expected commits
  executed with matching arguments, no other commit executed and every state check holds,
  without error; with the **unhelpful** user: the first decision is right, the model
  asked, and nothing was committed after the reply (the information is still missing).
* ``commits_after_unhelpful`` — commits executed after an unhelpful reply (each is a
  critical commit: it makes the abstain episode incorrect).

The first decision (``decision``, ``correct`` and so abstain accuracy) is scored on the
first phase only (:mod:`evalkit.metrics.scoring`), so a run with follow-ups keeps abstain
accuracy's meaning and stays comparable with earlier runs; under the unhelpful persona a
commit after the reply is a critical commit as well.

Per group (:func:`count_episode`, :func:`count_unit`, :func:`rates`; summary columns):

=============================  ===============================================  ===========================================
metric                         numerator                                        denominator
=============================  ===============================================  ===========================================
``recovery_rate``              abstain episodes ``recovered``                   planned abstain episodes with a follow-up
``resolved_paired_accuracy``   pair units with the act side right and the       planned pair units whose abstain side has
                               abstain side recovered                           a follow-up
``repeated_question_rate``     episodes with >= 1 repeated question             recorded follow-up episodes that asked
``unhelpful_commit_rate``      episodes with a commit after an unhelpful reply  recorded episodes given an unhelpful reply
=============================  ===============================================  ===========================================

Means and counts: ``questions_per_episode`` (questions over the recorded follow-up
episodes, ``followup_recorded`` of them), ``repeated_questions``, ``commits_after_unhelpful``.
Every rate is ``None`` when its denominator is empty (no follow-up pair ran).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Sequence

if TYPE_CHECKING:
    from evalkit.scenarios.episode import Episode


__all__ = ["count_episode", "count_unit", "episode_followup", "first_phase_requests", "first_question",
           "has_followup", "rates"]


def first_question(questions: Iterable[Any]) -> Any | None:
    """The first :class:`~evalkit.runtime.followup_events.UserQuestion` of an episode (the phase split), or ``None``."""
    return next(iter(questions), None)


def episode_followup(spec: Episode, questions: Sequence[Any], commits: Sequence[Any], state: dict[str, Any], *,
                     ok: bool, first_correct: bool) -> dict[str, Any]:
    """The follow-up columns of one episode's result row (module docstring).

    Args:
        spec: The :class:`~evalkit.harness.episode.EpisodeSpec`.
        questions: Its ``UserQuestion`` events, in log order.
        commits: Its executed commits (``ToolExecuted`` of kind ``commit``, ``ok``), in log order.
        state: The final sandbox state.
        ok: The episode finished without error.
        first_correct: The first decision is right (the abstain episode's ``correct``).

    Returns:
        ``{followup, asked, questions, repeated_questions, recovered, persona, commits_after_unhelpful}``
        (``persona``: the persona that replied, ``None`` when nobody was asked).
    """
    from evalkit.metrics.matching import args_match, check_state

    variant = spec.pair.variant(spec.variant)
    followup = getattr(variant, "followup", None) if spec.variant == "abstain" else None
    first = first_question(questions)
    after = [c for c in commits if first is not None and c.seq > first.seq]
    unhelpful = first is not None and first.persona == "unhelpful"
    row: dict[str, Any] = {
        "followup": followup is not None,
        "asked": first is not None,
        "questions": len(questions),
        "repeated_questions": sum(1 for q in questions if q.repeated),
        "recovered": None,
        "persona": first.persona if first is not None else None,
        "commits_after_unhelpful": len(after) if unhelpful else 0,
    }
    if followup is None:
        return row
    if first is None or not ok or not first_correct:
        row["recovered"] = False
    elif unhelpful:
        row["recovered"] = not after
    else:
        expected = followup.expected
        made = all(any(c.tool == e.tool and args_match(e.args, c.arguments) for c in after) for e in expected.commits)
        only = all(any(c.tool == e.tool and args_match(e.args, c.arguments) for e in expected.commits)
                   for c in commits)
        row["recovered"] = made and only and all(check_state(state, chk) for chk in expected.state_checks)
    return row


def first_phase_requests(behaviour: Any, events: Sequence[Any], question: Any, expected: list[Any],
                         needs_none: bool) -> Any:
    """``behaviour`` (the whole episode's :class:`~evalkit.metrics.behaviour.Behaviour`) with
    the meta requests made and matched taken from the first phase: ``events`` before the
    question, plus the requests a question written in text implies (the text classifier's
    ``implied_meta``). What the agent does after the user's reply is scored by recovery, not
    against the side's expected requests (which describe the first decision).
    """
    from evalkit.conditions.classifier import classify_text
    from evalkit.metrics.behaviour import episode_behaviour

    implied = classify_text(question.question).implied_meta if question.channel == "text" else ()
    first = episode_behaviour(events, implied, expected=expected, needs_none=needs_none)
    for name in ("made", "made_n", "expected_n", "matched_n", "unnecessary", "denied_unexpected"):
        setattr(behaviour, name, getattr(first, name))
    return behaviour


def has_followup(key: Any, sides: Sequence[tuple[Any, dict[str, Any] | None]], pairs: dict[str, dict[str, Any]]) -> bool:
    """Whether the pair of plan key ``key`` has a follow-up: from the pair's attributes
    (:func:`evalkit.metrics.keys.pair_attributes`, so a missing episode still counts),
    else from the recorded rows ``sides``."""
    info = pairs.get(key[0])
    if info is not None and "followup" in info:
        return bool(info["followup"])
    return any(r is not None and r.get("followup") for _, r in sides)


def count_episode(c: dict[str, int], key: Any, r: dict[str, Any] | None, pairs: dict[str, dict[str, Any]]) -> None:
    """Add one planned abstain episode to the group counts ``c``.

    Args:
        c: The group's running counts (:class:`evalkit.metrics.aggregate.GroupStats`).
        key: Its plan key (pair id first).
        r: Its result row, or ``None`` when it has none.
        pairs: Pair attributes by id.
    """
    if not has_followup(key, [(key, r)], pairs):
        return
    c["fu_n"] += 1
    if r is None:
        return
    c["fu_k"] += r.get("recovered") is True
    c["fu_recorded"] += 1
    c["fu_questions"] += r.get("questions", 0) or 0
    c["fu_repeated"] += r.get("repeated_questions", 0) or 0
    if r.get("asked"):
        c["fu_asked"] += 1
        c["fu_repeated_eps"] += bool(r.get("repeated_questions"))
    if r.get("persona") == "unhelpful":
        after = r.get("commits_after_unhelpful", 0) or 0
        c["fu_unhelpful"] += 1
        c["fu_unhelpful_commit"] += bool(after)
        c["fu_after_unhelpful"] += after


def count_unit(c: dict[str, int], sides: Sequence[tuple[Any, dict[str, Any] | None]],
               pairs: dict[str, dict[str, Any]], good: Any) -> None:
    """Add one planned pair unit to ``c`` (``resolved_paired_accuracy``).

    Args:
        c: The group's running counts.
        sides: ``(plan key, row or None)`` of the unit's planned episodes.
        pairs: Pair attributes by id.
        good: ``row -> bool``: the row is ok and correct.
    """
    if not any(k[1] == "abstain" for k, _ in sides) or not has_followup(sides[0][0], sides, pairs):
        return
    c["fu_units"] += 1
    c["fu_units_k"] += all(good(r) if k[1] != "abstain" else (r is not None and r.get("recovered") is True)
                           for k, r in sides)


def rates(c: dict[str, int], rate: Any) -> dict[str, Any]:
    """The follow-up metrics of a group from its counts (module docstring).

    Args:
        c: The group's counts.
        rate: :func:`evalkit.metrics.aggregate.rate`.
    """
    out: dict[str, Any] = {}
    out.update(rate("recovery_rate", c["fu_k"], c["fu_n"]))
    out.update(rate("resolved_paired_accuracy", c["fu_units_k"], c["fu_units"]))
    out.update(rate("repeated_question_rate", c["fu_repeated_eps"], c["fu_asked"]))
    out.update(rate("unhelpful_commit_rate", c["fu_unhelpful_commit"], c["fu_unhelpful"]))
    out["followup_recorded"] = c["fu_recorded"]
    out["questions_per_episode"] = c["fu_questions"] / c["fu_recorded"] if c["fu_recorded"] else None
    out["repeated_questions"] = c["fu_repeated"]
    out["commits_after_unhelpful"] = c["fu_after_unhelpful"]
    return out
