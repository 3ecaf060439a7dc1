"""Rows per owner: how many, and which go when an owner keeps more than its allowance (retention)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import ColumnElement, func, select
from sqlalchemy.orm import InstrumentedAttribute, Session

from services.store.db import session
from services.store.models import belongs


def past_quota(
    s: Session,
    owner: InstrumentedAttribute[Any],
    row_id: InstrumentedAttribute[str],
    at: InstrumentedAttribute[float],
    max_per_owner: int,
    *,
    counted: Sequence[ColumnElement[bool]] = (),
    removable: Sequence[ColumnElement[bool]] = (),
    limit: int | None = None,
) -> set[str]:
    """The ids of each owner's oldest rows (by ``at``, then id) past ``max_per_owner`` of the rows
    ``counted`` selects; only ``removable`` rows are taken, at most ``limit`` per owner."""
    counts = select(owner, func.count().label("n")).where(*counted).group_by(owner)
    ids: set[str] = set()
    for who, n in s.execute(counts.having(func.count() > max_per_owner)).all():
        over = int(n) - max_per_owner
        mine = belongs(owner, who)
        oldest = select(row_id).where(mine, *counted, *removable).order_by(at, row_id)
        ids.update(s.scalars(oldest.limit(over if limit is None else min(limit, over))).all())
    return ids


def count_rows(url: str, owner: InstrumentedAttribute[Any], who: str | None = None) -> int:
    """How many rows ``owner``'s table holds, or of them ``who``'s (None: every owner's)."""
    q = select(func.count()).select_from(owner.class_)
    if who is not None:
        q = q.where(owner == who)
    with session(url) as s:
        return int(s.scalar(q) or 0)
