"""Migrations on SQLite and PostgreSQL: from an empty database and from revision 0001 to the newest, down to
nothing and up again, and the models agree with what the migrations create."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from services.store import migrate
from services.store.db import alembic_config, current, engine, upgrade
from services.store.jobs import JobRecords
from services.store.models import Base

TABLES = {
    "jobs", "job_chunks", "job_blobs", "archive_owners", "archive_entries", "daily_puzzles", "match_uploads",
    "games", "game_events", "idempotent_requests", "players", "daily_attempts", "cards", "player_matches",
    "exercises", "daily_rechecks",
}  # fmt: skip


def tables(url: str) -> set[str]:
    with engine(url).connect() as conn:
        return set(sa.inspect(conn).get_table_names()) - {"alembic_version"}


def test_head_is_the_last_revision() -> None:
    assert migrate.head() == "0006"
    assert migrate.known("0001") and migrate.known("0002") and not migrate.known("9999")


def test_upgrade_from_empty(empty_url: str) -> None:
    assert current(empty_url) is None and tables(empty_url) == set()
    upgrade(empty_url)
    assert current(empty_url) == migrate.head()
    assert tables(empty_url) == TABLES
    with engine(empty_url).connect() as conn:
        indexes = {i["name"]: i["column_names"] for i in sa.inspect(conn).get_indexes("jobs")}
    assert indexes == {"ix_jobs_owner_created": ["owner", "created_at", "id"], "ix_jobs_state": ["state"]}
    upgrade(empty_url)  # again: nothing to do
    assert current(empty_url) == migrate.head()


def test_upgrade_from_0001_keeps_jobs(empty_url: str) -> None:
    upgrade(empty_url, "0001")
    assert current(empty_url) == "0001" and tables(empty_url) == {"jobs", "job_chunks"}
    # a job as the code of revision 0001 wrote it (no blobs then)
    jobs_t = sa.table(
        "jobs", *(sa.column(c) for c in ("id", "kind", "owner", "state", "created_at", "updated_at")),
        sa.column("spec", sa.JSON), sa.column("chunk_list", sa.JSON),
    )  # fmt: skip
    chunks_t = sa.table(
        "job_chunks",
        sa.column("job_id"),
        sa.column("n"),
        sa.column("record", sa.JSON),
        sa.column("created_at"),
    )
    with engine(empty_url).begin() as conn:
        conn.execute(
            jobs_t.insert().values(
                id="old", kind="analysis", owner="k1", state="done", spec={"m": 1}, chunk_list=None,
                created_at=1.0, updated_at=2.0,
            )
        )  # fmt: skip
        conn.execute(chunks_t.insert().values(job_id="old", n=0, record={"r": 0}, created_at=2.0))

    upgrade(empty_url)
    assert current(empty_url) == migrate.head() and tables(empty_url) == TABLES
    jobs = JobRecords(empty_url)
    old = jobs.get("old")
    assert old is not None and (old.kind, old.owner, old.state, old.spec) == (
        "analysis",
        "k1",
        "done",
        {"m": 1},
    )
    assert jobs.chunks("old") == {0: {"r": 0}}
    jobs.put_blob("old", "result.json", b'{"ok": true}')
    assert jobs.blob("old", "result.json") == b'{"ok": true}'
    assert jobs.delete("old") and jobs.count() == 0


def test_downgrade_to_base_and_up_again(store_url: str) -> None:
    JobRecords(store_url).create("a", "rollout", {})
    engine(store_url).dispose()
    cfg = alembic_config(store_url)
    command.downgrade(cfg, "0001")
    assert current(store_url) == "0001" and tables(store_url) == {"jobs", "job_chunks"}
    command.downgrade(cfg, "base")
    assert current(store_url) is None and tables(store_url) == set()
    command.upgrade(cfg, "head")
    assert current(store_url) == migrate.head() and tables(store_url) == TABLES
    jobs = JobRecords(store_url)
    assert jobs.count() == 0
    jobs.create("b", "rollout", {}, blobs={"x": b"1"})
    assert jobs.blob("b", "x") == b"1"


def test_models_agree_with_migrations(store_url: str) -> None:
    with engine(store_url).connect() as conn:
        ctx = MigrationContext.configure(conn, opts={"compare_type": True, "compare_server_default": True})
        diffs = compare_metadata(ctx, Base.metadata)
    assert diffs == []


def test_models_differ_is_noticed(sqlite_url: str) -> None:
    """The comparison above can fail: a database at 0001 lacks the blobs table."""
    upgrade(sqlite_url, "0001")
    with engine(sqlite_url).connect() as conn:
        diffs = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    assert {d[0] for d in diffs} == {"add_table", "add_index"}
    assert {d[1].name for d in diffs if d[0] == "add_table"} == TABLES - {"jobs", "job_chunks"}


def test_upgrade_from_0004_keeps_games_without_a_player(empty_url: str) -> None:
    """A game as the code of revision 0004 wrote it reads after 0005 (recorded for no player)."""
    from services.store.games import GameRecords
    from services.store.players import PlayerRecords

    upgrade(empty_url, "0004")
    games_t = sa.table(
        "games", *(sa.column(c) for c in ("id", "owner", "status", "version", "created_at", "updated_at")),
        sa.column("record", sa.JSON), sa.column("summary", sa.JSON),
    )  # fmt: skip
    with engine(empty_url).begin() as conn:
        conn.execute(
            games_t.insert().values(
                id="g-old", owner="k1", status="finished", version=3, created_at=1.0, updated_at=2.0,
                record={"log": [1]}, summary={"rules": "international"},
            )
        )  # fmt: skip
    upgrade(empty_url)
    old = GameRecords(empty_url).get("k1", "g-old")
    assert old is not None and old.player_id is None and old.record == {"log": [1]} and old.version == 3
    assert PlayerRecords(empty_url).list("k1") == ([], None)
