"""The players of an API key in the durable store (:class:`PlayerRecords`): the learner's record.

A player belongs to the key (``owner``) that made it; every read and change names the owner, so another
key's player is not found.  Deleting a player deletes what is recorded for it, in one transaction: its
games (and their events), its archive of matches, daily attempts, cards and statistics.  The statistics
are counters: :func:`record_events` folds in each saved batch of a game's events
(:func:`pulvezar.play.statistics.fold`) in the game's own transaction.
"""

from __future__ import annotations

import copy
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, delete, func, select
from sqlalchemy.orm import Session

from pulvezar import PulvezarError
from services.store.db import session
from services.store.idempotent import remember, remembered
from services.store.models import (
    Card,
    DailyAttempt,
    Exercise,
    GameEvent,
    GameRow,
    PlayerMatch,
    PlayerRow,
    belongs,
    owned_by,
)
from services.store.paging import newest_first
from services.store.player_matches import game_finished
from services.store.settings import StoreSettings
from services.store.snapshot import Snapshot


@dataclass(frozen=True)
class StoredPlayer(Snapshot):
    id: str
    owner: str | None
    name: str
    created_at: float
    updated_at: float


def _mine(owner: str | None) -> ColumnElement[bool]:
    return owned_by(owner)


def _locked(s: Session, owner: str | None, player_id: str) -> PlayerRow | None:
    """The owner's player, locked for an update in ``s`` (None: none such, or another key's)."""
    q = select(PlayerRow).where(PlayerRow.id == player_id, _mine(owner)).with_for_update()
    return s.scalars(q).first()


class PlayerRecords:
    """The players on the database at ``url``."""

    def __init__(self, url: str, max_per_owner: int | None = None) -> None:
        self.url = url
        #: players per owner; one more is refused (``PULVEZAR_DATABASE_MAX_PLAYERS_PER_OWNER``)
        self.max_per_owner = max_per_owner or StoreSettings().max_players_per_owner

    def create(
        self,
        owner: str | None,
        name: str,
        respond: Callable[[StoredPlayer], dict[str, Any]] | None = None,
        idempotency: tuple[str, str] | None = None,
    ) -> StoredPlayer:
        """A new player; with ``idempotency`` (``(key, fingerprint)``) the answer ``respond(player)`` is
        stored with it in one transaction, so a retried request finds it."""
        now = time.time()
        row = PlayerRow(
            id="p" + secrets.token_hex(12), owner=owner, name=name, stats={}, created_at=now, updated_at=now
        )
        with session(self.url) as s:
            if (
                s.scalar(select(func.count()).select_from(PlayerRow).where(_mine(owner))) or 0
            ) >= self.max_per_owner:
                raise PulvezarError(
                    f"at most {self.max_per_owner} players per key: delete one first", field="players"
                )
            s.add(row)
            s.flush()
            made = StoredPlayer.of(row)
            if idempotency is not None and respond is not None:
                remember(s, self.url, owner, (idempotency[0], idempotency[1], 201, respond(made)), now)
            return made

    def remembered(self, owner: str | None, key: str) -> Any:
        return remembered(self.url, owner, key)

    def get(self, owner: str | None, player_id: str) -> StoredPlayer | None:
        """The owner's player, or None (none such, or another key's)."""
        with session(self.url) as s:
            row = s.scalars(select(PlayerRow).where(PlayerRow.id == player_id, _mine(owner))).first()
            return StoredPlayer.of(row) if row is not None else None

    def list(
        self, owner: str | None, *, limit: int = 50, cursor: str | None = None
    ) -> tuple[list[StoredPlayer], str | None]:
        """The owner's players, newest first, ``limit`` at a time; the next page's cursor or None
        (ValueError for a cursor this list did not make)."""
        q = select(PlayerRow).where(_mine(owner))
        return newest_first(
            self.url, q, PlayerRow.created_at, PlayerRow.id, StoredPlayer.of, limit=limit, cursor=cursor
        )

    def rename(self, owner: str | None, player_id: str, name: str) -> StoredPlayer | None:
        """The player with its new name, or None when the owner has no such player."""
        with session(self.url) as s:
            row = s.scalars(select(PlayerRow).where(PlayerRow.id == player_id, _mine(owner))).first()
            if row is None:
                return None
            row.name, row.updated_at = name, time.time()
            s.flush()
            return StoredPlayer.of(row)

    def delete(self, owner: str | None, player_id: str) -> bool:
        """Delete the player and everything recorded for it (its games and their events, its daily
        attempts, cards and archive of matches, its statistics); False when the owner has no such player."""
        with session(self.url) as s:
            row = s.scalars(select(PlayerRow).where(PlayerRow.id == player_id, _mine(owner))).first()
            if row is None:
                return False
            games = select(GameRow.id).where(GameRow.player_id == player_id)
            s.execute(delete(GameEvent).where(GameEvent.game_id.in_(games)))
            s.execute(delete(GameRow).where(GameRow.player_id == player_id))
            s.execute(delete(DailyAttempt).where(DailyAttempt.player_id == player_id))
            s.execute(delete(Card).where(Card.player_id == player_id))
            s.execute(delete(PlayerMatch).where(PlayerMatch.player_id == player_id))
            s.execute(delete(Exercise).where(Exercise.player_id == player_id))
            s.delete(row)
            return True

    def statistics(self, owner: str | None, player_id: str) -> dict[str, Any] | None:
        """The player's counters (:mod:`pulvezar.play.statistics`), or None when the owner has no such
        player."""
        with session(self.url) as s:
            row = s.scalars(select(PlayerRow).where(PlayerRow.id == player_id, _mine(owner))).first()
            return dict(row.stats or {}) if row is not None else None

    def reset_statistics(self, owner: str | None, player_id: str) -> bool:
        """Start the player's counters again (its games, archive, cards and lessons progress stay); False
        when the owner has no such player."""
        with session(self.url) as s:
            row = _locked(s, owner, player_id)
            if row is None:
                return False
            kept = {k: v for k, v in (row.stats or {}).items() if k == "lessons"}
            row.stats, row.updated_at = kept, time.time()
            return True

    def exercise_done(
        self, owner: str | None, player_id: str, kind: str, correct: bool
    ) -> dict[str, int] | None:
        """Count an answer of an exercise the player answers where it is asked (the opening quiz): the
        kind's counters after it (:func:`pulvezar.play.exercises.fold`); None when the owner has no such
        player."""
        from pulvezar.play.exercises import fold

        with session(self.url) as s:
            row = _locked(s, owner, player_id)
            if row is None:
                return None
            row.stats = fold(row.stats, kind, correct)
            return dict(row.stats["exercises"][kind])

    def reach(self, owner: str | None, player_id: str, achievement: str) -> bool:
        """Mark ``achievement`` reached now (once: the first time stays); False when the owner has no such
        player."""
        from pulvezar.play.statistics import fold

        with session(self.url) as s:
            row = _locked(s, owner, player_id)
            if row is None:
                return False
            stats = fold(row.stats, [], {})
            stats["achievements"].setdefault(achievement, time.time())
            row.stats = stats
            return True

    def lesson_step(
        self, owner: str | None, player_id: str, lesson_id: str, step: int, total: int
    ) -> dict[str, Any] | None:
        """Record step ``step`` of a lesson done by the player: ``{"done": [steps], "completed": when or
        None}`` (completed once every one of its ``total`` steps is done); None when the owner has no such
        player."""
        with session(self.url) as s:
            row = _locked(s, owner, player_id)
            if row is None:
                return None
            stats = copy.deepcopy(dict(row.stats or {}))
            progress = stats.setdefault("lessons", {}).setdefault(lesson_id, {"done": [], "completed": None})
            progress["done"] = sorted(set(progress["done"]) | {step})
            if progress["completed"] is None and len(progress["done"]) >= total:
                progress["completed"] = time.time()
            row.stats = stats
            return dict(progress)

    def plan(self, owner: str | None, player_id: str, today: str) -> dict[str, Any] | None:
        """The player's plan of ``today``'s week (:func:`pulvezar.play.progress.weekly_plan`), made on the
        week's first read and kept for the week, with each task's ``done`` count this week: cards of the
        area's type answered, dailies solved at the first attempt, exercises of the kind answered right at
        the first answer, the lesson completed (1) or not (0); None when the owner has no such player."""
        import datetime as dt

        from pulvezar.play.progress import monday, weekly_plan

        week = monday(today)
        start = dt.datetime.fromisoformat(week).replace(tzinfo=dt.UTC).timestamp()
        with session(self.url) as s:
            row = _locked(s, owner, player_id)
            if row is None:
                return None
            stats = dict(row.stats or {})
            plan = stats.get("plan")
            if not plan or plan.get("week") != week:
                plan = weekly_plan(stats, today)
                row.stats = {**stats, "plan": plan}
            answered = s.scalars(
                select(Card.puzzle).where(Card.player_id == player_id, Card.answered_at >= start)
            ).all()
            solved = s.scalar(
                select(func.count()).select_from(DailyAttempt).where(
                    DailyAttempt.player_id == player_id, DailyAttempt.n == 1, DailyAttempt.correct,
                    DailyAttempt.date >= week, DailyAttempt.date <= today,
                )
            )  # fmt: skip
            exercised = s.execute(
                select(Exercise.kind, Exercise.first).where(
                    Exercise.player_id == player_id, Exercise.answered_at >= start
                )
            ).all()
        lessons = stats.get("lessons") or {}
        out = copy.deepcopy(plan)
        for area in out["areas"]:
            for task in area["tasks"]:
                if task["kind"] == "cards":
                    kind = task["position_type"]
                    task["done"] = sum((p.get("position_type") or {}).get("kind") == kind for p in answered)
                elif task["kind"] == "daily":
                    task["done"] = int(solved or 0)
                elif task["kind"] == "exercise":
                    task["done"] = sum(
                        k == task["exercise"] and bool((f or {}).get("correct")) for k, f in exercised
                    )
                else:  # a lesson: completed this week
                    completed = (lessons.get(task["lesson"]) or {}).get("completed")
                    task["done"] = int(completed is not None and completed >= start)
        return out

    def games_of(self, owner: str | None, player_id: str) -> int:
        """How many games are recorded for the player (0 when the owner has no such player)."""
        with session(self.url) as s:
            q = select(func.count()).select_from(GameRow).where(GameRow.player_id == player_id)
            q = q.where(belongs(GameRow.owner, owner))
            return int(s.scalar(q) or 0)


def record_events(
    s: Any,
    url: str,
    player_id: str,
    game_id: str,
    events: Sequence[Mapping[str, Any]],
    summary: Mapping[str, Any],
    now: float,
) -> None:
    """Fold a game's newly saved ``events`` into its player's counters, in the game's transaction ``s``
    (the row locked on PostgreSQL, so two games of one player saved at once both count), and a finished
    game into the player's archive of matches.  The bot's rating is its level's (an adaptive bot's: the
    rating it plays at); ``now`` gives the ladder's month."""
    from pulvezar.play.statistics import LEVEL_RATINGS, fold

    if not events:
        return
    row = s.scalars(select(PlayerRow).where(PlayerRow.id == player_id).with_for_update()).first()
    if row is None:
        return
    bot = summary.get("bot") or {}
    level = bot.get("level") if isinstance(bot, Mapping) else None
    adaptive = summary.get("adaptive_rating")
    context = {
        "level": "adaptive" if adaptive is not None else level,
        "match_length": summary.get("match_length", 0),
        "rules": summary.get("rules", "international"),
        "opponent_rating": adaptive if adaptive is not None else LEVEL_RATINGS.get(str(level)),
        "month": time.strftime("%Y-%m", time.gmtime(now)),
        "time": now,
    }
    row.stats = fold(row.stats, events, context)
    for e in events:
        if e.get("type") == "finished":
            winner = (e.get("details") or {}).get("winner")
            game_finished(s, url, player_id, game_id, summary, winner, now)
