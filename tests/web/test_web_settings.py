"""The settings dialog in a browser (issue 44; web/settings.js): a mirrored board, dark checkers, a large text
size and automatic rolls, applied at once and kept; in a Tavla game the dice's roll named in Turkish; on a
phone the dialog fits and auto-confirm sends a play made on the board; an adaptive game names its level."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from bench_platform import LOCAL_KEY, Api

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect

# the traditional names (the seed's table; higher die first), an oracle independent of settings.js
TURKISH = {
    (1, 1): "Hep yek", (2, 1): "Dü yek", (2, 2): "Dubara", (3, 1): "Se yek", (3, 2): "Se dü", (3, 3): "Dü se",
    (4, 1): "Cihar yek", (4, 2): "Cihar dü", (4, 3): "Cihar se", (4, 4): "Dört cihar", (5, 1): "Penç yek",
    (5, 2): "Penç dü", (5, 3): "Penç se", (5, 4): "Beş dört", (5, 5): "Dü beş", (6, 1): "Şeş yek",
    (6, 2): "Şeş dü", (6, 3): "Şeş se", (6, 4): "Şeş cihar", (6, 5): "Şeş beş", (6, 6): "Düşeş",
}  # fmt: skip
# the pips of each die drawn on the board: the pips after each die's square
DICE = """(svg) => { const out = []; for (const e of svg.querySelectorAll('g.dice > rect, g.dice > .die-pip'))
  if (e.tagName === 'rect') out.push(0); else out[out.length - 1]++; return out; }"""


def test_settings_mirror_text_size_checkers_and_turkish_roll_names(page: Any, platform: Any) -> None:
    page.goto("/?view=play")
    page.click("#settings-button")
    dialog = page.locator("#settings-dialog")
    expect(dialog).to_be_visible()
    page.check("#set-mirror")
    page.check("#set-autoRoll")
    page.select_option("#set-checkers", "dark")
    page.select_option("#set-textSize", "large")
    expect(page.locator("html")).to_have_class("text-large")
    assert page.evaluate("getComputedStyle(document.documentElement).fontSize") == "19px"
    page.keyboard.press("Escape")  # the dialog closes by keyboard
    expect(dialog).to_have_count(0)

    # a Tavla game: the opening roll is made by itself (auto-roll), its name shown in Turkish
    page.select_option("#pl-variant", "tavla")
    page.fill("#pl-length", "1")
    page.select_option("#pl-level", "easy")
    assert page.locator("#pl-level option[value=adaptive]").count() == 1
    page.click("#pl-start")
    name = page.locator("#pl-board .roll-name")
    expect(name).to_have_count(1, timeout=15_000)
    # the name and the dice read at once (the board is drawn again as the game goes on)
    shown, dice = page.eval_on_selector(
        "#pl-board svg", f"svg => [svg.querySelector('.roll-name').textContent, ({DICE})(svg)]"
    )
    assert len(dice) == 2, dice
    assert shown == TURKISH[(max(dice), min(dice))]

    # the board: mirrored (home board and tray on the left), your checkers dark
    svg = page.locator("#pl-board svg.board")
    expect(svg).to_have_class("board mirrored mine-dark")
    one = page.locator('#pl-board g.point[data-point="1"]').bounding_box()
    twelve = page.locator('#pl-board g.point[data-point="12"]').bounding_box()
    tray = page.locator("#pl-board rect.tray").bounding_box()
    assert tray["x"] < one["x"] < twelve["x"]
    fill = page.eval_on_selector("#pl-board .ck.bottom", "e => getComputedStyle(e).fill")
    assert fill == "rgb(43, 43, 43)"

    # kept: a reload shows the same
    page.reload()
    expect(page.locator("#pl-board svg.board")).to_have_class("board mirrored mine-dark")
    expect(page.locator("html")).to_have_class("text-large")

    # on a phone: the dialog fits; auto-confirm sends the play made on the board with its last step
    page.set_viewport_size({"width": 390, "height": 844})
    page.click("#settings-button")
    page.check("#set-autoConfirm")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.click("#settings-close")
    expect(page.locator(".play-view:not([aria-busy]) #pl-legal")).to_have_count(1)
    for _ in range(12):  # a highlighted source, then its first target, until the play is gone
        points = page.eval_on_selector_all(
            "#pl-board .highlight", "els => els.map(e => e.closest('[data-point]')?.dataset.point ?? '0')"
        )
        if not points or page.locator("#pl-events li").count():
            break
        page.click(f'#pl-board .hit[data-point="{points[0]}"]')
    expect(page.locator("#pl-events")).to_contain_text("You played")
    expect(page.locator("#pl-confirm")).to_have_count(0)

    # the adaptive level for this browser's player: a new player's rating, so the level it matches is named
    player = Api(platform.url, LOCAL_KEY).call("POST", "/v1/players", {"name": "Settings"})
    page.evaluate("id => localStorage.setItem('pulvezar.player', id)", player["id"])
    page.goto("/?view=play")
    page.select_option("#pl-level", "adaptive")
    page.click("#pl-start")
    expect(page.locator("#pl-adaptive")).to_have_text("Adaptive: plays at the level medium")


#: two changes in the dialog, the second once the first's redraw is loading the view's page (issue 44's walk)
CHANGE_TWICE = """async () => {
  const change = (id, v) => {
    const s = document.getElementById(id); s.value = v; s.dispatchEvent(new Event("change"));
  };
  change("set-checkers", "dark");
  while (!document.querySelector("#tr-body")) await new Promise((r) => setTimeout(r, 1));
  change("set-textSize", "large");
}"""


@pytest.mark.parametrize("page", [{"width": 390, "height": 844}], indirect=True)
def test_settings_one_option_a_row_and_a_redraw_while_the_view_loads(page: Any) -> None:
    page.goto("/?view=training")
    expect(page.locator("#tr-lessons")).to_be_visible()
    page.click("#settings-button")
    # each control named by its label
    expect(page.get_by_role("combobox", name="Text size", exact=True)).to_have_id("set-textSize")
    mirror = page.get_by_role("checkbox", name="Home board on the left (mirrored board)", exact=True)
    expect(mirror).to_have_id("set-mirror")
    rows = page.locator("#settings-dialog label.row")
    boxes = [rows.nth(i).bounding_box() for i in range(rows.count())]
    assert len(boxes) == 7
    for above, below in itertools.pairwise(boxes):  # one option per row, each within the phone
        assert below["y"] >= above["y"] + above["height"] - 1, (above, below)
    assert all(b["x"] >= 0 and b["x"] + b["width"] <= 390 for b in boxes), boxes
    page.evaluate(CHANGE_TWICE)  # the first redraw's load is aborted: no uncaught error (the fixture checks)
    expect(page.locator("html")).to_have_class("text-large")
    page.click("#settings-close")
    expect(page.locator("#tr-lessons")).to_be_visible()
