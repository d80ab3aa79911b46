"""Helpers for the live tests."""

from __future__ import annotations

import os


def server_threads() -> int:
    """2 threads on an idle machine; 1 when other work keeps the second core busy (llama.cpp's
    threads spin, so two of them on a busy core are 10-30 times slower; answers are the same
    for any thread count)."""
    return 1 if os.getloadavg()[0] > 1.5 else 2
