"""The archive of positions per owner and the daily puzzles, in the durable store.

:class:`SqlArchive`: an owner's entries (decisions of analysed matches, saved library positions) with a
version counter that every change increments in the same transaction.  Each row keeps the version that
last wrote it, and a removed entry stays as a tombstone, so a gateway that holds an index at version ``v``
catches up with one query (:meth:`SqlArchive.changes_since`) instead of reading everything again.

:class:`DailyRecords`: the daily puzzles as served, written once per (date, rule set, kind), and their
rechecks by other nets, written once per (date, rule set, kind, net).

Entry ids: ``match:<match>:<game>:<move>`` for a decision of an analysed match (written again
when the match is analysed again: the newer entry replaces the older), ``lib:<16 hex>`` for a saved
library position, the first 16 hex digits of ``SHA-256("<Position ID>:<Match ID or empty>")``, so
the same position with the same match state is saved once.

:meth:`SqlArchive.add_match_positions` takes one dict per decision of an analysed match::

    {
        "match": "job-1234",         # required: names the match (a job id, a file name ...)
        "game": 1,                   # required: game number, from 1
        "move": 17,                  # required: move number in the game, from 1
        "position_id": "4HPwATDgc/ABMA",   # required: the player on roll's view, before the roll
        "match_id": "cAkAAAAAAAAA",  # optional: gnubg Match ID of the decision
        "date": "2026-11-29",        # optional: ISO date the match was played
        "play": "8/5 6/5",           # optional: the play (or cube action) made then
        "dice": [3, 1],              # optional: the roll (none for a cube decision)
        "rules": "international",    # optional: Rules.name (default international)
        "kind": "opening", "side": None,   # optional: the position type (computed when left out)
    }

Invalid entries raise :class:`pulvezar.PulvezarError` naming the field (``entries[3].date``)
before anything is written; all valid entries are written in one transaction.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterable, Mapping
from typing import Any

from sqlalchemy import select, update

from pulvezar import PulvezarError
from pulvezar.archive.similar import ArchiveEntry, ArchiveIndex
from services.store.db import insert, session
from services.store.models import ArchiveOwner, ArchiveRow, DailyPuzzle, DailyRecheck

LIBRARY_PREFIX = "lib:"
MATCH_PREFIX = "match:"
MAX_BATCH = 100_000
_MATCH_FIELDS = {
    "match",
    "game",
    "move",
    "position_id",
    "match_id",
    "date",
    "play",
    "dice",
    "rules",
    "kind",
    "side",
}


def match_entry(d: Mapping[str, Any], field: str = "entry") -> ArchiveEntry:
    """The archive entry of one decision of an analysed match (see the module for the format)."""
    if not isinstance(d, Mapping):
        raise PulvezarError("an entry is a JSON object", field=field)
    extra = sorted(set(d) - _MATCH_FIELDS)
    if extra:
        raise PulvezarError(f"unknown field {extra[0]!r}", field=f"{field}.{extra[0]}")
    for key in ("match", "game", "move", "position_id"):
        if d.get(key) is None:
            raise PulvezarError(f"{key} is required", field=f"{field}.{key}")
    if not isinstance(d["match"], str) or not d["match"] or len(d["match"]) > 120:
        raise PulvezarError("match is a non-empty string of at most 120 characters", field=f"{field}.match")
    args = dict(d)
    try:
        entry_id = f"{MATCH_PREFIX}{d['match']}:{int(d['game'])}:{int(d['move'])}"
        if args.get("dice") is not None:
            args["dice"] = tuple(args["dice"])
        return ArchiveEntry(id=entry_id, source="match", **args)
    except PulvezarError as e:
        raise PulvezarError(str(e), field=f"{field}.{e.field}" if e.field else field) from None
    except (TypeError, ValueError) as e:
        raise PulvezarError(f"invalid entry: {e}", field=field) from None


def parse_match_positions(entries: Iterable[Mapping[str, Any]]) -> list[ArchiveEntry]:
    """The entries of :meth:`SqlArchive.add_match_positions`, checked (the first bad one raises, naming
    its field)."""
    parsed = [match_entry(d, f"entries[{i}]") for i, d in enumerate(entries)]
    if len(parsed) > MAX_BATCH:
        raise PulvezarError(f"at most {MAX_BATCH} entries per call", field="entries")
    return parsed


def library_id(position_id: str, match_id: str | None) -> str:
    """The id of a library position: the same position and match state give the same id."""
    digest = hashlib.sha256(f"{position_id}:{match_id or ''}".encode()).hexdigest()
    return f"{LIBRARY_PREFIX}{digest[:16]}"


def library_entry(entry: ArchiveEntry) -> ArchiveEntry:
    """``entry`` under its library id (:func:`library_id`); a source other than ``library`` is refused."""
    if entry.source != "library":
        raise PulvezarError("library positions have source 'library'", field="source")
    d = entry.as_dict()
    d["id"] = library_id(entry.position_id, entry.match_id)
    return ArchiveEntry.from_dict(d)


def _entry(data: Mapping[str, Any]) -> ArchiveEntry:
    return ArchiveEntry.trusted(dict(data))


class SqlArchive:
    """One owner's archive on the database at ``url``."""

    def __init__(self, url: str, owner: str) -> None:
        self.url, self.owner = url, owner

    def _bump(self, s: Any) -> int:
        """The owner's next version (locks the owner's row until the transaction ends)."""
        first = insert(self.url)(ArchiveOwner).values(owner=self.owner, version=0)
        s.execute(first.on_conflict_do_nothing())
        stmt = (
            update(ArchiveOwner)
            .where(ArchiveOwner.owner == self.owner)
            .values(version=ArchiveOwner.version + 1)
            .returning(ArchiveOwner.version)
        )
        return int(s.execute(stmt).scalar_one())

    def _upsert(self, s: Any, rows: list[dict[str, Any]]) -> None:
        stmt = insert(self.url)(ArchiveRow).values(rows)
        s.execute(
            stmt.on_conflict_do_update(
                index_elements=["owner", "id"],
                set_={
                    "version": stmt.excluded.version,
                    "deleted": stmt.excluded.deleted,
                    "data": stmt.excluded.data,
                    "updated_at": stmt.excluded.updated_at,
                },
            )
        )

    # ---- writing ---------------------------------------------------------------------------------
    def add_match_positions(self, entries: Iterable[Mapping[str, Any]]) -> int:
        """Add (or replace) the decisions of an analysed match; how many were written."""
        parsed = parse_match_positions(entries)
        self.import_entries(parsed)
        return len(parsed)

    def import_entries(self, entries: Iterable[ArchiveEntry]) -> int:
        """Write entries as they are (ids included: an archive moved from elsewhere), replacing those with
        the same id, in one change; how many."""
        rows = {e.id: e.as_dict() for e in entries}
        if not rows:
            return 0
        now = time.time()
        with session(self.url) as s:
            v = self._bump(s)
            batch = [
                {"owner": self.owner, "id": i, "version": v, "deleted": False, "data": d, "updated_at": now}
                for i, d in rows.items()
            ]
            for k in range(0, len(batch), 1000):
                self._upsert(s, batch[k : k + 1000])
        return len(rows)

    def save_library_position(self, entry: ArchiveEntry) -> tuple[ArchiveEntry, bool]:
        """Save a library position once: ``(the stored entry, whether it was new)``."""
        stored = library_entry(entry)
        with session(self.url) as s:
            row = s.get(ArchiveRow, (self.owner, stored.id), with_for_update=True)
            if row is not None and not row.deleted and row.data is not None:
                return _entry(row.data), False
            v = self._bump(s)
            self._upsert(s, [{
                "owner": self.owner, "id": stored.id, "version": v, "deleted": False,
                "data": stored.as_dict(), "updated_at": time.time(),
            }])  # fmt: skip
        return stored, True

    def delete_entry(self, entry_id: str) -> bool:
        """Remove one entry (a tombstone stays); whether it existed."""
        with session(self.url) as s:
            row = s.get(ArchiveRow, (self.owner, entry_id), with_for_update=True)
            if row is None or row.deleted:
                return False
            v = self._bump(s)
            row.version, row.deleted, row.data, row.updated_at = v, True, None, time.time()
            return True

    def replace_entry(self, entry: ArchiveEntry) -> bool:
        """Write ``entry`` over the stored entry with its id; False when there is none."""
        with session(self.url) as s:
            row = s.get(ArchiveRow, (self.owner, entry.id), with_for_update=True)
            if row is None or row.deleted:
                return False
            v = self._bump(s)
            row.version, row.data, row.updated_at = v, entry.as_dict(), time.time()
            return True

    def remove_oldest(self, count: int, prefix: str = "match:") -> int:
        """Remove the ``count`` least recently written live entries whose id starts with ``prefix``, as
        tombstones of one new version (retention's cap); how many."""
        if count <= 0:
            return 0
        with session(self.url) as s:
            q = (
                select(ArchiveRow)
                .where(ArchiveRow.owner == self.owner, ArchiveRow.deleted.is_(False))
                .where(ArchiveRow.id.startswith(prefix))
                .order_by(ArchiveRow.updated_at, ArchiveRow.id)
                .limit(count)
                .with_for_update()
            )
            rows = list(s.scalars(q).all())
            if rows:
                v, now = self._bump(s), time.time()
                for row in rows:
                    row.version, row.deleted, row.data, row.updated_at = v, True, None, now
            return len(rows)

    # ---- reading ---------------------------------------------------------------------------------
    def get_entry(self, entry_id: str) -> ArchiveEntry | None:
        with session(self.url) as s:
            row = s.get(ArchiveRow, (self.owner, entry_id))
            return None if row is None or row.deleted or row.data is None else _entry(row.data)

    def library_positions(self) -> list[ArchiveEntry]:
        """The saved library positions, by name then id."""
        q = select(ArchiveRow.data).where(
            ArchiveRow.owner == self.owner,
            ArchiveRow.id.startswith(LIBRARY_PREFIX),
            ArchiveRow.deleted.is_(False),
        )
        with session(self.url) as s:
            out = [_entry(d) for d in s.scalars(q).all() if d is not None]
        out.sort(key=lambda e: ((e.name or "").casefold(), e.id))
        return out

    def version(self) -> int:
        with session(self.url) as s:
            v = s.scalar(select(ArchiveOwner.version).where(ArchiveOwner.owner == self.owner))
        return int(v or 0)

    def load_index(self) -> tuple[int, ArchiveIndex]:
        """``(version, index)`` of every entry, read in one transaction."""
        with session(self.url) as s:
            v = s.scalar(select(ArchiveOwner.version).where(ArchiveOwner.owner == self.owner))
            rows = s.scalars(
                select(ArchiveRow.data).where(ArchiveRow.owner == self.owner, ArchiveRow.deleted.is_(False))
            ).all()
        return int(v or 0), ArchiveIndex(_entry(d) for d in rows if d is not None)

    def changes_since(self, since: int) -> tuple[int, list[ArchiveEntry], list[str]] | None:
        """The changes after version ``since``: ``(version, added or replaced entries, removed ids)``."""
        with session(self.url) as s:
            v = int(s.scalar(select(ArchiveOwner.version).where(ArchiveOwner.owner == self.owner)) or 0)
            if v == since:
                return v, [], []
            if v < since:  # the database is older than the index (restored from a backup): reload
                return None
            rows = s.execute(
                select(ArchiveRow.id, ArchiveRow.deleted, ArchiveRow.data).where(
                    ArchiveRow.owner == self.owner, ArchiveRow.version > since, ArchiveRow.version <= v
                )
            ).all()
        added = [_entry(d) for _, deleted, d in rows if not deleted and d is not None]
        removed = [i for i, deleted, d in rows if deleted or d is None]
        return v, added, removed


class DailyRecords:
    """The daily puzzles as served, on the database at ``url``."""

    def __init__(self, url: str) -> None:
        self.url = url

    def get(self, date: str, rules: str, kind: str) -> dict[str, Any] | None:
        with session(self.url) as s:
            row = s.get(DailyPuzzle, (date, rules, kind))
            return None if row is None else dict(json.loads(row.puzzle))

    def put(self, date: str, rules: str, kind: str, puzzle_json: str) -> bool:
        """Write a puzzle once; ``False`` when one is there already (it stays)."""
        stmt = (
            insert(self.url)(DailyPuzzle)
            .values(date=date, rules=rules, kind=kind, puzzle=puzzle_json, created_at=time.time())
            .on_conflict_do_nothing()
            .returning(DailyPuzzle.date)
        )
        with session(self.url) as s:
            return s.execute(stmt).first() is not None

    def puzzle_keys(self) -> list[tuple[str, str, str]]:
        """Every stored puzzle's ``(date, rules, kind)``, by date."""
        q = select(DailyPuzzle.date, DailyPuzzle.rules, DailyPuzzle.kind).order_by(
            DailyPuzzle.date, DailyPuzzle.rules, DailyPuzzle.kind
        )
        with session(self.url) as s:
            return [(d, r, k) for d, r, k in s.execute(q).all()]

    def get_recheck(self, date: str, rules: str, kind: str, model_sha256: str) -> dict[str, Any] | None:
        """The puzzle's recheck by the net with this SHA-256, or None."""
        with session(self.url) as s:
            row = s.get(DailyRecheck, (date, rules, kind, model_sha256))
            return None if row is None else dict(json.loads(row.recheck))

    def put_recheck(
        self, date: str, rules: str, kind: str, model_sha256: str, agrees: bool, recheck_json: str
    ) -> bool:
        """Write a recheck once per net; ``False`` when one is there already (it stays)."""
        stmt = (
            insert(self.url)(DailyRecheck)
            .values(
                date=date,
                rules=rules,
                kind=kind,
                model_sha256=model_sha256,
                agrees=agrees,
                recheck=recheck_json,
                created_at=time.time(),
            )
            .on_conflict_do_nothing()
            .returning(DailyRecheck.date)
        )
        with session(self.url) as s:
            return s.execute(stmt).first() is not None
