"""Browser tests of the web client: ``make run``'s platform (deploy/local/run.py, started once for the
session in a temporary run directory) and Debian's Chromium, headless, driven by Playwright (no browser
download: the system's ``/usr/bin/chromium``).

``page`` is a fresh browser page on the platform's gateway; after each test it checks the basics: no
console error, no uncaught exception, no request to another origin.  ``shot(page, name)`` writes a
screenshot (``from webkit import shot``): into ``docs/screenshots/<name>.png``, which the README and
docs/web.md show, when ``make screenshots`` runs these tests, else into a temporary folder.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))  # bench_platform: make run's platform
sys.path.insert(0, str(Path(__file__).resolve().parent))  # webkit: shared by the tests of this folder
CHROMIUM = os.environ.get("PULVEZAR_CHROMIUM", "/usr/bin/chromium")
FLAGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
]  # fmt: skip

sync_api = pytest.importorskip("playwright.sync_api")
# a loaded 2-core machine: the views' API calls (a 2-ply hint, a rollout's events) may take seconds
sync_api.expect.set_options(timeout=20_000)


def _start_platform() -> Any:
    from bench_platform import LocalPlatform

    return LocalPlatform(env={"PULVEZAR_DAILY_ON_START": "0"})


#: the platform is started this many tests before the first browser test, in a thread of this process: its
#: start (most of half a minute on a loaded 2-core machine) goes on while they run
LEAD = 30
_early: dict[str, Any] = {}


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).resolve().parent
    first = next((i for i, item in enumerate(items) if Path(item.path).is_relative_to(here)), None)
    _early["trigger"] = items[max(0, first - LEAD)].nodeid if first else None


def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    # under pytest-xdist a worker cannot know whether the browser tests come to it: no early start there
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return
    if item.nodeid == _early.get("trigger") and "started" not in _early:
        pool = ThreadPoolExecutor(1, thread_name_prefix="web-platform")
        _early["started"] = pool.submit(_start_platform)
        pool.shutdown(wait=False)


def pytest_sessionfinish() -> None:
    started = _early.pop("started", None)  # started, and no browser test took it (-x, a crash)
    if started is not None and started.exception() is None:
        started.result().stop()


@pytest.fixture(scope="session")
def platform() -> Iterator[Any]:
    """``make run`` (all services, one worker, SQLite store) on free ports; its gateway is ``.url``.  Started
    a few tests before the first browser test where there are such (``LEAD``), else now."""
    started = _early.pop("started", None)
    p = started.result() if started is not None else _start_platform()
    try:
        yield p
    finally:
        p.stop()


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not os.path.exists(CHROMIUM) and shutil.which("chromium") is None:
        pytest.skip("Chromium is not installed (make system-deps installs Debian's)")
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        try:
            yield b
        finally:
            b.close()


class Watch:
    """What a page did that a well-behaved page does not: console errors, page errors, foreign requests."""

    def __init__(self, base: str) -> None:
        self.origin = urlparse(base).netloc
        self.errors: list[str] = []
        self.foreign: list[str] = []

    def console(self, msg: Any) -> None:
        # Chromium logs every 4xx/5xx fetch as "Failed to load resource": the API's problem answers are the
        # app's to show (a malformed ID is a 422); failing responses are checked in response() instead
        if msg.type == "error" and not msg.text.startswith("Failed to load resource"):
            self.errors.append(msg.text)

    def response(self, resp: Any) -> None:
        path = urlparse(resp.url).path
        if resp.status >= 500 or (resp.status >= 400 and not path.startswith("/v1/")):
            self.errors.append(f"{resp.status} {resp.url}")

    def request(self, req: Any) -> None:
        u = urlparse(req.url)
        if u.scheme in ("http", "https", "ws", "wss") and u.netloc != self.origin:
            self.foreign.append(req.url)


@pytest.fixture
def page(browser: Any, platform: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    viewport = getattr(request, "param", None) or {"width": 1280, "height": 900}
    context = browser.new_context(base_url=platform.url, viewport=viewport, locale="en-US")
    pg = context.new_page()
    pg.set_default_timeout(30_000)
    watch = Watch(platform.url)
    pg.on("console", watch.console)
    pg.on("pageerror", lambda e: watch.errors.append(f"uncaught: {e}"))
    pg.on("request", watch.request)
    pg.on("response", watch.response)
    pg.watch = watch  # tests that expect an error response may clear watch.errors
    try:
        yield pg
    finally:
        context.close()
    assert not watch.foreign, f"requests to other origins: {watch.foreign}"
    assert not watch.errors, f"console errors: {watch.errors}"
