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
