"""Fixtures of the durable store's tests: a real PostgreSQL server per module, fresh databases on it, and
SQLite files in ``tmp_path``; ``store_url`` runs a test on both."""

from __future__ import annotations

import itertools
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
for _path in (ROOT, ROOT / "tests" / "services"):  # `services` and the PostgreSQL helper (postgres.py)
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

pytest.importorskip("sqlalchemy")
pytest.importorskip("alembic")
pytest.importorskip("psycopg")

from postgres import Postgres, bindir  # noqa: E402

_names = itertools.count()


@pytest.fixture(scope="module")
def pg() -> Iterator[Postgres]:
    """A PostgreSQL server of this module's own (a test may stop and start it)."""
    if bindir() is None:
        pytest.skip("PostgreSQL is not installed (make system-deps installs it)")
    server = Postgres()
    try:
        yield server
    finally:
        server.close()


def new_database(pg: Postgres) -> str:
    """The URL of a new, empty database on ``pg``."""
    import psycopg

    name = f"t{next(_names)}"
    with psycopg.connect(
        host="127.0.0.1", port=pg.port, user=pg.user, dbname=pg.database, autocommit=True
    ) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return pg.url.rsplit("/", 1)[0] + "/" + name


@pytest.fixture
def pg_url(pg: Postgres) -> str:
    """An empty database on the module's server."""
    return new_database(pg)


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    """An SQLite database file (not created yet) in ``tmp_path``."""
    (tmp_path / "store").mkdir()
    return f"sqlite:///{tmp_path / 'store' / 'pulvezar.db'}"


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_url(request: pytest.FixtureRequest) -> str:
    """An empty database: an SQLite file, then PostgreSQL."""
    name = "sqlite_url" if request.param == "sqlite" else "pg_url"
    return str(request.getfixturevalue(name))


@pytest.fixture
def store_url(empty_url: str) -> str:
    """A database at the newest revision, on SQLite and on PostgreSQL."""
    from services.store.db import upgrade

    upgrade(empty_url)
    return empty_url
