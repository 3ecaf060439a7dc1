"""Retention: what the durable store keeps, for how long and how many per owner, applied by the
reconciler every pass (:func:`apply`; docs/store.md, "Retention", has the table).

Learner data (players and, per player, their games, events, daily attempts, cards and played matches) is
kept while the player exists: deleting the player deletes it (:mod:`services.store.players`).  Everything
else ages out or is capped per owner, the oldest first, at most ``retention_batch`` rows per table and pass.
"""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy import and_, delete, func, select

from services.store.archive import SqlArchive
from services.store.db import session
from services.store.games import GameRecords
from services.store.idempotent import expire_answers
from services.store.jobs import JobRecords
from services.store.matches import MatchUploads
from services.store.models import ArchiveRow, Exercise
from services.store.quota import past_quota
from services.store.settings import StoreSettings

DAY = 86_400.0


def expire_exercises(url: str, older_than_s: float, max_per_owner: int, limit: int) -> int:
    """Remove exercises issued more than ``older_than_s`` ago (a first answer was folded into the
    player's counters when it came) and, past ``max_per_owner`` of one owner, its oldest; how many."""
    now = time.time()
    with session(url) as s:
        ids = set(s.scalars(select(Exercise.id).where(Exercise.issued_at < now - older_than_s).limit(limit)))
        ids |= past_quota(s, Exercise.owner, Exercise.id, Exercise.issued_at, max_per_owner, limit=limit)
        gone = sorted(ids)[:limit]
        if gone:
            s.execute(delete(Exercise).where(Exercise.id.in_(gone)))
    return len(gone)


def trim_archives(url: str, max_per_owner: int, limit: int) -> int:
    """Past ``max_per_owner`` live entries of one owner, remove its oldest analysed-match entries (saved
    library positions stay) as tombstones, so the gateways' indexes follow; how many."""
    with session(url) as s:
        live = and_(ArchiveRow.deleted.is_(False), ArchiveRow.id.startswith("match:"))
        counts = select(ArchiveRow.owner, func.count().label("n")).where(live).group_by(ArchiveRow.owner)
        big = s.execute(counts.having(func.count() > max_per_owner)).all()
    over = [(str(o), int(n) - max_per_owner) for o, n in big]
    trimmed = 0
    for owner, extra in over:
        trimmed += SqlArchive(url, owner).remove_oldest(min(extra, limit - trimmed), prefix="match:")
        if trimmed >= limit:
            break
    return trimmed


def purge_tombstones(url: str, older_than_s: float, limit: int) -> int:
    """Remove archive tombstones older than ``older_than_s`` (a gateway's index catches up in seconds);
    how many."""
    cutoff = time.time() - older_than_s
    with session(url) as s:
        old = and_(ArchiveRow.deleted.is_(True), ArchiveRow.updated_at < cutoff)
        rows = s.execute(select(ArchiveRow.owner, ArchiveRow.id).where(old).limit(limit)).all()
        for owner, entry_id in rows:
            s.execute(delete(ArchiveRow).where(ArchiveRow.owner == owner, ArchiveRow.id == entry_id))
    return len(rows)


def apply(url: str, settings: StoreSettings | None = None) -> dict[str, int]:
    """One retention pass over every table of the store at ``url``; how many rows each lost."""
    st = settings or StoreSettings()
    n = st.retention_batch
    keep = st.retention_days * DAY
    out: dict[str, Any] = {
        "jobs": JobRecords(url).expire(keep, st.max_jobs_per_owner),
        "uploads": MatchUploads(url).expire(keep, st.max_jobs_per_owner),
        "games": GameRecords(url).expire(
            st.game_retention_days * DAY, st.abandoned_game_days * DAY, st.max_games_per_owner, n
        ),
        "idempotent": expire_answers(url, st.idempotency_retention_s),
        "exercises": expire_exercises(url, st.exercise_retention_days * DAY, st.max_exercises_per_owner, n),
        "archive": trim_archives(url, st.max_archive_entries_per_owner, n),
        "tombstones": purge_tombstones(url, keep, n),
    }
    return out
