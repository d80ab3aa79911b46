"""The run manifest, ``config.json``: what a run was given and what it will use.

:func:`manifest` records the configuration (with its sha256 and the working directory), the
sha256 of every input file, the suite and the sample, each condition's prompt and meta-tool
definitions, the text classifier's version, the LLM-judge panel, the rule set, the Python
version, the plugins loaded with their metrics (:func:`evalkit.harness.resume.plugins_record`) and the live
models' resolved settings (no secrets). It is written by
:func:`evalkit.harness.run.execute_run` before any episode runs and read back on resume
(:func:`evalkit.harness.config.load_config`) and by the report and the gate.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from evalkit.conditions.classifier import CLASSIFIER_VERSION, reader_identity
from evalkit.conditions.judge.panel import Panel
from evalkit.conditions.registry import get_condition
from evalkit.harness.config import RunConfig, config_sha256, runtime_setup
from evalkit.harness.resume import input_fingerprints, plugins_record, sample_record
from evalkit.scenarios.loader import Suite
from evalkit.version import __version__


def _meta_tools_record(condition: str) -> dict[str, Any]:
    """The meta tools a condition offers, as sent to the model, and their sha256."""
    definitions = [t.definition() for t in get_condition(condition).meta_tools().values()]
    text = json.dumps(definitions, sort_keys=True, ensure_ascii=False)
    return {"meta_tools": [d["function"]["name"] for d in definitions],
            "meta_tools_sha256": hashlib.sha256(text.encode()).hexdigest()}


def judge_record(specs: list[str]) -> dict[str, Any]:
    """The LLM-judge panel for ``config.json``: judges, prompt version and sha256, decision rule."""
    return Panel.from_specs(specs).describe()


def manifest(config: RunConfig, suite: Suite, models: dict[str, Any] | None = None,
             selected: Suite | None = None) -> dict[str, Any]:
    """The run manifest written to ``config.json``.

    Besides the config (as given, with its ``config_sha256``:
    :func:`~evalkit.harness.config.load_config` refuses to resume an edited one; and the
    working directory, against which :func:`~evalkit.harness.config.load_config` resolves its
    relative paths; and the sha256 of its other inputs,
    :func:`~evalkit.harness.resume.input_fingerprints`)
    it records each condition's prompt and meta-tool definitions (with their sha256) and, for
    live models, their resolved settings (no secrets).
    """
    return {
        "evalkit_version": __version__,
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "config": config.model_dump(),
        "config_sha256": config_sha256(config),
        "cwd": str(Path.cwd()),  # relative paths of the config are resolved against it on resume
        "inputs": input_fingerprints(config, selected if selected is not None else suite),
        "suite": {"content_hash": suite.content_hash, "n_pairs": len(suite.pairs),
                  "files": sorted(set(suite.sources.values()))},
        "sample": sample_record(config, selected if selected is not None else suite),
        "conditions": {
            name: {"description": get_condition(name).description,
                   "prompt_sha256": get_condition(name).prompt_sha256,
                   "prompt": get_condition(name).system_prompt,
                   **_meta_tools_record(name)}
            for name in config.conditions
        },
        "classifier_version": CLASSIFIER_VERSION,
        "text_reader": reader_identity(),
        **({"judge": judge_record(config.judges)} if config.judges else {}),
        "rules": runtime_setup(config).rules_identity if config.rules else None,
        "python": sys.version.split()[0],
        "plugins": plugins_record(),  # its metrics must be the same on resume (evalkit.harness.resume.check_plugins)
        "models": {spec: m.describe() for spec, m in (models or {}).items() if hasattr(m, "describe")},
    }
