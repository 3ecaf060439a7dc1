"""The analysis view in a browser: a match file uploaded (multipart POST /v1/analyses at 0 ply), the job
watched until done, the players' PR shown, the errors listed with their small boards, the graph drawn,
the annotated SGF downloaded, the job in "Your jobs" and in the address.

The match is ``tests/formats/data/match1495872.txt`` (Backgammon Galaxy export of a 1-point match, one
game; from lassehjorthmadsen/bglab, MIT, see tests/formats/data/SOURCES.md): a 0-ply analysis of it takes
well under a second on make run's one worker.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from webkit import shot

MATCH = Path(__file__).resolve().parents[1] / "formats" / "data" / "match1495872.txt"
sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect


def upload(page: Any) -> str:
    page.goto("/?view=analysis")
    page.set_input_files("#an-file", str(MATCH))
    page.select_option("#an-level", "0ply")
    page.click("#an-submit")
    expect(page.locator("#an-players")).to_be_visible(timeout=60_000)
    m = re.search(r"[?&]job=([A-Za-z0-9_.\-]+)", page.url)
    assert m, page.url
    return m.group(1)


def test_upload_shows_pr_errors_graph_and_sgf(page: Any) -> None:
    job = upload(page)
    status = page.locator("#an-status")
    expect(status).to_contain_text("done")
    expect(status).to_contain_text("1 of 1")

    table = page.locator("#an-players")
    expect(table.locator("thead")).to_contain_text("lasse")
    expect(table.locator("thead")).to_contain_text("yuko")
    pr = table.locator("tr[data-row=pr] td")
    expect(pr).to_have_count(2)
    for value in pr.all_inner_texts():
        assert re.fullmatch(r"\d+\.\d\d", value), value
    expect(table.locator("tr[data-row=grade] td").first).not_to_have_text("–")

    # the errors and blunders, each with its board (arrows of the better play) and explanation
    items = page.locator("#an-errors li.an-error")
    assert items.count() >= 3
    first = items.first
    expect(first.locator("svg.board")).to_be_visible()
    expect(first.locator("svg.board .arrows")).to_have_count(1)
    expect(first.locator(".an-best")).to_contain_text("Better")
    expect(first.locator(".an-explanation")).to_contain_text("is better than")
    first.get_by_role("button", name="Show played").click()
    expect(first.get_by_role("button", name="Show played")).to_have_attribute("aria-pressed", "true")
    # the blunder of the match: 8/5 7/5 instead of 13/8 (yuko, 32)
    blunder = page.locator("#an-errors li.an-error.blunder")
    expect(blunder.first).to_contain_text("8/5 7/5")
    expect(blunder.first).to_contain_text("13/8")
    # every candidate of the decision, the played one marked, each shown on the board
    candidates = blunder.first.locator(".an-candidates")
    candidates.locator("summary").click()
    items_c = candidates.locator("li")
    assert items_c.count() >= 2
    expect(candidates.locator("li[data-play='8/5 7/5']")).to_contain_text("Played")
    items_c.nth(1).locator("button").click()
    expect(blunder.first.locator("svg.board .arrows")).to_have_count(1)
    page.select_option("#an-filter", "blunder")
    expect(page.locator("#an-errors li.an-error.error")).to_have_count(0)
    page.select_option("#an-filter", "all")

    # the graph of equity and luck
    expect(page.locator("svg.an-graph polyline.an-eq-line")).to_have_count(1)
    expect(page.locator("svg.an-graph polyline.an-luck-line")).to_have_count(1)
    assert page.locator("svg.an-graph circle.an-mark").count() == items.count()

    # the job is listed, and the annotated SGF downloads
    expect(page.locator(f"#an-jobs li[data-job='{job}']")).to_contain_text("match1495872.txt")
    with page.expect_download() as info:
        page.click("#an-sgf")
    download = info.value
    assert download.suggested_filename == "match1495872-analysis.sgf"
    text = Path(download.path()).read_text(encoding="utf-8")
    assert text.startswith("(;") and "lasse" in text
    page.locator("#an-errors li.an-error").first.scroll_into_view_if_needed()
    shot(page, "analysis")


def test_reopen_and_languages(page: Any) -> None:
    job = upload(page)
    # the address reopens the job; German labels and explanations
    page.goto(f"/?view=analysis&job={job}")
    page.select_option("#lang", "de")
    expect(page.locator("#an-players")).to_contain_text("Einstufung")
    explanation = page.locator("#an-errors li.an-error").first.locator(".an-explanation")
    expect(explanation).to_contain_text("ist besser als")
    page.select_option("#lang", "tr")
    expect(page.locator("#an-players")).to_contain_text("Derece")
    expect(explanation).to_contain_text("daha iyidir")
    page.select_option("#lang", "en")
    # a finished job can be deleted from the list; an unknown job is a readable message
    page.locator(f"#an-jobs li[data-job='{job}'] button.an-delete").click()
    expect(page.locator(f"#an-jobs li[data-job='{job}']")).to_have_count(0)
    page.goto("/?view=analysis&job=no-such-job")
    expect(page.locator("#an-job .error-message")).to_contain_text("does not exist")


@pytest.mark.parametrize("page", [{"width": 390, "height": 844}], indirect=True)
def test_phone(page: Any) -> None:
    upload(page)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page scrolls sideways on a phone: {width}px"
    expect(page.locator("#an-errors li.an-error svg.board").first).to_be_visible()
