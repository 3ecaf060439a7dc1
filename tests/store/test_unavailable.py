"""A PostgreSQL server that goes away: StoreUnavailable, quickly, and the same JobRecords work again once it
is back (the engine's pool replaces the connections the restart cut)."""

from __future__ import annotations

import time

import pytest
from postgres import Postgres

from services.store.db import StoreUnavailable, upgrade
from services.store.jobs import JobRecords


def test_store_unavailable_while_stopped_and_recovery(pg: Postgres, pg_url: str) -> None:
    url = pg_url
    upgrade(url)
    jobs = JobRecords(url)
    jobs.create("a", "rollout", {"t": 1}, owner="k1")
    jobs.add_chunks("a", {0: {"r": 1}})
    assert jobs.get("a") is not None  # the pool holds a connection now

    pg.stop()
    try:
        for call in (
            lambda: jobs.get("a"),
            lambda: jobs.create("b", "rollout", {}, owner="k1"),
            lambda: jobs.add_chunks("a", {1: {"r": 2}}),
            lambda: jobs.list("k1"),
        ):
            t0 = time.monotonic()
            with pytest.raises(StoreUnavailable):
                call()
            assert time.monotonic() - t0 < 10, "a lost database is an error within the connect timeout"
    finally:
        pg.start()

    a = jobs.get("a")
    assert a is not None and a.state == "running" and jobs.chunks("a") == {0: {"r": 1}}
    jobs.create("b", "rollout", {}, owner="k1")
    assert jobs.add_chunks("a", {1: {"r": 2}}) == 1
    assert [j.id for j in jobs.list("k1")[0]] == ["b", "a"]
