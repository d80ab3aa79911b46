"""A SQLite cache of model calls (DESIGN §7; field case C25).

The key is the sha256 of a canonical JSON object holding every input that can change the
answer: the cache format version, provider, model, endpoint, messages, tool definitions,
``tool_choice`` and every sampling parameter (temperature, top_p, max_tokens, seed, stop,
extra request fields). Rules:

* only successful responses are stored, as ``{"body", "latency_s"}`` with the body exactly
  as received (thinking blocks and their signatures included); errors, and 200 answers
  that report an error, are never cached;
* a sampled call (temperature above 0, or not set) without a seed is keyed by the
  episode's epoch as well, so repeated epochs never collapse into one cached answer;
* a hit is read by the provider's translator again, so it gives the same typed output,
  usage and latency as the first call, and is marked ``cached`` in the trace and counted in
  the summary;
* the messages in the key include the reasoning blocks replayed to the provider.

The file is ``<cache dir>/model_calls.sqlite``; the cache dir is ``$EVALKIT_CACHE_DIR``,
else ``$XDG_CACHE_HOME/evalkit``, else ``~/.cache/evalkit`` (:func:`cache_dir`). One
connection is shared by the run's threads behind a lock (WAL journal).
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

CACHE_FORMAT_VERSION = 2
"""Bump when the key or the stored response format changes: old entries stop matching."""


def cache_dir() -> Path:
    """Where evalkit keeps its model-call cache and the local model file (not created here)."""
    env = os.environ.get("EVALKIT_CACHE_DIR")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "evalkit"


def is_sampled(sampling: dict[str, Any]) -> bool:
    """Whether a call with these sampling parameters may answer differently each time
    (temperature above 0, or left to the provider's default)."""
    temperature = sampling.get("temperature")
    return temperature is None or temperature > 0


def cache_key(
    *,
    provider: str,
    model: str,
    endpoint: str,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]],
    sampling: dict[str, Any],
    epoch: int | None = None,
) -> str:
    """The cache key of one call (hex sha256).

    Args:
        provider: ``openai``, ``anthropic`` or ``local``.
        model: The provider's model name.
        endpoint: The base URL, or a stable identity for a local server (its port changes).
        messages: The messages sent (as built by the context builder).
        tools: The tool definitions sent.
        sampling: Every sampling parameter that is set, ``tool_choice`` included.
        epoch: The episode's epoch; used only for sampled calls without a seed.
    """
    sample_index = epoch if is_sampled(sampling) and sampling.get("seed") is None else None
    payload = {
        "v": CACHE_FORMAT_VERSION,
        "provider": provider,
        "model": model,
        "endpoint": endpoint,
        "messages": messages,
        "tools": tools,
        "sampling": sampling,
        "sample_index": sample_index,
    }
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class CallCache:
    """Responses of successful model calls, by :func:`cache_key`.

    Args:
        path: The SQLite file (its folder is created).

    Attributes:
        hits: Lookups answered from the cache since it was opened.
        misses: Lookups not answered.
    """

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS calls (key TEXT PRIMARY KEY, provider TEXT, model TEXT,"
                " created REAL, response TEXT NOT NULL)"
            )
            self._db.commit()
        self.hits = 0
        self.misses = 0

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored response for ``key``, or ``None``."""
        with self._lock:
            row = self._db.execute("SELECT response FROM calls WHERE key = ?", (key,)).fetchone()
            if row is None:
                self.misses += 1
                return None
            self.hits += 1
        return json.loads(row[0])

    def put(self, key: str, response: dict[str, Any], *, provider: str = "", model: str = "") -> None:
        """Store a successful response (never call this for an error)."""
        text = json.dumps(response, ensure_ascii=False, allow_nan=False)
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO calls (key, provider, model, created, response) VALUES (?, ?, ?, ?, ?)",
                (key, provider, model, time.time(), text),
            )
            self._db.commit()

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM calls").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()


_OPEN: dict[Path, CallCache] = {}
_OPEN_LOCK = threading.Lock()


def shared_cache(path: str | Path | None = None) -> CallCache:
    """One :class:`CallCache` per file for the whole process (default: :func:`cache_dir`)."""
    p = Path(path) if path is not None else cache_dir() / "model_calls.sqlite"
    p = p.resolve()
    with _OPEN_LOCK:
        hit = _OPEN.get(p)
        if hit is None:
            hit = _OPEN[p] = CallCache(p)
        return hit
