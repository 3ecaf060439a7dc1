"""The caller's archive (library positions and analysed decisions) and the Redis the daily puzzles are
served from: made once per app, their failures 503 problems."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any, TypeVar

from fastapi import Request

from pulvezar import PulvezarError
from services.common import archive_store
from services.common.redis_url import connect as connect_redis
from services.gateway.durable import database_url, unavailable
from services.gateway.problems import ProblemError
from services.gateway.security import Client
from services.store.db import StoreUnavailable

logger = logging.getLogger("pulvezar.gateway")
T = TypeVar("T")


def archive_redis(request: Request) -> Any:
    """The app's Redis client for the archive and the daily puzzles (made on first use)."""
    state = request.app.state
    r = getattr(state, "archive_redis", None)
    if r is None:
        url = state.settings.redis_url
        if not url:
            raise ProblemError(
                503, "the archive is not configured on this gateway (no Redis)", kind="archive-unavailable"
            )

        r = state.archive_redis = connect_redis(url, decode_responses=True)
    return r


def archive(request: Request, who: Client) -> Any:
    """The caller's archive: in the durable store when there is one, else in Redis."""
    url = database_url(request)
    if url:
        from services.store.archive import SqlArchive

        return SqlArchive(url, who.owner)
    return archive_store.RedisArchive(archive_redis(request), who.owner)


async def call(fn: Callable[..., T], *args: Any) -> T:
    """Run a blocking store call in a thread; store failures are 503 problems."""
    try:
        return await asyncio.to_thread(fn, *args)
    except (ProblemError, PulvezarError):
        raise
    except StoreUnavailable:
        raise unavailable() from None
    except Exception as e:
        logger.exception("archive store call failed")
        raise ProblemError(
            503,
            f"the archive store is unavailable ({type(e).__name__})",
            kind="archive-unavailable",
            headers={"Retry-After": "1"},
        ) from None
