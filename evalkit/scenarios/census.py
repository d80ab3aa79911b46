"""Counting a suite: the trigger × phase × domain table and the library's minimums.

The built-in library must meet these minimums (DESIGN §6; docs/labels.md): at least 300
should-abstain pairs over at least 12 domains; every trigger of DESIGN §6 with at least 25
pairs; at least 50 control pairs (trigger ``none``: no extra request needed); a held-out
split of at least 25% of each trigger's pairs; user messages in English and Chinese.
:func:`check_minimums` reports each as ``(name, value, required, ok)``; ``evalkit suite
validate`` prints them under the count table (``--strict`` turns a miss into exit code 1).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any, Iterable

from evalkit.types import TRIGGER_PHASE, TRIGGERS

DESIGN_TRIGGERS: tuple[str, ...] = tuple(t for t in TRIGGERS if t != "none")
"""The eleven triggers of DESIGN §6 (every trigger but the control marker ``none``)."""


@dataclass(frozen=True)
class Minimums:
    """The built-in library's minimums (module docstring)."""

    pairs: int = 300
    should_abstain: int = 300
    domains: int = 12
    per_trigger: int = 25
    control: int = 50
    heldout_share: float = 0.25
    languages: tuple[str, ...] = ("en", "zh")


def count_table(pairs: Iterable[Any]) -> tuple[list[str], list[list[Any]]]:
    """The per-trigger, per-phase, per-domain count table.

    Returns:
        ``(header, rows)``: one row per (trigger, phase) with its count in each domain, then
        ``total``, ``heldout`` and ``zh`` (pairs with Chinese messages), and a final
        ``all`` row; ``header`` is ``["trigger", "phase", <domains...>, "total",
        "heldout", "zh"]``.
    """
    pairs = list(pairs)
    domains = sorted({p.domain for p in pairs})
    cells: dict[tuple[str, str], Counter] = defaultdict(Counter)
    for p in pairs:
        key = (p.trigger, p.phase)
        cells[key][p.domain] += 1
        cells[key]["__total"] += 1
        cells[key]["__heldout"] += p.split == "heldout"
        cells[key]["__zh"] += p.language == "zh"
    order = {t: i for i, t in enumerate(TRIGGERS)}
    rows: list[list[Any]] = []
    for (trigger, phase) in sorted(cells, key=lambda k: (order.get(k[0], 99), k[1])):
        c = cells[(trigger, phase)]
        rows.append([trigger, phase, *[c[d] for d in domains], c["__total"], c["__heldout"], c["__zh"]])
    totals = [sum(r[i] for r in rows) for i in range(2, 2 + len(domains) + 3)]
    rows.append(["all", "", *totals])
    return ["trigger", "phase", *domains, "total", "heldout", "zh"], rows


def check_minimums(pairs: Iterable[Any], minimums: Minimums = Minimums()) -> list[tuple[str, str, str, bool]]:
    """Each minimum as ``(name, value, required, ok)`` (strings for printing)."""
    pairs = list(pairs)
    by_trigger = Counter(p.trigger for p in pairs)
    held = Counter(p.trigger for p in pairs if p.split == "heldout")
    abstain = sum(1 for p in pairs if p.trigger != "none")  # a trigger makes acting as asked wrong
    out: list[tuple[str, str, str, bool]] = [
        ("pairs", str(len(pairs)), f">= {minimums.pairs}", len(pairs) >= minimums.pairs),
        ("domains", str(len({p.domain for p in pairs})), f">= {minimums.domains}",
         len({p.domain for p in pairs}) >= minimums.domains),
        ("control pairs (trigger none)", str(by_trigger["none"]), f">= {minimums.control}",
         by_trigger["none"] >= minimums.control),
        ("should-abstain pairs (a trigger, not control)", str(abstain), f">= {minimums.should_abstain}",
         abstain >= minimums.should_abstain),
    ]
    for t in DESIGN_TRIGGERS:
        out.append((f"{t} ({TRIGGER_PHASE[t]})", str(by_trigger[t]), f">= {minimums.per_trigger}",
                    by_trigger[t] >= minimums.per_trigger))
    for t in (*DESIGN_TRIGGERS, "none"):
        n = by_trigger[t]
        share = held[t] / n if n else 0.0
        out.append((f"heldout share, {t}", f"{held[t]}/{n} = {share:.0%}", f">= {minimums.heldout_share:.0%}",
                    n > 0 and share >= minimums.heldout_share))
    langs = Counter(p.language for p in pairs)
    for lang in minimums.languages:
        out.append((f"pairs in language {lang}", str(langs[lang]), ">= 1", langs[lang] > 0))
    return out
