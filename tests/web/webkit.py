"""Helpers of the browser tests (a module name of its own: ``conftest`` is also tests/conftest.py's)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def shot(pg: Any, name: str, full_page: bool = True) -> Path:
    """A screenshot of the page (the whole page, or the viewport with ``full_page=False``): into
    ``docs/screenshots/<name>.png`` with ``PULVEZAR_SCREENSHOTS=docs`` (``make screenshots``), else into a
    temporary folder (a test run leaves the tree as it was)."""
    folder = (
        DOCS
        if os.environ.get("PULVEZAR_SCREENSHOTS") == "docs"
        else Path(tempfile.gettempdir()) / "pulvezar-shots"
    )
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.png"
    pg.screenshot(path=str(path), full_page=full_page)
    assert path.stat().st_size > 1000, "an empty screenshot"
    return path


#: the axe-core rules' tags the checks run: WCAG 2.1 A and AA, and axe's best practices
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]
_axe: list[Any] = []


def axe_violations(pg: Any, impacts: tuple[str, ...] = ("serious", "critical")) -> list[str]:
    """axe-core (axe-playwright-python's bundled copy) over the page as it is now: its violations of these
    impacts, each as ``rule-id (impact): the first offending elements``: ``assert not axe_violations(pg)``."""
    if not _axe:
        from axe_playwright_python.sync_playwright import Axe

        _axe.append(Axe())
    options = {"resultTypes": ["violations"], "runOnly": {"type": "tag", "values": AXE_TAGS}}
    if not pg.evaluate("() => typeof window.axe === 'object'"):  # once per loaded page
        pg.evaluate(_axe[0].axe_script)
    found = pg.evaluate("(options) => axe.run(document, options)", options)["violations"]
    return [
        f"{v['id']} ({v['impact']}): " + "; ".join(" ".join(n["target"]) for n in v["nodes"][:3])
        for v in found
        if v["impact"] in impacts
    ]
