"""Plan keys, pair units and group keys of scored episodes.

An episode is identified by its plan key ``(pair_id, variant, model, condition, gate,
epoch)`` (:class:`~evalkit.records.EpisodeKey`, :meth:`~evalkit.records.EpisodeKey.of` for a row); its pair unit drops the variant (:func:`unit_of`), so the
should-act and should-abstain episodes of one pair, model, condition, gate and epoch form
one unit. A summary group is given by the plan-key fields and the pair attributes
(:func:`pair_attributes`) named in ``by`` (:func:`group_key`); the metrics computed over
the groups are in :mod:`evalkit.metrics.aggregate`.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from evalkit.records import EpisodeKey

_POS = {"pair_id": 0, "variant": 1, "model": 2, "condition": 3, "gate": 4, "epoch": 5}


def pair_attributes(pairs: Iterable[Any]) -> dict[str, dict[str, Any]]:
    """``pair_id → {trigger, phase, domain, split, language, meta_expected_n, followup}`` for a suite's pairs."""
    return {
        p.id: {"trigger": p.trigger, "phase": p.phase, "domain": p.domain, "split": p.split,
               "language": p.language,
               "meta_expected_n": len(p.abstain.expected.meta_requests) if p.abstain is not None else 0,
               "followup": p.abstain is not None and p.abstain.followup is not None}
        for p in pairs
    }


def _attr(key: EpisodeKey, row: dict[str, Any] | None, pairs: dict[str, dict[str, Any]], name: str) -> Any:
    if name in _POS:
        return key[_POS[name]]
    info = pairs.get(key[0])
    if info is not None and name in info:
        return info[name]
    if row is not None and name in row:
        return row[name]
    return None


def group_key(key: EpisodeKey, row: dict[str, Any] | None, pairs: dict[str, dict[str, Any]], by: Sequence[str]) -> tuple:
    """The ``by`` values of one planned episode: plan-key fields first, then the pair's
    attributes (:func:`pair_attributes`), then the row's own field, else ``None``."""
    info = pairs.get(key[0])
    return tuple(
        key[_POS[b]] if b in _POS
        else info[b] if info is not None and b in info
        else _attr(key, row, pairs, b)
        for b in by
    )


def unit_of(key: EpisodeKey) -> tuple[str, str, str, str, int]:
    """The pair unit of an episode key: ``(pair_id, model, condition, gate, epoch)``."""
    return (key[0], key[2], key[3], key[4], key[5])
