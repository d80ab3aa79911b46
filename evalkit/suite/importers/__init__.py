"""Importers of paired scenarios from installed upstream benchmarks.

* :mod:`evalkit.suite.importers.bfcl` — BFCL multi-turn (``bfcl-eval``, Apache-2.0):
  ``missing_param`` and ``tool_gap`` pairs;
* :mod:`evalkit.suite.importers.agentdojo` — AgentDojo (``agentdojo``, MIT):
  ``prompt_injection`` pairs with an ``act_resist`` variant, and its underspecified user
  tasks as should-clarify pairs.

:func:`run_import` builds the pairs, checks each against the schema and its domain (a pair
that fails is *skipped* with the error), then excludes the pairs that do not earn their
labels (:data:`CHECKS`, :mod:`evalkit.suite.importers.label_checks`): a contradiction
(a side shows the model exactly what a side labelled the other way shows), a held-out tool
the task does not need, a pair the oracle self-check (:mod:`evalkit.harness.selfcheck`)
cannot pass, and a pair whose oracle commits use values the grounding check does not find
in what the model sees. It writes three files: ``OUT`` (JSONL, the kept pairs),
``OUT.excluded.jsonl`` (the excluded pairs) and ``OUT.report.json`` (provenance, skipped
upstream tasks and excluded pairs, each with its check and reason, and counts by check).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from evalkit.errors import ConfigError, ScenarioError

SOURCES = ("bfcl", "agentdojo")
CHECKS = ("contradiction", "not_needed", "oracle", "grounding")
"""Why an imported pair is excluded: identical visible input under opposite labels, a
held-out tool the task does not need (:mod:`.label_checks`), a pair the scripted oracle
cannot pass (:mod:`evalkit.harness.selfcheck`), or oracle commit arguments the grounding
check does not find in what the model sees."""

__all__ = ["CHECKS", "SOURCES", "build", "run_import"]


def build(source: str, limit: int | None = None, *, sample: int | None = None,
          seed: int = 0) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, Any]]:
    """``(pairs, skipped, provenance)`` from the installed package of ``source``.

    Raises:
        ConfigError: for an unknown source, a package that is not installed, or ``sample``
            with a source other than ``agentdojo``.
    """
    if sample is not None and source != "agentdojo":
        raise ConfigError(f"--sample is for the agentdojo import (its user x injection task combinations), not {source}")
    if source == "bfcl":
        from evalkit.suite.importers import bfcl

        pairs, skipped = bfcl.import_pairs(limit=limit)
        meta = {"package": bfcl.PACKAGE, "version": bfcl.package_version(), "license": bfcl.LICENSE}
    elif source == "agentdojo":
        from evalkit.suite.importers import agentdojo

        pairs, skipped = agentdojo.import_pairs(limit=limit, sample=sample, seed=seed)
        meta = {"package": agentdojo.PACKAGE, "version": agentdojo.package_version(), "license": agentdojo.LICENSE,
                "benchmark_version": agentdojo.BENCHMARK_VERSION}
    else:
        raise ConfigError(f"unknown import source {source!r}; choose from {', '.join(SOURCES)}")
    return pairs, skipped, meta


def run_import(source: str, out: str | Path, *, limit: int | None = None, selfcheck: bool = True,
               sample: int | None = None, seed: int = 0) -> dict[str, Any]:
    """Import ``source`` into the JSONL suite ``out`` (see the module docstring).

    Args:
        source: ``bfcl`` or ``agentdojo``.
        out: The suite file to write.
        limit: Only the first ``limit`` upstream tasks (per suite for AgentDojo).
        selfcheck: Run the oracle self-check and the grounding check (the label checks
            that need no episode always run).
        sample: AgentDojo only: a subset of ``sample`` injection pairs, stratified by
            suite and injection task (:func:`evalkit.suite.importers.agentdojo.stratified_sample`).
        seed: The sample's seed.

    Returns:
        The report (also written to ``OUT.report.json``): ``out``, ``written``, ``skipped``,
        ``excluded`` (each ``{pair_id, domain, trigger, source, check, reasons}``; ``check``
        one of :data:`CHECKS`), ``counts`` (excluded pairs by check), ``provenance`` and
        ``report`` (its own path).
    """
    from evalkit.scenarios.loader import check_pair, load_suite
    from evalkit.scenarios.schema import Pair

    pairs, skipped, meta = build(source, limit, sample=sample, seed=seed)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    valid: list[dict[str, Any]] = []
    models: list[Pair] = []
    for raw in pairs:
        try:
            model = Pair.model_validate(raw)
            check_pair(model, str(out))
            valid.append(raw)
            models.append(model)
        except (ValidationError, ScenarioError) as exc:
            skipped.append({"upstream_id": (raw.get("source") or {}).get("perturbed") or raw["id"],
                            "reason": f"invalid pair: {str(exc).splitlines()[0]}"})
    excluded = _label_exclusions(models)
    bad = {e["pair_id"] for e in excluded}
    kept = [p for p in valid if p["id"] not in bad]
    _write(out, kept)
    if selfcheck and kept:
        excluded += _oracle_exclusions([m for m in load_suite([out]).pairs])
        bad = {e["pair_id"] for e in excluded}
        kept = [p for p in valid if p["id"] not in bad]
        _write(out, kept)
    _write(out.with_name(out.stem + ".excluded.jsonl"), [p for p in valid if p["id"] in bad])
    report_path = out.with_name(out.stem + ".report.json")
    counts = {c: sum(e["check"] == c for e in excluded) for c in CHECKS}
    report = {"source": source, "provenance": meta, "out": str(out), "written": len(kept),
              "sample": {"n": sample, "seed": seed} if sample is not None else None,
              "skipped": skipped, "excluded": excluded, "counts": counts, "report": str(report_path)}
    report_path.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return report


def _entry(pair: Any, check: str, reason: str) -> dict[str, Any]:
    return {"pair_id": pair.id, "domain": pair.domain, "trigger": pair.trigger, "source": pair.source,
            "check": check, "reasons": [reason]}


def _label_exclusions(pairs: list[Any]) -> list[dict[str, Any]]:
    """Contradictions and held-out tools not needed (:mod:`.label_checks`), one entry per pair."""
    from evalkit.scenarios.domains import load_domain
    from evalkit.suite.importers import label_checks

    domains = {name: load_domain(name) for name in sorted({p.domain for p in pairs})}
    contradictions = label_checks.find_contradictions(pairs, domains)
    out = []
    for pair in pairs:
        if pair.id in contradictions:
            out.append(_entry(pair, "contradiction", contradictions[pair.id]))
            continue
        reason = label_checks.unneeded_hidden_tools(pair)
        if reason is not None:
            out.append(_entry(pair, "not_needed", reason))
    return out


def _oracle_exclusions(pairs: list[Any]) -> list[dict[str, Any]]:
    """The oracle self-check (:mod:`evalkit.harness.selfcheck`: ``scripted/oracle``, condition
    ``meta``, gate off, every variant) and, on the same episodes, the grounding check
    (:func:`.label_checks.grounding_reason`): a pair the oracle fails is excluded with check
    ``oracle``, one whose oracle commits use unsupported values with check ``grounding``."""
    from evalkit.harness.episode import EpisodeSpec, execute
    from evalkit.harness.selfcheck import ORACLE, failure_reason
    from evalkit.metrics.scoring import score_episode
    from evalkit.models.registry import get_model
    from evalkit.runtime.controller import Limits
    from evalkit.scenarios.domains import load_domain
    from evalkit.suite.importers.label_checks import grounding_reason

    oracle, limits = get_model(ORACLE), Limits()
    out = []
    for pair in pairs:
        domain = load_domain(pair.domain)
        failed, grounding = [], {}
        for variant in pair.variants:
            spec = EpisodeSpec(pair, variant, ORACLE, "meta", 1, "off", domain)
            try:
                result = execute(spec, oracle, limits)
                row = score_episode(spec, result.log, result.state, result.error)
            except Exception as exc:  # noqa: BLE001 - a crashing pair is excluded, not fatal
                row = {"variant": variant, "condition": "meta", "gate": "off", "status": "error",
                       "error": f"{type(exc).__name__}: {exc}", "correct": False}
            if not row["correct"]:
                failed.append(failure_reason(row))
            elif variant != "abstain":
                grounding[variant] = (row["commit_args_n"], row["unsupported_args_n"], row["unsupported_args"])
        if failed:
            out.append({**_entry(pair, "oracle", failed[0]), "reasons": failed})
        elif (reason := grounding_reason(grounding)) is not None:
            out.append(_entry(pair, "grounding", reason))
    return out


def _write(path: Path, pairs: list[dict[str, Any]]) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for p in pairs:
            fh.write(json.dumps(p, ensure_ascii=False) + "\n")
