"""The oracle self-check: a pair the scripted oracle cannot pass is excluded, with the reason.

DESIGN §6: "a scripted oracle must score perfectly on every shipped pair: that is the
suite's own consistency check". The oracle reads each pair's own annotations (plan,
expected commits, observable step), so when it fails a pair the annotations and the
environment disagree: a broken pair (an expected commit the domain rejects, an act plan
that trips a signal, an imported upstream task whose ground truth does not solve it).

:func:`oracle_selfcheck` runs ``scripted/oracle`` over every variant of every pair in the
given conditions and gate settings, in memory (no traces are written), scores each
episode with :func:`evalkit.metrics.scoring.score_episode`, and splits the suite into
kept pairs and excluded pairs (on a side with a follow-up the oracle must also recover after
the simulated user's reply, :mod:`evalkit.metrics.followup`). An excluded pair is never silently dropped: each carries
its reasons (variant, condition, gate, what went wrong), which ``evalkit run`` writes to
``selfcheck.json`` and ``summary.json`` (``excluded_pairs``) and the CLI prints.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

from evalkit.errors import ConfigError
from evalkit.harness.episode import DEFAULT_SETUP, EpisodeSpec, RuntimeSetup, execute
from evalkit.metrics.scoring import score_episode
from evalkit.models.registry import get_model
from evalkit.runtime.controller import Limits
from evalkit.scenarios.domains import load_domain
from evalkit.scenarios.loader import Suite

ORACLE = "scripted/oracle"


@dataclass(frozen=True)
class SelfCheck:
    """The self-check's outcome.

    Attributes:
        kept: Ids of the pairs the oracle passed in every variant, condition and gate.
        excluded: One entry per excluded pair: ``{pair_id, domain, trigger, source,
            reasons: [str, ...]}``, in suite order.
        episodes: Oracle episodes run.
    """

    kept: tuple[str, ...]
    excluded: tuple[dict[str, Any], ...] = ()
    episodes: int = 0
    conditions: tuple[str, ...] = field(default=())
    gates: tuple[str, ...] = field(default=())

    @property
    def excluded_ids(self) -> list[str]:
        """Ids of the excluded pairs."""
        return [e["pair_id"] for e in self.excluded]

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form (written to ``selfcheck.json``)."""
        return {"model": ORACLE, "conditions": list(self.conditions), "gates": list(self.gates),
                "episodes": self.episodes, "kept": len(self.kept), "excluded": list(self.excluded)}


def failure_reason(row: dict[str, Any]) -> str:
    """One line saying why the oracle's episode ``row`` is not correct (or, on a side with a
    follow-up, did not recover after the simulated user's reply)."""
    where = f"{row['variant']} variant, {row['condition']} condition, gate {row['gate']}"
    if row.get("status") == "error":
        return f"{where}: error: {row.get('error')}"
    parts = [f"decision {row['decision']} (expected {row['expected_decision']})"]
    if row["variant"] == "abstain" and row.get("critical_commits"):
        parts.append(f"{row['critical_commits']} critical commit(s) executed")
    if row.get("injected_commits"):
        parts.append(f"{row['injected_commits']} injected commit(s) executed")
    if row["variant"] != "abstain":
        parts.append(f"{row.get('commits', 0)} commit(s) executed; expected commits or state checks not met")
    if row.get("correct") and row.get("recovered") is False:
        parts = [f"did not recover after the simulated user's reply ({row.get('persona') or 'no question asked'}): "
                 "the follow-up's expected commits or state checks not met"]
    codes = row.get("reason_codes") or []
    if codes:
        parts.append("denied: " + ", ".join(codes))
    return f"{where}: " + "; ".join(parts)


def oracle_selfcheck(
    suite: Suite,
    *,
    conditions: Iterable[str] = ("meta",),
    gates: Iterable[str] = ("off",),
    limits: Limits | None = None,
    setup: RuntimeSetup | None = None,
    tasks_dir: Any = None,
) -> SelfCheck:
    """Run the oracle over every pair of ``suite`` and split it into kept and excluded pairs.

    Args:
        suite: The loaded suite.
        conditions: Conditions to check in (a pair must pass in each).
        gates: Gate settings to check under (``off``, ``on``).
        limits: Episode limits (default :class:`~evalkit.runtime.controller.Limits`).
        setup: Run-wide runtime options (rules, policy) of the run being checked.
        tasks_dir: Folder of task domains (default: the built-in ``tasks/``).

    Returns:
        The :class:`SelfCheck`.
    """
    from pathlib import Path

    oracle = get_model(ORACLE)
    limits = limits or Limits()
    setup = setup or DEFAULT_SETUP
    conditions, gates = tuple(conditions), tuple(gates)
    tdir = Path(tasks_dir) if tasks_dir else None
    kept: list[str] = []
    excluded: list[dict[str, Any]] = []
    episodes = 0
    for pair in suite.pairs:
        domain = load_domain(pair.domain, tdir)
        reasons = []
        for condition in conditions:
            for gate in gates:
                for variant in pair.variants:
                    spec = EpisodeSpec(pair, variant, ORACLE, condition, 1, gate, domain, setup)
                    try:
                        result = execute(spec, oracle, limits)
                        row = score_episode(spec, result.log, result.state, result.error)
                    except ConfigError:
                        raise  # a broken plugin or condition is the run's error, not this pair's
                    except Exception as exc:  # noqa: BLE001 - a crashing pair is excluded, not fatal
                        row = {"variant": variant, "condition": condition, "gate": gate, "status": "error",
                               "error": f"{type(exc).__name__}: {exc}", "correct": False}
                    episodes += 1
                    if not row["correct"] or row.get("recovered") is False:  # the oracle recovers on every follow-up
                        reasons.append(failure_reason(row))
        if reasons:
            excluded.append({"pair_id": pair.id, "domain": pair.domain, "trigger": pair.trigger,
                             "source": suite.sources.get(pair.id), "reasons": reasons})
        else:
            kept.append(pair.id)
    return SelfCheck(tuple(kept), tuple(excluded), episodes, conditions, gates)
