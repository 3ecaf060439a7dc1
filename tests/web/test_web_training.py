"""The Training view in a browser (issue 30): a lesson step by step (a wrong play refused, the player's
progress kept) and the three exercises with their verdicts, in English, German and Turkish, and on a phone."""

from __future__ import annotations

from typing import Any

import pytest
from bench_platform import LOCAL_KEY, Api
from webkit import shot

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect


@pytest.fixture(scope="module")
def trainee(platform: Any) -> dict[str, Any]:
    return Api(platform.url, LOCAL_KEY).call("POST", "/v1/players", {"name": "Trainee"})


def test_a_lesson_step_by_step(page: Any, trainee: dict[str, Any], platform: Any) -> None:
    page.goto(f"/?view=training&player={trainee['id']}")
    expect(page.locator("#tr-lessons li")).to_have_count(5)
    page.locator("#tr-lessons li[data-id='openings'] button").click()
    expect(page.locator("#tr-step")).to_have_text("Step 1 of 4")
    page.locator("#tr-next").click()
    expect(page.locator("#tr-step")).to_have_text("Step 2 of 4")
    expect(page.locator("#tr-board svg.board")).to_be_visible()
    page.locator("#tr-plays button", has_text="13/10 6/5").click()  # legal, not the lesson's
    expect(page.locator(".tr-refused")).to_have_text("Not this play: try again.")
    expect(page.locator("#tr-next")).to_be_hidden()
    page.locator("#tr-plays button", has_text="8/5 6/5").click()
    expect(page.locator(".tr-right")).to_be_visible()
    shot(page, "training-lesson")
    page.locator("#tr-next").click()
    for play in ("8/4 6/4", "13/7 8/7"):
        page.locator("#tr-plays button", has_text=play).click()
        page.locator("#tr-next").click()
    expect(page.locator("#tr-lesson-done")).to_have_text("Lesson complete.")
    lessons = Api(platform.url, LOCAL_KEY).call("GET", f"/v1/lessons?player={trainee['id']}")["lessons"]
    assert next(x for x in lessons if x["id"] == "openings")["progress"]["completed"]

    page.select_option("#lang", "de")
    expect(page.locator("h1")).to_have_text("Training")
    expect(page.locator("#tr-lessons li[data-id='openings'] .tr-completed")).to_contain_text("abgeschlossen")
    page.locator("#tr-lessons li[data-id='pip-counting'] button").click()
    expect(page.locator("#tr-step")).to_have_text("Schritt 1 von 3")
    page.locator("#tr-next").click()
    page.fill("#tr-pips-mine", "167")
    page.fill("#tr-pips-theirs", "160")
    page.locator("#tr-pips-check").click()
    expect(page.locator(".tr-refused")).to_have_text("Nicht dieser Zug: noch einmal.")
    page.fill("#tr-pips-theirs", "167")
    page.locator("#tr-pips-check").click()
    expect(page.locator(".tr-right")).to_have_text("Richtig!")


def test_the_exercises(page: Any, trainee: dict[str, Any]) -> None:
    page.goto(f"/?view=training&player={trainee['id']}")
    page.locator(".tr-kind[data-kind='bear-off']").click()
    expect(page.locator(".tr-exercise[data-kind='bear-off'] #tr-board svg.board")).to_be_visible()
    page.locator("#tr-plays button").first.click()
    expect(page.locator("#tr-ex-result p").first).to_be_visible()
    expect(page.locator("#tr-streak")).to_contain_text("of 1 right")
    expect(page.locator("#tr-ex-result")).not_to_contain_text("null")
    shot(page, "training-exercise")
    page.locator(".tr-kind[data-kind='take-point']").click()
    page.fill("#tr-take", "25")
    page.locator("#tr-take-check").click()
    expect(page.locator("#tr-ex-result p").first).to_be_visible()
    page.select_option("#lang", "tr")
    expect(page.locator("h1")).to_have_text("Antrenman")
    page.locator(".tr-kind[data-kind='pip-count']").click()
    expect(page.locator(".tr-q")).to_contain_text("pip")
    page.fill("#tr-pips-mine", "1")
    page.fill("#tr-pips-theirs", "1")
    page.locator("#tr-pips-check").click()
    expect(page.locator("#tr-ex-result .error-message")).to_contain_text("Doğru değil")


@pytest.mark.parametrize("page", [{"width": 390, "height": 844}], indirect=True)
def test_training_on_a_phone(page: Any, trainee: dict[str, Any]) -> None:
    page.goto(f"/?view=training&player={trainee['id']}&lesson=bearing-off")
    expect(page.locator("#tr-step")).to_have_text("Step 1 of 3")
    page.locator("#tr-next").click()
    expect(page.locator("#tr-board svg.board")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
