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


def test_gateway_routes_on_the_store_answer_503_while_it_is_down(pg: Postgres, pg_url: str) -> None:
    """The archive, the library, the daily puzzles and the uploaded matches: 503 with Retry-After while
    the database is down (never a 500), and served again once it is back."""
    from fastapi.testclient import TestClient

    from services.gateway.app import create_app
    from services.gateway.settings import GatewaySettings

    upgrade(pg_url)
    settings = GatewaySettings(
        api_keys={"k": {"name": "k", "rate_per_s": 1000, "burst": 1000}},
        rules_address="127.0.0.1:9",
        evaluator_address="127.0.0.1:9",
    )  # type: ignore[call-arg]
    app = create_app(settings)
    app.state.database_url = pg_url
    with TestClient(app, headers={"X-API-Key": "k"}) as c:
        start = {"position": "4HPwATDgc/ABMA", "name": "start"}
        assert c.post("/v1/library/positions", json=start).status_code == 201
        calls = (
            lambda: c.get("/v1/matches"),
            lambda: c.get("/v1/matches/m123"),
            lambda: c.get("/v1/library/positions"),
            lambda: c.post("/v1/library/positions", json={**start, "position": "sGfwATDgc/ABMA"}),
            lambda: c.post("/v1/positions/similar", json={"position": "4HPwATDgc/ABMA"}),
            lambda: c.get("/v1/daily/2026-11-30"),
        )
        pg.stop()
        try:
            for call in calls:
                r = call()
                assert r.status_code == 503, (r.status_code, r.text)
                assert r.json()["type"].endswith("store-unavailable") and r.headers["Retry-After"]
        finally:
            pg.start()
        assert [p["name"] for p in c.get("/v1/library/positions").json()["positions"]] == ["start"]
        assert c.get("/v1/matches").status_code == 200
        assert c.get("/v1/daily/2026-11-30").status_code == 404  # not produced: known again
