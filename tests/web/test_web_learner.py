"""The learner's views in a browser (issue 29): Statistics with the PR trend as a chart, Cards (a study round)
and the Library, in English, German and Turkish.

The data is made over the public API of ``make run``'s platform, as a client app would: a player, a match
uploaded for it and analysed by the platform's worker (0-ply: seconds), a library position and a card made
from it by hand.
"""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from bench_platform import LOCAL_KEY, Api
from webkit import shot

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect
MATCH = Path(__file__).resolve().parents[1] / "services" / "data" / "match1495872.txt"  # lasse v yuko, 1 game
START = "4HPwATDgc/ABMA"


@pytest.fixture(scope="module")
def learner(platform: Any) -> dict[str, Any]:
    api = Api(platform.url, LOCAL_KEY)
    player = api.call("POST", "/v1/players", {"name": "Ayşe"})
    body = {"file": MATCH.read_text(), "filename": MATCH.name, "level": "0ply", "player": player["id"],
            "player_name": "lasse"}  # fmt: skip
    status, _ = api.analysis(body, timeout=300)
    name = f"Start {player['id'][-6:]}"  # the library is the key's: one name per test run
    saved = api.call("POST", "/v1/library/positions", {"position": START, "name": name, "tags": ["opening"]})
    api.call("POST", f"/v1/players/{player['id']}/cards", {"position": saved["id"], "dice": [3, 1]})
    return {"player": player, "library": saved, "name": name, "job": status["id"], "api": api}


def test_statistics_with_the_pr_trend(page: Any, learner: dict[str, Any]) -> None:
    pid = learner["player"]["id"]
    page.goto(f"/?view=statistics&player={pid}")
    expect(page.locator("#pl-select")).to_have_value(pid)
    chart = page.locator("#st-pr-chart")
    expect(chart).to_be_visible()
    expect(chart.locator("circle.st-point")).to_have_count(1)
    expect(page.locator("#st-pr-summary")).to_contain_text("Last")
    expect(page.locator("#st-recent-table tbody tr")).to_have_count(1)
    expect(page.locator("#st-recent-table tbody tr")).to_contain_text("yuko")
    expect(page.locator(".st-badges li.reached[data-id='imported_match']")).to_be_visible()
    expect(page.locator("#st-rank")).to_have_text("Candidate master")
    expect(page.locator("#st-plan-reason")).to_contain_text("40")
    expect(page.locator("#st-dice-table tbody tr")).to_have_count(6)
    expect(page.locator("#st-body")).not_to_contain_text("null")
    shot(page, "statistics")

    page.select_option("#lang", "de")
    expect(page.locator("h1")).to_have_text("Statistik")
    expect(page.locator("#st-pr h2")).to_have_text("PR-Verlauf")
    expect(page.locator("#st-rank")).to_have_text("Meisteranwärter")
    expect(page.locator("#st-pr-summary")).to_contain_text("Letzter")
    page.select_option("#lang", "tr")
    expect(page.locator("h1")).to_have_text("İstatistik")
    expect(page.locator("#st-rank")).to_have_text("Usta adayı")
    expect(page.locator("#st-pr-chart circle.st-point")).to_have_count(1)


def test_a_study_round_of_cards(page: Any, learner: dict[str, Any]) -> None:
    pid = learner["player"]["id"]
    page.goto(f"/?view=cards&player={pid}")
    expect(page.locator("#cd-deck")).to_contain_text("due today")
    page.locator("#cd-start").click()
    for n in range(30):  # the card made by hand, and any blunder of the analysed match
        if page.locator("#cd-done").count():
            break
        expect(page.locator("#cd-board svg.board")).to_be_visible()
        page.locator("#cd-check").click()
        expect(page.locator("#cd-result .error-message")).to_be_visible()  # choose first
        if page.locator("input[name=cd-play]").count():
            page.locator("input[name=cd-play]").first.check()
            expect(page.locator("#cd-board svg.board .arrows")).to_have_count(1)
        else:
            page.locator("input[name=cd-double]").first.check()
            page.locator("input[name=cd-response]").first.check()
        page.locator("#cd-check").click()
        expect(page.locator("#cd-result .cd-verdict")).to_be_visible()
        expect(page.locator("#cd-back")).to_contain_text("Back on")
        expect(page.locator("#cd-result")).not_to_contain_text("null")
        if n == 0:
            shot(page, "cards")
        page.locator("#cd-next").click()
    expect(page.locator("#cd-done")).to_contain_text("Round done")

    page.select_option("#lang", "de")
    expect(page.locator("h1")).to_have_text("Karten")
    expect(page.locator("#cd-deck")).to_contain_text("heute fällig")
    page.select_option("#lang", "tr")
    expect(page.locator("h1")).to_have_text("Kartlar")
    page.locator("#cd-start").click()
    expect(page.locator("#cd-check")).to_have_text("Kontrol et")


def test_the_library(page: Any, learner: dict[str, Any]) -> None:
    name = learner["name"]
    page.goto(f"/?view=library&q={learner['player']['id'][-6:]}")
    entry = page.locator(".lb-entry", has_text=name)
    expect(entry).to_have_count(1)
    expect(entry.locator(".lb-tag")).to_have_text("opening")
    expect(entry.locator("svg.board")).to_be_visible()
    shot(page, "library")

    # edit in place: name, tags, note; the search finds the note
    entry.locator(".lb-edit").click()
    entry.locator(".lb-name-in").fill(f"{name} (3-1)")
    entry.locator(".lb-tags-in").fill("opening, 31")
    entry.locator(".lb-note-in").fill("make the five point")
    entry.locator(".lb-save").click()
    expect(entry.locator(".lb-name")).to_have_text(f"{name} (3-1)")
    expect(entry.locator(".lb-tag")).to_have_count(2)
    page.locator("#lb-q").fill("five point")
    page.locator("#lb-go").click()
    expect(page.locator(".lb-entry", has_text=name)).to_have_count(1)
    assert "q=five+point" in page.url or "q=five%20point" in page.url
    page.select_option("#lb-rules", "tavla")
    expect(page.locator(".lb-entry", has_text=name)).to_have_count(0)
    expect(page.locator("#lb-count")).to_have_text("No saved position matches.")

    page.select_option("#lang", "de")
    expect(page.locator("h1")).to_have_text("Bibliothek")
    expect(page.locator("#lb-count")).to_have_text("Keine gespeicherte Stellung passt.")
    page.select_option("#lang", "tr")
    expect(page.locator("h1")).to_have_text("Kütüphane")
    page.select_option("#lb-rules", "")
    expect(page.locator(".lb-entry", has_text=name).locator(".lb-open")).to_have_text("Aç")
    page.locator(".lb-entry", has_text=name).locator(".lb-open").click()
    expect(page).to_have_url(re.compile(r"[?&]position=4HPwATDgc%2FABMA"))


def fresh_position() -> str:
    """A position no earlier run saved, with a choice of plays for 4-2: eight random plays from the start
    (the library is the key's)."""
    from pulvezar import Position, Rules

    rng, rules = random.Random(), Rules.international()
    pos = Position.from_position_id(START)
    for _ in range(8):
        plays = list(rules.legal_plays(pos, (rng.randint(1, 6), rng.randint(1, 6))))
        if plays:
            pos = rng.choice(plays).position
    if len(list(rules.legal_plays(pos, (4, 2)))) < 2:  # a card needs a choice with 4-2
        return fresh_position()
    return str(pos.position_id)


def test_cards_and_library_saves_from_the_views(page: Any, learner: dict[str, Any]) -> None:
    """As the browser's player: "add to cards" on an analysis error and on a library position, "save to
    library" in the position view (the save carries the player), then the opening quiz counts its answer."""
    api, pid = learner["api"], learner["player"]["id"]
    deck = lambda: api.call("GET", f"/v1/players/{pid}/cards")["count"]  # noqa: E731
    before = deck()
    page.goto("/")
    page.evaluate("(id) => localStorage.setItem('pulvezar.player', id)", pid)
    page.goto(f"/?view=analysis&job={learner['job']}")
    page.locator("#an-errors .an-card").first.click()
    expect(page.locator("#toast")).to_have_text("Added to your cards.")
    assert deck() in (before, before + 1)  # (an error already a card by itself is returned, not doubled)

    position = fresh_position()
    page.goto(f"/?position={position}&dice=42")
    # the address's position and dice are the view's before it is saved (a click before that saved the
    # start with 3-1, which another test had saved: "Already in the library", the stop-55 clean clone)
    expect(page.locator('#pos-ids [data-id="position_id"] .id-value')).to_have_text(position)
    expect(page.locator("#pos-die1")).to_have_value("4")
    expect(page.locator("#pos-die2")).to_have_value("2")
    page.locator("#pos-save").click()
    expect(page.locator("#toast")).to_contain_text("Saved to the library")
    found = api.call("GET", f"/v1/library/positions?q={quote(position[:8], safe='')}")["positions"]
    saved = [e for e in found if e["player"] == pid]
    assert saved and saved[0]["dice"] == [4, 2], saved
    page.goto(f"/?view=library&q={quote(saved[0]['name'], safe='')}")
    entry = page.locator(".lb-entry", has_text=saved[0]["name"])
    before = deck()
    entry.locator(".lb-card").click()
    expect(page.locator("#toast")).to_have_text("Added to your cards.")
    assert deck() == before + 1

    # the library's Matches tab: the player's imported, analysed match, lost or won, with its PR; a game in
    # play under "Not ended" (from the games API), its bot and rules named in the language, no empty group
    game = api.call("POST", "/v1/games", {"player": pid, "bot": {"level": "easy"}, "match_length": 3})
    page.locator("#lb-tab-matches").click()
    imported = page.locator(".lb-match[data-source='import']")
    expect(imported).to_have_count(1)
    expect(imported).to_contain_text("Imported")
    expect(imported).to_contain_text("PR ")
    expect(page.locator(".lb-group h2").first).to_contain_text("(1)")
    running = page.locator(".lb-group[data-group='open'] .lb-match", has=page.locator(".lb-continue"))
    expect(running).to_contain_text("pulvezar (easy) · 3 · International")
    expect(running).not_to_contain_text("not analysed")  # (a game in play has nothing to analyse yet)
    expect(page.locator("#lb-matches")).not_to_contain_text("null")
    page.select_option("#lang", "tr")
    page.locator("#lb-tab-matches").click()
    expect(running).to_contain_text("pulvezar (kolay) · 3 · Uluslararası")
    page.select_option("#lang", "en")
    page.locator("#lb-tab-matches").click()
    running.locator(".lb-continue").click()
    expect(page).to_have_url(re.compile(rf"view=play&game={game['id']}"))
    page.goto("/?view=library&tab=matches")
    imported.locator(".lb-analysis").click()
    expect(page).to_have_url(re.compile(rf"view=analysis&job={learner['job']}"))

    page.goto("/?view=quiz")
    expect(page.locator("#qz-board svg.board")).to_be_visible()
    page.locator("#qz-choices input[type=radio]").first.check()
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    expect(page.locator("#qz-verdict")).to_be_visible()
    expect(page.locator("#qz-counters")).to_contain_text("of 1")
    expect(page.locator("#qz-choices label.right")).to_have_count(1)
    shot(page, "quiz")
    page.select_option("#lang", "de")
    expect(page.locator("h1")).to_have_text("Eröffnungsquiz")
    page.locator("#qz-next").click()
    page.locator("#qz-choices input[type=radio]").first.check()
    page.locator("#qz-check").click()
    expect(page.locator("#qz-counters")).to_contain_text("von 2")
    page.select_option("#lang", "en")


@pytest.mark.parametrize("page", [{"width": 390, "height": 844}], indirect=True)
def test_the_learners_views_on_a_phone(page: Any, learner: dict[str, Any]) -> None:
    pid = learner["player"]["id"]
    for address, visible in (
        (f"/?view=statistics&player={pid}", "#st-pr-chart"),
        (f"/?view=cards&player={pid}", "#cd-deck"),
        ("/?view=library", "#lb-q"),
        ("/?view=quiz", "#qz-check"),
    ):
        page.goto(address)
        expect(page.locator(visible)).to_be_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= 390, address
