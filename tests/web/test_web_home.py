"""The player's home (views/home.js, the landing view) and the header's box that opens a pasted link or ID
(links.js, docs/web.md "Links"), in one walk: the welcome without a player, the tiles of a player with a
running game (its own, not another player's newer one) and a card due, a desktop and a phone, axe-core over
both, and the link formats."""

from __future__ import annotations

import re
from typing import Any

import pytest
from bench_platform import LOCAL_KEY, Api
from webkit import axe_violations, shot

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect
START = "4HPwATDgc/ABMA"


@pytest.fixture(scope="module")
def player(platform: Any) -> dict[str, Any]:
    api = Api(platform.url, LOCAL_KEY)
    who = api.call("POST", "/v1/players", {"name": "Home"})
    saved = api.call("POST", "/v1/library/positions", {"position": START, "name": f"Home {who['id'][-6:]}"})
    api.call("POST", f"/v1/players/{who['id']}/cards", {"position": saved["id"], "dice": [3, 1]})
    game = api.call("POST", "/v1/games", {"player": who["id"]})
    # a newer running game of another player of this key (this browser): not this player's home
    other = api.call("POST", "/v1/players", {"name": "Someone else"})
    api.call("POST", "/v1/games", {"player": other["id"]})
    return {"id": who["id"], "game": game["id"]}


def query(page: Any) -> dict[str, str]:
    return dict(re.findall(r"[?&]([^=&]+)=([^&]*)", page.url))


def test_home_links_and_the_open_box(page: Any, player: dict[str, Any]) -> None:
    # no player in this browser: the welcome, whose button asks who plays
    page.goto("/")
    expect(page.locator("#view")).to_have_attribute("data-view", "home")
    expect(page.locator("#home-welcome")).to_be_visible()
    assert not axe_violations(page)
    page.click("#home-who")
    expect(page.locator("#player-dialog")).to_be_visible()
    page.keyboard.press("Escape")

    # the player's tiles: the running game, the cards due, the streak, the plan, the PR
    page.evaluate("(id) => localStorage.setItem('pulvezar.player', id)", player["id"])
    page.goto("/")
    expect(page.locator("#home-due")).to_have_text("1")
    expect(page.locator("#home-streak")).to_have_text("0")
    expect(page.locator("#home-pr-none")).to_be_visible()
    expect(page.locator("#home-plan-link")).to_be_visible()
    expect(page.locator("#home-continue")).to_have_attribute(  # the player's own running game
        "href", f"/?view=play&game={player['game']}"
    )
    assert not axe_violations(page)
    shot(page, "home")
    page.set_viewport_size({"width": 390, "height": 844})
    wide = "(e) => e.getBoundingClientRect().right > innerWidth + 1"  # no sideways scrolling on a phone
    js = f"() => [...document.querySelectorAll('body *')].filter({wide}).map((e) => e.id || e.tagName)"
    assert page.evaluate(js) == []
    assert not axe_violations(page)
    shot(page, "home-phone")
    page.set_viewport_size({"width": 1280, "height": 900})
    page.click("#home-cards-link")
    expect(page.locator("#view")).to_have_attribute("data-view", "cards")
    page.go_back()
    expect(page.locator("#home-due")).to_have_text("1")

    # the open box: a pulvezar:// position link, a game ID, an address of this app, and a text it cannot open
    box = page.locator("#open-input")
    box.fill(f"pulvezar://konum/{START}?dice=31")
    box.press("Enter")
    expect(page.locator(".pips-line")).to_contain_text("Pips: 167")
    assert query(page)["dice"] == "31"
    box.fill(player["game"])
    page.click("#open-button")
    expect(page.locator("#view")).to_have_attribute("data-view", "play")
    expect(page.locator("#view svg.board")).to_be_visible()  # the game is drawn (and its address kept)
    assert query(page)["game"] == player["game"]
    box.fill("pulvezar://daily/2026-01-02?rules=tavla")
    box.press("Enter")
    expect(page.locator("#view")).to_have_attribute("data-view", "daily")
    assert query(page)["date"] == "2026-01-02" and query(page)["rules"] == "tavla"
    box.fill("not a link at all")
    box.press("Enter")
    expect(page.locator("#toast")).to_contain_text("no link or ID")
    assert query(page)["view"] == "daily"
