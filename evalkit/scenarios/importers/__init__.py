"""Importers of paired scenarios from installed upstream benchmarks.

* :mod:`evalkit.scenarios.importers.bfcl` — BFCL multi-turn (``bfcl-eval``, Apache-2.0):
  ``missing_param`` and ``tool_gap`` pairs;
* :mod:`evalkit.scenarios.importers.agentdojo` — AgentDojo (``agentdojo``, MIT):
  ``prompt_injection`` pairs with an ``act_resist`` variant, and its underspecified user
  tasks as should-clarify pairs.

:func:`run_import` builds the pairs, checks each against the schema and its domain (a pair
that fails is *skipped* with the error), runs the oracle self-check
(:mod:`evalkit.harness.selfcheck`) and writes three files: ``OUT`` (JSONL, the kept pairs),
``OUT.excluded.jsonl`` (pairs the oracle cannot pass) and ``OUT.report.json`` (provenance,
skipped upstream tasks and excluded pairs, each with its reason).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from evalkit.errors import ConfigError, ScenarioError

SOURCES = ("bfcl", "agentdojo")

__all__ = ["SOURCES", "build", "run_import"]


def build(source: str, limit: int | None = None) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, Any]]:
    """``(pairs, skipped, provenance)`` from the installed package of ``source``.

    Raises:
        ConfigError: for an unknown source or a package that is not installed.
    """
    if source == "bfcl":
        from evalkit.scenarios.importers import bfcl

        pairs, skipped = bfcl.import_pairs(limit=limit)
        meta = {"package": bfcl.PACKAGE, "version": bfcl.package_version(), "license": bfcl.LICENSE}
    elif source == "agentdojo":
        from evalkit.scenarios.importers import agentdojo

        pairs, skipped = agentdojo.import_pairs(limit=limit)
        meta = {"package": agentdojo.PACKAGE, "version": agentdojo.package_version(), "license": agentdojo.LICENSE,
                "benchmark_version": agentdojo.BENCHMARK_VERSION}
    else:
        raise ConfigError(f"unknown import source {source!r}; choose from {', '.join(SOURCES)}")
    return pairs, skipped, meta


def run_import(source: str, out: str | Path, *, limit: int | None = None, selfcheck: bool = True) -> dict[str, Any]:
    """Import ``source`` into the JSONL suite ``out`` (see the module docstring).

    Returns:
        The report (also written to ``OUT.report.json``): ``out``, ``written``, ``skipped``,
        ``excluded``, ``provenance`` and ``report`` (its own path).
    """
    from evalkit.scenarios.loader import check_pair, load_suite
    from evalkit.scenarios.schema import Pair

    pairs, skipped, meta = build(source, limit)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    valid: list[dict[str, Any]] = []
    for raw in pairs:
        try:
            check_pair(Pair.model_validate(raw), str(out))
            valid.append(raw)
        except (ValidationError, ScenarioError) as exc:
            skipped.append({"upstream_id": (raw.get("source") or {}).get("perturbed") or raw["id"],
                            "reason": f"invalid pair: {str(exc).splitlines()[0]}"})
    _write(out, valid)
    excluded: list[dict[str, Any]] = []
    if selfcheck and valid:
        from evalkit.harness.selfcheck import oracle_selfcheck

        check = oracle_selfcheck(load_suite([out]))
        excluded = list(check.excluded)
        bad = set(check.excluded_ids)
        _write(out.with_name(out.stem + ".excluded.jsonl"), [p for p in valid if p["id"] in bad])
        valid = [p for p in valid if p["id"] not in bad]
        _write(out, valid)
    report_path = out.with_name(out.stem + ".report.json")
    report = {"source": source, "provenance": meta, "out": str(out), "written": len(valid),
              "skipped": skipped, "excluded": excluded, "report": str(report_path)}
    report_path.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return report


def _write(path: Path, pairs: list[dict[str, Any]]) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for p in pairs:
            fh.write(json.dumps(p, ensure_ascii=False) + "\n")
