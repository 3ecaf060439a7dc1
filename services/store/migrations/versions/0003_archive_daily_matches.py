"""the archive of positions per owner, the daily puzzles as served, uploaded match files

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

JSON = sa.JSON().with_variant(JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "archive_owners",
        sa.Column("owner", sa.String(128), primary_key=True),
        sa.Column("version", sa.Integer(), nullable=False),
    )
    op.create_table(
        "archive_entries",
        sa.Column("owner", sa.String(128), primary_key=True),
        sa.Column("id", sa.String(200), primary_key=True),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("deleted", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("data", JSON, nullable=True),
        sa.Column("updated_at", sa.Float(), nullable=False),
    )
    op.create_index("ix_archive_owner_version", "archive_entries", ["owner", "version"])
    op.create_table(
        "daily_puzzles",
        sa.Column("date", sa.String(10), primary_key=True),
        sa.Column("rules", sa.String(32), primary_key=True),
        sa.Column("kind", sa.String(16), primary_key=True),
        sa.Column("puzzle", sa.Text(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
    )
    op.create_table(
        "match_uploads",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("owner", sa.String(128), nullable=True),
        sa.Column("filename", sa.String(256), nullable=True),
        sa.Column("format", sa.String(8), nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.Column("summary", JSON, nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
    )
    op.create_index("ix_match_uploads_owner_created", "match_uploads", ["owner", "created_at", "id"])


def downgrade() -> None:
    op.drop_index("ix_match_uploads_owner_created", "match_uploads")
    op.drop_table("match_uploads")
    op.drop_table("daily_puzzles")
    op.drop_index("ix_archive_owner_version", "archive_entries")
    op.drop_table("archive_entries")
    op.drop_table("archive_owners")
