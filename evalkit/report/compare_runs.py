"""``evalkit compare``: one leaderboard and paired comparisons over several run directories.

Models are often run on different days, into different run directories. This puts them on
one summary, computed by the same streaming builder a run uses
(:class:`evalkit.metrics.summary.SummaryBuilder`), over the pairs **the runs share**: a pair
is shared when every run planned it with the same id, the same variants and the same content
(``pair_sha256`` recorded in its result rows; DESIGN §7: "comparisons on the same pairs use
paired tests"). A pair whose content differs between runs is left out and counted
(``compare.pairs_content_differs``), as is a pair some run did not plan
(``compare.pairs_not_shared``) or whose rows carry no content hash (``compare.pairs_unverified``).
Model and condition comparisons are then the paired tests of :mod:`evalkit.metrics.compare`
on those pairs, so their ``n`` is the number of shared pair units.

Each run is read by the gate's reader (:func:`evalkit.gate.rundir.load_run`: the plan rebuilt
from the manifest and ``summary.json``, each planned episode's last row, a missing episode
counted as wrong). A model that appears in more than one run is named ``MODEL @ LABEL`` (the
run directory's name) so that its runs stay apart. The output folder gets ``summary.json``
(with a ``compare`` section: the runs' manifests, the shared-pair counts), ``results.jsonl``
(the shared pairs' rows, each naming its ``source_run`` and ``source_episode`` so the report
and the viewer find its trace there) and ``report.html``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Sequence

from evalkit.errors import RunError
from evalkit.harness.atomic import write_atomic
from evalkit.gate.rundir import load_run
from evalkit.metrics.registry import field_types
from evalkit.metrics.summary import SUMMARY_FIELDS, SummaryBuilder
from evalkit.records import EpisodeKey

COMPARE_FILES = ("summary.json", "results.jsonl", "report.html", "compare.json")
"""The files ``evalkit compare`` writes (and the only ones it replaces)."""


def _labels(paths: Sequence[Path]) -> list[str]:
    names = [p.resolve().name or str(p) for p in paths]
    if len(set(names)) == len(names):
        return names
    return [str(p) for p in paths]


def _manifest_entry(run: Any, label: str) -> dict[str, Any]:
    manifest = run.manifest
    config = manifest.get("config", {})
    suite = manifest.get("suite") or {}
    return {"label": label, "path": str(run.path), "created": manifest.get("created"),
            "evalkit_version": manifest.get("evalkit_version"), "suite_hash": suite.get("content_hash"),
            "suite_files": suite.get("files"), "models": config.get("models"), "conditions": config.get("conditions"),
            "gates": config.get("gates"), "epochs": config.get("epochs"), "max_lag": config.get("max_lag"),
            "n_pairs": len(run.plan.pairs), "n_episodes_planned": run.summary.get("n_episodes_planned")}


def compare_runs(paths: Sequence[str | Path], out: str | Path) -> dict[str, Any]:
    """Write one summary and report over several run directories (module docstring).

    Args:
        paths: Two or more run directories written by ``evalkit run``.
        out: A new or empty folder, or an earlier ``evalkit compare`` output (replaced).

    Returns:
        The summary written to ``out/summary.json``: as a run's (``rows``, ``breakdowns``,
        ``comparisons``, …) plus ``compare``: ``{"runs": [manifest entries], "shared_pairs",
        "pairs_content_differs", "pairs_not_shared", "pairs_unverified", "differing": [ids, at most 20]}``.

    Raises:
        RunError: fewer than two runs; a run that cannot be read; runs with different
            ``max_lag``; runs that share no pair; an ``out`` folder holding other files.
    """
    roots = [Path(p) for p in paths]
    if len(roots) < 2:
        raise RunError("evalkit compare needs two or more run directories")
    seen: dict[Path, Path] = {}
    for root in roots:
        if root.resolve() in seen:
            raise RunError(f"{root}: given twice (as {seen[root.resolve()]}); compare different runs")
        seen[root.resolve()] = root
    out = Path(out)
    _check_out(out, roots)
    runs = [load_run(p, then="compare it") for p in roots]
    labels = _labels(roots)
    prefixes = [_slug(label) for label in labels]
    if len(set(prefixes)) < len(prefixes):
        prefixes = [f"r{i}" for i in range(1, len(labels) + 1)]
    lags = {r.manifest.get("config", {}).get("max_lag", 1) for r in runs}
    if len(lags) > 1:
        raise RunError(f"the runs score timeliness with different max_lag ({', '.join(map(str, sorted(lags)))}); "
                       "compare runs made with the same --max-lag")

    prints = [r.fingerprints for r in runs]
    variants = [dict(r.plan.pairs) for r in runs]
    order = list(variants[0])
    every = set().union(*variants)
    shared, differs, unverified = [], [], []
    for pair_id in order:
        if not all(pair_id in v for v in variants):
            continue
        hashes = [fp[pair_id]["sha256"] for fp in prints]
        if any(h is None for h in hashes):
            unverified.append(pair_id)
        elif len(set(hashes)) > 1 or len({tuple(v[pair_id]) for v in variants}) > 1:
            differs.append(pair_id)
        else:
            shared.append(pair_id)
    not_shared = len(every) - len(shared) - len(differs) - len(unverified)
    if not shared:
        why = "".join([f"; {len(differs)} pair(s) share an id but differ in content" if differs else "",
                       f"; {len(unverified)} shared id(s) have no content hash (runs of an older evalkit)"
                       if unverified else ""])
        raise RunError(f"{', '.join(map(str, roots))}: the runs share no pair (same id and content){why}; "
                       "nothing to compare")

    counts: dict[str, int] = {}
    for r in runs:
        for model in r.plan.models:
            counts[model] = counts.get(model, 0) + 1
    keep = set(shared)
    fields = set(SUMMARY_FIELDS) | set(field_types()) | {"episode_id", "pair_sha256", "final_text", "reason_codes", "unsupported_args",
                                    "error", "stated", "text_label", "expected_decision", "decision",
                                    "decided_by", "critical_commits", "commits", "unsupported_args_n", "lag",
                                    "timely", "answered_models"}
    blocks: dict[tuple[str, int], list[tuple[EpisodeKey, dict[str, Any] | None]]] = {}
    for r, label, prefix in zip(runs, labels, prefixes):
        for key, row in r.planned_rows():
            if key[0] not in keep:
                continue
            model = f"{key[2]} @ {label}" if counts[key[2]] > 1 else key[2]
            new_key = key._replace(model=model)
            if row is not None:
                row = {k: v for k, v in row.items() if k in fields}
                row["model"] = model
                row["source_run"] = str(r.path.resolve())  # found from any working folder
                row["source_episode"] = row.get("episode_id")
                row["episode_id"] = prefix + "~" + str(row.get("episode_id"))
            blocks.setdefault((key[0], key[5]), []).append((new_key, row))

    attrs: dict[str, dict[str, Any]] = {}
    for r in runs:
        for pid, a in r.pair_attributes.items():
            attrs.setdefault(pid, a)
    builder = SummaryBuilder(attrs, max_lag=lags.pop())
    rank = {p: i for i, p in enumerate(shared)}
    lines = []
    for block in sorted(blocks, key=lambda b: (rank[b[0]], b[1])):
        for key, row in blocks[block]:
            builder.add(key, row)
            if row is not None:
                lines.append(json.dumps(row, ensure_ascii=False, allow_nan=False))
    summary = builder.result()
    summary["planned_pairs"] = builder.planned_pairs()
    summary["compare"] = {
        "runs": [_manifest_entry(r, label) for r, label in zip(runs, labels)],
        "shared_pairs": len(shared),
        "pairs_content_differs": len(differs),
        "pairs_not_shared": not_shared,
        "pairs_unverified": len(unverified),
        "differing": differs[:20],
    }
    out.mkdir(parents=True, exist_ok=True)
    write_atomic(out / "results.jsonl", "".join(line + "\n" for line in lines))
    text = json.dumps(summary, ensure_ascii=False, indent=1, allow_nan=False)
    write_atomic(out / "summary.json", text)
    write_atomic(out / "compare.json", json.dumps(summary["compare"], ensure_ascii=False, indent=1))
    return summary


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text)[:40] or "run"


def _check_out(out: Path, roots: Sequence[Path]) -> None:
    """``out`` must be new, empty (names starting with ``.`` aside), or an earlier compare output."""
    if any(out.resolve() == r.resolve() for r in roots):
        raise RunError(f"{out}: is one of the compared runs; choose another --out")
    if out.exists() and not out.is_dir():
        raise RunError(f"{out}: is a file, not a folder; choose another --out")
    if out.is_dir() and not (out / "compare.json").is_file():
        others = sorted(e.name for e in out.iterdir() if not e.name.startswith("."))
        if others:
            raise RunError(f"{out}: not empty ({', '.join(others[:3])}) and not an `evalkit compare` output; "
                           "choose a new or empty folder for --out")
