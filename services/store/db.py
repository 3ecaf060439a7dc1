"""Engines and migrations: one SQLAlchemy engine per process and URL, Alembic to the newest revision."""

from __future__ import annotations

import contextlib
import functools
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

from sqlalchemy import CursorResult, Engine, Result, create_engine, event
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.orm import Session, sessionmaker

MIGRATIONS = Path(__file__).resolve().parent / "migrations"


class StoreUnavailable(Exception):
    """The database cannot be reached (the gateway answers 503 with Retry-After)."""


def _into_wal(cur: Any, wait_s: float = 10.0) -> None:
    """Switch the file into WAL (readers beside one writer, across processes; the mode stays in the file).
    A file still in a rollback journal switches under a write lock taken while holding a read lock, and
    SQLite answers the second of two connections switching at once with an immediate "database is locked"
    (its busy handler would deadlock): that one tries again, up to ``wait_s``.  A file in WAL already
    switches nothing, which is why :func:`upgrade` leaves its files in WAL."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            cur.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) or time.monotonic() > deadline:
                raise
            time.sleep(0.005)


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    dbapi_connection.isolation_level = None  # the driver begins no transaction itself: _sqlite_begin does
    cur = dbapi_connection.cursor()
    _into_wal(cur)
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA busy_timeout=10000")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.close()


def _sqlite_begin(conn: Any) -> None:
    """Every SQLite transaction takes the write lock at its start, waiting up to the busy timeout.  A
    deferred one that read first and wrote later would need to upgrade its lock, and SQLite answers that
    at once with "database is locked" when another connection wrote meanwhile (no wait: it would deadlock);
    it also makes ``with_for_update`` (ignored by SQLite) hold: one transaction at a time.  PostgreSQL's are
    untouched."""
    conn.exec_driver_sql("BEGIN IMMEDIATE")


class StoreRequired(RuntimeError):
    """A process that needs the durable store started without ``PULVEZAR_DATABASE_URL``."""


def required_url(process: str) -> str:
    """``PULVEZAR_DATABASE_URL`` for a process that cannot start without the durable store (the gateway,
    the workers, beat: docs/store.md, "The store is required"); unset, :class:`StoreRequired` naming it."""
    from services.store.settings import StoreSettings

    url = StoreSettings().url
    if not url:
        raise StoreRequired(
            f"{process} needs the durable store: set PULVEZAR_DATABASE_URL "
            "(`make run` sets an SQLite file; see docs/store.md)"
        )
    return url


@functools.cache
def engine(url: str, connect_timeout_s: float = 3.0) -> Engine:
    """The process's engine for ``url`` (SQLite: WAL, a busy timeout, foreign keys on and every transaction
    ``BEGIN IMMEDIATE``)."""
    if url.startswith("sqlite"):
        path = url.split("///", 1)[-1]
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        eng = create_engine(url, connect_args={"timeout": 10})
        event.listen(eng, "connect", _sqlite_pragmas)
        event.listen(eng, "begin", _sqlite_begin)
        return eng
    args = {"connect_timeout": max(1, round(connect_timeout_s))} if url.startswith("postgresql") else {}
    return create_engine(url, pool_pre_ping=True, pool_size=5, max_overflow=5, connect_args=args)


@contextlib.contextmanager
def session(url: str) -> Iterator[Session]:
    """A transaction on ``url``: committed at the end, rolled back on error; a lost database is
    :class:`StoreUnavailable`."""
    maker = sessionmaker(engine(url), expire_on_commit=False)
    try:
        with maker.begin() as s:
            yield s
    except (OperationalError, DBAPIError) as e:
        if isinstance(e, OperationalError) or e.connection_invalidated:
            raise StoreUnavailable(f"the database is unavailable: {e.orig!r}") from e
        raise


def insert(url: str) -> Any:
    """The dialect's ``insert`` (PostgreSQL's or SQLite's: both have ``ON CONFLICT``) for ``url``."""
    if engine(url).dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        return pg_insert
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert

    return sqlite_insert


def alembic_config(url: str) -> Any:
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def upgrade(url: str, revision: str = "head") -> None:
    """Migrate the database at ``url`` to ``revision`` (creating the tables on an empty one); an SQLite
    file is left in WAL, so that the first connections of many processes switch nothing."""
    from alembic import command

    if url.startswith("sqlite"):
        engine(url)  # makes the file's folder
    command.upgrade(alembic_config(url), revision)
    if url.startswith("sqlite"):
        with engine(url).connect():  # its connect event switches the file into WAL
            pass


def current(url: str) -> str | None:
    """The revision the database is at (None: not migrated)."""
    from alembic.runtime.migration import MigrationContext

    with engine(url).connect() as conn:
        rev: str | None = MigrationContext.configure(conn).get_current_revision()
        return rev


def rowcount(result: Result[Any]) -> int:
    """The rows an UPDATE or DELETE touched (``Session.execute`` is typed as returning a plain ``Result``;
    for DML it is a ``CursorResult``).  -1 where the driver does not say."""
    return cast(CursorResult[Any], result).rowcount
