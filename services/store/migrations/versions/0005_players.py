"""players (the learner's record), the player a game is recorded for, daily attempts, flash cards, the
player's matches (played and imported, with their analyses), exercises

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

JSON = sa.JSON().with_variant(JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("owner", sa.String(128), nullable=True),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("stats", JSON, nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("updated_at", sa.Float(), nullable=False),
    )
    op.create_index("ix_players_owner_created", "players", ["owner", "created_at", "id"])
    op.create_table(
        "daily_attempts",
        sa.Column("player_id", sa.String(32), primary_key=True),
        sa.Column("date", sa.String(10), primary_key=True),
        sa.Column("rules", sa.String(16), primary_key=True),
        sa.Column("kind", sa.String(16), primary_key=True),
        sa.Column("n", sa.Integer(), primary_key=True),
        sa.Column("answer", JSON, nullable=False),
        sa.Column("correct", sa.Boolean(), nullable=False),
        sa.Column("loss", sa.Float(), nullable=True),
        sa.Column("created_at", sa.Float(), nullable=False),
    )
    op.create_table(
        "cards",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("player_id", sa.String(32), nullable=False),
        sa.Column("source", sa.String(96), nullable=False),
        sa.Column("puzzle", JSON, nullable=False),
        sa.Column("due", sa.String(10), nullable=False),
        sa.Column("interval", sa.Integer(), nullable=False),
        sa.Column("reps", sa.Integer(), nullable=False),
        sa.Column("lapses", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("answered_at", sa.Float(), nullable=True),
    )
    op.create_index("ix_cards_player_source", "cards", ["player_id", "source"], unique=True)
    op.create_index("ix_cards_player_due", "cards", ["player_id", "due"])
    op.create_table(
        "player_matches",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("player_id", sa.String(32), nullable=False),
        sa.Column("ref", sa.String(96), nullable=False),
        sa.Column("source", sa.String(16), nullable=False),
        sa.Column("info", JSON, nullable=False),
        sa.Column("won", sa.Boolean(), nullable=True),
        sa.Column("pr", sa.Float(), nullable=True),
        sa.Column("analysis", sa.String(64), nullable=True),
        sa.Column("played_at", sa.Float(), nullable=False),
        sa.Column("analysed_at", sa.Float(), nullable=True),
    )
    op.create_index("ix_player_matches_ref", "player_matches", ["player_id", "ref"], unique=True)
    op.create_index("ix_player_matches_played", "player_matches", ["player_id", "played_at", "id"])
    op.create_table(
        "exercises",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("owner", sa.String(128), nullable=True),
        sa.Column("player_id", sa.String(32), nullable=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("spec", JSON, nullable=False),
        sa.Column("screen_reader", sa.Boolean(), nullable=False),
        sa.Column("issued_at", sa.Float(), nullable=False),
        sa.Column("answers", sa.Integer(), nullable=False),
        sa.Column("first", JSON, nullable=True),
        sa.Column("answered_at", sa.Float(), nullable=True),
    )
    op.create_index("ix_exercises_player", "exercises", ["player_id"])
    op.add_column("games", sa.Column("player_id", sa.String(32), nullable=True))
    op.create_index("ix_games_player", "games", ["player_id"])


def downgrade() -> None:
    op.drop_index("ix_games_player", "games")
    with op.batch_alter_table("games") as batch:  # SQLite drops a column by copying the table
        batch.drop_column("player_id")
    op.drop_index("ix_exercises_player", "exercises")
    op.drop_table("exercises")
    op.drop_index("ix_player_matches_played", "player_matches")
    op.drop_index("ix_player_matches_ref", "player_matches")
    op.drop_table("player_matches")
    op.drop_index("ix_cards_player_due", "cards")
    op.drop_index("ix_cards_player_source", "cards")
    op.drop_table("cards")
    op.drop_table("daily_attempts")
    op.drop_index("ix_players_owner_created", "players")
    op.drop_table("players")
