"""A toy metric, ``stop_first_rate``: the share of recorded abstain episodes in which the agent
stopped (abstained or asked) without calling any task tool first.

Per episode it adds the flag ``stop_first``; per group it is a rate over the recorded abstain
episodes, kept in breakdown rows too; lower or higher is not better in itself (``direction``
unset); the gate reads its ``n`` from ``stop_first_rate_n`` and skips a group without abstain
episodes (its ``population``).
"""

from __future__ import annotations

from typing import Any, Mapping

from evalkit.metrics.registry import EpisodeView, metric


@metric("stop_first_rate", kind="rate", fields={"stop_first": "flag"}, label="stop first", column=200,
        variants=("abstain",), over="recorded", core=True,
        population=("abstain_accuracy_n", "planned abstain episodes"), conditioned_on="recorded abstain episodes",
        description="recorded abstain episodes that stopped before any task-tool call")
def stop_first(view: EpisodeView) -> Mapping[str, Any]:
    row = view.row
    return {"stop_first": row["stated"] in ("abstain", "clarify") and row["tool_calls"] == 0}
