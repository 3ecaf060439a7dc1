"""A player's archive of matches (:class:`PlayerMatches`) and what their analyses add to the record.

A match enters the archive when a game played here for the player ends (:func:`game_finished`, in the
game's transaction) or when an analysis of an uploaded file for the player is done.  :func:`record_analysis`
folds an analysed match into the player's counters (:func:`pulvezar.play.progress.fold_match`: the PR trend,
the mistakes by position type, achievements) and makes the player's blunders into cards, once per match: a
second call for the same match (a worker that retried) changes nothing.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select

from services.store.cards import add_card
from services.store.db import insert, session
from services.store.models import PlayerMatch, PlayerRow, owned_by
from services.store.paging import newest_first
from services.store.snapshot import Snapshot


@dataclass(frozen=True)
class StoredMatch(Snapshot):
    id: str
    ref: str
    source: str
    info: dict[str, Any]
    won: bool | None
    pr: float | None
    analysis: str | None
    played_at: float
    analysed_at: float | None


def _new(url: str, player_id: str, ref: str, source: str, info: Mapping[str, Any], won: bool | None,
         now: float) -> Any:  # fmt: skip
    return (
        insert(url)(PlayerMatch)
        .values(
            id="m" + secrets.token_hex(12), player_id=player_id, ref=ref, source=source, info=dict(info),
            won=won, pr=None, analysis=None, played_at=now, analysed_at=None,
        )
        .on_conflict_do_nothing()
    )  # fmt: skip


def game_finished(s: Any, url: str, player_id: str, game_id: str, summary: Mapping[str, Any],
                  winner: int | None, now: float) -> None:  # fmt: skip
    """A finished game of the player into its archive, in the game's transaction ``s``."""
    bot = summary.get("bot") or {}
    info = {
        "opponent": bot.get("level") if isinstance(bot, Mapping) else None,
        "length": summary.get("match_length", 0),
        "score": summary.get("score"),
        "rules": summary.get("rules"),
        "game_id": game_id,
    }
    won = None if winner is None else winner == 0
    s.execute(_new(url, player_id, f"game:{game_id}", "game", info, won, now))


def record_analysis(
    url: str,
    learner: Mapping[str, Any],
    job_id: str,
    m: int,
    games: Sequence[Any],
    summary: Mapping[str, Any],
) -> bool:
    """Fold match ``m`` of analysis job ``job_id`` into the record of ``learner["player"]`` (the match's
    side ``learner["sides"][m]``; ``learner["game_id"]``: the game played here that it analyses), its
    blunders into cards due today; False when it was recorded before or the player is gone."""
    from pulvezar.play.progress import blunder_cards, fold_match, match_part

    player_id, side = str(learner["player"]), int(learner["sides"][m])
    game_id = learner.get("game_id")
    ref, source = (f"game:{game_id}", "game") if game_id else (f"job:{job_id}:{m}", "import")
    now = time.time()
    today = time.strftime("%Y-%m-%d", time.gmtime(now))
    part = match_part(games, side, summary["players"][side])
    with session(url) as s:
        player = s.scalars(select(PlayerRow).where(PlayerRow.id == player_id).with_for_update()).first()
        if player is None:
            return False
        names = [p.get("name") for p in summary["players"]]
        info = {"opponent": names[1 - side], "length": summary.get("length"), "rules": summary.get("variant"),
                "filename": learner.get("filenames", {}).get(str(m)), "game_id": game_id}  # fmt: skip
        s.execute(_new(url, player_id, ref, source, info, part["won"], now))
        q = select(PlayerMatch).where(PlayerMatch.player_id == player_id, PlayerMatch.ref == ref)
        row = s.scalars(q.with_for_update()).one()
        if row.analysed_at is not None:
            return False
        row.pr, row.analysis, row.analysed_at = part["pr"], job_id, now
        if row.won is None:
            row.won = part["won"]
        player.stats = fold_match(player.stats, {**part, "source": source, "ref": ref}, now)
        for card_source, puzzle in blunder_cards(games, side, ref):
            add_card(s, url, player_id, card_source, puzzle, today)
        return True


class PlayerMatches:
    """The players' archives on the database at ``url``; every read names the owner."""

    def __init__(self, url: str) -> None:
        self.url = url

    def list(
        self, owner: str | None, player_id: str, *, limit: int = 50, cursor: str | None = None
    ) -> tuple[list[StoredMatch], str | None] | None:
        """The player's matches, newest first, ``limit`` at a time, and the next page's cursor; None when
        the owner has no such player (ValueError for a cursor this list did not make)."""
        with session(self.url) as s:
            mine = owned_by(owner)
            if s.scalars(select(PlayerRow.id).where(PlayerRow.id == player_id, mine)).first() is None:
                return None
        q = select(PlayerMatch).where(PlayerMatch.player_id == player_id)
        return newest_first(
            self.url, q, PlayerMatch.played_at, PlayerMatch.id, StoredMatch.of, limit=limit, cursor=cursor
        )
