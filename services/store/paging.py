"""Newest-first pages of a table and the opaque cursors that continue them."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from sqlalchemy import Select, and_, or_
from sqlalchemy.orm import InstrumentedAttribute

from services.store.db import session


class Paged(Protocol):
    """A stored row as a page lists it: its id (the tie-break of equal times)."""

    @property
    def id(self) -> str: ...


P = TypeVar("P", bound=Paged)


def encode_cursor(created_at: float, row_id: str) -> str:
    return base64.urlsafe_b64encode(json.dumps([created_at, row_id]).encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[float, str]:
    """The position a list continues after; ValueError for a cursor this store did not make."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        created, row_id = json.loads(raw)
        return float(created), str(row_id)
    except Exception:
        raise ValueError("not a cursor of this list") from None


def newest_first(
    url: str,
    q: Select[Any],
    at: InstrumentedAttribute[float],
    row_id: InstrumentedAttribute[str],
    of: Callable[[Any], P],
    *,
    limit: int,
    cursor: str | None,
) -> tuple[list[P], str | None]:
    """``limit`` rows of ``q``, newest by ``at`` first (ties by ``row_id``), each made by ``of``, after
    ``cursor``; the next page's cursor or None (ValueError for a cursor this store did not make)."""
    if cursor is not None:
        when, last = decode_cursor(cursor)
        q = q.where(or_(at < when, and_(at == when, row_id < last)))
    q = q.order_by(at.desc(), row_id.desc()).limit(limit + 1)
    with session(url) as s:
        rows = [of(r) for r in s.scalars(q).all()]
    more = len(rows) > limit
    rows = rows[:limit]
    return rows, (encode_cursor(_time(rows[-1], at.key), rows[-1].id) if more and rows else None)


def _time(row: Any, name: str) -> float:
    return float(getattr(row, name))
