"""players (the learner's record), the player a game is recorded for, daily attempts, flash cards, the
player's matches (played and imported, with their analyses), exercises

Create Date: 2026-12-04
"""

from __future__ import annotations

from alembic import op

from services.store.migrations import columns as c

revision = "0005"
down_revision = "0004"


def upgrade() -> None:
    c.owned_table(
        "players", 32, c.text("name", 100), c.json("stats"), c.moment("created_at"), c.moment("updated_at")
    )
    op.create_table(
        "daily_attempts", c.key("player_id", 32), *c.daily_key(rules_length=16),
        c.number("n", primary_key=True), c.json("answer"), c.flag("correct"), c.moment("loss", nullable=True),
        c.moment("created_at"),
    )  # fmt: skip
    op.create_table(
        "cards", c.key("id", 32), c.text("player_id", 32), c.text("source", 96), c.json("puzzle"),
        c.text("due", 10), c.number("interval"), c.number("reps"), c.number("lapses"), c.moment("created_at"),
        c.moment("answered_at", nullable=True),
    )  # fmt: skip
    op.create_index("ix_cards_player_source", "cards", ["player_id", "source"], unique=True)
    op.create_index("ix_cards_player_due", "cards", ["player_id", "due"])
    op.create_table(
        "player_matches", c.key("id", 32), c.text("player_id", 32), c.text("ref", 96), c.text("source", 16),
        c.json("info"), c.flag("won", nullable=True), c.moment("pr", nullable=True),
        c.text("analysis", 64, nullable=True), c.moment("played_at"), c.moment("analysed_at", nullable=True),
    )  # fmt: skip
    op.create_index("ix_player_matches_ref", "player_matches", ["player_id", "ref"], unique=True)
    op.create_index("ix_player_matches_played", "player_matches", ["player_id", "played_at", "id"])
    op.create_table(
        "exercises", c.key("id", 32), c.owner(), c.text("player_id", 32, nullable=True), c.text("kind", 16),
        c.json("spec"), c.flag("screen_reader"), c.moment("issued_at"), c.number("answers"),
        c.json("first", nullable=True), c.moment("answered_at", nullable=True),
    )  # fmt: skip
    op.create_index("ix_exercises_player", "exercises", ["player_id"])
    op.add_column("games", c.text("player_id", 32, nullable=True))
    op.create_index("ix_games_player", "games", ["player_id"])


def downgrade() -> None:
    op.drop_index("ix_games_player", "games")
    with op.batch_alter_table("games") as batch:  # SQLite drops a column by copying the table
        batch.drop_column("player_id")
    c.drop("exercises", "ix_exercises_player")
    c.drop("player_matches", "ix_player_matches_played", "ix_player_matches_ref")
    c.drop("cards", "ix_cards_player_due", "ix_cards_player_source")
    op.drop_table("daily_attempts")
    c.drop("players", "ix_players_owner_created")
