"""SQLite's transactions (``services.store.db``): each takes the write lock at its start (``BEGIN
IMMEDIATE``), so one that reads and then writes never meets another's write in between (SQLite would answer
that lock upgrade with an immediate "database is locked"), and a read-then-write such as saving a library
position once is one transaction at a time."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from sqlalchemy import text

from services.store.db import session, upgrade


def test_a_second_transaction_waits_for_the_first_to_commit(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    upgrade(url)
    events: list[str] = []
    first_read = threading.Event()

    def first() -> None:
        with session(url) as s:
            s.execute(text("SELECT count(*) FROM archive_owners")).scalar_one()
            events.append("first read")
            first_read.set()
            time.sleep(0.5)  # the second tries to write meanwhile
            s.execute(text("INSERT INTO archive_owners (owner, version) VALUES ('a', 1)"))
            events.append("first wrote")
        events.append("first committed")

    def second() -> None:
        first_read.wait(10)
        with session(url) as s:  # its transaction begins at its first statement
            s.execute(text("INSERT INTO archive_owners (owner, version) VALUES ('b', 1)"))
            events.append("second wrote")
        events.append("second committed")

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert events == ["first read", "first wrote", "first committed", "second wrote", "second committed"]
    with session(url) as s:
        owners = s.execute(text("SELECT owner FROM archive_owners ORDER BY owner")).scalars().all()
    assert owners == ["a", "b"]


def test_first_connections_at_once_on_a_rollback_journal_file(tmp_path: Path) -> None:
    """Eight connections switching a file still in a rollback journal into WAL at the same moment: SQLite
    answers the losers of that race "database is locked" without waiting, and ``_into_wal`` tries again (the
    flake of ``test_concurrent_writers_get_distinct_versions[sqlite]``; without the retry, 71 of 500 such
    rounds failed here).  Then, through the store's engine, eight first writers at once on such a file."""
    import sqlite3

    from services.store.db import _into_wal, engine

    failures: list[str] = []

    def rollback_journal_file(name: str) -> Path:
        path = tmp_path / name
        con = sqlite3.connect(path)
        con.execute("CREATE TABLE t (x INTEGER)")
        con.commit()
        con.close()
        return path

    for r in range(100):
        path = rollback_journal_file(f"raw{r}.db")
        barrier = threading.Barrier(8)

        def switch(path: Path = path, barrier: threading.Barrier = barrier) -> None:
            con = sqlite3.connect(path, timeout=10, isolation_level=None)
            try:
                barrier.wait(10)
                _into_wal(con.cursor())
            except Exception as e:  # reported below
                failures.append(repr(e))
            finally:
                con.close()

        threads = [threading.Thread(target=switch) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
    assert failures == []

    url = f"sqlite:///{rollback_journal_file('engine.db')}"
    barrier = threading.Barrier(8)

    def write(k: int) -> None:
        try:
            barrier.wait(10)
            with session(url) as s:
                s.execute(text("INSERT INTO t (x) VALUES (:k)"), {"k": k})
        except Exception as e:  # reported below
            failures.append(repr(e))

    threads = [threading.Thread(target=write, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert failures == []
    with session(url) as s:
        assert s.execute(text("SELECT count(*) FROM t")).scalar_one() == 8
        assert s.execute(text("PRAGMA journal_mode")).scalar_one() == "wal"
    engine(url).dispose()


def test_upgrade_leaves_the_file_in_wal(tmp_path: Path) -> None:
    import sqlite3

    from services.store.db import engine

    url = f"sqlite:///{tmp_path / 'store.db'}"
    upgrade(url)
    engine(url).dispose()
    con = sqlite3.connect(tmp_path / "store.db")
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    con.close()
