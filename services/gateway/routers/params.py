"""The parameters and dependencies the routers share: the caller, the upstream services, ids and cursors."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Path

from services.gateway.security import Client, client
from services.gateway.services.plays import upstream
from services.gateway.upstream import Upstream

#: the API key's client (401 without one)
Who = Annotated[Client, Depends(client)]
#: the Rules and Evaluator services
Up = Annotated[Upstream, Depends(upstream)]


def short_id(description: str | None = None, example: str | None = None) -> Any:
    """A path segment naming a stored thing: 1 to 32 letters and digits."""
    examples = [example] if example is not None else None
    return Path(
        min_length=1, max_length=32, pattern=r"^[A-Za-z0-9]+$", description=description, examples=examples
    )
