"""Play from a position, the replay of a finished match and "play from here", and the start form's further
options (the match clock, automatic doubles) in the browser (issue 30), in English, German, on a phone."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

import pytest
from bench_platform import LOCAL_KEY, Api
from webkit import shot

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect
NINE = "4HPwATDgc/ABMA:QYkqASAAIAAA"  # a 9-point match at 2-4, player 1 has rolled 52 on a 2-cube


def finished_match(platform: Any) -> dict[str, Any]:
    """A 1-point match against the easy bot played out over the API (the first legal play, resignations
    refused)."""
    api = Api(platform.url, LOCAL_KEY)
    st = api.call("POST", "/v1/games", {"match_length": 1, "bot": {"level": "easy"}})
    for _ in range(3000):
        if st["status"] == "finished":
            return st
        action = next(a for a in ("roll", "play", "take", "reject", "accept") if a in st["actions"])
        body: dict[str, Any] = {"action": action}
        if action == "play":
            body["position_id"] = st["legal_plays"][0]["position_id"]
        st = api.call("POST", f"{st['href']}/actions", body)
    raise AssertionError("the match did not end")


def game_id(page: Any) -> str:
    m = re.search(r"[?&]game=(g[0-9a-f]+)", page.url)
    assert m, page.url
    return m.group(1)


def test_play_from_a_position_with_the_clock(page: Any, platform: Any) -> None:
    page.goto("/?view=play")
    page.select_option("#pl-variant", "international")
    page.fill("#pl-from", NINE)
    page.check("#pl-clock")
    page.click("#pl-start")
    status = page.locator("#pl-status")
    expect(status).to_contain_text("match to 9")
    expect(status).to_contain_text("Score: you 4 – 2 pulvezar")
    expect(page.locator("#pl-free")).to_have_text("free game")
    expect(page.locator("#pl-clock-line")).to_contain_text("Clock: you 18:")  # 2 minutes a point
    expect(page.locator("#pl-legal button")).not_to_have_count(0)  # the 52 of the ID, to play
    shot(page, "play-from-position")
    st = Api(platform.url, LOCAL_KEY).call("GET", f"/v1/games/{game_id(page)}")
    assert st["dice"] == [5, 2] and st["settings"]["clock"]["enabled"] and st["settings"]["free"]
    page.select_option("#lang", "de")
    expect(page.locator("#pl-free")).to_have_text("freies Spiel")
    expect(page.locator("#pl-clock-line")).to_contain_text("Uhr: du")


def test_a_bad_position_is_named_and_money_has_automatic_doubles(page: Any, platform: Any) -> None:
    page.goto("/?view=play")
    page.select_option("#pl-variant", "international")
    page.fill("#pl-from", "not a position")
    page.click("#pl-start")
    expect(page.locator("#pl-start-form .error-message")).to_contain_text("Position ID")
    page.fill("#pl-from", "")
    page.fill("#pl-length", "0")
    page.fill("#pl-auto-doubles", "2")
    page.click("#pl-start")
    expect(page.locator("#pl-status")).to_contain_text("money session")
    st = Api(platform.url, LOCAL_KEY).call("GET", f"/v1/games/{game_id(page)}")
    assert st["settings"]["money"]["automatic_doubles"] == 2


def test_replay_and_play_from_here(page: Any, platform: Any) -> None:
    done = finished_match(platform)
    page.goto("/?view=replay")
    page.locator(f".rp-game[data-game='{done['id']}']").click()
    status = page.locator("#rp-status")
    expect(status).to_contain_text("Game 1 · step 1 of")
    expect(page.locator("#rp-no-start")).to_be_visible()  # the opening roll: no game starts there
    page.keyboard.press("ArrowRight")
    expect(status).to_contain_text("step 2 of")
    assert "step=1" in page.url
    replay = Api(platform.url, LOCAL_KEY).call("GET", f"/v1/games/{done['id']}/replay")
    step = next(s for s in replay["steps"] if s["action"] == "play" and s["player"] == 0 and s["start"])
    page.locator(f".rp-step[data-step='{step['step']}']").click()
    expect(page.locator("#rp-what")).to_contain_text(step["notation"])
    expect(page.locator("#rp-ids")).to_have_text(step["xgid"])
    shot(page, "replay")
    # the step saved in the library (issue 44): named by its game and step, its position and dice kept
    page.locator("#rp-save").click()
    expect(page.locator("#toast")).to_contain_text(f"Replay: game 1, step {step['step'] + 1}")
    position_id, match_id = step["gnubg_id"].split(":")
    found = Api(platform.url, LOCAL_KEY).call("GET", f"/v1/library/positions?q={quote(match_id, safe='')}")
    assert any(e["position_id"] == position_id for e in found["positions"]), found
    page.locator("#rp-play-here").click()
    expect(page).to_have_url(re.compile(r"view=play&game=g"))
    expect(page.locator("#pl-free")).to_be_visible()
    here = Api(platform.url, LOCAL_KEY).call("GET", f"/v1/games/{game_id(page)}")
    assert here["board"]["gnubg_id"] == step["gnubg_id"] and here["dice"] == step["dice"]
    page.goto(f"/?view=replay&game={done['id']}")
    page.select_option("#lang", "de")
    expect(page.locator("#rp-play-here")).to_have_text("Von hier spielen")


@pytest.mark.parametrize("page", [{"width": 390, "height": 844}], indirect=True)
def test_the_replay_on_a_phone(page: Any, platform: Any) -> None:
    done = finished_match(platform)
    page.goto(f"/?view=replay&game={done['id']}")
    expect(page.locator("#rp-board svg")).to_be_visible()
    page.locator("#rp-next").click()
    expect(page.locator("#rp-status")).to_contain_text("step 2 of")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
