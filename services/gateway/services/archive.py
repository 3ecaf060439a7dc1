"""The caller's archive (library positions and analysed decisions) in the durable store; its failures are
503 problems."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any, TypeVar

from fastapi import Request

from pulvezar import PulvezarError
from services.gateway.durable import database_url, unavailable
from services.gateway.problems import ProblemError
from services.gateway.security import Client
from services.store.archive import SqlArchive
from services.store.db import StoreUnavailable

logger = logging.getLogger("pulvezar.gateway")
T = TypeVar("T")


def archive(request: Request, who: Client) -> SqlArchive:
    """The caller's archive, in the durable store."""
    return SqlArchive(database_url(request), who.owner)


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
