"""A player's flash cards (:class:`Cards`): decisions to answer again on the spaced schedule of
:mod:`pulvezar.play.cards`.

A card holds its decision in a daily puzzle's shape (position, dice or cube, candidates, answer), so an
answer is judged as a daily attempt is (:func:`pulvezar.archive.attempts.judge`).  Cards are made by
themselves (:func:`add_card`, in the transaction of what made them) from a daily puzzle not solved at the
first attempt and from the blunders of a player's analysed matches, or by hand (:meth:`Cards.add`); one
card per player and source.  :meth:`Cards.due` reads the cards to study, :meth:`Cards.all` every card (an
export: the Anki deck).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select

from services.store.db import insert, session
from services.store.idempotent import remember
from services.store.models import Card, PlayerRow, owned_by
from services.store.snapshot import Snapshot


@dataclass(frozen=True)
class StoredCard(Snapshot):
    id: str
    source: str
    puzzle: dict[str, Any]
    due: str
    interval: int
    reps: int
    lapses: int
    created_at: float
    answered_at: float | None


def add_card(s: Any, url: str, player_id: str, source: str, puzzle: Mapping[str, Any], due: str) -> bool:
    """A new card in the transaction ``s``, unless the player has one of ``source`` already (False)."""
    done = s.execute(
        insert(url)(Card)
        .values(
            id="c" + secrets.token_hex(12), player_id=player_id, source=source, puzzle=dict(puzzle), due=due,
            interval=0, reps=0, lapses=0, created_at=time.time(), answered_at=None,
        )
        .on_conflict_do_nothing()
        .returning(Card.id)
    ).first()  # fmt: skip
    return done is not None  # (rowcount is -1 on PostgreSQL here)


class Cards:
    """The cards on the database at ``url``; every call names the owner (another key's player: None)."""

    def __init__(self, url: str) -> None:
        self.url = url

    def _mine(self, s: Any, owner: str | None, player_id: str) -> bool:
        q = select(PlayerRow.id).where(PlayerRow.id == player_id)
        q = q.where(owned_by(owner))
        return s.scalars(q).first() is not None

    def deck(self, owner: str | None, player_id: str, today: str, learned_days: int) -> dict[str, Any] | None:
        """``count``, ``due_today`` (due today or before), ``next_due`` (the earliest due date) and
        ``learned`` (interval of ``learned_days`` or more); None when the owner has no such player."""
        with session(self.url) as s:
            if not self._mine(s, owner, player_id):
                return None
            mine = Card.player_id == player_id
            count = s.scalar(select(func.count()).select_from(Card).where(mine)) or 0
            due = s.scalar(select(func.count()).select_from(Card).where(mine, Card.due <= today)) or 0
            learned = s.scalar(
                select(func.count()).select_from(Card).where(mine, Card.interval >= learned_days)
            )  # fmt: skip
            first = s.scalar(select(func.min(Card.due)).where(mine))
            return {
                "count": int(count),
                "due_today": int(due),
                "next_due": first,
                "learned": int(learned or 0),
            }

    def add(
        self, owner: str | None, player_id: str, source: str, puzzle: Mapping[str, Any], today: str
    ) -> tuple[StoredCard, bool] | None:
        """A card added by hand, due today, and whether it is new (a source has one card: the one there
        is returned); None when the owner has no such player."""
        with session(self.url) as s:
            if not self._mine(s, owner, player_id):
                return None
            done = add_card(s, self.url, player_id, source, puzzle, today)
            q = select(Card).where(Card.player_id == player_id, Card.source == source)
            return StoredCard.of(s.scalars(q).one()), done

    def due(self, owner: str | None, player_id: str, today: str, limit: int) -> list[StoredCard] | None:
        """The cards due by ``today``, earliest due first, at most ``limit``; when none is due, the ten due
        earliest.  None when the owner has no such player."""
        with session(self.url) as s:
            if not self._mine(s, owner, player_id):
                return None
            q = select(Card).where(Card.player_id == player_id).order_by(Card.due, Card.created_at, Card.id)
            rows = s.scalars(q.where(Card.due <= today).limit(limit)).all()
            if not rows:
                rows = s.scalars(q.limit(10)).all()
            return [StoredCard.of(c) for c in rows]

    def all(self, owner: str | None, player_id: str, limit: int) -> list[StoredCard] | None:
        """Every card of the player, due or not, in the order they were made (creation time, then id), at
        most ``limit`` (ask one more than you take to know whether there are more); None when the owner
        has no such player."""
        with session(self.url) as s:
            if not self._mine(s, owner, player_id):
                return None
            q = select(Card).where(Card.player_id == player_id).order_by(Card.created_at, Card.id)
            return [StoredCard.of(c) for c in s.scalars(q.limit(limit)).all()]

    def get(self, owner: str | None, player_id: str, card_id: str) -> StoredCard | None:
        with session(self.url) as s:
            if not self._mine(s, owner, player_id):
                return None
            c = s.scalars(select(Card).where(Card.id == card_id, Card.player_id == player_id)).first()
            return StoredCard.of(c) if c is not None else None

    def answered(
        self,
        owner: str | None,
        player_id: str,
        card_id: str,
        correct: bool,
        today: str,
        respond: Callable[[StoredCard], dict[str, Any]],
        idempotency: tuple[str, str] | None = None,
    ) -> dict[str, Any] | None:
        """Schedule the card after an answer (:func:`pulvezar.play.cards.schedule`); ``respond(card)`` of the
        card as it is now, stored with ``idempotency`` (``(key, fingerprint)``) in the same transaction; None
        when the owner's player has no such card."""
        from pulvezar.play.cards import next_due, schedule

        with session(self.url) as s:
            if not self._mine(s, owner, player_id):
                return None
            q = select(Card).where(Card.id == card_id, Card.player_id == player_id).with_for_update()
            c = s.scalars(q).first()
            if c is None:
                return None
            c.interval, c.reps = schedule(c.interval, c.reps, correct)
            c.lapses += 0 if correct else 1
            now = time.time()
            c.due, c.answered_at = next_due(today, c.interval), now
            s.flush()
            out = respond(StoredCard.of(c))
            if idempotency is not None:
                remember(s, self.url, owner, (idempotency[0], idempotency[1], 200, out), now)
            return out
