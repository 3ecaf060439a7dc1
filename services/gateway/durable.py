"""The gateway's view of the durable store: its URL and calls that turn its outage into 503."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

from fastapi import Request

from services.gateway.problems import ProblemError
from services.store.db import StoreUnavailable

T = TypeVar("T")


def state_url(state: Any) -> str:
    """The durable store's URL (``PULVEZAR_DATABASE_URL``, required), read once per app: the lifespan
    reads it at start (a test may set ``app.state.database_url`` before)."""
    url: str | None = getattr(state, "database_url", None)
    if not url:
        from services.store.db import required_url

        url = state.database_url = required_url("the gateway")
    return url


def database_url(request: Request) -> str:
    """The app's durable store's URL (:func:`state_url`)."""
    return state_url(request.app.state)


def unavailable() -> ProblemError:
    return ProblemError(
        503,
        "the database is unavailable; try again shortly",
        kind="store-unavailable",
        headers={"Retry-After": "5"},
    )


async def store_call(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Run a blocking store call in a thread; a database that cannot be reached is a 503."""
    try:
        return await asyncio.to_thread(fn, *args, **kwargs)
    except StoreUnavailable:
        raise unavailable() from None
