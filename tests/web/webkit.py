"""Helpers of the browser tests (a module name of its own: ``conftest`` is also tests/conftest.py's)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def shot(pg: Any, name: str) -> Path:
    """A screenshot of the page for the docs (``docs/screenshots/<name>.png``)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    pg.screenshot(path=str(path), full_page=True)
    return path
