"""The tables (docs/store.md describes them; migrations in :mod:`services.store.migrations`)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, Float, ForeignKey, Index, Integer, LargeBinary, String, Text
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
