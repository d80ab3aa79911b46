"""The metric differences between two runs of one plan under two rule sets (DESIGN §8).

``evalkit rules eval`` runs the same plan twice with the gate on, once under the rule set
in use (OLD, ``--against``) and once under the candidate (NEW, ``--rules``), and compares
the runs here, per model × condition × trigger (and over all triggers). Every metric is a
rate over *units* that exist in both runs, so each comparison is paired and tested with
the exact McNemar test (:func:`evalkit.metrics.stats.mcnemar_exact`) on the discordant
units (right only under OLD / only under NEW). Where the two runs' unit sets differ (the
conditional ``timely_rate``; ``post_hoc_rate`` when an episode is recorded in one run only) the
rates are shown over each run's own units, but the test and the direction (better / worse /
same) are those of the units in both runs: a rate that moves only because units entered or left
the set is marked as such, not as a change.

========================  ==============================================  =======================================
metric                    unit and outcome                                units (per run)
========================  ==============================================  =======================================
``paired_accuracy``       pair × epoch: every variant ok and correct      planned pair units with two or more sides
``act_accuracy``          act episode: ok and correct                     planned act episodes (a rule that stops a
                                                                          good commit lowers it)
``abstain_accuracy``      abstain episode: ok and correct                 planned abstain episodes
``timely_abstention``     abstain episode: a correct abstention with      planned abstain episodes
                          lag <= max_lag
``timely_rate``           correct abstention: lag <= max_lag              correct abstentions (tested on those
                                                                          correct under both rule sets)
``post_hoc_rate``         abstain episode: post-hoc abstention (lower     recorded abstain episodes
                          is better)
========================  ==============================================  =======================================

The per-run rates are those of :mod:`evalkit.metrics.aggregate` (``timely_abstention`` is
the unconditional form of ``timely_rate``: it also rises when a rule turns a wrong commit
into a timely stop), so the ``k/n`` shown match each run's ``summary.json``. A planned
episode missing from a run counts as wrong there, as in the summary. Rates over an empty
set are ``None``, never NaN.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Iterable

from evalkit.metrics.stats import mcnemar_exact, proportion
from evalkit.types import TRIGGER_PHASE

METRICS: tuple[tuple[str, int, str], ...] = (
    ("paired_accuracy", 1, "paired acc"),
    ("act_accuracy", 1, "act acc"),
    ("abstain_accuracy", 1, "abstain acc"),
    ("timely_abstention", 1, "timely abstention"),
    ("timely_rate", 1, "timely rate"),
    ("post_hoc_rate", -1, "post-hoc rate"),
)
"""``(metric, polarity, label)``: polarity +1 when higher is better, -1 when lower is."""

ALL = "all"
_PHASES = ("pre_execution", "runtime", "control")

Unit = tuple  # (pair_id, model, condition, epoch) or (pair_id, variant, model, condition, epoch)
Outcomes = dict[str, dict[tuple[str, str, str], dict[Unit, int]]]  # metric → group → unit → 0/1


def _good(row: dict[str, Any] | None) -> bool:
    return row is not None and row.get("status") == "ok" and bool(row.get("correct"))


def _key(row: dict[str, Any]) -> tuple[str, str, str, str, int]:
    """An episode's key without the gate: (pair, variant, model, condition, epoch)."""
    return (row["pair_id"], row["variant"], row["model"], row["condition"], int(row["epoch"]))


def outcomes(plan: Iterable[tuple[str, str, str, str, int]], rows: Iterable[dict[str, Any]],
             triggers: dict[str, str]) -> Outcomes:
    """Per metric and group ``(model, condition, trigger)`` (also ``trigger = "all"``), the
    0/1 outcome of every unit the metric is defined on in this run (module docstring).

    Args:
        plan: Episode keys ``(pair, variant, model, condition, epoch)`` planned in the run.
        rows: The run's result rows (one per key; the last counts).
        triggers: Pair id → trigger.
    """
    by_key = {_key(r): r for r in rows}
    out: Outcomes = {name: defaultdict(dict) for name, _, _ in METRICS}
    sides: dict[tuple, dict[str, dict[str, Any] | None]] = defaultdict(dict)
    for key in plan:
        pair, variant, model, condition, epoch = key
        r = by_key.get(key)
        sides[(pair, model, condition, epoch)][variant] = r
        groups = [(model, condition, ALL), (model, condition, triggers.get(pair, "unknown"))]
        ep = (pair, variant, model, condition, epoch)
        values: dict[str, int] = {}
        if variant == "act":
            values["act_accuracy"] = int(_good(r))
        elif variant == "abstain":
            values["abstain_accuracy"] = int(_good(r))
            values["timely_abstention"] = int(_good(r) and bool(r.get("timely")))  # type: ignore[union-attr]
            if r is not None:
                values["post_hoc_rate"] = int(bool(r.get("post_hoc")))
                if _good(r):
                    values["timely_rate"] = int(bool(r.get("timely")))
        for metric, value in values.items():
            for g in groups:
                out[metric][g][ep] = value
    for (pair, model, condition, epoch), by_variant in sides.items():
        if len(by_variant) < 2:
            continue  # a control pair (act only) is not a pair unit
        value = int(all(_good(r) for r in by_variant.values()))
        for g in ((model, condition, ALL), (model, condition, triggers.get(pair, "unknown"))):
            out["paired_accuracy"][g][(pair, model, condition, epoch)] = value
    return out


def _compare(metric: str, polarity: int, old: dict[Unit, int], new: dict[Unit, int],
             alpha: float) -> dict[str, Any]:
    old_k, old_n, new_k, new_n = sum(old.values()), len(old), sum(new.values()), len(new)
    old_rate, new_rate = proportion(old_k, old_n), proportion(new_k, new_n)
    common = set(old) & set(new)
    old_only = sum(1 for u in common if old[u] and not new[u])
    new_only = sum(1 for u in common if new[u] and not old[u])
    diff = None if old_rate is None or new_rate is None else new_rate - old_rate
    p = mcnemar_exact(old_only, new_only) if common else None
    units_differ = set(old) != set(new)
    if diff is None:
        direction = None
    elif units_differ:
        # the rates are over different units: only the units in both runs are compared, so the
        # direction is theirs (the test's), never the sign of a difference between different sets
        direction = None if not common else "same" if old_only == new_only else \
            "better" if (new_only - old_only) * polarity > 0 else "worse"
    elif diff == 0 and old_only == new_only:
        direction = "same"
    else:
        better = (diff if diff != 0 else new_only - old_only) * polarity > 0
        direction = "better" if better else "worse"
    return {"metric": metric, "old": old_rate, "old_k": old_k, "old_n": old_n, "new": new_rate, "new_k": new_k,
            "new_n": new_n, "diff": diff, "n_paired": len(common), "old_only": old_only, "new_only": new_only,
            "units_differ": units_differ, "p_value": p, "direction": direction,
            "significant": bool(p is not None and p < alpha and direction in ("better", "worse"))}


def _trigger_order(trigger: str) -> tuple[int, int, str]:
    if trigger == ALL:
        return (0, 0, "")
    phase = TRIGGER_PHASE.get(trigger, "control")
    return (1, _PHASES.index(phase) if phase in _PHASES else 9, trigger)


def diff_rows(old_rows: list[dict[str, Any]], new_rows: list[dict[str, Any]], *,
              alpha: float = 0.05, models: Iterable[str] = (), conditions: Iterable[str] = ()) -> list[dict[str, Any]]:
    """Every metric of :data:`METRICS` per model × condition × trigger under both rule sets.

    The plan is every episode key recorded in either run (the runs share one plan; an
    episode recorded in one run only counts as missing, hence wrong, in the other).

    Args:
        old_rows: Result rows of the run under the rule set in use.
        new_rows: Result rows of the run under the candidate rule set.
        alpha: Level below which a McNemar p-value marks the change as significant.
        models, conditions: Display order (the run's configuration order); others follow
            in the order first seen.

    Returns:
        Dicts with ``model``, ``condition``, ``trigger`` (``"all"`` first, then by phase),
        ``metric``, ``old``/``old_k``/``old_n``, ``new``/``new_k``/``new_n``, ``diff``
        (new − old; ``None`` when either side has no unit), ``n_paired`` (units in both),
        ``old_only``/``new_only`` (discordant units), ``units_differ`` (the two runs' unit
        sets differ: a conditional rate such as ``timely_rate``, or an episode recorded in one
        run only), ``p_value`` (exact McNemar, ``None`` without common units), ``direction``
        (``better``/``worse``/``same``, by the metric's polarity; when the unit sets differ, that of
        the units in both runs, the ones the test compares, and ``None`` without any) and
        ``significant``.
    """
    plan = list(dict.fromkeys([_key(r) for r in old_rows] + [_key(r) for r in new_rows]))
    triggers = {r["pair_id"]: str(r.get("trigger") or "unknown") for r in [*old_rows, *new_rows]}
    old = outcomes(plan, old_rows, triggers)
    new = outcomes(plan, new_rows, triggers)
    models = list(dict.fromkeys([*models, *(k[2] for k in plan)]))
    conditions = list(dict.fromkeys([*conditions, *(k[3] for k in plan)]))
    groups = {g for m in old.values() for g in m} | {g for m in new.values() for g in m}
    ordered = sorted(groups, key=lambda g: (models.index(g[0]), conditions.index(g[1]), _trigger_order(g[2])))
    out = []
    for model, condition, trigger in ordered:
        for metric, polarity, _ in METRICS:
            g = (model, condition, trigger)
            a, b = old[metric].get(g, {}), new[metric].get(g, {})
            if not a and not b:
                continue
            out.append({"model": model, "condition": condition, "trigger": trigger,
                        **_compare(metric, polarity, a, b, alpha)})
    return out


def _rule_list(value: Any) -> list[str]:
    if isinstance(value, str):
        import json

        try:
            value = json.loads(value)
        except ValueError:
            return [value] if value else []
    return [str(v) for v in (value or [])]


def rule_firings(old_rows: list[dict[str, Any]], new_rows: list[dict[str, Any]],
                 old_ids: Iterable[str], new_ids: Iterable[str]) -> list[dict[str, Any]]:
    """Per rule, the episodes it stopped a call in under each rule set, by side.

    A stop on the act (or act_resist) side stopped a call of an episode that should act; on
    the abstain side it is what the rule is for.

    Returns:
        Dicts ``{rule_id, status, old_act, old_abstain, new_act, new_abstain}`` where
        ``status`` is ``added``, ``removed`` or ``kept`` (by rule id), in rule order (NEW's
        rules first, then the removed ones).
    """
    old_ids, new_ids = list(old_ids), list(new_ids)
    counts: dict[tuple[str, str, str], int] = defaultdict(int)
    for tag, rows in (("old", old_rows), ("new", new_rows)):
        for r in rows:
            side = "abstain" if r["variant"] == "abstain" else "act"
            for rule_id in _rule_list(r.get("gate_rules")):
                counts[(tag, rule_id, side)] += 1
    out = []
    for rule_id in dict.fromkeys([*new_ids, *old_ids]):
        status = "kept" if rule_id in old_ids and rule_id in new_ids else ("added" if rule_id in new_ids else "removed")
        out.append({"rule_id": rule_id, "status": status,
                    **{f"{t}_{s}": counts[(t, rule_id, s)] for t in ("old", "new") for s in ("act", "abstain")}})
    return out


def changed_episodes(old_rows: list[dict[str, Any]], new_rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Episodes whose correctness differs between the two runs, act side first.

    Returns:
        Dicts with the episode's key, ``trigger``, ``episode_id`` (NEW's), ``old_correct``,
        ``new_correct``, ``old_decision``, ``new_decision``, ``old_rules`` and ``new_rules``
        (the stopping rules that fired) and ``change``: ``stopped_good_commit`` (an act-side
        episode right under OLD and wrong under NEW — a regression), ``fixed`` (wrong →
        right) or ``broke`` (any other right → wrong).
    """
    old = {_key(r): r for r in old_rows}
    out = []
    for r in new_rows:
        o = old.get(_key(r))
        if o is None or _good(o) == _good(r):
            continue
        if _good(r):
            change = "fixed"
        elif r["variant"] != "abstain":
            change = "stopped_good_commit"
        else:
            change = "broke"
        out.append({"pair_id": r["pair_id"], "variant": r["variant"], "model": r["model"],
                    "condition": r["condition"], "epoch": r["epoch"], "trigger": r.get("trigger"),
                    "episode_id": r["episode_id"], "old_correct": _good(o), "new_correct": _good(r),
                    "old_decision": o.get("decision"), "new_decision": r.get("decision"),
                    "old_rules": _rule_list(o.get("gate_rules")), "new_rules": _rule_list(r.get("gate_rules")),
                    "change": change})
    order = {"stopped_good_commit": 0, "broke": 1, "fixed": 2}
    return sorted(out, key=lambda c: order[c["change"]])


def rule_changes(old: Any, new: Any) -> dict[str, list[str]]:
    """Rule ids ``added``, ``removed`` and ``changed`` (same id, other content) from ``old``
    to ``new`` (two :class:`evalkit.rules.RuleSet`)."""
    a = {r.id: r.model_dump(mode="json") for r in old.rules}
    b = {r.id: r.model_dump(mode="json") for r in new.rules}
    return {"added": [i for i in b if i not in a], "removed": [i for i in a if i not in b],
            "changed": [i for i in b if i in a and a[i] != b[i]]}
