"""the daily puzzles' rechecks: a puzzle's answer judged again by another net, once per net

Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from services.store.migrations import columns as c

revision = "0006"
down_revision = "0005"


def upgrade() -> None:
    op.create_table(
        "daily_rechecks", *c.daily_key(), c.key("model_sha256", 64), c.flag("agrees"),
        sa.Column("recheck", sa.Text(), nullable=False), c.moment("created_at"),
    )  # fmt: skip


def downgrade() -> None:
    op.drop_table("daily_rechecks")
