"""One player per browser (issue 44): a new user is asked who plays, makes a player in the header's dialog,
plays a Tavla game, answers the daily position and an exercise, imports a match saying which of its players
they are, and then finds all of it in Statistics, Achievements and the Plan without naming the player
anywhere but the header; switching to another player in the header shows that player's empty record."""

from __future__ import annotations

import re
import secrets
import time
from pathlib import Path
from typing import Any

import pytest
from bench_platform import LOCAL_KEY, Api
from test_web_book_daily import produce_today
from webkit import shot

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect
MATCH = Path(__file__).resolve().parents[1] / "services" / "data" / "match1495872.txt"  # lasse v yuko, 1 game
READY = ".play-view:not([aria-busy]) :is(#pl-finished, #pl-roll, #pl-legal, #pl-accept, #pl-confirm)"


def make_player(page: Any, name: str) -> str:
    """The header's dialog: a new player, who then plays in this browser; its id."""
    page.click("#player-button")
    dialog = page.locator("#player-dialog")
    expect(dialog.locator("#pl-name")).to_be_visible()
    dialog.locator("#pl-name").fill(name)
    dialog.locator("#pl-make").click()
    expect(dialog).to_be_hidden()
    expect(page.locator("#player-button")).to_have_text(f"Playing: {name}")
    return str(page.evaluate("localStorage.getItem('pulvezar.player')"))


def play_a_tavla_game(page: Any) -> str:
    """A Tavla 1-point game against the easy bot, by the legal-play buttons, to its end; the game's id."""
    page.goto("/?view=play")
    page.select_option("#pl-variant", "tavla")
    page.fill("#pl-length", "1")
    page.select_option("#pl-level", "easy")
    page.click("#pl-start")
    expect(page.locator("#pl-status")).to_contain_text("match to 1")
    game = re.search(r"[?&]game=(g[0-9a-f]+)", page.url)
    assert game, page.url
    deadline = time.monotonic() + 150
    while time.monotonic() < deadline:
        page.wait_for_selector(READY, state="attached")
        if page.locator("#pl-finished").count():
            break
        for button in ("#pl-confirm", "#pl-roll", "#pl-accept"):
            if page.locator(button).count():
                page.click(button)
                break
        else:
            if not page.locator("#pl-legal").is_visible():
                page.click("details.legal summary")
            page.locator("#pl-legal button").first.click()
    expect(page.locator("#pl-finished")).to_be_visible()
    return game.group(1)


def test_a_new_player_plays_answers_and_finds_it_all(page: Any, platform: Any) -> None:
    api = Api(platform.url, LOCAL_KEY)
    name = f"Web {secrets.token_hex(3)}"
    page.goto("/?view=daily")
    # asked once: the question under the header until a player is chosen
    expect(page.locator("#player-button")).to_have_text("Who is playing?")
    expect(page.locator("#player-ask")).to_contain_text("Who is playing?")
    pid = make_player(page, name)
    expect(page.locator("#player-ask")).to_be_hidden()
    shot(page, "player-chosen")

    # a game: recorded for the header's player
    game_id = play_a_tavla_game(page)
    assert api.call("GET", f"/v1/games/{game_id}")["player"] == pid

    # the daily position: without its answer until the attempt, which counts
    produce_today(platform)
    page.goto("/?view=daily")
    expect(page.locator("#dy-board svg.board")).to_be_visible()
    expect(page.locator("#dy-reveal")).to_be_hidden()
    page.locator("#dy-choices input[type=radio]").first.check()
    page.locator("#dy-check").click()
    expect(page.locator("#dy-attempt")).to_contain_text("Your first attempt: it counts")
    expect(page.locator("#dy-result .dy-verdict")).to_be_visible()
    expect(page.locator("#dy-choices label.right")).to_have_count(1)
    expect(page.locator("#dy-result table tr.answer")).to_have_count(1)
    shot(page, "daily-attempt")
    page.reload()  # attempted: the whole puzzle now, and a second check does not count
    expect(page.locator("#dy-reveal")).to_be_visible()

    # an exercise: the training view is the header's player's without ?player=
    page.goto("/?view=training")
    expect(page.locator("#pl-select")).to_have_value(pid)
    page.locator(".tr-kind[data-kind='bear-off']").click()
    page.locator("#tr-plays button").first.click()
    expect(page.locator("#tr-streak")).to_contain_text("of 1 right")

    # an import: the player's own name is neither of the file's players, so "which player are you?" with
    # their names; one chosen, the upload goes again
    page.goto("/?view=analysis")
    page.set_input_files("#an-file", str(MATCH))
    page.select_option("#an-level", "0ply")
    page.click("#an-submit")
    expect(page.locator("#an-which")).to_contain_text("Which player are you?")
    expect(page.locator("#an-which .an-me-pick")).to_have_text(["lasse", "yuko"])
    page.locator("#an-which .an-me-pick", has_text="lasse").click()
    expect(page.locator("#an-players")).to_be_visible(timeout=60_000)
    deadline = time.monotonic() + 60  # the player's record takes the analysis when the job is done
    while time.monotonic() < deadline:
        recent = api.call("GET", f"/v1/players/{pid}/statistics")["recent_matches"]
        if any(m["opponent"] == "yuko" for m in recent):
            break
        time.sleep(0.5)

    # Statistics, Achievements and Plan: all of it, for the header's player
    page.goto("/?view=statistics")
    expect(page.locator("#pl-select")).to_have_value(pid)
    games = page.locator("#st-games tbody tr").first
    expect(games.locator("td").nth(1)).to_have_text("1")  # the Tavla game played
    expect(page.locator("#st-daily tbody tr").first).to_contain_text("/ 1")
    expect(page.locator("#st-exercises-table tbody tr")).to_have_count(1)
    expect(page.locator("#st-exercises-table tbody tr")).to_contain_text("/ 1")
    expect(page.locator("#st-recent-table")).to_contain_text("yuko")
    expect(page.locator(".st-badges li.reached[data-id='imported_match']")).to_be_visible()
    expect(page.locator("#st-plan")).to_be_visible()
    # a plan needs 40 analysed decisions of one position type: a new player's says so
    expect(page.locator("#st-plan-reason")).to_contain_text("40")
    shot(page, "player-statistics")

    # another player, made in the header: the view again, for the new player's empty record
    other = make_player(page, f"{name} 2")
    assert other != pid
    expect(page.locator("#pl-select")).to_have_value(other)
    expect(page.locator("#st-games tbody tr").first.locator("td").nth(1)).to_have_text("0")
    expect(page.locator("#st-exercises-table")).to_have_count(0)
    page.select_option("#lang", "de")
    expect(page.locator("#player-button")).to_have_text(f"Es spielt: {name} 2")
    page.select_option("#lang", "tr")
    expect(page.locator("#player-button")).to_have_text(f"Oynayan: {name} 2")
