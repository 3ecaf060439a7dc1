"""Helpers of the browser tests (a module name of its own: ``conftest`` is also tests/conftest.py's)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def shot(pg: Any, name: str) -> Path:
    """A screenshot of the page: into ``docs/screenshots/<name>.png`` with ``PULVEZAR_SCREENSHOTS=docs``
    (``make screenshots``), else into a temporary folder (a test run leaves the tree as it was)."""
    folder = (
        DOCS
        if os.environ.get("PULVEZAR_SCREENSHOTS") == "docs"
        else Path(tempfile.gettempdir()) / "pulvezar-shots"
    )
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.png"
    pg.screenshot(path=str(path), full_page=True)
    assert path.stat().st_size > 1000, "an empty screenshot"
    return path
