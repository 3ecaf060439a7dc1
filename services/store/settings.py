"""Settings of the durable store, from ``PULVEZAR_DATABASE_*`` environment variables, with its retention
(docs/store.md, "Retention": what each table keeps, for how long, and how many per owner)."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class StoreSettings(BaseSettings):
    """``PULVEZAR_DATABASE_URL`` (e.g. ``postgresql+psycopg://user@host/pulvezar`` or
    ``sqlite:///runs/local/pulvezar.db``); required by the gateway, the workers and beat (``make run``
    sets an SQLite file)."""

    model_config = SettingsConfigDict(env_prefix="PULVEZAR_DATABASE_")

    url: str | None = Field(None, description="SQLAlchemy URL of the database (required by the services)")
    connect_timeout_s: float = Field(3.0, gt=0, description="how long a connection attempt may take")
    retention_days: float = Field(
        90.0, gt=0, description="finished jobs, uploads, archive tombstones older than this are removed"
    )
    max_jobs_per_owner: int = Field(
        10_000, ge=1, description="stored jobs (and uploads) per API key (oldest finished go first)"
    )
    reconcile_interval_s: float = Field(15.0, gt=0, description="how often the reconciler runs")
    retention_interval_s: float = Field(
        300.0, gt=0, description="how often a reconciler pass applies retention (one pass at a time)"
    )
    game_retention_days: float = Field(
        90.0, gt=0, description="finished games recorded for no player are removed this long after"
    )
    abandoned_game_days: float = Field(
        30.0, gt=0, description="unfinished games of no player untouched this long are removed"
    )
    max_games_per_owner: int = Field(
        10_000, ge=1, description="games of no player per API key (oldest finished go first)"
    )
    exercise_retention_days: float = Field(
        30.0, gt=0, description="exercises issued this long ago are removed (counters keep their result)"
    )
    max_exercises_per_owner: int = Field(10_000, ge=1, description="stored exercises per API key")
    max_players_per_owner: int = Field(
        10_000, ge=1, description="players per API key: one more is refused (422 naming `players`)"
    )
    max_open_games_per_owner: int = Field(
        1_000, ge=1, description="unfinished games per API key: one more is refused (422 naming `games`)"
    )
    max_archive_entries_per_owner: int = Field(
        50_000, ge=1, description="archive positions per API key (oldest analysed-match entries go first)"
    )
    idempotency_retention_s: float = Field(
        86_400.0, gt=0, description="answers to Idempotency-Key requests are kept this long for retries"
    )
    retention_batch: int = Field(
        5_000, ge=1, description="rows removed per table and pass (the next pass removes more)"
    )
