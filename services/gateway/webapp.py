"""The web client (``services/gateway/web``): plain ES modules served as they are, no build, no CDN.

``GET /`` answers ``index.html`` (whatever the query: the address carries the app's state) with a
Content-Security-Policy that allows this origin only; ``/web/...`` serves the modules, styles and images.
The app talks to the public ``/v1`` API only and keeps no state of its own on the server (ADR 0008).
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

WEB = Path(__file__).resolve().parent / "web"
CSP = (
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)


def install(app: FastAPI) -> None:
    """Serve the app at ``/`` and its files at ``/web``."""
    app.mount("/web", StaticFiles(directory=WEB), name="web")

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(
            WEB / "index.html",
            media_type="text/html; charset=utf-8",
            headers={"Content-Security-Policy": CSP, "Cache-Control": "no-cache"},
        )
