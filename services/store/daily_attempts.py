"""Players' attempts at the daily puzzles (:class:`DailyAttempts`): every attempt is kept; the first one
of a player at a puzzle is folded into the player's statistics (:func:`pulvezar.play.statistics.fold`, a
``daily`` event) in the same transaction, with the answer of a request sent with an ``Idempotency-Key``."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from sqlalchemy import func, select

from services.store.cards import add_card
from services.store.db import session
from services.store.idempotent import remember
from services.store.models import DailyAttempt, PlayerRow, owned_by


def tomorrow(now: float) -> str:
    return time.strftime("%Y-%m-%d", time.gmtime(now + 86400))


class DailyAttempts:
    """The attempts on the database at ``url``."""

    def __init__(self, url: str) -> None:
        self.url = url

    def _player(self, s: Any, owner: str | None, player_id: str, lock: bool = False) -> PlayerRow | None:
        q = select(PlayerRow).where(PlayerRow.id == player_id)
        q = q.where(owned_by(owner))
        return s.scalars(q.with_for_update() if lock else q).first()  # type: ignore[no-any-return]

    def attempt(
        self,
        owner: str | None,
        player_id: str,
        puzzle: tuple[str, str, str],
        answer: dict[str, Any],
        judged: tuple[bool, float | None],
        respond: Callable[[int], dict[str, Any]],
        idempotency: tuple[str, str] | None = None,
        card: dict[str, Any] | None = None,
    ) -> dict[str, Any] | None:
        """Record an attempt at ``puzzle`` (``(date, rules, kind)``) judged ``(correct, loss)``; the answer
        ``respond(n)`` makes for the attempt's number ``n`` (1: the first), or None when the owner has no such
        player.  ``idempotency``: ``(key, fingerprint)`` of the request, whose answer is stored with it;
        ``card``: the puzzle, which becomes the player's flash card when the first attempt is wrong."""
        from pulvezar.play.statistics import fold

        date, rules, kind = puzzle
        correct, loss = judged
        now = time.time()
        with session(self.url) as s:
            player = self._player(s, owner, player_id, lock=True)  # one attempt of a player at a time
            if player is None:
                return None
            same = (
                DailyAttempt.player_id == player_id, DailyAttempt.date == date, DailyAttempt.rules == rules,
                DailyAttempt.kind == kind,
            )  # fmt: skip
            n = int(s.scalar(select(func.count()).select_from(DailyAttempt).where(*same)) or 0) + 1
            s.add(DailyAttempt(
                player_id=player_id, date=date, rules=rules, kind=kind, n=n, answer=answer, correct=correct,
                loss=loss, created_at=now,
            ))  # fmt: skip
            if n == 1:
                event = {"type": "daily", "player": 0, "details": {
                    "date": date, "rules": rules, "kind": kind, "correct": correct, "loss": loss,
                }}  # fmt: skip
                player.stats = fold(player.stats, [event], {"time": now})
                if not correct and card is not None:  # a card of it, due tomorrow
                    add_card(s, self.url, player_id, f"daily:{date}:{rules}:{kind}", card, tomorrow(now))
            out = respond(n)
            if idempotency is not None:
                remember(s, self.url, owner, (idempotency[0], idempotency[1], 200, out), now)
            return out

    def first(self, owner: str | None, player_id: str, puzzle: tuple[str, str, str]) -> bool | None:
        """Whether the player has attempted ``puzzle`` (None: the owner has no such player)."""
        date, rules, kind = puzzle
        with session(self.url) as s:
            if self._player(s, owner, player_id) is None:
                return None
            q = select(DailyAttempt.n).where(
                DailyAttempt.player_id == player_id, DailyAttempt.date == date, DailyAttempt.rules == rules,
                DailyAttempt.kind == kind,
            )  # fmt: skip
            return s.scalars(q.limit(1)).first() is not None

    def calendar(
        self, owner: str | None, player_id: str, month: str, rules: str, kind: str
    ) -> dict[str, str] | None:
        """``{date: "solved" | "missed"}`` of the month's puzzles the player attempted (solved: at the
        first attempt), or None when the owner has no such player."""
        with session(self.url) as s:
            if self._player(s, owner, player_id) is None:
                return None
            q = select(DailyAttempt.date, DailyAttempt.correct).where(
                DailyAttempt.player_id == player_id, DailyAttempt.rules == rules, DailyAttempt.kind == kind,
                DailyAttempt.n == 1, DailyAttempt.date.like(f"{month}-%"),
            )  # fmt: skip
            return {d: ("solved" if ok else "missed") for d, ok in s.execute(q).all()}
