"""`evalkit view` in a real browser (headless Chromium, as tests/report/test_browser.py): from the
report's leaderboard, served by the viewer, to a failing pair's act and abstain sides."""

from __future__ import annotations

import pytest
from browser_helpers import BROWSER_MARKS, CHROMIUM, FLAGS

pytestmark = BROWSER_MARKS


@pytest.fixture(scope="module")
def page():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("dialog", lambda d: (errors.append(d.message), d.dismiss()))
        yield page, errors
        browser.close()


def test_from_the_leaderboard_to_a_failing_pairs_two_sides(page, served, tmp_path):
    page, errors = page
    base, _ = served
    page.goto(f"{base}/run/kinds/report.html")
    row = page.locator('#leaderboard tr[data-group="scripted/always_act|tool|off"]')
    link = row.locator("a.failing")
    assert link.is_visible()  # shown when the report is served by the viewer
    link.click()
    page.wait_for_load_state("load")
    assert "/run/kinds/view/pairs?" in page.url and "right=wrong" in page.url
    page.locator("a.pair-link").first.click()
    page.wait_for_load_state("load")
    view = page.locator("#pair-view")
    act, abstain = view.locator(".hd.side-act"), view.locator(".hd.side-abstain")
    assert "act side:" in act.inner_text() and "abstain side:" in abstain.inner_text()
    assert "wrong" in abstain.inner_text() and "acted_when_should_not" in abstain.inner_text()
    text = view.inner_text()
    assert "turn 1" in text and "expected" in text
    page.screenshot(path=str(tmp_path / "pair-view.png"), full_page=True)
    assert not errors


def test_the_report_opened_as_a_file_hides_the_viewer_links(page, kinds_run):
    page, _ = page
    page.goto((kinds_run / "report.html").resolve().as_uri())
    assert not page.locator("#leaderboard a.failing").first.is_visible()
