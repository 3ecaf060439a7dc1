"""Jobs in the durable store: written when accepted, chunk by chunk, and at their end.

Every call is one short transaction; a database that cannot be reached raises
:class:`~services.store.db.StoreUnavailable`.  Chunk records are write-once (a redelivered chunk's
second write changes nothing), as in Redis.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import case, delete, func, select, update

from services.store.db import insert, rowcount, session
from services.store.models import FINAL, Job, JobBlob, JobChunk, belongs, one_of
from services.store.paging import decode_cursor as decode_cursor  # re-exported: the cursors began here
from services.store.paging import encode_cursor as encode_cursor
from services.store.paging import newest_first
from services.store.quota import count_rows, past_quota
from services.store.snapshot import Snapshot


@dataclass(frozen=True)
class JobRow(Snapshot):
    id: str
    kind: str
    owner: str | None
    priority: str | None
    state: str
    spec: dict[str, Any]
    chunk_list: list[Any] | None
    error: str | None
    created_at: float
    updated_at: float
    finished_at: float | None

    def summary(self) -> dict[str, Any]:
        """What a job list shows of it."""
        return {
            "id": self.id,
            "kind": self.kind,
            "state": self.state,
            "priority": self.priority,
            "created": self.created_at,
            "finished": self.finished_at,
            "error": self.error,
        }


class JobRecords:
    """The jobs table and its chunks and blobs on the database at ``url``."""

    def __init__(self, url: str) -> None:
        self.url = url

    def _insert(self) -> Any:
        return insert(self.url)

    # ---- writing ---------------------------------------------------------------------------------
    def create(
        self,
        job_id: str,
        kind: str,
        spec: dict[str, Any],
        *,
        owner: str | None = None,
        priority: str | None = None,
        chunk_list: Sequence[Sequence[int]] | None = None,
        created: float | None = None,
        blobs: dict[str, bytes] | None = None,
    ) -> None:
        """Record an accepted job (state ``queued``), with its named blobs, in one transaction."""
        now = time.time()
        with session(self.url) as s:
            s.add(
                Job(
                    id=job_id, kind=kind, owner=owner, priority=priority, state="queued", spec=spec,
                    chunk_list=[list(c) for c in chunk_list] if chunk_list is not None else None,
                    error=None, created_at=created or now, updated_at=now, finished_at=None,
                )
            )  # fmt: skip
            for name, data in (blobs or {}).items():
                s.add(JobBlob(job_id=job_id, name=name, data=data, created_at=now))

    def add_chunks(self, job_id: str, records: dict[int, dict[str, Any]]) -> int:
        """Store finished chunks (those already stored are left as they are); how many were new."""
        if not records:
            return 0
        now = time.time()
        rows = [{"job_id": job_id, "n": n, "record": r, "created_at": now} for n, r in records.items()]
        with session(self.url) as s:
            stmt = self._insert()(JobChunk).values(rows).on_conflict_do_nothing().returning(JobChunk.n)
            new = len(s.execute(stmt).all())
            s.execute(update(Job).where(Job.id == job_id, Job.state == "queued").values(state="running"))
            return new

    def complete_if_done(self, job_id: str) -> bool:
        """Mark a job done when every chunk of its list is stored; whether it is done now.  Runs once per
        finished chunk, so it reads the length of the chunk list in SQL, never the list (which made a
        20,000-chunk job's every chunk cost 20,000 entries: docs/scaling.md)."""
        with session(self.url) as s:
            col = Job.chunk_list
            if s.get_bind().dialect.name == "postgresql":
                is_list, size = func.jsonb_typeof(col) == "array", func.jsonb_array_length(col)
            else:
                is_list, size = func.json_type(col) == "array", func.json_array_length(col)
            length = case((is_list, size), else_=None)  # no list (JSON null): None
            found = s.execute(select(Job.state, length).where(Job.id == job_id)).one_or_none()
            if found is None:
                return False
            state, total = found
            if state in FINAL or total is None:
                return bool(state == "done")
            have = s.scalar(select(func.count()).select_from(JobChunk).where(JobChunk.job_id == job_id))
            if int(have or 0) < int(total):
                return False
            now = time.time()
            done = s.execute(
                update(Job)
                .where(Job.id == job_id, Job.state.not_in(FINAL))
                .values(state="done", updated_at=now, finished_at=now)
            )
            return bool(rowcount(done))

    def forget_chunks(self, job_id: str, numbers: Iterable[int]) -> None:
        """Remove chunks (failed games of an analysis that is resumed)."""
        numbers = list(numbers)
        if numbers:
            with session(self.url) as s:
                s.execute(delete(JobChunk).where(JobChunk.job_id == job_id, JobChunk.n.in_(numbers)))

    def set_state(self, job_id: str, state: str, error: str | None = None) -> None:
        """A new state (a final one stamps ``finished_at``); a finished job's state does not change."""
        now = time.time()
        values: dict[str, Any] = {"state": state, "updated_at": now}
        if error is not None:
            values["error"] = error
        if state in FINAL:
            values["finished_at"] = now
        with session(self.url) as s:
            s.execute(update(Job).where(Job.id == job_id, Job.state.not_in(FINAL)).values(**values))

    def reopen(self, job_id: str, chunk_list: Sequence[Sequence[int]]) -> None:
        """More chunks for a job (extend): it runs again."""
        with session(self.url) as s:
            s.execute(
                update(Job)
                .where(Job.id == job_id)
                .values(
                    chunk_list=[list(c) for c in chunk_list], state="running", finished_at=None,
                    error=None, updated_at=time.time(),
                )
            )  # fmt: skip

    def put_blob(self, job_id: str, name: str, data: bytes) -> None:
        with session(self.url) as s:
            stmt = self._insert()(JobBlob).values(job_id=job_id, name=name, data=data, created_at=time.time())
            s.execute(stmt.on_conflict_do_update(index_elements=["job_id", "name"], set_={"data": data}))

    def delete(self, job_id: str) -> bool:
        """Remove a job with its chunks and blobs; False when it was not there."""
        with session(self.url) as s:
            s.execute(delete(JobChunk).where(JobChunk.job_id == job_id))
            s.execute(delete(JobBlob).where(JobBlob.job_id == job_id))
            return bool(rowcount(s.execute(delete(Job).where(Job.id == job_id))))

    def expire(self, older_than_s: float, max_per_owner: int | None = None) -> int:
        """Remove finished jobs that ended before ``older_than_s`` seconds ago and, past
        ``max_per_owner`` jobs of one owner, that owner's oldest finished ones; how many."""
        cutoff = time.time() - older_than_s
        with session(self.url) as s:
            ids = set(s.scalars(select(Job.id).where(Job.state.in_(FINAL), Job.finished_at < cutoff)).all())
            if max_per_owner is not None:
                finished = [Job.state.in_(FINAL)]
                ids |= past_quota(s, Job.owner, Job.id, Job.created_at, max_per_owner, removable=finished)
        return sum(self.delete(i) for i in sorted(ids))

    # ---- reading ---------------------------------------------------------------------------------
    def get(self, job_id: str) -> JobRow | None:
        with session(self.url) as s:
            j = s.get(Job, job_id)
            return JobRow.of(j) if j is not None else None

    def chunks(self, job_id: str) -> dict[int, dict[str, Any]]:
        with session(self.url) as s:
            rows = s.execute(select(JobChunk.n, JobChunk.record).where(JobChunk.job_id == job_id)).all()
        return {int(n): dict(r) for n, r in rows}

    def chunk_numbers(self, job_id: str) -> set[int]:
        with session(self.url) as s:
            return set(s.scalars(select(JobChunk.n).where(JobChunk.job_id == job_id)).all())

    def blob(self, job_id: str, name: str) -> bytes | None:
        with session(self.url) as s:
            b = s.get(JobBlob, (job_id, name))
            return bytes(b.data) if b is not None else None

    def blob_names(self, job_id: str) -> list[str]:
        with session(self.url) as s:
            return sorted(s.scalars(select(JobBlob.name).where(JobBlob.job_id == job_id)).all())

    def ended_since(self, kind: str, since: float, limit: int = 1000) -> list[tuple[str, float]]:
        """``(id, finished_at)`` of the jobs of ``kind`` that reached a final state at or after ``since``,
        in that order (the reconciler's watermark for what Redis may drop)."""
        q = (
            select(Job.id, Job.finished_at)
            .where(Job.kind == kind, Job.state.in_(FINAL), Job.finished_at >= since)
            .order_by(Job.finished_at, Job.id)
            .limit(limit)
        )
        with session(self.url) as s:
            return [(str(i), float(f)) for i, f in s.execute(q).all() if f is not None]

    def unfinished(self, kinds: Iterable[str] | None = None, limit: int = 1000) -> list[JobRow]:
        """Jobs not in a final state, oldest first."""
        q = (
            select(Job)
            .where(Job.state.not_in(FINAL), one_of(Job.kind, kinds))
            .order_by(Job.created_at, Job.id)
            .limit(limit)
        )
        with session(self.url) as s:
            return [JobRow.of(j) for j in s.scalars(q).all()]

    def abandon(self, kind: str, older_than_s: float) -> int:
        """Unfinished jobs of ``kind`` not updated for ``older_than_s`` seconds become failed (their
        worker is gone; for kinds that no reconciler resumes, as the daily runs); how many."""
        now = time.time()
        with session(self.url) as s:
            rows = s.scalars(
                select(Job).where(
                    Job.kind == kind, Job.state.not_in(FINAL), Job.updated_at < now - older_than_s
                )
            ).all()
            for job in rows:
                job.state, job.error, job.updated_at, job.finished_at = (
                    "failed",
                    "abandoned: its worker stopped",
                    now,
                    now,
                )
            return len(rows)

    def backlog(self, owner: str, limit: int = 10_000) -> tuple[int, int]:
        """``(jobs, trials)``: an owner's unfinished jobs (every kind) and the trials of its unfinished
        rollout and batch jobs (their whole chunk lists), for the per-key limits."""
        q = select(Job.kind, Job.chunk_list).where(Job.owner == owner, Job.state.not_in(FINAL)).limit(limit)
        with session(self.url) as s:
            rows = s.execute(q).all()
        trials = sum(
            int(c[2])
            for kind, chunks in rows
            if kind in ("rollout", "batch")
            for c in (chunks or [])
            if len(c) < 5 or c[3] == 0  # a range cut by candidates counts once
        )
        return len(rows), trials

    def list(
        self,
        owner: str | None,
        *,
        kinds: Iterable[str] | None = None,
        states: Iterable[str] | None = None,
        limit: int = 50,
        cursor: str | None = None,
    ) -> tuple[list[JobRow], str | None]:
        """An owner's jobs, newest first, ``limit`` at a time; the cursor of the next page or None."""
        q = select(Job).where(belongs(Job.owner, owner), one_of(Job.kind, kinds), one_of(Job.state, states))
        return newest_first(self.url, q, Job.created_at, Job.id, JobRow.of, limit=limit, cursor=cursor)

    def count(self, owner: str | None = None) -> int:
        return count_rows(self.url, Job.owner, owner)
