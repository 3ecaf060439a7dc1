"""The nine languages in a browser (issue 44): the first visit follows the browser's language, the menu
offers all nine, the switch relabels the view and is kept, and numbers are written the language's way."""

from __future__ import annotations

from typing import Any

import pytest

from pulvezar.met import MatchEquity

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect


def test_the_browsers_language_the_switch_and_numbers(browser: Any, platform: Any) -> None:
    context = browser.new_context(base_url=platform.url, locale="fr-FR")
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto("/?view=met")
        expect(page.locator("html")).to_have_attribute("lang", "fr")
        expect(page.locator("h1")).to_have_text("Équité de match")
        expect(page.locator("#lang option")).to_have_count(9)
        page.locator("#mt-table-grid .mt-cell[data-me='2'][data-them='4']").click()
        tp = MatchEquity.kazaross_xg2().take_point(2, 4)
        assert tp is not None
        expect(page.locator("#mt-detail")).to_contain_text(f"{100 * tp:.1f} %".replace(".", ","))
        page.select_option("#lang", "es")
        expect(page.locator("h1")).to_have_text("Equity de partido")
        page.select_option("#lang", "pt")
        expect(page.locator("h1")).to_have_text("Equity de partida")
        page.reload()
        expect(page.locator("h1")).to_have_text("Equity de partida")  # the choice is kept
        assert not errors
    finally:
        context.close()
