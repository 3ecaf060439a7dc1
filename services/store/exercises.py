"""Exercises given and answered (:class:`Exercises`): what was asked with its answer, when it was given
(a pip count has 20 seconds), and the first answer's result, which alone counts for a player's counters
(:func:`pulvezar.play.exercises.fold`, in the same transaction)."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select

from services.store.db import session
from services.store.models import Exercise, PlayerRow, belongs, owned_by


@dataclass(frozen=True)
class StoredExercise:
    id: str
    kind: str
    spec: dict[str, Any]
    player_id: str | None
    screen_reader: bool
    issued_at: float
    answers: int


def _mine(owner: str | None) -> Any:
    return belongs(Exercise.owner, owner)


class Exercises:
    """The exercises on the database at ``url``; every call names the owner (another key's: None)."""

    def __init__(self, url: str) -> None:
        self.url = url

    def issue(self, owner: str | None, player_id: str | None, kind: str, spec: Mapping[str, Any],
              screen_reader: bool) -> str | None:  # fmt: skip
        """Record an exercise given now; its id, or None when ``player_id`` is not the owner's player."""
        with session(self.url) as s:
            if player_id is not None:
                q = select(PlayerRow.id).where(PlayerRow.id == player_id)
                q = q.where(owned_by(owner))
                if s.scalars(q).first() is None:
                    return None
            row = Exercise(
                id="x" + secrets.token_hex(12), owner=owner, player_id=player_id, kind=kind, spec=dict(spec),
                screen_reader=screen_reader, issued_at=time.time(), answers=0, first=None, answered_at=None,
            )  # fmt: skip
            s.add(row)
            s.flush()
            return row.id

    def get(self, owner: str | None, exercise_id: str) -> StoredExercise | None:
        with session(self.url) as s:
            e = s.scalars(select(Exercise).where(Exercise.id == exercise_id, _mine(owner))).first()
            if e is None:
                return None
            return StoredExercise(
                e.id, e.kind, dict(e.spec), e.player_id, e.screen_reader, e.issued_at, e.answers
            )

    def answered(
        self, owner: str | None, exercise_id: str, result: Mapping[str, Any], fold: Callable[[Any, bool], Any]
    ) -> tuple[int, dict[str, Any] | None] | None:
        """Count an answer: ``(its number from 1, the player's counters of the kind)``; the first answer's
        ``result`` is kept and folded into the player's counters (``fold(stats, correct)``).  None when the
        owner has no such exercise."""
        now = time.time()
        with session(self.url) as s:
            q = select(Exercise).where(Exercise.id == exercise_id, _mine(owner)).with_for_update()
            e = s.scalars(q).first()
            if e is None:
                return None
            e.answers += 1
            counters = None
            if e.answers == 1:
                e.first, e.answered_at = dict(result), now
                if e.player_id is not None:
                    p = s.scalars(
                        select(PlayerRow).where(PlayerRow.id == e.player_id).with_for_update()
                    ).first()
                    if p is not None:
                        p.stats = fold(p.stats, bool(result["correct"]))
                        counters = dict(p.stats["exercises"][e.kind])
            return e.answers, counters
