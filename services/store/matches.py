"""Uploaded match files per owner (``match_uploads``): the bytes, the format and what a list shows.

An upload's id is a digest of its owner and the file's SHA-256, so the same file uploaded again by the
same key is the same upload (no second copy); another key's upload of that file is its own.  Every
call is one short transaction; a database that cannot be reached raises
:class:`~services.store.db.StoreUnavailable`.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, select

from services.store.db import insert, rowcount, session
from services.store.models import MatchUpload, belongs
from services.store.paging import newest_first
from services.store.quota import count_rows, past_quota
from services.store.snapshot import Snapshot


@dataclass(frozen=True)
class UploadRow(Snapshot):
    id: str
    owner: str | None
    filename: str | None
    format: str
    sha256: str
    summary: dict[str, Any]
    created_at: float


def upload_id(owner: str | None, sha256: str) -> str:
    """The id of ``owner``'s upload of the file with digest ``sha256``."""
    return "m" + hashlib.sha256(f"{owner or ''}:{sha256}".encode()).hexdigest()[:23]


class MatchUploads:
    """The uploaded match files on the database at ``url``."""

    def __init__(self, url: str) -> None:
        self.url = url

    def put(
        self, owner: str | None, data: bytes, fmt: str, filename: str | None, summary: dict[str, Any]
    ) -> tuple[UploadRow, bool]:
        """Store an upload: ``(its row, whether it is new)``; the same owner and bytes give the stored one."""
        digest = hashlib.sha256(data).hexdigest()
        uid = upload_id(owner, digest)
        row = {
            "id": uid, "owner": owner, "filename": filename, "format": fmt, "sha256": digest, "data": data,
            "summary": summary, "created_at": time.time(),
        }  # fmt: skip
        with session(self.url) as s:
            new = s.execute(
                insert(self.url)(MatchUpload).values(row).on_conflict_do_nothing().returning(MatchUpload.id)
            )
            created = new.first() is not None
            stored = s.get(MatchUpload, uid)
            assert stored is not None
            return UploadRow.of(stored), created

    def get(self, owner: str | None, uid: str) -> UploadRow | None:
        """The owner's upload ``uid`` (None: none, or another key's)."""
        with session(self.url) as s:
            m = s.get(MatchUpload, uid)
            return UploadRow.of(m) if m is not None and m.owner == owner else None

    def data(self, owner: str | None, uid: str) -> bytes | None:
        with session(self.url) as s:
            m = s.get(MatchUpload, uid)
            return bytes(m.data) if m is not None and m.owner == owner else None

    def delete(self, owner: str | None, uid: str) -> bool:
        with session(self.url) as s:
            q = delete(MatchUpload).where(MatchUpload.id == uid, MatchUpload.owner == owner)
            return bool(rowcount(s.execute(q)))

    def list(
        self, owner: str | None, *, limit: int = 50, cursor: str | None = None
    ) -> tuple[list[UploadRow], str | None]:
        """The owner's uploads, newest first, ``limit`` at a time; the next page's cursor or None."""
        q = select(MatchUpload).where(belongs(MatchUpload.owner, owner))
        return newest_first(
            self.url, q, MatchUpload.created_at, MatchUpload.id, UploadRow.of, limit=limit, cursor=cursor
        )

    def count(self, owner: str | None = None) -> int:
        return count_rows(self.url, MatchUpload.owner, owner)

    def expire(self, older_than_s: float, max_per_owner: int | None = None) -> int:
        """Remove uploads older than ``older_than_s`` seconds and, past ``max_per_owner`` uploads of
        one owner, that owner's oldest; how many."""
        cutoff = time.time() - older_than_s
        with session(self.url) as s:
            ids = set(s.scalars(select(MatchUpload.id).where(MatchUpload.created_at < cutoff)).all())
            if max_per_owner is not None:
                ids |= past_quota(s, MatchUpload.owner, MatchUpload.id, MatchUpload.created_at, max_per_owner)
            if ids:
                s.execute(delete(MatchUpload).where(MatchUpload.id.in_(sorted(ids))))
        return len(ids)
