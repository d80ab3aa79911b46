"""Entries of a model config file and its price table that no model of a run uses.

A model config file (:mod:`evalkit.models.config`) applies its ``models`` entry to a live
model only when the key is the model's spec exactly, and its price table
(:mod:`evalkit.models.pricing`) an entry only when the key is the spec or ``PROVIDER/*``.
A misspelt key (``openai/gpt-4o-mnii``, ``opneai/*``) therefore applies to nothing: the
intended settings are never used and the model's cost is ``null``. When a run's models are
resolved, :func:`unused_entries` names such keys, one line each, so that a typo is seen
before the run's numbers are read. A key is reported when

* its provider prefix is no registered provider (with the closest registered name); or
* it matches no model of the run but is a close match of one (``difflib``, ratio ≥
  :data:`CUTOFF`), with that model as the suggestion.

A key for a model the run simply does not use (one config file shared by several runs) is not
reported.
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Iterable

CUTOFF = 0.8
"""Smallest :class:`difflib.SequenceMatcher` ratio at which an unused key is taken for a typo."""


def _close(word: str, choices: Iterable[str]) -> str | None:
    found = difflib.get_close_matches(word, list(choices), n=1, cutoff=CUTOFF)
    return found[0] if found else None


def _registered(prefix: str) -> bool:
    from evalkit.errors import ConfigError
    from evalkit.models.registry import get_provider

    try:
        get_provider(prefix)  # plugins' providers included
    except ConfigError:
        return False
    return True


def _check(key: str, where: str, specs: list[str], providers: list[str], *, wildcard: bool) -> str | None:
    """The warning for one key, or ``None`` when it applies to a model of the run or to none
    that it resembles."""
    prefix, _, name = key.partition("/")
    if not _registered(prefix):
        guess = _close(prefix, providers)
        hint = f"; did you mean {guess!r}?" if guess else f"; live providers: {', '.join(sorted(providers))}"
        return f"{where} {key!r}: provider prefix {prefix!r} is no registered provider, so it applies to no model{hint}"
    used = key in specs or (wildcard and name == "*" and any(s.partition("/")[0] == prefix for s in specs))
    if used:
        return None
    guess = _close(key, specs)
    if guess is None:
        return None
    return f"{where} {key!r} matches no model of this run; did you mean {guess!r}?"


def unused_entries(specs: Iterable[str], model_config_file: str | Path | None) -> list[str]:
    """Warnings for the model config file's entries that look like typos (module docstring).

    Args:
        specs: The run's model specs (``openai/gpt-4o-mini`` …).
        model_config_file: The ``--model-config`` file, or ``None`` (then nothing to check).

    Returns:
        One line per suspicious key, each naming the file, the entry and a suggestion:
        ``models.yaml: models entry 'openai/gpt-4o-mnii' matches no model of this run; did
        you mean 'openai/gpt-4o-mini'?``. Empty when every key is used or unrelated.

    Raises:
        ConfigError: when the file or its price table cannot be read (as when a run loads it).
    """
    if not model_config_file:
        return []
    from evalkit.models.config import load_model_config
    from evalkit.models.pricing import load_price_table
    from evalkit.models.registry import live_providers

    specs = list(dict.fromkeys(specs))
    providers = list(live_providers())
    cfg, folder = load_model_config(model_config_file)
    out = [f"{model_config_file}: {line}" for key in cfg.models
           if (line := _check(key, "models entry", specs, providers, wildcard=False)) is not None]
    if cfg.prices:
        table = folder / cfg.prices
        out += [f"{table}: {line}" for key in load_price_table(table)
                if (line := _check(key, "price entry", specs, providers, wildcard=True)) is not None]
    return out
