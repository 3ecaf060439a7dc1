"""the daily puzzles' rechecks: a puzzle's answer judged again by another net, once per net

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "daily_rechecks",
        sa.Column("date", sa.String(10), primary_key=True),
        sa.Column("rules", sa.String(32), primary_key=True),
        sa.Column("kind", sa.String(16), primary_key=True),
        sa.Column("model_sha256", sa.String(64), primary_key=True),
        sa.Column("agrees", sa.Boolean(), nullable=False),
        sa.Column("recheck", sa.Text(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("daily_rechecks")
