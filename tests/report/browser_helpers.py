"""What the browser tests share: Debian's Chromium, the flags it runs with, and the marks that
skip a test module (saying why) when it is missing."""

from __future__ import annotations

import os

import pytest

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]

BROWSER_MARKS = [
    pytest.mark.browser,
    pytest.mark.skipif(not os.path.exists(CHROMIUM),
                       reason=f"{CHROMIUM} is missing: install Debian's chromium package (apt-get install -y chromium)"),
]
