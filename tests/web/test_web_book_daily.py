"""The opening book and the daily puzzle views in a browser.

Book: the 15 international opening rolls with their best plays (3-1: 8/5 6/5), the candidates and the
replies drawn as arrows on the board, the Tavla book with its 21 rolls.  Daily: ``make run``'s platform
starts with PULVEZAR_DAILY_ON_START=0, so a date without a puzzle shows the readable "not produced yet"
message; for the puzzle path the test makes today's puzzles itself with the library at a tiny setting
(one self-play game, 36 rollout trials: a few seconds) and stores them write-once in the platform's Redis
under the key the workers use (``daily:<date>:<rules>:<kind>``), as the workers' task would.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from typing import Any

import pytest
from bench_platform import LOCAL_KEY, Api
from webkit import shot

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect
#: the months in Turkish (an oracle independent of the browser's Intl)
TR_MONTHS = ["Ocak", "Şubat", "Mart", "Nisan", "Mayıs", "Haziran",
             "Temmuz", "Ağustos", "Eylül", "Ekim", "Kasım", "Aralık"]  # fmt: skip
INTERNATIONAL_ROLLS = [f"{a}{b}" for a in range(2, 7) for b in range(1, a)]  # 21, 31, 32, ... 65


def test_book_international_and_tavla(page: Any) -> None:
    page.goto("/?view=book")
    rolls = page.locator("#bk-rolls button.bk-roll")
    expect(rolls).to_have_count(15)
    assert [b.get_attribute("data-roll") for b in rolls.all()] == INTERNATIONAL_ROLLS
    for b in rolls.all():  # each roll shows its best play
        assert re.search(r"\d+/\d+", b.locator(".bk-play").inner_text()), b.inner_text()
    three_one = page.locator("#bk-rolls button[data-roll='31']")
    expect(three_one.locator(".bk-play")).to_have_text("8/5 6/5")
    # 3-1 is selected first: its best play is the first candidate, drawn as arrows on the board
    expect(three_one).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#bk-candidates tbody tr").first).to_have_attribute("data-play", "8/5 6/5")
    expect(page.locator("#bk-board svg.board .arrows .arrow-line")).not_to_have_count(0)
    expect(page.locator("#bk-caption")).to_contain_text("8/5 6/5")
    # the replies: one per roll of the opponent (21), each shown on the board when chosen
    replies = page.locator("#bk-replies tbody tr")
    expect(replies).to_have_count(21)
    replies.nth(0).locator("button").click()
    expect(replies.nth(0)).to_have_attribute("aria-selected", "true")
    expect(page.locator("#bk-caption")).to_contain_text("1-1")
    # by keyboard: another roll, its candidates
    page.locator("#bk-rolls button[data-roll='65']").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#bk-candidates tbody tr").first).to_have_attribute("data-play", "24/13")
    assert "roll=65" in page.url
    page.locator("#bk-rolls button[data-roll='31']").click()
    shot(page, "book")

    # Tavla: all 21 rolls, doubles included; German labels
    page.locator(".bk-rules button[data-rules='tavla']").click()
    expect(page.locator("#bk-rolls button.bk-roll")).to_have_count(21)
    expect(page.locator("#bk-rolls button[data-roll='66']")).to_be_visible()
    assert "rules=tavla" in page.url
    page.select_option("#lang", "de")
    expect(page.locator("h1")).to_have_text("Eröffnungsbuch")
    expect(page.locator("#bk-rolls button.bk-roll")).to_have_count(21)  # the address kept the rule set


@pytest.mark.parametrize("page", [{"width": 390, "height": 844}], indirect=True)
def test_book_phone(page: Any) -> None:
    page.goto("/?view=book")
    expect(page.locator("#bk-rolls button.bk-roll")).to_have_count(15)
    expect(page.locator("#bk-board svg.board")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


def test_daily_not_produced_yet(page: Any) -> None:
    page.goto("/?view=daily&date=2099-01-01")
    message = page.locator("#dy-missing")
    expect(message).to_contain_text("has not been produced yet")
    expect(message).to_contain_text("2099-01-01")
    expect(page.locator(".error-message")).to_have_count(0)
    page.locator(".dy-tabs button[data-kind='cube']").click()
    expect(page.locator("#dy-missing")).to_contain_text("cube decision")
    page.select_option("#lang", "tr")
    expect(page.locator("#dy-missing")).to_contain_text("henüz hazırlanmadı")


def produce_today(platform: Any) -> str:
    """Today's (UTC) three puzzles at a tiny setting, stored where the workers store theirs."""
    from pulvezar.archive.daily import DailySettings, daily_kinds, daily_puzzle
    from services.store.archive import DailyRecords

    found = (re.match(r"database\s+(\S+)", line) for line in platform.lines)
    url = next((m.group(1) for m in found if m), None)
    if url is None:
        pytest.skip("the platform's database is not in its output")
    daily = DailyRecords(url)
    today = dt.datetime.now(dt.UTC).date().isoformat()
    tiny = DailySettings(
        games=1, max_screened=6, max_rollouts=1, screen_ply=0, trials=36, truncate=8,
        cube_screen_ply=0, cube_trials=36, cube_truncate=8,
    )  # fmt: skip
    for rules, kind in daily_kinds():
        if daily.get(today, rules, kind) is None:
            daily.put(today, rules, kind, daily_puzzle(today, rules, kind, None, tiny).to_json())
    return today


def test_daily_puzzle(page: Any, platform: Any) -> None:
    today = produce_today(platform)
    page.goto("/?view=daily")
    expect(page.locator("#dy-board svg.board")).to_be_visible()
    expect(page.locator(".dy-card h2")).to_contain_text(today)
    choices = page.locator("#dy-choices input[type=radio]")
    assert choices.count() >= 2
    # choosing a play draws it; checking reveals the answer and the reason
    page.locator("#dy-check").click()
    expect(page.locator("#dy-result .error-message")).to_be_visible()  # choose first
    choices.nth(0).check()
    expect(page.locator("#dy-board svg.board .arrows")).to_have_count(1)
    page.locator("#dy-check").click()
    expect(page.locator("#dy-result .dy-verdict")).to_be_visible()
    expect(page.locator("#dy-reason")).to_contain_text("better than")
    expect(page.locator("#dy-choices label.right")).to_have_count(1)
    expect(page.locator("#dy-result table tr.answer")).to_have_count(1)
    shot(page, "daily")

    # the reason in German; Tavla; the cube decision by keyboard
    page.select_option("#lang", "de")
    page.locator("#dy-reveal").click()
    expect(page.locator("#dy-reason")).to_contain_text("besser als")
    page.select_option("#lang", "en")
    page.locator(".dy-tabs button[data-rules='tavla']").click()
    expect(page.locator(".dy-card[data-rules^='tavla']")).to_be_visible()
    page.locator(".dy-tabs button[data-kind='cube']").click()
    expect(page.locator(".dy-card[data-kind='cube']")).to_be_visible()
    expect(page.locator("#dy-choices input[type=radio]")).to_have_count(3)
    page.locator("#dy-choices input[type=radio]").first.focus()
    page.keyboard.press("Space")
    page.keyboard.press("Tab")  # out of the radio group, to the Check button
    page.keyboard.press("Enter")
    expect(page.locator("#dy-result .dy-verdict")).to_be_visible()
    expect(page.locator("#dy-reason")).to_contain_text("no double")


def test_daily_streak_and_calendar_of_a_new_player(page: Any, platform: Any) -> None:
    """A new player's first attempt: the streak line and the month's calendar mark today solved or missed;
    a day of the calendar opens that day's puzzle."""
    today = produce_today(platform)
    player = Api(platform.url, LOCAL_KEY).call("POST", "/v1/players", {"name": "Daily Deniz"})
    page.goto("/")
    page.evaluate("(id) => localStorage.setItem('pulvezar.player', id)", player["id"])
    page.goto("/?view=daily")
    expect(page.locator("#dy-streak")).to_contain_text("Streak: 0 days")
    day = page.locator(f"#dy-calendar .dy-day[data-date='{today}']")
    expect(day).to_have_attribute("data-state", "not_tried")
    expect(page.locator("#dy-reveal")).to_be_hidden()  # no answer before the attempt
    page.locator("#dy-choices input[type=radio]").first.check()
    page.locator("#dy-check").click()
    expect(page.locator("#dy-attempt")).to_be_visible()
    solved = page.locator("#dy-choices label.right input").is_checked()
    expect(day).to_have_attribute("data-state", "solved" if solved else "missed")
    expect(page.locator("#dy-streak")).to_contain_text(f"Streak: {1 if solved else 0} days")
    expect(page.locator("#dy-streak")).to_contain_text(f"solved {1 if solved else 0} of 1")
    # the calendar's month as the language writes it (Intl), not "2026-12"
    heading, (year, month) = page.locator("h3:has(+ #dy-calendar)"), (today[:4], int(today[5:7]))
    expect(heading).to_have_text(f"Calendar {calendar.month_name[month]} {year}")
    page.select_option("#lang", "tr")
    expect(page.locator("#dy-record h2")).to_have_text("Kaydın")
    expect(heading).to_have_text(f"Takvim {TR_MONTHS[month - 1]} {year}")
    page.select_option("#lang", "en")
    if today[8:] != "01":  # the first of the month, from the calendar: that day's puzzle
        page.locator("#dy-calendar .dy-day").first.click()
        expect(page).to_have_url(re.compile(rf"date={today[:8]}01"))


@pytest.mark.parametrize("page", [{"width": 390, "height": 844}], indirect=True)
def test_daily_on_a_phone(page: Any, platform: Any) -> None:
    produce_today(platform)  # (written once: the desktop test's puzzles where it ran first)
    page.goto("/?view=daily")
    expect(page.locator("#dy-board svg.board")).to_be_visible()
    expect(page.locator("#dy-check")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    # with a player: the record and the month's calendar fit too
    player = Api(platform.url, LOCAL_KEY).call("POST", "/v1/players", {"name": "Phone Pelin"})
    page.evaluate("(id) => localStorage.setItem('pulvezar.player', id)", player["id"])
    page.reload()
    expect(page.locator("#dy-calendar")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


def test_book_replies_after_each_candidate_and_your_row(page: Any, platform: Any) -> None:
    """Issue 30: the replies after a candidate that is not the best, and the "you" row of a player who
    opened a game (the game resigned at once: a 1-point match is over after it)."""
    api = Api(platform.url, LOCAL_KEY)
    player = api.call("POST", "/v1/players", {"name": "Book reader"})
    roll = None
    for _ in range(12):
        st = api.call(
            "POST", "/v1/games", {"match_length": 1, "bot": {"level": "easy"}, "player": player["id"]}
        )
        st = api.call("POST", f"{st['href']}/actions", {"action": "roll"})
        if (
            "play" in st["actions"]
            and st["to_act"] == 0
            and roll is None
            and st["legal_plays"][0]["notation"]
        ):
            roll = "".join(str(d) for d in sorted(st["dice"], reverse=True))
            play = st["legal_plays"][0]["notation"]
            st = api.call("POST", f"{st['href']}/actions", {"action": "play", "notation": play})
        while st["status"] == "playing":  # resign at once (or answer the bot's offer)
            action = "resign" if "resign" in st["actions"] else st["actions"][0]
            st = api.call("POST", f"{st['href']}/actions", {"action": action})
        if roll is not None:
            break
    assert roll is not None, "the player never won an opening roll"
    page.goto(f"/?view=book&roll={roll}&player={player['id']}")
    you = page.locator("#bk-you")
    expect(you).to_contain_text(f"You: {play}")
    expect(you).to_contain_text(f"1 of your 1 games with {roll[0]}-{roll[1]}")
    book = api.call("GET", "/v1/opening-book")
    other = next(r["roll"] for r in book["rolls"] if len(r["candidates"]) > 1 and r["roll"] != roll)
    page.locator(f"#bk-rolls button[data-roll='{other}']").click()
    expect(page.locator("#bk-you")).to_contain_text(f"You have not opened with {other[0]}-{other[1]} yet.")
    second = page.locator("#bk-candidates tbody tr").nth(1)
    second.locator("button").click()
    after = second.get_attribute("data-play")
    expect(page.locator("#bk-replies-box h3")).to_contain_text(f"after {after}")
    expect(page.locator("#bk-replies tbody tr")).to_have_count(21)
    page.locator("#bk-replies tbody tr").nth(5).locator("button").click()
    expect(page.locator("#bk-caption")).to_contain_text(f"After {after}")
