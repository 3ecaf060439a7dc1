"""The gateway's view of the durable store: its URL and calls that turn its outage into 503."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

from fastapi import Request

from services.gateway.problems import ProblemError
from services.store.db import StoreUnavailable

T = TypeVar("T")


def database_url(request: Request) -> str | None:
    """The durable store's URL (``PULVEZAR_DATABASE_URL``), read once per app; None: none configured."""
    state = request.app.state
    if not hasattr(state, "database_url"):
        from services.store.settings import StoreSettings

        state.database_url = StoreSettings().url
    url: str | None = state.database_url
    return url


def require_url(request: Request, what: str = "the archive") -> str:
    """The durable store's URL; a 501 problem naming ``what`` where none is configured."""
    url = database_url(request)
    if not url:
        raise no_store(what)
    return url


def unavailable() -> ProblemError:
    return ProblemError(
        503,
        "the database is unavailable; try again shortly",
        kind="store-unavailable",
        headers={"Retry-After": "5"},
    )


def no_store(what: str) -> ProblemError:
    return ProblemError(501, f"{what} needs the durable store (PULVEZAR_DATABASE_URL)", kind="no-store")


async def store_call(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Run a blocking store call in a thread; a database that cannot be reached is a 503."""
    try:
        return await asyncio.to_thread(fn, *args, **kwargs)
    except StoreUnavailable:
        raise unavailable() from None
