"""Walks of issue 44's flows as a new player, in English, German and Turkish (the language chosen with the
header's switch), each flow seen at a desktop (1280x800) and a phone size (390x844): the player made in the
header's dialog, the trainer holding a play and a double (the cube hint, the position type), an unfinished
match deleted, a match resigned with its end card, the adaptive opponent, the daily puzzle with the streak
and the calendar, a position saved to the library and added to the cards, the library's Matches tab, a
card round, the opening quiz, an exercise, the settings, the home, pasted links and IDs, and at the end the
player's record in Statistics (achievements and plan).  What the walk checks is read from the language's
catalog (services/gateway/web/messages/<lang>.json), so a view left in English fails in German.

Each flow's screenshots are ``walk-<lang>-<size>-<flow>.png`` (docs/screenshots under ``make
screenshots``); at the phone size the page must not scroll sideways (collected over the walk, asserted at
its end, so one overflowing view does not hide the others')."""

from __future__ import annotations

import json
import re
import secrets
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from bench_platform import LOCAL_KEY, Api
from test_web_book_daily import produce_today
from test_web_learner import fresh_position
from webkit import shot

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect
ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "services" / "gateway" / "web" / "messages"
LIB = ROOT / "libs" / "pulvezar" / "messages"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
OPENING = "XGID=-b----E-C---eE---c-e----B-:0:0:1:{}:0:0:0:0:10"  # the opening position, money
START = "4HPwATDgc/ABMA"


class Catalog:
    """A language's messages (the web client's and the library's), written as the client writes them."""

    def __init__(self, lang: str) -> None:
        self.lang = lang
        self.web = json.loads((WEB / f"{lang}.json").read_text(encoding="utf-8"))
        self.lib = json.loads((LIB / f"{lang}.json").read_text(encoding="utf-8"))

    def __call__(self, key: str, **values: Any) -> str:
        """The message with its placeholders filled (a plural message: the form of ``n``, else "other")."""
        text = self.web[key]
        if isinstance(text, dict):
            text = text.get(f"={values.get('n')}") or text["other"]
        return re.sub(r"\{(\w+)(?::\w+)?\}", lambda m: str(values[m.group(1)]), text)

    def pattern(self, key: str) -> re.Pattern[str]:
        """The message with any text in its placeholders (each plural form)."""
        text = self.web[key]
        forms = text.values() if isinstance(text, dict) else [text]
        parts = (re.sub(r"\\\{\w+(?::\w+)?\\\}", ".+?", re.escape(f)) for f in forms)
        return re.compile("|".join(f"(?:{p})" for p in parts))

    def keys_in(self, text: str) -> list[str]:
        """What reads like a message key of a namespace of the catalog ("training.opening_quiz")."""
        spaces = "|".join(sorted({k.split(".")[0] for k in self.web}))
        found = re.findall(rf"\b(?:{spaces})\.[a-z][a-z_.]*[a-z]\b", text)
        return [k for k in found if "_" in k or k in self.web]


class Walk:
    """One language's walk: the page, its catalog, the player and the phone's overflows found."""

    def __init__(self, page: Any, platform: Any, lang: str) -> None:
        self.page, self.t, self.lang = page, Catalog(lang), lang
        self.api = Api(platform.url, LOCAL_KEY)
        self.overflows: list[str] = []
        self.raw_keys: list[str] = []  # a message key shown as itself (a key no catalog has)
        self.player = ""

    def snap(self, flow: str, focus: str | None = None, shots: bool = True) -> None:
        """The flow at both sizes, each scrolled to ``focus`` (a selector): a desktop screenshot, then the
        phone's, where the page must not scroll sideways (``shots=False``: that check only)."""
        page = self.page
        for size, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
            page.set_viewport_size(viewport)
            if focus:
                page.locator(focus).first.scroll_into_view_if_needed()
            wide = page.evaluate("() => document.documentElement.scrollWidth - innerWidth")
            if size == "phone" and wide > 0:
                self.overflows.append(f"{flow}: {wide}px too wide")
            if size == "desktop":
                self.raw_keys += [f"{flow}: {k}" for k in self.t.keys_in(page.inner_text("body"))]
            if shots:
                shot(page, f"walk-{self.lang}-{size}-{flow}", full_page=False)
        page.set_viewport_size(DESKTOP)

    def game(self, **body: Any) -> dict[str, Any]:
        """A game of this walk's player over the API (as the start form makes one)."""
        return dict(self.api.call("POST", "/v1/games", {"player": self.player, **body}))


@pytest.fixture(scope="module")
def today(platform: Any) -> str:
    return produce_today(platform)


@pytest.mark.parametrize("lang", ["tr", "de", "en"])
def test_walk_every_flow_as_a_new_player(page: Any, platform: Any, today: str, lang: str) -> None:
    w = Walk(page, platform, lang)
    t = w.t
    page.set_viewport_size(DESKTOP)

    # the first visit: the welcome, in the language chosen in the header; a player made in the dialog
    page.goto("/")
    page.select_option("#lang", lang)
    expect(page.locator("html")).to_have_attribute("lang", lang)
    expect(page.locator("h1")).to_have_text(t("home.welcome_title"))
    expect(page.locator("#player-button")).to_have_text(t("players.who"))
    page.click("#home-who")
    dialog = page.locator("#player-dialog")
    name = f"Walk {lang} {secrets.token_hex(2)}"
    dialog.locator("#pl-name").fill(name)
    expect(dialog.locator("#pl-make")).to_have_text(t("players.make"))
    w.snap("player")
    dialog.locator("#pl-make").click()
    expect(dialog).to_be_hidden()
    expect(page.locator("#player-button")).to_have_text(t("players.playing", name=name))
    w.player = str(page.evaluate("localStorage.getItem('pulvezar.player')"))

    # the trainer holds a bad play (6/2 with 3-1 at the opening): Undo, then "Play anyway"
    held = page.locator("#pl-held")
    opening = w.game(start={"position": OPENING.format("31")}, trainer=True, bot={"level": "easy"})
    page.goto(f"/?view=play&game={opening['id']}")
    expect(page.locator("#pl-type")).to_contain_text(t("trainer.type", k=t("trainer.type_opening")))
    bad = page.locator("#pl-legal button", has_text=re.compile(r"^6/2$"))
    bad.click()
    page.click("#pl-confirm")
    expect(held).to_contain_text(t("trainer.held_title"))
    expect(page.locator("#pl-held-undo")).to_have_text(t("trainer.undo"))
    assert page.locator("#pl-held-why").inner_text().strip()  # the one-sentence reason
    w.snap("trainer", "#pl-held")
    page.click("#pl-held-undo")
    expect(held).to_have_count(0)
    bad.click()
    page.click("#pl-confirm")
    expect(page.locator("#pl-held-anyway")).to_have_text(t("trainer.play_anyway"))
    page.click("#pl-held-anyway")
    expect(held).to_have_count(0)

    # the cube hint before the roll, and a double the trainer holds ("Double anyway")
    cube = w.game(start={"position": OPENING.format("00")}, trainer=True, bot={"level": "easy"})
    page.goto(f"/?view=play&game={cube['id']}")
    page.click("#pl-hint-cube")
    expect(page.locator("#pl-cube-hint")).to_contain_text(
        t("trainer.cube_hint", action=t("trainer.act_roll"))
    )
    page.click("#pl-double")
    expect(page.locator("#pl-held-anyway")).to_have_text(t("trainer.anyway", action=t("trainer.act_double")))
    w.snap("cube", "#pl-held", shots=False)  # its screenshot: play-trainer-held-double
    page.keyboard.press("Escape")  # think again: nothing is made
    expect(held).to_have_count(0)

    # an unfinished match deleted, after the second click
    page.goto(f"/?view=play&game={opening['id']}")
    page.click("#ge-delete")
    expect(page.locator("#ge-confirm")).to_contain_text(t("gameend.delete_question"))
    page.click("#ge-confirm-yes")
    expect(page.locator("#pl-start")).to_have_text(t("play.start"))

    # a 1-point match resigned whole: the end card, its downloads and share buttons
    match = w.game(match_length=1, bot={"level": "easy"})
    page.goto(f"/?view=play&game={match['id']}")
    page.click("#pl-roll")
    expect(page.locator("#pl-events li")).not_to_have_count(0)
    expect(page.locator("#ge-forfeit")).to_have_text(t("gameend.forfeit"))
    page.click("#ge-forfeit")
    expect(page.locator("#ge-confirm")).to_contain_text(t("gameend.forfeit_question"))
    page.click("#ge-confirm-yes")
    expect(page.locator("#ge-end-title")).to_have_text(t("gameend.match_title"))
    expect(page.locator("#ge-how")).to_have_text(t("gameend.how_forfeit"))
    expect(page.locator("#ge-result")).to_contain_text(t("gameend.won_points", who=t("gameend.bot"), n=1))
    expect(page.locator("#ge-share-card")).to_have_text(t("gameend.share_card"))
    expect(page.locator("#ge-share-board")).to_have_text(t("gameend.share_board"))
    expect(page.locator("#pl-export-mat")).to_be_visible()
    w.snap("end", "#ge-end")

    # the adaptive opponent, chosen in the start form
    page.goto("/?view=play")
    expect(page.locator("#pl-level option[value=adaptive]")).to_have_text(t("play_options.adaptive"))
    page.select_option("#pl-level", "adaptive")
    page.click("#pl-start")
    expect(page.locator("#pl-adaptive")).to_have_text(t("play_options.adaptive_at", level=t("play.medium")))
    adaptive = re.search(r"[?&]game=(g[0-9a-f]+)", page.url)
    assert adaptive, page.url
    w.snap("adaptive")

    # today's daily puzzle: the first attempt counts; the streak and the month's calendar
    page.goto("/?view=daily")
    expect(page.locator("h1")).to_have_text(t("daily.title"))
    expect(page.locator("#dy-reveal")).to_be_hidden()
    page.locator("#dy-choices input[type=radio]").first.check()
    expect(page.locator("#dy-check")).to_have_text(t("daily.check"))
    page.click("#dy-check")
    expect(page.locator("#dy-attempt")).to_have_text(t("daily.counted"))
    expect(page.locator("#dy-record h2")).to_have_text(t("daily.record"))
    solved = page.locator("#dy-choices label.right input").is_checked()
    day = page.locator(f"#dy-calendar .dy-day[data-date='{today}']")
    expect(day).to_have_attribute("data-state", "solved" if solved else "missed")
    expect(page.locator("#dy-streak")).to_have_text(t.pattern("daily.streak"))
    w.snap("daily", "#dy-record")

    # a position saved to the library from the position view, then added to the cards from the library
    position = fresh_position()
    page.goto(f"/?position={quote(position, safe='')}&dice=42")
    expect(page.locator("#pos-save")).to_have_text(t("library.save_position"))
    page.click("#pos-save")
    expect(page.locator("#toast")).to_have_text(t.pattern("library.added"))
    found = w.api.call("GET", f"/v1/library/positions?q={quote(position[:8], safe='')}")["positions"]
    saved = next(e for e in found if e["player"] == w.player)
    page.goto(f"/?view=library&q={quote(saved['name'], safe='')}")
    expect(page.locator("h1")).to_have_text(t("library.title"))
    entry = page.locator(".lb-entry", has_text=saved["name"])
    expect(entry.locator(".lb-card")).to_have_text(t("cards.add"))
    entry.locator(".lb-card").click()
    expect(page.locator("#toast")).to_have_text(t("cards.added"))
    w.snap("library", ".lb-entry")

    # the library's Matches tab: the resigned match, lost
    page.click("#lb-tab-matches")
    expect(page.locator(".lb-group[data-group='lost'] h2")).to_have_text(t("library.matches_lost", n=1))
    expect(page.locator(".lb-group[data-group='lost'] .lb-match")).to_contain_text(t("library.not_analysed"))
    w.snap("matches", ".lb-group")

    # a round of the cards: the library's position, answered
    page.goto("/?view=cards")
    expect(page.locator("h1")).to_have_text(t("cards.title"))
    expect(page.locator("#cd-start")).to_have_text(t("cards.start"))
    page.click("#cd-start")
    page.locator("input[name=cd-play]").first.check()
    expect(page.locator("#cd-check")).to_have_text(t("cards.check"))
    page.click("#cd-check")
    expect(page.locator("#cd-back")).to_have_text(t.pattern("cards.back"))
    w.snap("cards", "#cd-result")
    for _ in range(5):  # (a daily missed at the first attempt may be a card of the round too)
        page.click("#cd-next")
        expect(page.locator("#cd-done, #cd-check").first).to_be_visible()
        if page.locator("#cd-done").count():
            break
        if page.locator("input[name=cd-play]").count():
            page.locator("input[name=cd-play]").first.check()
        else:
            page.locator("input[name=cd-double]").first.check()
            page.locator("input[name=cd-response]").first.check()
        page.click("#cd-check")
        expect(page.locator("#cd-back")).to_be_visible()
    expect(page.locator("#cd-done")).to_have_text(t.pattern("cards.done"))

    # the opening quiz: an answer counted for the player
    page.goto("/?view=quiz")
    expect(page.locator("h1")).to_have_text(t("quiz.title"))
    page.locator("#qz-choices input[type=radio]").first.check()
    page.click("#qz-check")
    expect(page.locator("#qz-verdict")).to_have_text(
        re.compile(f"{t.pattern('quiz.right').pattern}|{t.pattern('quiz.wrong').pattern}")
    )
    expect(page.locator("#qz-counters")).to_have_text(t.pattern("quiz.counters"))
    w.snap("quiz", "#qz-verdict")

    # an exercise (bear-off): counted for the player
    page.goto("/?view=training")
    expect(page.locator(".tr-kind[data-kind='bear-off']")).to_have_text(t("training.bear_off"))
    page.click(".tr-kind[data-kind='bear-off']")
    page.locator("#tr-plays button").first.click()
    expect(page.locator("#tr-streak")).to_have_text(t.pattern("training.streak"))
    w.snap("exercise", "#tr-streak", shots=False)  # its screenshot: training-exercise

    # the home: the running game, the streak, the cards, the plan, the PR trend
    page.goto("/")
    expect(page.locator("h1")).to_have_text(t("home.title"))
    expect(page.locator("#home-continue")).to_have_text(t("home.continue"))
    expect(page.locator("#home-daily-link")).to_have_text(t("home.daily_open"))
    expect(page.locator("#home-pr-none")).to_have_text(t("home.pr_none"))
    w.snap("home")

    # the settings, on the home: dark checkers and a large text, applied at once (each change draws the view
    # again: the training view, whose first load is then aborted, throws an uncaught AbortError)
    page.click("#settings-button")
    settings = page.locator("#settings-dialog")
    expect(settings.locator("h2").first).to_have_text(t("settings.title"))
    expect(settings).to_contain_text(t("settings.mirror"))
    page.select_option("#set-checkers", "dark")
    page.select_option("#set-textSize", "large")
    expect(page.locator("html")).to_have_class("text-large")
    w.snap("settings")
    page.select_option("#set-textSize", "system")
    page.click("#settings-close")
    expect(settings).to_have_count(0)

    # pasted links and IDs: a game's ID, a pulvezar:// position link, and a text that is neither
    box = page.locator("#open-input")
    expect(box).to_have_attribute("placeholder", t("links.placeholder"))
    box.fill(adaptive.group(1))
    box.press("Enter")
    expect(page.locator("#view")).to_have_attribute("data-view", "play")
    expect(page.locator("#pl-adaptive")).to_be_visible()
    box.fill(f"pulvezar://konum/{START}?dice=31")
    box.press("Enter")
    expect(page.locator("#view")).to_have_attribute("data-view", "position")
    expect(page.locator("#pos-save")).to_have_text(t("library.save_position"))
    box.fill("not a link at all")
    box.press("Enter")
    expect(page.locator("#toast")).to_have_text(t("links.unknown"))
    w.snap("link", shots=False)

    # the player's record: the resigned match, the daily attempt, the achievements, the week's plan
    page.goto("/?view=statistics")
    expect(page.locator("h1")).to_have_text(t("statistics.title"))
    expect(page.locator("#pl-select")).to_have_value(w.player)
    expect(page.locator("#st-recent-table")).to_contain_text(t("statistics.loss"))
    expect(page.locator("#st-daily tbody tr").first).to_contain_text("/ 1")
    bear_off = page.locator("#st-exercises-table tbody tr", has_text=t("training.bear_off"))
    expect(bear_off).to_contain_text("/ 1")
    reached = 1 if solved else 0  # a daily solved at the first attempt is an achievement
    expect(page.locator("#st-achievements h2")).to_have_text(t("statistics.achievements", n=reached))
    first_win = page.locator(".st-badges li[data-id='first_win']")
    expect(first_win).to_have_text(w.t.lib["statistics.achievement.first_win"])
    expect(page.locator("#st-plan h2")).to_have_text(t("statistics.plan"))
    expect(page.locator("#st-plan-reason")).to_have_text(t("statistics.plan_empty"))
    w.snap("statistics", "#st-achievements")
    quiz = page.locator("#st-exercises-table tbody tr", has_text=t("training.opening_quiz_international"))
    expect(quiz).to_contain_text("/ 1")
    assert not w.overflows, f"wider than a phone ({lang}): {w.overflows}"
    assert not w.raw_keys, f"message keys shown as themselves ({lang}): {w.raw_keys}"
