"""Games against the bots in the durable store (the Play API's system of record).

A game's row holds the session's record (:meth:`pulvezar.play.PlaySession.to_json`, with the secret dice
seed) and a version; :meth:`GameRecords.save` writes a new record only over the version it was read at
(:class:`StaleGame` otherwise), with the new events and, for a request that carried an
``Idempotency-Key``, its answer, all in one transaction: a retried request finds the answer, and an
action is either stored with its events or not at all.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from sqlalchemy import and_, delete, func, or_, select, update

from pulvezar import PulvezarError
from services.store.db import insert, rowcount, session
from services.store.idempotent import Remembered, remember, remembered
from services.store.models import GameEvent, GameRow, belongs, one_of
from services.store.paging import newest_first
from services.store.players import record_events
from services.store.quota import past_quota
from services.store.settings import StoreSettings
from services.store.snapshot import Snapshot


class StaleGame(Exception):
    """The game changed since it was read (another request acted first)."""


@dataclass(frozen=True)
class StoredGame(Snapshot):
    id: str
    owner: str | None
    status: str
    record: dict[str, Any]
    summary: dict[str, Any]
    version: int
    created_at: float
    updated_at: float
    finished_at: float | None
    player_id: str | None = None


class GameRecords:
    """The games, their events and idempotent answers on the database at ``url``."""

    #: called with a game's id once new events of it are committed (the gateway wakes its streams)
    notify: ClassVar[Callable[[str], None] | None] = None

    def _notify(self, game_id: str, events: Sequence[dict[str, Any]]) -> None:
        hook = GameRecords.notify
        if events and hook is not None:
            hook(game_id)

    def __init__(self, url: str, max_open_per_owner: int | None = None) -> None:
        self.url = url
        #: unfinished games per owner; one more is refused (``PULVEZAR_DATABASE_MAX_OPEN_GAMES_PER_OWNER``)
        self.max_open_per_owner = max_open_per_owner or StoreSettings().max_open_games_per_owner

    def _events(self, s: Any, game_id: str, first: int, events: Sequence[dict[str, Any]], now: float) -> None:
        if events:
            s.execute(
                insert(self.url)(GameEvent).values([
                    {"game_id": game_id, "seq": first + i, "event": e, "created_at": now}
                    for i, e in enumerate(events)
                ])
            )  # fmt: skip

    def _remember(
        self, s: Any, owner: str | None, idempotency: tuple[str, str, int, dict[str, Any]] | None, now: float
    ) -> None:
        remember(s, self.url, owner, idempotency, now)

    # ---- writing ---------------------------------------------------------------------------------
    def create(
        self,
        game_id: str,
        owner: str | None,
        record: dict[str, Any],
        summary: dict[str, Any],
        status: str,
        events: Sequence[dict[str, Any]] = (),
        idempotency: tuple[str, str, int, dict[str, Any]] | None = None,
        created: float | None = None,
        player_id: str | None = None,
    ) -> None:
        """A new game (version 1) with its first events, in one transaction; ``player_id``: the player
        it is recorded for (:mod:`services.store.players`)."""
        now = created if created is not None else time.time()
        with session(self.url) as s:
            if status != "finished":
                self._check_open(s, owner)
            s.add(
                GameRow(
                    id=game_id, owner=owner, status=status, record=record, summary=summary, version=1,
                    created_at=now, updated_at=now, finished_at=now if status == "finished" else None,
                    player_id=player_id,
                )
            )  # fmt: skip
            s.flush()
            self._events(s, game_id, 1, events, now)
            self._remember(s, owner, idempotency, now)
            if player_id is not None:
                record_events(s, self.url, player_id, game_id, events, summary, now)
        self._notify(game_id, events)

    def _check_open(self, s: Any, owner: str | None) -> None:
        mine = belongs(GameRow.owner, owner)
        q = select(func.count()).select_from(GameRow).where(mine, GameRow.status != "finished")
        if s.scalar(q) >= self.max_open_per_owner:
            message = f"at most {self.max_open_per_owner} unfinished games per key: finish or delete one"
            raise PulvezarError(message, field="games")

    def save(
        self,
        game: StoredGame,
        record: dict[str, Any],
        summary: dict[str, Any],
        status: str,
        events: Sequence[dict[str, Any]] = (),
        idempotency: tuple[str, str, int, dict[str, Any]] | None = None,
    ) -> int:
        """Write the game's new record over ``game.version``; the new version.  :class:`StaleGame` when
        another request changed the game since ``game`` was read (nothing is written then)."""
        now = time.time()
        with session(self.url) as s:
            values: dict[str, Any] = {
                "record": record, "summary": summary, "status": status, "version": game.version + 1,
                "updated_at": now,
            }  # fmt: skip
            if status == "finished" and game.finished_at is None:
                values["finished_at"] = now
            done = s.execute(
                update(GameRow).where(GameRow.id == game.id, GameRow.version == game.version).values(**values)
            )
            if rowcount(done) != 1:
                raise StaleGame(game.id)
            last = s.scalar(select(func.max(GameEvent.seq)).where(GameEvent.game_id == game.id))
            self._events(s, game.id, int(last or 0) + 1, events, now)
            self._remember(s, game.owner, idempotency, now)
            if game.player_id is not None:
                record_events(s, self.url, game.player_id, game.id, events, summary, now)
        self._notify(game.id, events)
        return game.version + 1

    def delete(self, owner: str | None, game_id: str) -> bool:
        """Remove the owner's game with its events; False when there is none."""
        with session(self.url) as s:
            g = s.get(GameRow, game_id)
            if g is None or g.owner != owner:
                return False
            s.execute(delete(GameEvent).where(GameEvent.game_id == game_id))
            s.delete(g)
            return True

    def expire(
        self,
        older_than_s: float,
        abandoned_after_s: float | None = None,
        max_per_owner: int | None = None,
        limit: int = 5_000,
    ) -> int:
        """Remove, with their events, the games recorded for no player (a player's games are kept while
        the player exists: they are the learner's record) that finished more than ``older_than_s``
        seconds ago, unfinished ones untouched for ``abandoned_after_s``, and, past ``max_per_owner``
        such games of one owner, that owner's oldest finished ones; at most ``limit``; how many."""
        now = time.time()
        anonymous = GameRow.player_id.is_(None)
        with session(self.url) as s:
            old = [and_(GameRow.status == "finished", GameRow.updated_at < now - older_than_s)]
            if abandoned_after_s is not None:
                old.append(and_(GameRow.status != "finished", GameRow.updated_at < now - abandoned_after_s))
            ids = set(s.scalars(select(GameRow.id).where(anonymous, or_(*old)).limit(limit)).all())
            if max_per_owner is not None:
                ids |= past_quota(
                    s, GameRow.owner, GameRow.id, GameRow.created_at, max_per_owner,
                    counted=[anonymous], removable=[GameRow.status == "finished"], limit=limit,
                )  # fmt: skip
            gone = sorted(ids)[:limit]
            if gone:
                s.execute(delete(GameEvent).where(GameEvent.game_id.in_(gone)))
                s.execute(delete(GameRow).where(GameRow.id.in_(gone)))
        return len(gone)

    # ---- reading ---------------------------------------------------------------------------------
    def get(self, owner: str | None, game_id: str) -> StoredGame | None:
        """The owner's game (None: none, or another key's)."""
        with session(self.url) as s:
            g = s.get(GameRow, game_id)
            return StoredGame.of(g) if g is not None and g.owner == owner else None

    def events(self, game_id: str, after: int = 0, limit: int = 1000) -> list[tuple[int, dict[str, Any]]]:
        """The game's events numbered above ``after``, in order: ``[(seq, event), ...]``."""
        q = (
            select(GameEvent.seq, GameEvent.event)
            .where(GameEvent.game_id == game_id, GameEvent.seq > after)
            .order_by(GameEvent.seq)
            .limit(limit)
        )
        with session(self.url) as s:
            return [(int(n), dict(e)) for n, e in s.execute(q).all()]

    def remembered(self, owner: str | None, key: str) -> Remembered | None:
        return remembered(self.url, owner, key)

    def list(
        self,
        owner: str | None,
        *,
        statuses: Iterable[str] | None = None,
        limit: int = 50,
        cursor: str | None = None,
        player_id: str | None = None,
    ) -> tuple[list[StoredGame], str | None]:
        """The owner's games, newest first, ``limit`` at a time; the next page's cursor or None;
        ``player_id``: only the games recorded for that player."""
        q = select(GameRow).where(belongs(GameRow.owner, owner), one_of(GameRow.status, statuses))
        if player_id is not None:
            q = q.where(GameRow.player_id == player_id)
        return newest_first(
            self.url, q, GameRow.created_at, GameRow.id, StoredGame.of, limit=limit, cursor=cursor
        )
