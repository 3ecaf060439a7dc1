"""jobs and their finished chunks

Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from services.store.migrations import columns as c

revision = "0001"
down_revision = None


def upgrade() -> None:
    op.create_table(
        "jobs", c.key("id", 64), c.text("kind", 16), c.owner(), c.text("priority", 16, nullable=True),
        c.text("state", 16), c.json("spec"), c.json("chunk_list", nullable=True),
        sa.Column("error", sa.Text(), nullable=True), c.moment("created_at"), c.moment("updated_at"),
        c.moment("finished_at", nullable=True),
    )  # fmt: skip
    c.index_owner_created("jobs")
    op.create_index("ix_jobs_state", "jobs", ["state"])
    op.create_table(
        "job_chunks", c.parent("job_id", "jobs"), c.number("n", primary_key=True), c.json("record"),
        c.moment("created_at"),
    )  # fmt: skip


def downgrade() -> None:
    op.drop_table("job_chunks")
    c.drop("jobs", "ix_jobs_state", "ix_jobs_owner_created")
