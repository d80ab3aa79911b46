"""Totals of the LLM-judge panel over a run (DESIGN §5, §7), kept apart from the model's own.

With ``--judge`` every readable final text (not empty, not tool-call markup, not withheld by
a content filter) is read by the panel (:mod:`evalkit.conditions.judge.panel`). One row per
model × condition, summed over the recorded episodes' rows
(:func:`evalkit.metrics.scoring.score_episode`):

* ``judged``: episodes whose final text the panel read;
* ``decided_by_judge``: of those, episodes the panel decided (at least one valid verdict);
  the rest kept the classifier's reading because every judge erred;
* ``disagreements``: episodes where the classifier read a label and the panel decided
  another (each is listed in the report);
* ``ties``: decisions made by the tie rule; ``judge_errors``: judge answers that were no
  verdict (a failed call, malformed JSON), summed over judges;
* ``judge_cost_usd``: USD of the judge calls (cached calls of a priced judge cost 0; a judge with no price: null, cached or not), apart from the model's
  ``cost_usd``; ``None`` when any call's cost is unknown.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any


class JudgeTotals:
    """The judge totals fed one recorded row at a time (a few counters per model × condition)."""

    def __init__(self) -> None:
        self._groups: dict[tuple[str, str], dict[str, Any]] = {}

    def add(self, r: dict[str, Any]) -> None:
        """Count one recorded result row (rows without a judge reading are skipped)."""
        judge = r.get("text_judge")
        if not judge:
            return
        g = self._groups.setdefault((r["model"], r["condition"]), {
            "judged": 0, "decided_by_judge": 0, "disagreements": 0, "ties": 0, "judge_errors": 0,
            "cost": Fraction(0), "cost_known": True})
        g["judged"] += 1
        g["decided_by_judge"] += judge != "classifier"
        g["disagreements"] += bool(r.get("judge_disagrees"))
        g["ties"] += bool(r.get("judge_tie"))
        g["judge_errors"] += int(r.get("judge_errors") or 0)
        cost = r.get("judge_cost_usd")
        if cost is None:
            g["cost_known"] = False
        else:
            g["cost"] += Fraction(float(cost))

    def result(self) -> list[dict[str, Any]]:
        """``[{"model", "condition", "judged", "decided_by_judge", "disagreements", "ties",
        "judge_errors", "judge_cost_usd"}]`` in first-seen order."""
        out = []
        for (model, condition), g in self._groups.items():
            row: dict[str, Any] = {"model": model, "condition": condition}
            row.update({k: g[k] for k in ("judged", "decided_by_judge", "disagreements", "ties", "judge_errors")})
            row["judge_cost_usd"] = round(float(g["cost"]), 10) if g["cost_known"] else None
            out.append(row)
        return out
