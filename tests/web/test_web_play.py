"""The play view in a browser: a whole Tavla 1-point game against the easy bot played by clicks (checker
then target on the board for the first plays, the legal-play buttons after), confirm and undo, a reload
that continues the game from the address, the dice verified and the match exported once it is over; the
start form and a game on a phone-sized screen; the board in the centre once a game runs (the new-game form
folded above it), and an address that stays the next view's when the user leaves before a game has loaded.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest
from bench_platform import LOCAL_KEY, Api
from webkit import shot

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect
PHONE = {"width": 390, "height": 844}
READY = (
    ".play-view:not([aria-busy]) "
    ":is(#pl-finished, #pl-roll, #pl-legal, #pl-accept, #pl-confirm, #pl-held-anyway)"
)


def start_tavla(page: Any) -> str:
    page.goto("/?view=play")
    page.select_option("#pl-variant", "tavla")
    page.fill("#pl-length", "1")
    page.select_option("#pl-level", "easy")
    page.check("#pl-trainer")
    page.click("#pl-start")
    expect(page.locator("#pl-status")).to_contain_text("match to 1")
    m = re.search(r"[?&]game=(g[0-9a-f]+)", page.url)
    assert m, page.url
    return m.group(1)


def play_by_board(page: Any) -> bool:
    """Click highlighted sources and targets until the play is complete; True when it is."""
    for _ in range(12):
        if page.locator("#pl-confirm").count():
            return True
        points = page.eval_on_selector_all(
            "#pl-board .highlight",
            "els => els.map(e => e.closest('[data-point]')?.dataset.point"
            " ?? (e.classList.contains('bar') ? '25' : '0'))",
        )
        if not points:
            return False
        page.click(f'#pl-board .hit[data-point="{points[0]}"]')
    return page.locator("#pl-confirm").count() > 0


def test_a_whole_tavla_game_by_clicks(page: Any) -> None:
    game_id = start_tavla(page)
    page.click("#pl-roll")  # the opening roll
    expect(page.locator("#pl-events li").first).to_contain_text("Opening roll")
    # a reload continues the game from the address
    page.reload()
    expect(page.locator("#pl-status")).to_contain_text("Game 1")
    assert f"game={game_id}" in page.url
    board_plays = legal_plays = 0
    undone = shot_taken = False
    deadline = time.monotonic() + 150
    while time.monotonic() < deadline:
        page.wait_for_selector(READY, state="attached")
        if page.locator("#pl-finished").count():
            break
        if page.locator("#pl-held-anyway").count():  # the trainer held a play: made anyway
            page.click("#pl-held-anyway")
            continue
        if page.locator("#pl-confirm").count():
            page.click("#pl-confirm")
            continue
        if page.locator("#pl-legal").count():
            if board_plays < 3 and play_by_board(page):
                board_plays += 1
                if not undone:  # undo the last step, then make it again
                    page.click("#pl-undo")
                    expect(page.locator("#pl-confirm")).to_have_count(0)
                    assert play_by_board(page)
                    undone = True
                if not shot_taken:
                    expect(page.locator("#pl-board .arrow").first).to_be_visible()
                    shot(page, "play")
                    shot_taken = True
                page.click("#pl-confirm")
                continue
            if not page.locator("#pl-legal").is_visible():
                page.click("details.legal summary")
            page.locator("#pl-legal button").first.click()
            expect(page.locator("#pl-pending")).to_be_visible()
            page.click("#pl-confirm")
            legal_plays += 1
            continue
        if page.locator("#pl-roll").count():
            page.click("#pl-roll")
            continue
        if page.locator("#pl-accept").count():
            page.click("#pl-accept")
            continue
    expect(page.locator("#pl-finished")).to_be_visible()
    assert board_plays >= 1, "no play was made on the board"
    events = page.locator("#pl-events").inner_text()
    assert "pulvezar rolled" in events and "You played" in events
    assert re.search(r"won the game", events), events
    # the dice: verified against the commitment shown from the start
    page.click("#pl-verify")
    expect(page.locator("#pl-verified")).to_contain_text("Verified")
    # the match file, downloaded from a Blob URL
    with page.expect_download() as download:
        page.click("#pl-export-mat")
    assert download.value.suggested_filename == f"{game_id}.mat"
    text = Path(download.value.path()).read_text()
    assert "Variation" in text or "Tavla" in text, text[:300]
    with page.expect_download() as download:  # the .sgf too: Tavla rules, which gnubg cannot read
        page.click("#pl-export-sgf")
    text = Path(download.value.path()).read_text()
    assert "RU[Tavla" in text and "GNU Backgammon cannot read Tavla" in text, text[:300]
    shot(page, "play-finished")


def test_undo_and_legal_play_buttons_in_an_international_game(page: Any) -> None:
    page.goto("/?view=play")
    page.select_option("#pl-variant", "international")
    page.fill("#pl-length", "3")
    page.click("#pl-start")
    expect(page.locator("#pl-status")).to_contain_text("match to 3")
    # roll until a roll of ours has plays to choose from: the bot may have won the opening, and a roll
    # with one legal play is played for us
    for _ in range(6):
        page.click("#pl-roll")
        page.wait_for_selector(READY, state="attached")
        if page.locator("#pl-legal").count():
            break
        assert page.locator("#pl-roll").count(), page.locator("#pl-events").inner_text()
    if not page.locator("#pl-legal").is_visible():
        page.click("details.legal summary")  # more than 24 plays start folded
    first = page.locator("#pl-legal button").first
    notation = first.inner_text()
    first.click()
    expect(page.locator("#pl-pending")).to_contain_text(notation)
    page.click("#pl-undo")
    expect(page.locator("#pl-pending")).to_have_count(0)
    expect(page.locator("#pl-legal")).to_be_visible()  # a list the player opened stays open
    page.click("details.legal summary")  # and one folded stays folded, though a hint draws the panel again
    page.click("#pl-hint")
    expect(page.locator("#pl-hints")).to_be_visible()
    expect(page.locator("#pl-legal")).to_be_hidden()
    page.click("details.legal summary")
    page.locator("#pl-legal button").first.click()
    page.click("#pl-confirm")
    expect(page.locator("#pl-events")).to_contain_text(f"You played {notation}")
    expect(page.locator("#pl-resign")).to_be_attached()


@pytest.mark.parametrize("page", [PHONE], indirect=True)
def test_play_on_a_phone(page: Any) -> None:
    page.goto("/?view=play")
    expect(page.locator("#pl-start")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.click("#pl-start")
    page.click("#pl-roll")
    page.wait_for_selector(READY, state="attached")
    if page.locator("#pl-roll").count():
        page.click("#pl-roll")
        page.wait_for_selector(READY, state="attached")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    # the board takes the main area's whole width; the folded form stays a line above it
    board, main = box(page, "#pl-board"), box(page, "#view .play-view")
    assert abs(board["width"] - main["width"]) <= 2, (board, main)
    expect(page.locator("#pl-start-form")).to_be_hidden()
    shot(page, "play-phone")


def box(page: Any, selector: str) -> dict[str, float]:
    b = page.locator(selector).bounding_box()
    assert b, selector
    return dict(b)


def query(page: Any) -> dict[str, str]:
    return dict(re.findall(r"[?&]([^=&]+)=([^&]*)", page.url))


def test_the_board_takes_the_centre_once_a_game_runs(page: Any) -> None:
    page.goto("/?view=play")
    expect(page.locator("#pl-start-form")).to_be_visible()
    expect(page.locator("#pl-setup")).to_have_count(0)  # no game: the form is the view
    page.select_option("#pl-variant", "international")
    page.click("#pl-start")
    expect(page.locator("#pl-status")).to_contain_text("match to 1")
    first = query(page)["game"]
    # the form folds into its summary line, which names the game's rules
    expect(page.locator("#pl-start-form")).to_be_hidden()
    expect(page.locator("#pl-setup-summary")).to_contain_text("International · match to 1 · easy")
    board, main = box(page, "#pl-board"), box(page, "#view")
    centre = board["x"] + board["width"] / 2
    assert abs(centre - (main["x"] + main["width"] / 2)) <= 4, (board, main)
    assert board["width"] >= 400  # centred, not squeezed
    # reopened by its summary line (and by the "New game" button), above the same game
    page.click("#pl-setup-summary")
    expect(page.locator("#pl-start-form")).to_be_visible()
    expect(page.locator("#pl-board")).to_be_visible()
    page.click("#pl-roll")  # the board re-renders: the opened form stays open
    page.wait_for_selector(READY, state="attached")
    expect(page.locator("#pl-start-form")).to_be_visible()
    page.click("#pl-setup-summary")
    expect(page.locator("#pl-start-form")).to_be_hidden()
    page.click("#pl-new")
    expect(page.locator("#pl-start-form")).to_be_visible()
    expect(page.locator("#pl-variant")).to_be_focused()
    # a new game from it: the form folds again over the new game
    page.select_option("#pl-variant", "tavla")
    page.click("#pl-start")
    expect(page.locator("#pl-setup-summary")).to_contain_text("Tavla")
    expect(page.locator("#pl-start-form")).to_be_hidden()
    assert query(page)["game"] != first


def test_leaving_before_the_game_has_loaded_keeps_the_other_view(page: Any, platform: Any) -> None:
    game = Api(platform.url, LOCAL_KEY).call("POST", "/v1/games", {})["id"]
    held: list[Any] = []  # the game's GET, answered only once the user has left the Play view
    page.route(f"**/v1/games/{game}", lambda route: held.append(route))
    page.goto(f"/?view=play&game={game}")
    for _ in range(100):
        if held:
            break
        page.wait_for_timeout(50)
    assert held, "the Play view did not ask for its game"
    page.click('#nav a[data-nav="daily"]')
    expect(page.locator("#view")).to_have_attribute("data-view", "daily")
    with page.expect_event("requestfinished", lambda r: r.url.endswith(f"/v1/games/{game}")):
        held[0].continue_()
    page.evaluate("() => new Promise((r) => setTimeout(r, 100))")  # the late answer's own tasks
    assert query(page) == {"view": "daily"}, page.url
    expect(page.locator("#view")).to_have_attribute("data-view", "daily")
    expect(page.locator("#pl-status")).to_have_count(0)
