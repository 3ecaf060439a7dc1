"""The tables (docs/store.md describes them; migrations in :mod:`services.store.migrations`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    ColumnElement,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    false,
    true,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

Json = JSON().with_variant(JSONB(), "postgresql")

#: a job's states; the last three are final
STATES = ("queued", "running", "done", "failed", "cancelled")
FINAL = ("done", "failed", "cancelled")


class Base(DeclarativeBase):
    pass


class Job(Base):
    """One accepted job: its kind, owner (the hashed API key), settings and where it stands."""

    __tablename__ = "jobs"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))  # rollout, batch, analysis, book, daily
    owner: Mapped[str | None] = mapped_column(String(128))
    priority: Mapped[str | None] = mapped_column(String(16))
    state: Mapped[str] = mapped_column(String(16))
    spec: Mapped[dict[str, Any]] = mapped_column(Json)
    chunk_list: Mapped[list[Any] | None] = mapped_column(Json)  # [[item, first, trials], ...] of rollouts
    error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[float] = mapped_column(Float)  # seconds since the epoch
    updated_at: Mapped[float] = mapped_column(Float)
    finished_at: Mapped[float | None] = mapped_column(Float)

    __table_args__ = (
        Index("ix_jobs_owner_created", "owner", "created_at", "id"),
        Index("ix_jobs_state", "state"),
    )


class JobChunk(Base):
    """A finished chunk of a job, as the worker wrote it (write-once)."""

    __tablename__ = "job_chunks"

    job_id: Mapped[str] = mapped_column(ForeignKey("jobs.id", ondelete="CASCADE"), primary_key=True)
    n: Mapped[int] = mapped_column(Integer, primary_key=True)
    record: Mapped[dict[str, Any]] = mapped_column(Json)
    created_at: Mapped[float] = mapped_column(Float)


class JobBlob(Base):
    """Named bytes of a job: an uploaded match file, a match's result JSON or annotated SGF."""

    __tablename__ = "job_blobs"

    job_id: Mapped[str] = mapped_column(ForeignKey("jobs.id", ondelete="CASCADE"), primary_key=True)
    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    data: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[float] = mapped_column(Float)


class ArchiveOwner(Base):
    """An owner's archive version: incremented by every change to that owner's entries."""

    __tablename__ = "archive_owners"

    owner: Mapped[str] = mapped_column(String(128), primary_key=True)
    version: Mapped[int] = mapped_column(Integer)


class ArchiveRow(Base):
    """One entry of an owner's archive of positions (a decision of an analysed match or a saved library
    position, :class:`pulvezar.archive.ArchiveEntry` as JSON).  ``version`` is the owner's version that
    last wrote it; a removed entry stays as a tombstone (``deleted``) so gateways can catch up."""

    __tablename__ = "archive_entries"

    owner: Mapped[str] = mapped_column(String(128), primary_key=True)
    id: Mapped[str] = mapped_column(String(200), primary_key=True)
    version: Mapped[int] = mapped_column(Integer)
    deleted: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    data: Mapped[dict[str, Any] | None] = mapped_column(Json)
    updated_at: Mapped[float] = mapped_column(Float)

    __table_args__ = (Index("ix_archive_owner_version", "owner", "version"),)


class DailyPuzzle(Base):
    """A daily puzzle as served: written once per (date, rule set, kind), never changed."""

    __tablename__ = "daily_puzzles"

    date: Mapped[str] = mapped_column(String(10), primary_key=True)
    rules: Mapped[str] = mapped_column(String(32), primary_key=True)
    kind: Mapped[str] = mapped_column(String(16), primary_key=True)
    puzzle: Mapped[str] = mapped_column(Text)  # the JSON served, byte for byte
    created_at: Mapped[float] = mapped_column(Float)


class DailyRecheck(Base):
    """A daily puzzle's answer judged again by another net: written once per (date, rule set, kind, net)."""

    __tablename__ = "daily_rechecks"

    date: Mapped[str] = mapped_column(String(10), primary_key=True)
    rules: Mapped[str] = mapped_column(String(32), primary_key=True)
    kind: Mapped[str] = mapped_column(String(16), primary_key=True)
    model_sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    agrees: Mapped[bool] = mapped_column(Boolean)
    recheck: Mapped[str] = mapped_column(Text)  # pulvezar.archive.daily.Recheck.to_json
    created_at: Mapped[float] = mapped_column(Float)


class MatchUpload(Base):
    """An uploaded match file of an owner, with what the reader made of it."""

    __tablename__ = "match_uploads"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    owner: Mapped[str | None] = mapped_column(String(128))
    filename: Mapped[str | None] = mapped_column(String(256))
    format: Mapped[str] = mapped_column(String(8))
    sha256: Mapped[str] = mapped_column(String(64))
    data: Mapped[bytes] = mapped_column(LargeBinary)
    summary: Mapped[dict[str, Any]] = mapped_column(Json)  # players, length, games: what a list shows
    created_at: Mapped[float] = mapped_column(Float)

    __table_args__ = (Index("ix_match_uploads_owner_created", "owner", "created_at", "id"),)


class GameRow(Base):
    """A game or match against a bot (the Play API): the session's record and what a list shows.

    ``record`` is :meth:`pulvezar.play.PlaySession.to_json` (it holds the secret dice seed: never served
    as it is); ``version`` increments with every change, so two requests that act on one game at once
    cannot both win (optimistic concurrency)."""

    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    owner: Mapped[str | None] = mapped_column(String(128))
    status: Mapped[str] = mapped_column(String(16))  # playing, finished
    record: Mapped[dict[str, Any]] = mapped_column(Json)
    summary: Mapped[dict[str, Any]] = mapped_column(Json)
    version: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[float] = mapped_column(Float)
    updated_at: Mapped[float] = mapped_column(Float)
    finished_at: Mapped[float | None] = mapped_column(Float)
    player_id: Mapped[str | None] = mapped_column(String(32))  # the player it is recorded for, or none

    __table_args__ = (
        Index("ix_games_owner_created", "owner", "created_at", "id"),
        Index("ix_games_player", "player_id"),
    )


class PlayerRow(Base):
    """A learner of an API key (a client app has many): what is recorded for a person."""

    __tablename__ = "players"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    owner: Mapped[str | None] = mapped_column(String(128))
    name: Mapped[str] = mapped_column(String(100))
    stats: Mapped[dict[str, Any]] = mapped_column(Json)  # pulvezar.play.statistics counters, folded per save
    created_at: Mapped[float] = mapped_column(Float)
    updated_at: Mapped[float] = mapped_column(Float)

    __table_args__ = (Index("ix_players_owner_created", "owner", "created_at", "id"),)


def belongs(column: Any, owner: str | None) -> ColumnElement[bool]:
    """The condition "the row's owner ``column`` is ``owner``" (None: the keyless owner of a local app)."""
    return column.is_(None) if owner is None else column == owner  # type: ignore[no-any-return]


def one_of(column: Any, values: Iterable[str] | None) -> ColumnElement[bool]:
    """The condition "the row's ``column`` is one of ``values``" (None: any value)."""
    return true() if values is None else column.in_(list(values))


def owned_by(owner: str | None) -> ColumnElement[bool]:
    """The condition "the player belongs to ``owner``"."""
    return belongs(PlayerRow.owner, owner)


class GameEvent(Base):
    """One transition of a game, numbered from 1 (the event stream replays them from any number)."""

    __tablename__ = "game_events"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    event: Mapped[dict[str, Any]] = mapped_column(Json)
    created_at: Mapped[float] = mapped_column(Float)


class IdempotentRequest(Base):
    """The answer to a request sent with an ``Idempotency-Key``, per owner: a retry gets it again."""

    __tablename__ = "idempotent_requests"

    owner: Mapped[str] = mapped_column(String(128), primary_key=True)
    key: Mapped[str] = mapped_column(String(128), primary_key=True)
    fingerprint: Mapped[str] = mapped_column(String(64))  # SHA-256 of method, path and body
    status: Mapped[int] = mapped_column(Integer)
    response: Mapped[dict[str, Any]] = mapped_column(Json)
    created_at: Mapped[float] = mapped_column(Float)


class DailyAttempt(Base):
    """A player's attempt at a daily puzzle (``n`` 1 is the first: only it counts for the statistics)."""

    __tablename__ = "daily_attempts"

    player_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    date: Mapped[str] = mapped_column(String(10), primary_key=True)  # YYYY-MM-DD
    rules: Mapped[str] = mapped_column(String(16), primary_key=True)
    kind: Mapped[str] = mapped_column(String(16), primary_key=True)  # position, cube
    n: Mapped[int] = mapped_column(Integer, primary_key=True)
    answer: Mapped[dict[str, Any]] = mapped_column(Json)  # what the player answered
    correct: Mapped[bool] = mapped_column(Boolean)
    loss: Mapped[float | None] = mapped_column(Float)
    created_at: Mapped[float] = mapped_column(Float)


class Card(Base):
    """A flash card of a player: a decision to answer again on a spaced schedule (services/store/cards.py)."""

    __tablename__ = "cards"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    player_id: Mapped[str] = mapped_column(String(32))
    source: Mapped[str] = mapped_column(
        String(96)
    )  # where it comes from, once per player: daily:<date>:<rules>:<kind>
    puzzle: Mapped[dict[str, Any]] = mapped_column(
        Json
    )  # the decision with its answer (a daily puzzle's shape)
    due: Mapped[str] = mapped_column(String(10))  # YYYY-MM-DD
    interval: Mapped[int] = mapped_column(Integer)  # days until due after the last answer (0: new or missed)
    reps: Mapped[int] = mapped_column(Integer)  # answers in a row solved
    lapses: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[float] = mapped_column(Float)
    answered_at: Mapped[float | None] = mapped_column(Float)

    __table_args__ = (
        Index("ix_cards_player_source", "player_id", "source", unique=True),
        Index("ix_cards_player_due", "player_id", "due"),
    )


class PlayerMatch(Base):
    """A match of a player's archive: played here (``ref`` ``game:<id>``) or imported and analysed
    (``job:<id>:<match>``), with its PR once analysed (services/store/player_matches.py)."""

    __tablename__ = "player_matches"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    player_id: Mapped[str] = mapped_column(String(32))
    ref: Mapped[str] = mapped_column(String(96))
    source: Mapped[str] = mapped_column(String(16))  # game, import
    info: Mapped[dict[str, Any]] = mapped_column(Json)  # opponent, length, score, rules, filename
    won: Mapped[bool | None] = mapped_column(Boolean)
    pr: Mapped[float | None] = mapped_column(Float)
    analysis: Mapped[str | None] = mapped_column(String(64))  # the analysis job's id
    played_at: Mapped[float] = mapped_column(Float)
    analysed_at: Mapped[float | None] = mapped_column(Float)

    __table_args__ = (
        Index("ix_player_matches_ref", "player_id", "ref", unique=True),
        Index("ix_player_matches_played", "player_id", "played_at", "id"),
    )


class Exercise(Base):
    """An exercise given (services/store/exercises.py): what was asked and its answer, when, and the first
    answer's result (only it counts for a player's counters)."""

    __tablename__ = "exercises"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    owner: Mapped[str | None] = mapped_column(String(128))
    player_id: Mapped[str | None] = mapped_column(String(32))
    kind: Mapped[str] = mapped_column(String(16))
    spec: Mapped[dict[str, Any]] = mapped_column(Json)  # pulvezar.play.exercises.make's, with the answer
    screen_reader: Mapped[bool] = mapped_column(Boolean)
    issued_at: Mapped[float] = mapped_column(Float)
    answers: Mapped[int] = mapped_column(Integer)
    first: Mapped[dict[str, Any] | None] = mapped_column(Json)
    answered_at: Mapped[float | None] = mapped_column(Float)

    __table_args__ = (Index("ix_exercises_player", "player_id"),)
