"""the archive of positions per owner, the daily puzzles as served, uploaded match files

Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from services.store.migrations import columns as c

revision = "0003"
down_revision = "0002"


def upgrade() -> None:
    op.create_table("archive_owners", c.key("owner", 128), c.number("version"))
    op.create_table(
        "archive_entries", c.key("owner", 128), c.key("id", 200), c.number("version"),
        sa.Column("deleted", sa.Boolean(), nullable=False, server_default=sa.false()),
        c.json("data", nullable=True), c.moment("updated_at"),
    )  # fmt: skip
    op.create_index("ix_archive_owner_version", "archive_entries", ["owner", "version"])
    op.create_table(
        "daily_puzzles", *c.daily_key(), sa.Column("puzzle", sa.Text(), nullable=False),
        c.moment("created_at"),
    )  # fmt: skip
    c.owned_table(
        "match_uploads", 64, c.text("filename", 256, nullable=True), c.text("format", 8),
        c.text("sha256", 64), sa.Column("data", sa.LargeBinary(), nullable=False), c.json("summary"),
        c.moment("created_at"),
    )  # fmt: skip


def downgrade() -> None:
    c.drop("match_uploads", "ix_match_uploads_owner_created")
    op.drop_table("daily_puzzles")
    c.drop("archive_entries", "ix_archive_owner_version")
    op.drop_table("archive_owners")
