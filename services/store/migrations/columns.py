"""The columns the revisions in ``versions/`` repeat, one helper each.

A revision's schema is frozen once released, so these helpers make exactly the columns they always did:
change what one makes only together with a new revision that migrates to it.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

JSON = sa.JSON().with_variant(JSONB(), "postgresql")


def key(name: str, length: int) -> sa.Column[Any]:
    """A string column of the primary key."""
    return sa.Column(name, sa.String(length), primary_key=True)


def parent(name: str, table: str) -> sa.Column[Any]:
    """A primary-key column naming a row of ``table`` (by its 64-character id), gone with that row."""
    return sa.Column(name, sa.String(64), sa.ForeignKey(f"{table}.id", ondelete="CASCADE"), primary_key=True)


def text(name: str, length: int, *, nullable: bool = False) -> sa.Column[Any]:
    """A string column of at most ``length`` characters."""
    return sa.Column(name, sa.String(length), nullable=nullable)


def owner() -> sa.Column[Any]:
    """The API key's owner a row belongs to (none: anonymous)."""
    return text("owner", 128, nullable=True)


def json(name: str, *, nullable: bool = False) -> sa.Column[Any]:
    """A JSON document (JSONB on PostgreSQL)."""
    return sa.Column(name, JSON, nullable=nullable)


def moment(name: str, *, nullable: bool = False) -> sa.Column[Any]:
    """A time as seconds since the epoch."""
    return sa.Column(name, sa.Float(), nullable=nullable)


def number(name: str, *, primary_key: bool = False) -> sa.Column[Any]:
    """A required integer, or one of the primary key."""
    if primary_key:
        return sa.Column(name, sa.Integer(), primary_key=True)
    return sa.Column(name, sa.Integer(), nullable=False)


def flag(name: str, *, nullable: bool = False) -> sa.Column[Any]:
    """A boolean."""
    return sa.Column(name, sa.Boolean(), nullable=nullable)


def daily_key(rules_length: int = 32) -> tuple[sa.Column[Any], ...]:
    """The key of a daily puzzle: its date, rule set and kind."""
    return key("date", 10), key("rules", rules_length), key("kind", 16)


def index_owner_created(table: str) -> None:
    """The index an owner's newest-first listing of ``table`` pages along."""
    op.create_index(f"ix_{table}_owner_created", table, ["owner", "created_at", "id"])


def owned_table(table: str, id_length: int, *columns: sa.Column[Any]) -> None:
    """Create ``table`` of rows an owner lists newest first: its id, its owner, ``columns``, and the index."""
    op.create_table(table, key("id", id_length), owner(), *columns)
    index_owner_created(table)


def drop(table: str, *indexes: str) -> None:
    """Drop ``indexes`` of ``table``, then the table."""
    for index in indexes:
        op.drop_index(index, table)
    op.drop_table(table)
