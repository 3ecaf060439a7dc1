"""Answers to requests sent with an ``Idempotency-Key``, per owner, stored in the transaction of the change
they made (:func:`remember`), so a retried request is answered as the first was (:func:`remembered`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from services.store.db import insert, session
from services.store.models import IdempotentRequest


@dataclass(frozen=True)
class Remembered:
    """The answer to an earlier request with the same ``Idempotency-Key``."""

    fingerprint: str
    status: int
    response: dict[str, Any]


def remember(
    s: Any, url: str, owner: str | None, idempotency: tuple[str, str, int, dict[str, Any]] | None, now: float
) -> None:
    """Store the answer of a request sent with an ``Idempotency-Key`` (``(key, fingerprint, status,
    answer)``) in the transaction ``s`` that made its change; a retry finds it (:func:`remembered`)."""
    if idempotency is None:
        return
    key, fingerprint, status, response = idempotency
    s.execute(
        insert(url)(IdempotentRequest)
        .values(
            owner=owner or "", key=key, fingerprint=fingerprint, status=status, response=response,
            created_at=now,
        )
        .on_conflict_do_nothing()
    )  # fmt: skip


def remembered(url: str, owner: str | None, key: str) -> Remembered | None:
    """The answer stored for the owner's ``key``, or None."""
    with session(url) as s:
        r = s.get(IdempotentRequest, (owner or "", key))
        return None if r is None else Remembered(r.fingerprint, r.status, dict(r.response))
