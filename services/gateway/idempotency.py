"""Requests that are safe to retry: an ``Idempotency-Key`` header names a request, and a retry with the same
key and body is answered as the first was (the answer is stored with the change it made, in one
transaction: :class:`services.store.models.IdempotentRequest`)."""

from __future__ import annotations

import hashlib
import json
from typing import Annotated, Any

from fastapi import Header, Request
from fastapi.responses import JSONResponse

from services.gateway.durable import store_call
from services.gateway.problems import invalid
from services.gateway.security import Client

IdempotencyKey = Annotated[
    str | None,
    Header(alias="Idempotency-Key", max_length=128, description="makes a retried request safe"),
]


def fingerprint(request: Request, body: Any) -> str:
    """SHA-256 of the method, path and body: a key reused with another request is refused."""
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(f"{request.method} {request.url.path} {text}".encode()).hexdigest()


async def replayed(store: Any, who: Client, key: str | None, fp: str) -> JSONResponse | None:
    """The stored answer of an earlier request with ``key`` (``store.remembered``), or None; a 422 naming
    ``Idempotency-Key`` when the key was used with another request."""
    if key is None:
        return None
    r = await store_call(store.remembered, who.owner, key)
    if r is None:
        return None
    if r.fingerprint != fp:
        raise invalid("Idempotency-Key", "this key was used with another request")
    return JSONResponse(r.response, status_code=r.status, headers={"Idempotent-Replayed": "true"})
