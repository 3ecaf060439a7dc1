"""The deep analysis view in a browser (issue 30): a light preset through the platform's worker, its
progress, then the candidates with their noise bands and the playable ones, in English and German."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlparse

import pytest
from webkit import shot

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect


def test_a_deep_analysis(page: Any) -> None:
    page.goto("/?view=deep")
    page.fill("#dp-dice", "31")
    page.select_option("#dp-trials", "72")  # one chunk: seconds of the worker
    page.select_option("#dp-ply", "0")
    page.locator("#dp-start").click()
    expect(page.locator("#dp-state")).to_have_attribute("data-state", "done", timeout=120_000)
    rows = page.locator("#dp-table tbody tr")
    expect(rows).to_have_count(5)
    expect(rows.first).to_have_attribute("data-play", "8/5 6/5")
    expect(rows.first.locator("td").last).to_have_text("yes")  # the best is playable
    assert "job=" in page.url
    rows.nth(1).locator("button").click()
    expect(page.locator("#dp-board svg.board .arrows")).to_have_count(1)
    shot(page, "deep-analysis")
    page.select_option("#lang", "de")
    expect(page.locator("h1")).to_have_text("Tiefenanalyse")
    expect(page.locator("#dp-table tbody tr")).to_have_count(5)  # the job again, from the address


def test_a_deep_cube_decision(page: Any) -> None:
    """No dice: the cube decision of a race (88 against 111 pips) by the cube search and a cubeful rollout."""
    page.goto("/?view=deep&position=cHfuAAC4ezcAAA")
    page.fill("#dp-dice", "")
    page.select_option("#dp-trials", "72")
    page.select_option("#dp-ply", "0")
    page.locator("#dp-start").click()
    expect(page.locator("#dp-state")).to_have_attribute("data-state", "done", timeout=120_000)
    expect(page.locator("#dp-decision")).to_contain_text("Decision: ")
    expect(page.locator("#dp-cube tbody tr")).to_have_count(3)
    choices = page.locator("#dp-choices tbody tr")
    expect(choices).to_have_count(4)
    expect(
        page.locator("#dp-choices tr[data-action='take'], #dp-choices tr[data-action='pass']")
    ).to_have_count(2)
    expect(page.locator("#dp-choices tr.playable")).not_to_have_count(0)  # the right actions cost nothing
    shot(page, "deep-cube")
    page.select_option("#lang", "de")
    expect(page.locator("#dp-decision")).to_contain_text("Entscheidung: ")


def start_light(page: Any) -> None:
    page.fill("#dp-dice", "31")
    page.select_option("#dp-trials", "72")
    page.select_option("#dp-ply", "0")
    page.locator("#dp-start").click()


def test_the_job_is_followed_by_its_events_else_polled(page: Any) -> None:
    """followJob (jobs.js): the job's server-sent events; where they are refused, its status polled."""
    paths: list[str] = []
    page.on("request", lambda r: paths.append(f"{r.method} {urlparse(r.url).path}"))
    page.goto("/?view=deep")
    start_light(page)
    expect(page.locator("#dp-state")).to_have_attribute("data-state", "done", timeout=120_000)
    assert any(re.fullmatch(r"GET /v1/deep-analyses/[^/]+/events", p) for p in paths), paths
    # the events refused (a network error, as a proxy that drops streams gives): polled until it ends
    page.route(re.compile(r".*/v1/deep-analyses/[^/]+/events$"), lambda route: route.abort())
    paths.clear()
    page.select_option("#dp-trials", "144")  # two chunks: the state changes while it is polled
    first = page.url
    page.locator("#dp-start").click()
    expect(page).not_to_have_url(first)  # the new job's
    expect(page.locator("#dp-state")).to_have_attribute("data-state", "done", timeout=120_000)
    expect(page.locator("#dp-table tbody tr")).to_have_count(5)
    polls = [p for p in paths if re.fullmatch(r"GET /v1/deep-analyses/[^/]+", p)]
    assert len(polls) >= 2, paths  # the status now, then polled


@pytest.mark.parametrize("page", [{"width": 390, "height": 844}], indirect=True)
def test_the_deep_analysis_on_a_phone(page: Any) -> None:
    page.goto("/?view=deep")
    expect(page.locator("#dp-board svg.board")).to_be_visible()
    expect(page.locator("#dp-start")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
