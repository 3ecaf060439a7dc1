"""named bytes of a job: uploaded match files, match results, annotated SGF

Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from services.store.migrations import columns as c

revision = "0002"
down_revision = "0001"


def upgrade() -> None:
    op.create_table(
        "job_blobs", c.parent("job_id", "jobs"), c.key("name", 64),
        sa.Column("data", sa.LargeBinary(), nullable=False), c.moment("created_at"),
    )  # fmt: skip


def downgrade() -> None:
    op.drop_table("job_blobs")
