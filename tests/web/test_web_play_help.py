"""Help during play in the browser (issue 30): a hint (counted against the match's limit), a check of the
chosen play before it is made, and the resignation preview, in English and German."""

from __future__ import annotations

import re
from typing import Any

import pytest
from bench_platform import LOCAL_KEY, Api
from webkit import shot

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect


def game_to_play(platform: Any) -> dict[str, Any]:
    """A game over the API, rolled on until the human has a roll to play with a choice."""
    api = Api(platform.url, LOCAL_KEY)
    st = api.call("POST", "/v1/games", {"match_length": 3, "bot": {"level": "easy"}, "trainer": True,
                                        "hint_limit": 1})  # fmt: skip
    for _ in range(50):
        if "play" in st["actions"] and len(st["legal_plays"]) > 1:
            return st
        action = "roll" if "roll" in st["actions"] else st["actions"][0]
        if action == "play":
            st = api.call(
                "POST",
                f"{st['href']}/actions",
                {"action": "play", "position_id": st["legal_plays"][0]["position_id"]},
            )
        else:
            st = api.call("POST", f"{st['href']}/actions", {"action": action})
    raise AssertionError("no roll with a choice")


def test_hint_check_and_resignation_preview(page: Any, platform: Any) -> None:
    st = game_to_play(platform)
    page.goto(f"/?view=play&game={st['id']}")
    hint = page.locator("#pl-hint")
    expect(hint).to_contain_text("Hint (1 left)")
    expect(page.locator("#pl-resign-preview")).to_contain_text("pulvezar would")
    hint.click()
    expect(page.locator("#pl-hints li")).not_to_have_count(0)
    expect(page.locator("#pl-hint")).to_have_count(0)  # the match allowed one
    page.locator("#pl-hints li button").first.click()
    page.locator("#pl-check").click()
    expect(page.locator("#pl-checked")).to_contain_text("Your play, checked")
    expect(page.locator("#pl-checked")).to_contain_text("loss 0.000")  # the engine's best, checked
    page.select_option("#lang", "de")
    expect(page.locator("#pl-resign-preview")).to_contain_text("pulvezar würde")
    if not page.locator("#pl-legal").is_visible():
        page.click("details.legal summary")  # more than 24 plays (a double) start folded
    page.locator("#pl-legal button").first.click()
    page.locator("#pl-check").click()
    expect(page.locator("#pl-checked")).to_contain_text("Dein Zug, geprüft")
    page.locator("#pl-confirm").click()
    expect(page.locator("#pl-checked")).to_have_count(0)  # the play is made: the check is gone


def test_running_games_and_analyse_this_game(page: Any, platform: Any) -> None:
    """The start screen lists the games in play to go on with; a finished game is analysed in one click."""
    st = game_to_play(platform)
    page.goto("/?view=play")
    resume = page.locator(f".pl-resume[data-game='{st['id']}']")
    expect(resume).to_be_visible()
    resume.click()
    expect(page.locator("#pl-hint")).to_be_visible()
    api = Api(platform.url, LOCAL_KEY)
    for _ in range(
        3000
    ):  # play the match out over the API: the engine's first legal play, resignations refused
        st = api.call("GET", st["href"])
        if st["status"] == "finished":
            break
        action = next(a for a in ("roll", "play", "take", "reject", "accept") if a in st["actions"])
        body: dict[str, Any] = {"action": action}
        if action == "play":
            body["position_id"] = st["legal_plays"][0]["position_id"]
        api.call("POST", f"{st['href']}/actions", body)
    page.goto(f"/?view=play&game={st['id']}")
    page.locator("#pl-analyse").click()
    expect(page).to_have_url(re.compile(r"view=analysis&job="))


def test_keys_and_the_systems_motion_and_contrast(page: Any, platform: Any) -> None:
    """Keyboard play (r roll, h hint, c confirm) and the system's reduced motion and more contrast."""
    api = Api(platform.url, LOCAL_KEY)
    st = api.call("POST", "/v1/games", {"match_length": 1, "bot": {"level": "easy"}})
    page.goto(f"/?view=play&game={st['id']}")
    expect(page.locator("#pl-roll")).to_be_visible()
    page.keyboard.press("r")  # the opening roll
    expect(page.locator("#pl-events li")).not_to_have_count(0)
    for _ in range(20):  # until the human has a roll to play
        if page.locator("#pl-hint").count():
            break
        page.keyboard.press("r")
        page.wait_for_timeout(300)
    page.keyboard.press("h")
    expect(page.locator("#pl-hints li")).not_to_have_count(0)
    page.locator("#pl-hints li button").first.click()
    page.keyboard.press("c")
    expect(page.locator("#pl-hints")).to_have_count(0)  # the play was made
    page.emulate_media(reduced_motion="reduce", contrast="more")
    duration = page.evaluate("getComputedStyle(document.getElementById('toast')).transitionDuration")
    assert duration == "0s", duration
    assert page.evaluate("getComputedStyle(document.body).color") == "rgb(0, 0, 0)"


def test_the_trainer_holds_a_bad_play_and_a_bad_double(page: Any, platform: Any) -> None:
    """Issue 44: with the trainer on, a play that loses past the warning threshold is held with the reason
    (Undo takes the steps back, "Play anyway" makes it); a double is held the same way; the hint at a cube
    decision names the right action with equities; the position type is shown under the score.  Each decision
    is one request (sent with hold; made anyway: sent again without it), never a check first."""
    api = Api(platform.url, LOCAL_KEY)
    sent: list[dict[str, Any]] = []  # the bodies of the actions the page sends
    page.on("request", lambda r: sent.append(r.post_data_json) if r.url.endswith("/actions") else None)
    xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:{}:0:0:0:0:10"  # the opening position, money
    st = api.call("POST", "/v1/games", {"start": {"position": xgid.format("31")}, "trainer": True,
                                        "bot": {"level": "easy"}})  # fmt: skip
    bad = next(p for p in st["legal_plays"] if p["notation"] == "6/2")
    page.goto(f"/?view=play&game={st['id']}")
    expect(page.locator("#pl-type")).to_contain_text("Position type: Opening")
    choose = page.locator("#pl-legal button", has_text=re.compile(r"^6/2$"))
    choose.click()
    page.locator("#pl-confirm").click()
    held = page.locator("#pl-held")
    expect(held).to_contain_text("The trainer: think again")
    expect(held).to_contain_text("best: ")
    assert page.locator("#pl-held-why").inner_text().strip()  # the one-sentence reason
    expect(page.locator("#pl-held-undo")).to_be_focused()
    assert sent == [{"action": "play", "position_id": bad["position_id"], "hold": True}]
    page.locator("#pl-held-undo").click()  # the steps are taken back: the same dice again
    expect(held).to_have_count(0)
    expect(page.locator("#pl-confirm")).to_have_count(0)
    page.select_option("#lang", "de")  # the view is drawn again in German
    expect(page.locator("#pl-type")).to_contain_text("Stellungstyp: Eröffnung")  # (drawn: then choose)
    choose.click()
    page.locator("#pl-confirm").click()
    expect(page.locator("#pl-held-anyway")).to_have_text("Trotzdem spielen")
    page.locator("#pl-held-anyway").click()
    expect(held).to_have_count(0)
    expect(page.locator("#pl-events")).to_contain_text(bad["notation"])
    assert sent[-1] == {"action": "play", "position_id": bad["position_id"]} and len(sent) == 3  # no hold
    page.select_option("#lang", "en")
    st = api.call("POST", "/v1/games", {"start": {"position": xgid.format("00")}, "trainer": True,
                                        "bot": {"level": "easy"}})  # fmt: skip
    page.set_viewport_size({"width": 390, "height": 844})  # a phone: the cards fit its width
    page.goto(f"/?view=play&game={st['id']}")
    expect(page.locator("#pl-hint-cube")).to_be_visible()
    page.keyboard.press("h")  # the cube hint: no double, with each choice's equity
    expect(page.locator("#pl-cube-hint")).to_contain_text("The right cube action: No double")
    expect(page.locator("#pl-cube-hint li")).to_have_count(3)
    page.locator("#pl-double").click()
    expect(held).to_contain_text("Not doubling was right")
    expect(page.locator("#pl-held-anyway")).to_have_text("Double anyway")
    assert sent[-1] == {"action": "double", "hold": True}
    assert not [b for b in sent if b["action"] == "check"]
    box = held.bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    shot(page, "play-trainer-held-double")
    page.keyboard.press("Escape")  # the card's first choice: think again, nothing is made
    expect(held).to_have_count(0)
    expect(page.locator("#pl-double")).to_be_visible()
    assert api.call("GET", st["href"])["cube"]["value"] == 1  # nothing was made
