"""Requests that are safe to retry: an ``Idempotency-Key`` header names a request, and a retry with the same
key and body is answered as the first was (the answer is stored with the change it made, in one
transaction: :class:`services.store.models.IdempotentRequest`).

Two concurrent requests with one key: the first to commit keeps its change; the other's transaction conflicts
on the stored answer's primary key and rolls back (:class:`services.store.idempotent.DuplicateRequest`), and
:func:`install`'s handler answers it with the first's answer, as a later retry would be."""

from __future__ import annotations

import hashlib
import json
from typing import Annotated, Any

from fastapi import FastAPI, Header, Request
from fastapi.responses import JSONResponse

from services.gateway.durable import store_call
from services.gateway.problems import ProblemError, invalid, problem_response
from services.gateway.security import Client
from services.store.idempotent import DuplicateRequest, remembered

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


def install(app: FastAPI) -> None:
    """Answer a request that lost the race for its ``Idempotency-Key`` with the winner's stored answer."""

    @app.exception_handler(DuplicateRequest)
    async def _duplicate(request: Request, exc: DuplicateRequest) -> JSONResponse:
        r = await store_call(remembered, exc.url, exc.owner, exc.key)
        if r is None:  # the winner's answer was removed since (retention): the retry may go again
            p = ProblemError(409, "a request with this Idempotency-Key was in flight", kind="conflict")
        elif r.fingerprint != exc.fingerprint:
            p = invalid("Idempotency-Key", "this key was used with another request")
        else:
            headers = {"Idempotent-Replayed": "true"}
            if isinstance(r.response.get("href"), str):
                headers["Location"] = r.response["href"]
            return JSONResponse(r.response, status_code=r.status, headers=headers)
        return problem_response(p.status, p.detail, kind=p.kind, errors=p.errors)
