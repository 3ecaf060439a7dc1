"""The similar-positions view in a browser (issue 30): a library position found as 100 % alike, opened in the
position view, in English, German and Turkish, and on a phone."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

import pytest
from bench_platform import LOCAL_KEY, Api
from webkit import shot

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect
SIX_FOUR = "4HPwATDgc/ABMA"  # the start; the library entry is the position after 24/18 13/9, saved below


@pytest.fixture(scope="module")
def saved(platform: Any) -> dict[str, Any]:
    api = Api(platform.url, LOCAL_KEY)
    after = api.call("POST", "/v1/legal-plays", {"position": SIX_FOUR, "dice": [6, 4]})["plays"]
    pid = next(p["position_id"] for p in after if p["notation"] == "24/18 13/9")
    return api.call("POST", "/v1/library/positions", {"position": pid, "name": "split after 6-4"})


def test_similar_positions(page: Any, saved: dict[str, Any]) -> None:
    page.goto(f"/?view=similar&position={quote(saved['position_id'], safe='')}")
    hit = page.locator(f".sm-hit[data-id='{saved['id']}']")
    expect(hit).to_contain_text("100 %")
    expect(hit).to_contain_text("split after 6-4")
    expect(hit.locator("svg.board")).to_be_visible()
    expect(page.locator("#sm-size")).to_contain_text("positions searched")
    shot(page, "similar")
    page.select_option("#lang", "de")
    expect(page.locator("h1")).to_have_text("Ähnliche Stellungen")
    page.select_option("#lang", "tr")
    expect(page.locator("#sm-size")).to_contain_text("pozisyon arandı")
    page.locator(f".sm-hit[data-id='{saved['id']}'] .sm-open").click()
    expect(page).to_have_url(re.compile(r"[?&]position="))
    page.goto("/?view=similar&position=nonsense")
    expect(page.locator("#sm-list .error-message")).to_be_visible()
    page.watch.errors.clear()  # the 422 of the bad ID is the view's to show


@pytest.mark.parametrize("page", [{"width": 390, "height": 844}], indirect=True)
def test_similar_on_a_phone(page: Any, saved: dict[str, Any]) -> None:
    page.goto(f"/?view=similar&position={quote(saved['position_id'], safe='')}")
    expect(page.locator(".sm-hit").first).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
