"""axe-core over every view of the web client: each route of app.js, opened once on one page (``?view=X``, as
the app navigates), has no serious or critical accessibility violation (WCAG 2.1 A/AA and axe's best
practices: names and labels, contrast, landmarks, ARIA).  A new view in app.js's routes is checked without
a change here."""

from __future__ import annotations

import contextlib
import re
from pathlib import Path
from typing import Any

import pytest
from webkit import axe_violations

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect

APP = Path(__file__).resolve().parents[2] / "services" / "gateway" / "web" / "app.js"


def routes() -> list[str]:
    """The views app.js routes to (its VIEWS table: ``name: () => import("./views/name.js")``)."""
    return re.findall(r"^\s+(\w+): \(\) => import\(", APP.read_text(encoding="utf-8"), re.M)


def settle(page: Any, name: str) -> None:
    """The view is mounted and its first answers are in (no "Loading..." left, at most a few seconds)."""
    expect(page.locator(f'#view[data-view="{name}"] .view-host > *').first).to_be_attached()
    # a view still "loading" after that (a slow engine answer) is checked as it is
    with contextlib.suppress(sync_api.TimeoutError):
        page.wait_for_function(
            "() => ![...document.querySelectorAll('#view .muted')].some((e) => e.textContent.endsWith('…'))",
            timeout=4000,
        )


def test_the_routes_are_found() -> None:
    found = routes()
    assert {"home", "position", "play", "daily", "statistics"} <= set(found), found


def test_every_view_has_no_serious_accessibility_violation(page: Any) -> None:
    problems: dict[str, list[str]] = {}
    page.goto("/")
    for name in routes():  # the app's own navigation (no reload: axe-core is read into the page once)
        page.evaluate(
            "(u) => { history.pushState(null, '', u); dispatchEvent(new PopStateEvent('popstate')); }",
            f"/?view={name}",
        )
        settle(page, name)
        found = axe_violations(page)
        if found:
            problems[name] = found
    assert not problems, problems
    # the check sees a violation where there is one: a button without a name
    page.evaluate("() => document.getElementById('view').append(document.createElement('button'))")
    assert any(v.startswith("button-name (critical)") for v in axe_violations(page))
