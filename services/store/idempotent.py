"""Answers to requests sent with an ``Idempotency-Key``, per owner, stored in the transaction of the change
they made (:func:`remember`), so a retried request is answered as the first was (:func:`remembered`).

The row's primary key ``(owner, key)`` is the claim: of two concurrent requests with one key, the second's
insert conflicts inside its own transaction, which then rolls back with everything it wrote
(:class:`DuplicateRequest`); the gateway answers it with the first's stored answer.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete
from sqlalchemy.exc import IntegrityError

from services.store.db import insert, rowcount, session
from services.store.models import IdempotentRequest


@dataclass(frozen=True)
class Remembered:
    """The answer to an earlier request with the same ``Idempotency-Key``."""

    fingerprint: str
    status: int
    response: dict[str, Any]


class DuplicateRequest(Exception):
    """Another request with the same owner and ``Idempotency-Key`` stored its change first: this one's
    transaction was rolled back (nothing it wrote is kept)."""

    def __init__(self, url: str, owner: str | None, key: str, fingerprint: str) -> None:
        super().__init__(f"Idempotency-Key {key!r} already used")
        self.url, self.owner, self.key, self.fingerprint = url, owner, key, fingerprint


def remember(
    s: Any, url: str, owner: str | None, idempotency: tuple[str, str, int, dict[str, Any]] | None, now: float
) -> None:
    """Store the answer of a request sent with an ``Idempotency-Key`` (``(key, fingerprint, status,
    answer)``) in the transaction ``s`` that made its change; a retry finds it (:func:`remembered`).
    :class:`DuplicateRequest` when the key is already taken (the transaction must not commit then)."""
    if idempotency is None:
        return
    key, fingerprint, status, response = idempotency
    row = {
        "owner": owner or "", "key": key, "fingerprint": fingerprint, "status": status, "response": response,
        "created_at": now,
    }  # fmt: skip
    try:
        s.execute(insert(url)(IdempotentRequest).values(**row))
    except IntegrityError:
        raise DuplicateRequest(url, owner, key, fingerprint) from None


def remembered(url: str, owner: str | None, key: str) -> Remembered | None:
    """The answer stored for the owner's ``key``, or None."""
    with session(url) as s:
        r = s.get(IdempotentRequest, (owner or "", key))
        return None if r is None else Remembered(r.fingerprint, r.status, dict(r.response))


def expire_answers(url: str, older_than_s: float, now: float | None = None) -> int:
    """Remove stored answers older than ``older_than_s`` seconds (a retry comes within minutes); how many."""
    cutoff = (time.time() if now is None else now) - older_than_s
    with session(url) as s:
        done = s.execute(delete(IdempotentRequest).where(IdempotentRequest.created_at < cutoff))
        return max(0, rowcount(done))
