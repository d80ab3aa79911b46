"""The run summary written to ``summary.json``: the one source of every reported number.

The CLI table, the HTML report and the CI gate all read these rows, so they show the same
numbers (field case C20). JSON is written with NaN rejected (field case C21).
"""

from __future__ import annotations

import json
import math
from typing import Any, Iterable

from evalkit.metrics.aggregate import BREAKDOWNS, GROUP_KEYS, GroupStats
from evalkit.metrics.keys import group_key, unit_of
from evalkit.records import EpisodeKey
from evalkit.metrics.compare import PairedCounts
from evalkit.metrics.judging import JudgeTotals
from evalkit.metrics.provider import ProviderTotals
from evalkit.metrics.registry import field_types
from evalkit.metrics.stats import DEFAULT_BOOTSTRAP_SAMPLES, DEFAULT_SEED
from evalkit.version import __version__


def build_summary(
    plan: Iterable[EpisodeKey],
    rows: Iterable[dict[str, Any]],
    *,
    pairs: dict[str, dict[str, Any]] | None = None,
    max_lag: int = 1,
    bootstrap_samples: int = DEFAULT_BOOTSTRAP_SAMPLES,
    seed: int = DEFAULT_SEED,
) -> dict[str, Any]:
    """Everything ``summary.json`` holds.

    The in-memory form of :class:`SummaryBuilder` (which a run uses to read its results
    streamed): the same numbers for the same plan and rows.

    Args:
        plan: Planned episode keys in run order (any order is accepted; groups are listed in
            the order they first appear).
        rows: Result rows (the last row of a key counts; rows outside the plan are ignored).
        pairs: Pair attributes by id (:func:`evalkit.metrics.keys.pair_attributes`).
        max_lag: The run's timely threshold (recorded for readers).
        bootstrap_samples: Bootstrap samples per comparison.
        seed: Bootstrap seed.

    Returns:
        ``{"evalkit_version", "n_episodes_planned", "n_episodes_completed", "n_errors",
        "n_missing", "settings", "rows", "breakdowns", "comparisons", "timely_comparisons"}``: ``rows`` has one
        row per model × condition × gate (:func:`~evalkit.metrics.aggregate.summarize`),
        ``breakdowns`` maps each of trigger, phase, domain, split and language to rows per
        model × condition × gate × that attribute (core metrics only), ``comparisons``
        holds the paired tests (:func:`~evalkit.metrics.compare.comparisons`) of paired
        accuracy, ``timely_comparisons`` the same tests of timely paired accuracy (a unit is
        right when every side is right and every abstention came within ``max_lag``).
    """
    plan = list(plan)
    planned = set(plan)
    index = {}
    for r in rows:
        key = EpisodeKey.of(r)
        if key in planned:
            index[key] = r
    builder = SummaryBuilder(pairs, max_lag=max_lag, bootstrap_samples=bootstrap_samples, seed=seed)
    rank = {p: i for i, p in enumerate(dict.fromkeys(k[0] for k in plan))}
    order = sorted(range(len(plan)), key=lambda i: (rank[plan[i][0]], plan[i][5]))  # stable: pair, then epoch
    if any(i != j for i, j in enumerate(order)):
        for key in plan:  # groups and comparisons in the plan's own order
            builder.declare(key, index.get(key))
    for i in order:
        builder.add(plan[i], index.get(plan[i]))
    return builder.result()


class SummaryBuilder:
    """The summary of a run, fed one planned episode at a time: memory does not grow with
    the number of episodes (DESIGN §8; issue "Speed and scale", streamed results).

    Feed every planned episode with :meth:`add` (its result row, or ``None`` when it has
    none), pair by pair and, within a pair, epoch by epoch: the order of
    :func:`evalkit.harness.run.build_plan` (pair, epoch, model, condition, gate, variant).
    The episodes of one pair and epoch are held until the next pair or epoch starts; every
    group then keeps counts only (:class:`~evalkit.metrics.aggregate.GroupStats`, one float
    per recorded episode for the latency percentile), the comparisons five counts per two
    compared groups (:class:`~evalkit.metrics.compare.PairedCounts`) and the provider totals a
    few per model × condition (:class:`~evalkit.metrics.provider.ProviderTotals`).

    An episode of a pair with known attributes (``pairs``) is counted once, in its *cell*
    (model × condition × gate × every breakdown attribute); the main and breakdown rows add
    up their cells at the end. An episode of a pair without them is counted in each of its
    groups directly (its breakdown attributes then come from its row, as in
    :func:`~evalkit.metrics.aggregate.summarize`).

    Args:
        pairs: Pair attributes by id (:func:`evalkit.metrics.keys.pair_attributes`).
        max_lag: The run's timely threshold (recorded for readers).
        bootstrap_samples: Bootstrap samples per comparison.
        seed: Bootstrap seed.
    """

    def __init__(
        self,
        pairs: dict[str, dict[str, Any]] | None = None,
        *,
        max_lag: int = 1,
        bootstrap_samples: int = DEFAULT_BOOTSTRAP_SAMPLES,
        seed: int = DEFAULT_SEED,
    ):
        self.pairs = pairs or {}
        self.settings: dict[str, Any] = {"max_lag": max_lag, "confidence": 0.95, "interval": "wilson",
                         "bootstrap_samples": bootstrap_samples, "bootstrap_seed": seed,
                         "test": "exact McNemar (two-sided)"}
        self._by = [GROUP_KEYS] + [(*GROUP_KEYS, name) for name in BREAKDOWNS]
        self._order: list[dict[tuple, None]] = [{} for _ in self._by]  # group keys, first-seen order
        self._direct: list[dict[tuple, GroupStats]] = [{} for _ in self._by]  # pairs without attributes
        self._cells: dict[tuple, GroupStats] = {}
        self._attrs: dict[str, tuple | None] = {}  # pair id → its breakdown attributes (None: unknown)
        self._compare = PairedCounts()
        self._compare_timely = PairedCounts()
        self._provider = ProviderTotals()
        self._judge = JudgeTotals()
        self.planned = self.completed = self.errors = 0
        self._block: list[tuple[EpisodeKey, dict[str, Any] | None, Any]] = []
        self._block_id: tuple[str, int] | None = None
        self._done_pairs: set[str] = set()
        self._done_epochs: set[int] = set()
        self._sides: dict[str, dict[str, None]] = {}  # pair id → its planned variants, first-seen order

    def declare(self, key: EpisodeKey, row: dict[str, Any] | None = None) -> None:
        """Create ``key``'s groups and comparison levels now (without counting it), so that
        they are listed in this order rather than the order of :meth:`add`."""
        self._place(key, row)
        self._compare.see(key)
        self._compare_timely.see(key)

    def _place(self, key: EpisodeKey, row: dict[str, Any] | None) -> Any:
        """``key``'s cell (a tuple), or its group keys per grouping (a list) for a pair
        without attributes; groups are registered on first sight."""
        attrs = self._attrs.get(key[0], ...)
        if attrs is ...:
            info = self.pairs.get(key[0])
            attrs = self._attrs[key[0]] = tuple(info[b] for b in BREAKDOWNS) \
                if info is not None and all(b in info for b in BREAKDOWNS) else None
        if attrs is not None:
            cell = (key[2], key[3], key[4], *attrs)
            if cell not in self._cells:
                self._cells[cell] = GroupStats(self.pairs)
                self._order[0].setdefault(cell[:3])
                for i, attr in enumerate(attrs, 1):
                    self._order[i].setdefault((*cell[:3], attr))
            return cell
        gkeys = []
        for i, by in enumerate(self._by):
            gkey = group_key(key, row, self.pairs, by)
            self._order[i].setdefault(gkey)
            if gkey not in self._direct[i]:
                self._direct[i][gkey] = GroupStats(self.pairs, core=i > 0)
            gkeys.append(gkey)
        return gkeys

    def add(self, key: EpisodeKey, row: dict[str, Any] | None) -> None:
        """Count one planned episode.

        Args:
            key: Its plan key ``(pair_id, variant, model, condition, gate, epoch)``.
            row: Its result row, or ``None`` (missing).

        Raises:
            ValueError: when a pair, or a pair's epoch, comes back after another began (the
                plan order is not pair by pair, epoch by epoch).
        """
        block = (key[0], key[5])
        if block != self._block_id:
            self._flush()
            if self._block_id is not None and key[0] != self._block_id[0]:
                self._done_pairs.add(self._block_id[0])
                self._done_epochs = set()
            if key[0] in self._done_pairs or key[5] in self._done_epochs:
                raise ValueError(f"episode {'/'.join(map(str, key))} comes after other pairs or epochs began; "
                                 "feed the plan pair by pair, epoch by epoch (build_plan order)")
            self._block_id = block
            self._done_epochs.add(key[5])
        self._block.append((key, row, self._place(key, row)))
        self._compare.see(key)
        self._compare_timely.see(key)
        self._sides.setdefault(key[0], {}).setdefault(key[1])
        self.planned += 1
        if row is not None:
            self.completed += 1
            self.errors += row["status"] != "ok"
            self._provider.add(row)
            self._judge.add(row)

    def _flush(self) -> None:
        if not self._block:
            return
        in_cells: dict[tuple, list[tuple[EpisodeKey, dict[str, Any] | None]]] = {}  # (cell, unit) → sides
        direct: dict[tuple, list[tuple[EpisodeKey, dict[str, Any] | None]]] = {}  # (grouping, group, unit) → sides
        outcomes: dict[tuple, list[bool]] = {}
        timely: dict[tuple, list[bool]] = {}  # right, and every abstention within max_lag
        for key, row, place in self._block:
            if type(place) is tuple:
                in_cells.setdefault((place, unit_of(key)), []).append((key, row))
            else:
                for i, gkey in enumerate(place):
                    direct.setdefault((i, gkey, unit_of(key)), []).append((key, row))
            good = row is not None and row["status"] == "ok" and bool(row["correct"])
            outcomes.setdefault((key[2], key[3], key[4]), []).append(good)
            timely.setdefault((key[2], key[3], key[4]), []).append(
                good and (key[1] != "abstain" or (row is not None and row.get("timely") is True)))
        for (cell, unit), sides in in_cells.items():
            self._cells[cell].add_unit(unit, sides)
        for (i, gkey, unit), sides in direct.items():
            self._direct[i][gkey].add_unit(unit, sides)
        self._compare.add_block(outcomes)
        self._compare_timely.add_block(timely)
        self._block = []

    def result(self) -> dict[str, Any]:
        """The summary (the dict :func:`build_summary` returns) of every episode added."""
        self._flush()
        samples, seed = self.settings["bootstrap_samples"], self.settings["bootstrap_seed"]
        return {
            "evalkit_version": __version__,
            "n_episodes_planned": self.planned,
            "n_episodes_completed": self.completed,
            "n_errors": self.errors,
            "n_missing": self.planned - self.completed,
            "settings": dict(self.settings),
            "rows": self._rows(0),
            "breakdowns": {name: self._rows(i + 1) for i, name in enumerate(BREAKDOWNS)},
            "comparisons": self._compare.result(samples=samples, seed=seed),
            "timely_comparisons": self._compare_timely.result(samples=samples, seed=seed,
                                                              metric="timely_paired_accuracy"),
        }

    def _rows(self, i: int) -> list[dict[str, Any]]:
        parts: dict[tuple, list[GroupStats]] = {gkey: [] for gkey in self._order[i]}
        for cell, stats in self._cells.items():
            parts[cell[:3] if i == 0 else (*cell[:3], cell[2 + i])].append(stats)
        out = []
        for gkey, cells in parts.items():
            total = GroupStats(self.pairs, core=i > 0)
            direct = self._direct[i].get(gkey)
            for stats in ([direct] if direct is not None else []) + cells:
                total.merge(stats)
            row = dict(zip(self._by[i], gkey))
            row.update(total.metrics())
            out.append(row)
        return out

    def planned_pairs(self) -> list[list[Any]]:
        """``[[pair_id, [variant, ...]], ...]``: the pairs added and their planned variants, in
        plan order (``summary.json`` ``planned_pairs``: what the run directory's other files do
        not say of the plan)."""
        return [[pair_id, list(variants)] for pair_id, variants in self._sides.items()]

    def judge(self) -> list[dict[str, Any]]:
        """LLM-judge totals of the recorded episodes (:class:`~evalkit.metrics.judging.JudgeTotals`;
        empty without ``--judge``)."""
        return self._judge.result()

    def provider(self) -> list[dict[str, Any]]:
        """Provider totals of the recorded episodes (:func:`~evalkit.metrics.provider.provider_summary`)."""
        return self._provider.result()


SUMMARY_FIELDS = (
    # the episode key and the pair attributes used for breakdowns
    "pair_id", "variant", "model", "condition", "gate", "epoch", "trigger", "phase", "domain", "split", "language",
    # outcome (evalkit.metrics.aggregate)
    "status", "correct", "decision_match", "post_hoc", "lag", "timely", "first_pass", "injected_commits",
    # meta requests and runtime behaviour
    "meta_made_n", "meta_matched_n", "meta_expected_n", "meta_typed_n", "meta_fulfilled", "meta_denied",
    "repeated_denied", "unnecessary_requests", "permission_escalations", "budget_overruns", "incorrect_tool_use",
    "model_escalations", "review_rounds", "denials", "commit_args_n", "unsupported_args_n",
    # cost (evalkit.metrics.aggregate) and provider totals (evalkit.metrics.provider)
    "tool_calls", "input_tokens", "output_tokens", "latency_s", "cost_usd", "model_calls", "cache_hits", "retries",
    "retry_wait_s", "parse_failures", "repaired_calls", "call_in_content", "content_filter",
    "claimed_action_without_call", "error_code", "failure_kind", "unjudged",
    # usage by class, failed attempts and output faults (evalkit.metrics.billing, evalkit.metrics.scoring)
    "cached_input_tokens", "cache_write_tokens", "reasoning_tokens", "retry_input_tokens", "retry_output_tokens",
    "retry_cost_usd", "replayed_cost_usd", "usage_missing", "usage_inconsistent", "unknown_stop_reason", "refusal", "truncated_calls", "truncated_output",
    "unknown_content_blocks", "model_mismatch", "model_invalid", "undecodable_text",
    # the LLM-judge panel (evalkit.metrics.judging)
    "text_judge", "judge_disagrees", "judge_tie", "judge_errors", "judge_cost_usd",
    # follow-ups: the simulated user's answer and what came after it (evalkit.metrics.followup)
    "followup", "asked", "questions", "repeated_questions", "recovered", "persona", "commits_after_unhelpful",
)
"""The result-row fields the summary reads (:func:`build_summary`, :func:`~evalkit.metrics.provider.provider_summary`)."""
_TEXT_FIELDS = frozenset({"pair_id", "variant", "model", "condition", "gate", "trigger", "phase", "domain", "split",
                          "language", "status", "error_code", "failure_kind", "text_judge", "persona"})
_FLAG_FIELDS = frozenset({"correct", "decision_match", "post_hoc", "timely", "first_pass", "call_in_content",
                          "content_filter", "claimed_action_without_call", "refusal", "truncated_output", "unjudged",
                          "judge_disagrees", "judge_tie", "followup", "asked", "recovered"})
_MEASURES = frozenset({"latency_s", "cost_usd", "retry_wait_s", "retry_cost_usd", "judge_cost_usd", "replayed_cost_usd"})
_UNKNOWN_COUNTS = frozenset({"input_tokens", "output_tokens", "cached_input_tokens", "cache_write_tokens",
                             "reasoning_tokens", "retry_input_tokens", "retry_output_tokens"})
"""Token counts that are null when the provider did not report them or an answer could not be
read (never 0)."""
_COUNTS = frozenset(SUMMARY_FIELDS) - _TEXT_FIELDS - _FLAG_FIELDS - _MEASURES - _UNKNOWN_COUNTS - {"lag", "epoch", "denials"}
"""Count fields: never null in a scored row (``lag`` is null where it is not defined)."""
_REQUIRED = ("pair_id", "variant", "model", "condition", "gate", "epoch", "status", "correct")


def row_problem(row: dict[str, Any]) -> str | None:
    """What makes ``row`` unusable as a result row for the summary, or ``None``.

    Checked: the key fields, ``status`` and ``correct`` are present; ``status`` is ``ok`` or
    ``error``; ``epoch`` is an integer; every :data:`SUMMARY_FIELDS` value present has its
    JSON type (text, a flag, a count: an integer >= 0, or for latency, cost and retry wait a
    finite number >= 0) or is null (the key fields and ``status`` may not be); ``denials`` is
    a JSON object of reason code → count; no count or measure is implausibly large
    (:data:`MAX_COUNT`, :data:`MAX_MEASURE`), and no count exceeds the one it is part of
    (requests matched of those made and of those expected, requests fulfilled of typed ones,
    unsupported commit arguments of those checked); a registered metric's field has its
    declared type (:data:`evalkit.metrics.registry.FieldType`). Rows evalkit writes always pass; a row edited by hand may not, and is then
    skipped with a warning like a broken line (its episode runs again on resume).

    Returns:
        ``"field NAME: why"`` for the first problem found.
    """
    for name in _REQUIRED:
        if name not in row:
            return f"field {name}: missing"
    if row["status"] not in ("ok", "error"):
        return f"field status: {row['status']!r} is neither 'ok' nor 'error'"
    epoch = row["epoch"]
    if type(epoch) is not int or not 0 < epoch <= MAX_COUNT:
        shown = repr(epoch) if len(repr(epoch)) <= 40 else repr(epoch)[:39] + "…"
        return f"field epoch: {shown} is not an integer" if type(epoch) is not int else \
            f"field epoch: {shown} is not a plausible epoch (1 or more)"
    for name in SUMMARY_FIELDS:
        if name not in row or name == "epoch":
            continue
        value = row[name]
        if value is None:
            if name in _REQUIRED or name in _COUNTS:
                return f"field {name}: null" + ("" if name in _REQUIRED else " (a count is a number, 0 for none)")
            continue
        if name == "denials":
            ok, kind = _denials_ok(value), "a JSON object of reason code → count"
        elif name in _TEXT_FIELDS:
            ok = isinstance(value, str)
            kind = "text"
        elif name in _FLAG_FIELDS:
            ok = isinstance(value, bool)
            kind = "true or false"
        elif name in _MEASURES:
            ok = type(value) in (int, float) and math.isfinite(value) and value >= 0
            kind = "a finite number >= 0"
        else:
            ok = type(value) is int and value >= 0
            kind = "a count (an integer >= 0)"
        if ok and name in _MEASURES and value > MAX_MEASURE:
            ok, kind = False, f"a plausible value (at most {MAX_MEASURE:g})"
        elif ok and type(value) is int and value > MAX_COUNT:
            ok, kind = False, f"a plausible count (at most {MAX_COUNT:,})"
        if not ok:
            shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:39] + "…"
            return f"field {name}: {shown} is not {kind}"
    for name, ftype in field_types().items():  # registered metrics' own fields
        value = row.get(name)
        if value is not None and not _FIELD_OK[ftype](value):
            shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:39] + "…"
            return f"field {name}: {shown} is not {_FIELD_KIND[ftype]}"
    for part, whole in _PARTS:
        if type(row.get(part)) is int and type(row.get(whole)) is int and row[part] > row[whole]:
            return f"field {part}: {row[part]} is more than {whole} ({row[whole]})"
        if row.get(part) and whole not in row and whole != "meta_expected_n":
            return f"field {whole}: missing, while {part} is {row[part]}"
    return None


MAX_MEASURE = 1e9
"""Largest latency (s), cost (USD) or retry wait (s) a result row may hold: far above any real
episode, and low enough that no sum over a run can overflow."""
MAX_COUNT = 10**15
"""Largest count (tokens, calls, …) a result row may hold, for the same reason."""
_PARTS = (("meta_matched_n", "meta_made_n"), ("meta_matched_n", "meta_expected_n"),
          ("meta_fulfilled", "meta_typed_n"), ("unsupported_args_n", "commit_args_n"))
"""A count that is part of another in every scored row (:mod:`evalkit.metrics.behaviour`:
matching is one to one; :mod:`evalkit.metrics.grounding`)."""


_FIELD_OK = {
    "flag": lambda v: isinstance(v, bool),
    "count": lambda v: type(v) is int and 0 <= v <= MAX_COUNT,
    "measure": lambda v: type(v) in (int, float) and math.isfinite(v) and 0 <= v <= MAX_MEASURE,
    "text": lambda v: isinstance(v, str),
}
_FIELD_KIND = {"flag": "true or false", "count": "a count (an integer >= 0)", "measure": "a finite number >= 0",
               "text": "text"}


def _denials_ok(value: Any) -> bool:
    """Whether ``denials`` is an object of reason code → count (or its JSON text, as runs
    written before the field was typed hold it)."""
    data = value
    if isinstance(value, str):
        try:
            data = json.loads(value)
        except (ValueError, RecursionError):
            return False
    return isinstance(data, dict) and all(type(n) is int and n >= 0 for n in data.values())
