"""The position view in a browser: the address opens a position with its hint (16 candidates for 3-1 from
the start, 8/5 6/5 first, drawn as arrows), a malformed ID shows the API's problem in words, the editor
changes the position and the address, the cube decision of a position without dice, a rollout job whose
progress advances (server-sent events) until it is done, the page on a phone-sized screen, German texts.
"""

from __future__ import annotations

import json
import time
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
from bench_platform import LOCAL_KEY, Api
from webkit import shot

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect
START_31 = "/?position=4HPwATDgc/ABMA&dice=31"
PHONE = {"width": 390, "height": 844}


def query(page: Any) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}


def test_address_opens_the_position_with_its_hint(page: Any) -> None:
    page.goto(START_31)
    rows = page.locator("table.candidates tbody tr")
    expect(rows).to_have_count(16)
    expect(rows.first.locator(".play-button")).to_have_text("8/5 6/5")
    expect(page.locator("#pos-count")).to_contain_text("16 of 16")
    # the best play is drawn: two arrows; another candidate's arrows when it is chosen
    board = page.locator("#view svg.board")
    expect(board.locator(".arrow")).to_have_count(2)
    expect(page.locator("#pos-die1")).to_have_value("3")
    rows.nth(2).locator(".play-button").click()  # 24/20: one arrow
    expect(rows.nth(2)).to_have_class("selected")
    expect(board.locator(".arrow")).to_have_count(1)
    assert query(page) == {"position": "4HPwATDgc/ABMA", "dice": "31"}
    expect(page.locator(".pips-line")).to_contain_text("167")
    shot(page, "position")
    # other dice: another hint, and the address follows
    page.select_option("#pos-die1", "6")
    page.select_option("#pos-die2", "6")
    expect(page.locator("#pos-count")).to_contain_text("of 11")
    assert query(page)["dice"] == "66"


def test_an_ogid_address_opens_the_same_position(page: Any) -> None:
    """OpenGammon's OGID in the address (issue 45): the start with 3-1 to play, its dice from the ID."""
    from urllib.parse import quote

    from pulvezar import Position
    from pulvezar.rules.ogid import to_ogid

    page.goto("/?position=" + quote(to_ogid(Position.start(), dice=(3, 1)), safe=""))
    expect(page.locator("table.candidates tbody tr")).to_have_count(16)
    expect(page.locator("#pos-count")).to_contain_text("16 of 16")


def test_an_address_with_an_unescaped_plus_opens_its_position(page: Any) -> None:
    """A position ID's "+" left unescaped in a typed or shared address decodes to a space; the view mends it
    and opens that position, not the start (the stop-57 clean clone: an ID with "+" showed the start)."""
    plus = "4HPwATCMz+ADIA"  # the start, then three random plays (seed 3); 17 plays for 4-2
    page.goto(f"/?position={plus}&dice=42")
    expect(page.locator('#pos-ids [data-id="position_id"] .id-value')).to_have_text(plus)
    expect(page.locator("#pos-count")).to_contain_text("17 of 17")
    assert query(page)["position"] == plus
    # the same address pasted into the header's box
    page.goto("/")
    page.fill("#open-input", f"/?position={plus}&dice=42")
    page.press("#open-input", "Enter")
    expect(page.locator('#pos-ids [data-id="position_id"] .id-value')).to_have_text(plus)


def test_malformed_id_shows_a_readable_message(page: Any) -> None:
    page.goto("/?position=garbage!!")
    expect(page.locator("#pos-error")).to_contain_text("invalid Position ID")
    page.fill("#pos-id", "XGID=nonsense:1:2")
    page.click("#pos-show")
    expect(page.locator("#pos-error")).to_contain_text("XGID")
    # a good one clears the message and shows its board and hint (the XGID's own dice: 5-2)
    page.fill("#pos-id", "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10")
    page.press("#pos-id", "Enter")
    expect(page.locator("#pos-error")).to_be_empty()
    expect(page.locator("#pos-count")).to_contain_text("8 of 8")
    assert query(page)["dice"] == "52"


def test_editor_cube_decision_and_resignation(page: Any) -> None:
    page.goto("/?view=position")
    expect(page.locator("#cube-action")).to_contain_text("No double")
    page.click(".editor summary")
    # remove the player's checkers from the 24-point (shift-click and the remove mode), add one on the 21
    page.click('#view .hit[data-point="24"]', modifiers=["Shift"])
    page.check('input[name="pos-mode"][value="remove"]')
    page.click('#view .hit[data-point="24"]')
    page.check('input[name="pos-mode"][value="add"]')
    page.locator('#view .hit[data-point="21"]').focus()
    page.keyboard.press("Enter")  # keyboard: the points are buttons
    expect(page.locator(".pips-line")).to_contain_text("Pips: 140")  # 167 - 2 x 24 + 21
    assert query(page)["position"] != "4HPwATDgc/ABMA"
    expect(page.locator("#cube-action")).to_be_visible()
    page.select_option("#pos-resign-level", "gammon")
    page.click("#pos-judge")
    expect(page.locator("#resign-answer")).to_contain_text("should accept")
    # Tavla has no cube
    page.select_option("#pos-variant", "tavla")
    expect(page.locator("#pos-cube-decision")).to_contain_text("without a cube")
    assert query(page)["rules"] == "tavla"


def drag(page: Any, start: str, end: str) -> None:
    """Press on one point of the board, move, release on another (pointer events, as a mouse does)."""

    def box(point: str) -> Any:  # the board may be redrawn at any moment (an answer arrived): ask again
        for _ in range(20):
            found = page.locator(f'#view .hit[data-point="{point}"]').bounding_box()
            if found:
                return found
            time.sleep(0.1)
        raise AssertionError(f"no point {point} on the board")

    a, b = box(start), box(end)
    page.mouse.move(a["x"] + a["width"] / 2, a["y"] + a["height"] / 2)
    page.mouse.down()
    page.mouse.move(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2, steps=5)
    page.mouse.up()


def test_editor_drags_checkers(page: Any) -> None:
    page.goto("/?view=position")
    expect(page.locator(".pips-line")).to_contain_text("Pips: 167")
    expect(page.locator("#cube-action")).to_contain_text("No double")  # the view has its answers
    drag(page, "24", "18")  # one back checker of the player on roll forward by 6
    expect(page.locator(".pips-line")).to_contain_text("Pips: 161")
    assert query(page)["position"] != "4HPwATDgc/ABMA"
    drag(page, "13", "0")  # onto the tray: off the board
    expect(page.locator(".pips-line")).to_contain_text("Pips: 148")
    drag(page, "6", "19")  # the opponent's 6-point (seen from below: 19) holds five of theirs: refused
    expect(page.locator(".pips-line")).to_contain_text("Pips: 148")
    drag(page, "1", "2")  # the opponent's checkers on the player's 1-point (their 24) move too
    expect(page.locator(".pips-line")).to_contain_text("– 166")


def test_rollout_progress_advances_until_done(page: Any, platform: Any) -> None:
    page.goto(START_31)
    expect(page.locator("table.candidates tbody tr")).to_have_count(16)
    page.fill("#ro-trials", "288")  # 4 chunks of 72 trials: progress events between
    page.fill("#ro-truncate", "8")
    page.fill("#ro-top", "3")
    with page.expect_response(
        lambda r: r.url.endswith("/v1/rollouts") and r.request.method == "POST"
    ) as posted:
        page.click("#ro-start")
    job_id = posted.value.json()["id"]
    text = page.locator("#ro-text")
    seen: list[int] = []
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        done = text.get_attribute("data-done")
        if done is not None and (not seen or int(done) != seen[-1]):
            seen.append(int(done))
        if text.get_attribute("data-state") == "done":
            break
        time.sleep(0.1)
    final = text.get_attribute("data-done")  # the last count, set with "done" (between the two reads above)
    if final is not None and (not seen or int(final) != seen[-1]):
        seen.append(int(final))
    assert text.get_attribute("data-state") == "done", text.inner_text()
    assert seen == sorted(seen) and seen[-1] == 288, seen
    assert any(0 < n < 288 for n in seen), f"no progress between start and end: {seen}"
    expect(text).to_contain_text("288 of 288")
    rows = page.locator("#ro-results tbody tr")
    expect(rows).to_have_count(3)
    expect(page.locator("#ro-results .ci-bar")).to_have_count(3)
    # each candidate's interval is the job's: 1.96 standard errors of its 288 trials.  (Whether an interval
    # narrows from one progress event to the next is chance: the SE of 72 trials comes from two 36-trial
    # blocks; the rollout library's tests own the statistics.)
    job = Api(platform.url, LOCAL_KEY).call("GET", f"/v1/rollouts/{job_id}")
    candidates = job["results"][0]["candidates"]
    shown = {
        rows.nth(i).locator("td").first.inner_text(): rows.nth(i).locator(".ci-text").inner_text()
        for i in range(3)
    }
    assert shown == {c["play"]: f"±{1.96 * c['se']:.3f}" for c in candidates}, (shown, candidates)
    shot(page, "position-rollout")


def test_cancel_a_rollout(page: Any) -> None:
    page.goto(START_31)
    expect(page.locator("table.candidates tbody tr")).to_have_count(16)
    page.fill("#ro-trials", "7200")
    page.click("#ro-start")
    expect(page.locator("#ro-cancel")).to_be_visible()
    page.click("#ro-cancel")
    expect(page.locator("#ro-text")).to_contain_text("cancelled")
    expect(page.locator("#ro-start")).to_be_enabled()


@pytest.mark.parametrize("page", [PHONE], indirect=True)
def test_position_on_a_phone(page: Any) -> None:
    page.goto(START_31)
    expect(page.locator("table.candidates tbody tr")).to_have_count(16)
    # nothing wider than the screen (the candidates' table scrolls inside its box)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    box = page.locator("#view svg.board").bounding_box()
    assert box and box["width"] <= PHONE["width"]
    shot(page, "position-phone")


def test_position_in_german(page: Any) -> None:
    page.goto(START_31)
    page.select_option("#lang", "de")
    expect(page.locator("#pos-hint h3")).to_have_text("Tipp")
    expect(page.locator("#pos-count")).to_contain_text("16 von 16")
    page.select_option("#lang", "tr")
    expect(page.locator("#pos-hint h3")).to_have_text("İpucu")


def test_the_rollouts_ply_is_sent(page: Any) -> None:
    """The rollout form's ply (issue 30): each trial's plays chosen at that depth; cancelled at once."""
    page.goto(START_31)
    expect(page.locator("table.candidates tbody tr")).to_have_count(16)
    page.fill("#ro-trials", "72")
    page.fill("#ro-truncate", "4")
    page.select_option("#ro-ply", "1")
    with page.expect_request(lambda r: r.url.endswith("/v1/rollouts") and r.method == "POST") as sent:
        page.click("#ro-start")
    assert json.loads(sent.value.post_data or "{}")["ply"] == 1
    page.locator("#ro-cancel").click()


def test_a_cube_decision_rollout(page: Any) -> None:
    """Without dice, the rollout form rolls out the cube decision (issue 30): no double and double/take with
    the same dice, double/pass exact, and the action by rollout."""
    page.goto("/?position=cHfuAAC4ezcAAA")  # a race, 88 against 111 pips
    expect(page.locator("#ro-cube")).to_be_visible()
    page.check("#ro-cube")
    page.fill("#ro-trials", "72")
    page.fill("#ro-truncate", "0")
    with page.expect_request(lambda r: r.url.endswith("/v1/rollouts") and r.method == "POST") as sent:
        page.click("#ro-start")
    req = json.loads(sent.value.post_data or "{}")
    assert req["kind"] == "cube" and req["cube"]["value"] == 1 and "dice" not in req
    expect(page.locator("#ro-text")).to_have_attribute("data-state", "done", timeout=90_000)
    expect(page.locator("#ro-results tbody tr")).to_have_count(3)
    expect(page.locator("#ro-cube-action")).to_contain_text("By rollout: ")
