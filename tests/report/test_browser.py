"""The report in a real browser: headless Chromium (Debian's ``chromium``) driven by Playwright.

Checks what only a browser can: the page loads with no console error or page error, a model's
``<script>`` / ``onerror`` payload is shown as text and never runs (no dialog opens, the DOM
holds no such element), the trace viewer renders an episode from the embedded JSON, and a
screenshot is taken. Skipped, with the reason, only when ``/usr/bin/chromium`` is missing.
"""

from __future__ import annotations

import pytest
from browser_helpers import BROWSER_MARKS, CHROMIUM, FLAGS

pytestmark = BROWSER_MARKS


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield b
        b.close()


def _open(browser, path):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    events = {"console": [], "errors": [], "dialogs": []}
    page.on("console", lambda m: events["console"].append((m.type, m.text)))
    page.on("pageerror", lambda e: events["errors"].append(str(e)))
    page.on("dialog", lambda d: (events["dialogs"].append(d.message), d.dismiss()))
    page.goto(path.resolve().as_uri())
    page.wait_for_load_state("load")
    return page, events


def test_payload_is_shown_as_text_and_never_runs(browser, payload_run, payload, tmp_path):
    page, events = _open(browser, payload_run / "report.html")
    assert page.evaluate("document.querySelectorAll('script').length") == 2
    assert page.evaluate("document.querySelectorAll('[onerror]').length") == 0
    assert page.evaluate("document.querySelectorAll('scratchpad').length") == 0
    assert page.evaluate("Array.from(document.images).every(i => i.src.startsWith('data:image/png'))")
    card = page.locator("#failures .gcard").first
    assert "<script>alert(2)</script>" in card.inner_text()
    assert "Is 1<2?" in card.inner_text()
    card.get_by_text("trace →").click()
    view = page.locator("#trace-view")
    view.get_by_text("turn 1").wait_for()
    text = view.inner_text()
    assert payload["arg"] in text  # the tool argument, literally
    assert '<img src=x onerror="alert(1)"><script>alert(2)</script> <scratchpad>plan: read file</scratchpad>' in text
    assert "Is 1<2?" in text and "[truncated:" in text
    assert "schema_mismatch" in text  # the controller's reason code for the unexpected argument
    assert page.evaluate("document.querySelectorAll('#trace-view script, #trace-view img').length") == 0
    shot = tmp_path / "payload.png"
    page.screenshot(path=str(shot), full_page=False)
    assert shot.stat().st_size > 10_000 and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert events["dialogs"] == [] and events["errors"] == []
    assert [c for c in events["console"] if c[0] in ("error", "warning")] == []
    page.close()


def test_hand_run_report_renders_cleanly(browser, hand_run, tmp_path):
    out, summary = hand_run
    page, events = _open(browser, out / "report.html")
    row = page.locator("table.lb tr[data-group='fixture/flaky|tool|off']")
    assert row.locator("td[data-metric='paired_accuracy'] .v").inner_text() == "0.667"
    assert row.locator("[data-metric='errors']").inner_text() == "1"
    assert page.locator("#fail-error").inner_text().startswith("Errored episodes")
    page.locator("#trace-list a").first.click()
    page.locator("#trace-view .turn").first.wait_for()
    assert page.locator("#trace-list a.sel").count() == 1
    page.screenshot(path=str(tmp_path / "hand.png"), full_page=True)
    assert events["errors"] == [] and [c for c in events["console"] if c[0] == "error"] == []
    page.close()
