"""The match-equity table view in a browser (issue 30): the library's numbers, a score's take point, other
tables and lengths, in English, German and Turkish, and on a phone."""

from __future__ import annotations

from typing import Any

import pytest
from webkit import shot

from pulvezar.met import MatchEquity

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect


def test_the_match_equity_table(page: Any) -> None:
    page.goto("/?view=met")
    grid = page.locator("#mt-table-grid")
    expect(grid.locator("tbody tr")).to_have_count(8)  # 1- to 7-away, and post-Crawford
    met = MatchEquity.kazaross_xg2()
    cell = grid.locator(".mt-cell[data-me='2'][data-them='4']")
    expect(cell).to_have_text(f"{100 * met.mwc(2, 4):.1f}")
    cell.click()
    tp = met.take_point(2, 4)
    assert tp is not None
    expect(page.locator("#mt-detail")).to_contain_text(f"{100 * tp:.1f} %")
    shot(page, "match-equity")
    page.select_option("#mt-length", "11")
    expect(grid.locator("tbody tr")).to_have_count(12)
    assert "length=11" in page.url
    page.select_option("#mt-table", "tavla")
    expect(page.locator("#mt-table-grid .mt-post")).to_have_count(0)  # no cube in Tavla
    page.select_option("#lang", "de")
    expect(page.locator("h1")).to_have_text("Match-Equity")
    page.select_option("#lang", "tr")
    expect(page.locator("h1")).to_have_text("Maç eşitliği")


@pytest.mark.parametrize("page", [{"width": 390, "height": 844}], indirect=True)
def test_the_table_on_a_phone(page: Any) -> None:
    page.goto("/?view=met")
    expect(page.locator("#mt-table-grid")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
