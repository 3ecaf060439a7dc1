"""Settings of the durable store, from ``PULVEZAR_DATABASE_*`` environment variables."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class StoreSettings(BaseSettings):
    """``PULVEZAR_DATABASE_URL`` (e.g. ``postgresql+psycopg://user@host/pulvezar`` or
    ``sqlite:///runs/local/pulvezar.db``); unset: no durable store (jobs live in Redis only)."""

    model_config = SettingsConfigDict(env_prefix="PULVEZAR_DATABASE_")

    url: str | None = Field(None, description="SQLAlchemy URL of the database; unset: Redis only")
    connect_timeout_s: float = Field(3.0, gt=0, description="how long a connection attempt may take")
    retention_days: float = Field(
        90.0, gt=0, description="finished jobs older than this are removed by the reconciler"
    )
    max_jobs_per_owner: int = Field(10_000, ge=1, description="stored jobs per API key (oldest go first)")
    reconcile_interval_s: float = Field(15.0, gt=0, description="how often the reconciler runs")
