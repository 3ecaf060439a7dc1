"""Fixtures of the durable store's tests: a real PostgreSQL server (one for the session: an ``initdb`` and a
start are seconds), a fresh database on it per test, and SQLite files in ``tmp_path``; ``store_url`` runs a
test on both."""

from __future__ import annotations

import itertools
import shutil
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


@pytest.fixture(scope="session")
def pg() -> Iterator[Postgres]:
    """The PostgreSQL server of this folder's tests.  A test may stop it, and starts it again (checked
    after each test that has a database on it)."""
    if bindir() is None:
        pytest.skip("PostgreSQL is not installed (make system-deps installs it)")
    server = Postgres()
    try:
        yield server
    finally:
        server.close()


def _admin(pg: Postgres, sql: str) -> None:
    import psycopg

    with psycopg.connect(
        host="127.0.0.1", port=pg.port, user=pg.user, dbname=pg.database, autocommit=True
    ) as conn:
        conn.execute(sql)


def new_database(pg: Postgres, template: str | None = None) -> str:
    """The URL of a new database on ``pg``: empty, or a copy of ``template``."""
    name = f"t{next(_names)}"
    _admin(pg, f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else ""))
    return pg.url.rsplit("/", 1)[0] + "/" + name


def _database(pg: Postgres, template: str | None = None) -> Iterator[str]:
    """A new database on the session's server for one test; dropped after it, its connections with it (the
    store's engines are cached per URL and keep theirs: a server shared by every test would run out)."""
    from services.store.db import engine

    url = new_database(pg, template)
    yield url
    assert pg.proc is not None and pg.proc.poll() is None, "the test left PostgreSQL stopped"
    engine(url).dispose()
    _admin(pg, f'DROP DATABASE "{url.rsplit("/", 1)[1]}" WITH (FORCE)')


@pytest.fixture
def pg_url(pg: Postgres) -> Iterator[str]:
    """An empty database on the session's server."""
    yield from _database(pg)


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


@pytest.fixture(scope="session")
def sqlite_head(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An SQLite file the migrations brought to the newest revision, once per session."""
    from services.store.db import engine, upgrade

    path = tmp_path_factory.mktemp("head") / "pulvezar.db"
    upgrade(f"sqlite:///{path}")
    engine(f"sqlite:///{path}").dispose()
    return path


@pytest.fixture(scope="session")
def pg_head(pg: Postgres) -> str:
    """A PostgreSQL database the migrations brought to the newest revision, once per session: the template
    of ``store_url``'s (nothing stays connected to it)."""
    from services.store.db import engine, upgrade

    url = new_database(pg)
    upgrade(url)
    engine(url).dispose()
    return url.rsplit("/", 1)[1]


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database at the newest revision, on SQLite and on PostgreSQL: a copy of the one the migrations made
    for the session (``test_migrations.py`` runs them on empty databases)."""
    if request.param == "sqlite":
        head: Path = request.getfixturevalue("sqlite_head")
        (tmp_path / "store").mkdir()
        for part in head.parent.glob(head.name + "*"):  # with its -wal and -shm files, where there are any
            shutil.copyfile(part, tmp_path / "store" / part.name)
        yield f"sqlite:///{tmp_path / 'store' / head.name}"
    else:
        yield from _database(request.getfixturevalue("pg"), template=request.getfixturevalue("pg_head"))
