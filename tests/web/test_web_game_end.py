"""The end of a game and of a match in the browser (issue 44): a 1-point match resigned whole from the play
view ends with the summary card (how, duration, average roll, quick PR, hints, warnings), the downloads and
the share buttons (the Web Share API with the server's PNG, else a download);
an unfinished match is deleted."""

from __future__ import annotations

from typing import Any

import pytest
from bench_platform import LOCAL_KEY, Api
from webkit import shot

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect

#: the browser's share sheet, which a headless browser has not: what the page shares is kept to be read
SHARE_SHEET = """
window.__shared = [];
navigator.canShare = (data) => Array.isArray(data?.files) && data.files.length > 0;
navigator.share = async (data) => {
  for (const f of data.files) window.__shared.push({ name: f.name, type: f.type, size: f.size,
    head: Array.from(new Uint8Array(await f.slice(0, 4).arrayBuffer())) });
};
"""


def test_resign_the_match_see_the_summary_share_and_delete(page: Any, platform: Any) -> None:
    api = Api(platform.url, LOCAL_KEY)
    page.add_init_script(SHARE_SHEET)
    st = api.call("POST", "/v1/games", {"match_length": 1, "bot": {"level": "easy"}})
    page.goto(f"/?view=play&game={st['id']}")
    page.click("#pl-roll")  # the opening roll
    expect(page.locator("#pl-events li")).not_to_have_count(0)
    expect(page.locator("#ge-summary")).to_have_count(0)  # no game has ended
    page.click("#ge-forfeit")
    expect(page.locator("#ge-confirm-yes")).to_be_focused()  # the second click confirms it
    page.keyboard.press("Enter")
    expect(page.locator("#ge-how")).to_have_text("match resigned")
    # the event line says how in the end card's words, not the API's value
    expect(page.locator("#pl-events")).to_contain_text("won the game: 1 point(s), match resigned.")
    expect(page.locator("#pl-events")).not_to_contain_text("forfeit.")
    expect(page.locator("#ge-result")).to_contain_text("pulvezar won 1 point")
    expect(page.locator("#ge-average_roll")).to_contain_text("/")
    expect(page.locator("#ge-hints")).to_have_text("0")
    end = api.call("GET", f"/v1/games/{st['id']}/end")
    shown = [("–" if x is None else f"{x:.1f}") for x in (end["you"]["pr"], end["bot"]["pr"])]
    expect(page.locator("#ge-pr")).to_have_text(" / ".join(shown))  # the quick 0-ply PR, each side's
    expect(page.locator("#ge-end")).to_contain_text("quick 0-ply estimate")
    expect(page.locator("#ge-match")).to_have_count(0)  # nothing left to resign or delete
    assert api.call("GET", f"/v1/games/{st['id']}")["result"]["reason"] == "forfeit"
    with page.expect_download() as info:  # the match's file
        page.click("#pl-export-mat")
    assert info.value.suggested_filename == f"{st['id']}.mat"
    page.click("#ge-share-card")  # the result card through the share sheet
    for _ in range(100):  # (wait_for_function evaluates a string: the page's CSP refuses it)
        if page.evaluate("() => window.__shared.length"):
            break
        page.wait_for_timeout(50)
    shared = page.evaluate("() => window.__shared[0]")
    assert shared["name"] == f"{st['id']}-result.png" and shared["type"] == "image/png"
    assert shared["head"] == [0x89, 0x50, 0x4E, 0x47] and shared["size"] > 1000
    # a browser without the Web Share API: a download
    page.evaluate("() => { navigator.canShare = undefined; }")
    with page.expect_download() as info:
        page.click("#ge-share-board")
    assert info.value.suggested_filename == f"{st['id']}-board.png"
    shot(page, "game_end")
    page.set_viewport_size({"width": 390, "height": 844})  # a phone: the card fits the width
    box = page.locator("#ge-end").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    page.locator("#ge-end").scroll_into_view_if_needed()
    shot(page, "game_end_phone")
    # an unfinished match is deleted, after a second click
    other = api.call("POST", "/v1/games", {"match_length": 3, "bot": {"level": "easy"}})
    page.goto(f"/?view=play&game={other['id']}")
    page.click("#ge-delete")
    page.click("#ge-confirm-yes")
    expect(page.locator("#pl-start")).to_be_visible()
    with pytest.raises(RuntimeError, match="404"):
        api.call("GET", f"/v1/games/{other['id']}")
