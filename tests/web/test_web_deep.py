"""The deep analysis view in a browser (issue 30): a light preset through the platform's worker, its
progress, then the candidates with their noise bands and the playable ones, in English and German."""

from __future__ import annotations

from typing import Any

import pytest
from webkit import shot

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect


def test_a_deep_analysis(page: Any) -> None:
    page.goto("/?view=deep")
    page.fill("#dp-dice", "31")
    page.select_option("#dp-trials", "72")  # one chunk: seconds of the worker
    page.select_option("#dp-ply", "0")
    page.locator("#dp-start").click()
    expect(page.locator("#dp-state")).to_have_attribute("data-state", "done", timeout=120_000)
    rows = page.locator("#dp-table tbody tr")
    expect(rows).to_have_count(5)
    expect(rows.first).to_have_attribute("data-play", "8/5 6/5")
    expect(rows.first.locator("td").last).to_have_text("yes")  # the best is playable
    assert "job=" in page.url
    rows.nth(1).locator("button").click()
    expect(page.locator("#dp-board svg.board .arrows")).to_have_count(1)
    shot(page, "deep-analysis")
    page.select_option("#lang", "de")
    expect(page.locator("h1")).to_have_text("Tiefenanalyse")
    expect(page.locator("#dp-table tbody tr")).to_have_count(5)  # the job again, from the address
