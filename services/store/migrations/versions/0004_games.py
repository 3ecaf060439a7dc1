"""games against the bots, their events, idempotent requests

Create Date: 2026-12-01
"""

from __future__ import annotations

from alembic import op

from services.store.migrations import columns as c

revision = "0004"
down_revision = "0003"


def upgrade() -> None:
    c.owned_table(
        "games", 64, c.text("status", 16), c.json("record"), c.json("summary"), c.number("version"),
        c.moment("created_at"), c.moment("updated_at"), c.moment("finished_at", nullable=True),
    )  # fmt: skip
    op.create_table(
        "game_events", c.parent("game_id", "games"), c.number("seq", primary_key=True), c.json("event"),
        c.moment("created_at"),
    )  # fmt: skip
    op.create_table(
        "idempotent_requests", c.key("owner", 128), c.key("key", 128), c.text("fingerprint", 64),
        c.number("status"), c.json("response"), c.moment("created_at"),
    )  # fmt: skip


def downgrade() -> None:
    op.drop_table("idempotent_requests")
    op.drop_table("game_events")
    c.drop("games", "ix_games_owner_created")
