"""The durable store with real processes (issue 15): PostgreSQL, Redis, Celery workers and the gateway.

Drills: Redis killed and restarted empty in the middle of a rollout job (the reconciler puts the job
back from the database; the numbers equal an uninterrupted run), PostgreSQL stopped in the middle of a
job (503 with Retry-After for what needs it, never a 500; the job completes and the database catches up).
And the API on top: the caller's jobs listed newest first with cursors and filters, other keys' jobs
invisible even when Redis forgot their owners, finished jobs deleted.

On the session's shared platform (``shared_platform.py``, PostgreSQL behind it): each drill leaves it
running again (Redis and PostgreSQL restarted, the killed workers replaced; the gateway the last drill
kills is its own).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest
from postgres import bindir
from procutil import wait_until
from shared_platform import CHUNK

from pulvezar import Position
from pulvezar.eval.evaluator import NetEvaluator
from pulvezar.rollouts.chunks import rollout_chunked
from services.jobs.kinds.rollout import Rollouts
from services.rollout.reconcile import reconcile
from services.store.db import session as records_session
from services.store.models import Job

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(bindir() is None, reason="PostgreSQL is not installed (make test installs it)"),
]

START = "4HPwATDgc/ABMA"
KEY, OTHER = "store-key-1", "store-key-2"  # the shared platform's keys of this module


@pytest.fixture
def platform(shared_platform: Any) -> Iterator[Any]:
    """The shared platform (PostgreSQL behind it), two live workers and empty queues."""
    assert shared_platform.pg is not None, "the shared platform has no PostgreSQL"
    shared_platform.ready(2)
    yield shared_platform
    assert shared_platform.pg.proc is not None, "PostgreSQL was left stopped"


def job_store(platform: Any) -> Rollouts:
    return platform.durable_store()  # type: ignore[no-any-return]


def local(model_file: Path) -> NetEvaluator:
    import torch

    torch.set_num_threads(1)
    return NetEvaluator.load(model_file, device="cpu")


def test_redis_restarted_empty_in_the_middle_of_a_job(platform: Any) -> None:
    store, rds = job_store(platform), platform.redis
    job = store.submit({"position": START, "trials": 8 * CHUNK, "seed": 11, "truncate": 6}, owner="o1")
    assert store.records is not None and store.records.get(job).state == "queued"  # type: ignore[union-attr]
    wait_until(lambda: store.status(job)["chunks_done"] >= 2, 120, "two chunks", every=0.1)
    rds.kill()
    rds.start()  # empty: no spec, no chunks, no queue
    assert not store.redis.exists(f"job:{job}:spec")
    assert store.status(job)["state"] in ("queued", "running")  # read from the database meanwhile

    def finished() -> bool:
        reconcile(store)  # what the beat schedule runs every few seconds
        return bool(store.status(job)["state"] == "done")

    reconcile(store)  # the first of them puts the job back: the workers go on while ...
    want = rollout_chunked(  # ... the uninterrupted run is made here
        Position.from_position_id(START),
        8 * CHUNK,
        chunk_size=CHUNK,
        seed=11,
        truncate=6,
        evaluator=local(platform.model),
    )
    wait_until(finished, 240, "the job to finish after the restart", every=1.0)
    got = store.rollout_results(job)[0][0]
    np.testing.assert_array_equal(got.trials_run, want.trials_run)
    np.testing.assert_array_equal(got.values, want.values)
    row = store.records.get(job)  # type: ignore[union-attr]
    assert row is not None and row.state == "done" and row.finished_at is not None
    assert len(store.records.chunks(job)) == 8  # type: ignore[union-attr]


def client(base: str, key: str = KEY) -> httpx.Client:
    return httpx.Client(base_url=base, headers={"X-API-Key": key}, timeout=60)


def wait_done(c: httpx.Client, href: str, timeout: float = 120) -> dict[str, Any]:
    def done() -> dict[str, Any] | None:
        body: dict[str, Any] = c.get(href).json()
        return body if body["state"] in ("done", "failed", "cancelled") else None

    out: dict[str, Any] = wait_until(done, timeout, f"{href} to finish", every=0.2)
    return out


def test_jobs_listed_owned_and_deleted(platform: Any) -> None:
    rds = platform.redis
    with client(platform.base) as c, client(platform.base, OTHER) as other:
        hrefs = []
        for seed in (1, 2, 3):
            r = c.post("/v1/rollouts", json={"position": START, "trials": CHUNK, "seed": seed, "truncate": 2})
            assert r.status_code == 202, r.text
            hrefs.append(r.headers["Location"])
        batch = c.post(
            "/v1/batch-rollouts", json={"positions": [{"position": START}], "trials": CHUNK, "truncate": 2}
        )
        assert batch.status_code == 202, batch.text
        mine = other.post("/v1/rollouts", json={"position": START, "trials": CHUNK, "truncate": 2})
        for h in [*hrefs, batch.headers["Location"], mine.headers["Location"]]:
            wait_done(c if h != mine.headers["Location"] else other, h)

        # newest first, two a page, the cursor through all of them; only this key's jobs
        pages, cursor = [], None
        while True:
            params: dict[str, Any] = {"limit": 2, **({"cursor": cursor} if cursor else {})}
            body = c.get("/v1/rollouts", params=params).json()
            pages.append([j["href"] for j in body["jobs"]])
            cursor = body["next_cursor"]
            if cursor is None:
                break
        assert pages == [hrefs[::-1][:2], hrefs[::-1][2:]]
        every = c.get("/v1/jobs").json()["jobs"]
        assert [j["href"] for j in every] == [batch.headers["Location"], *hrefs[::-1]]

        # the list is the durable store's: a job's status (Redis) says done once its last chunk's record is
        # written there, and the worker copies the record and the end state to the store just after (under
        # load, a moment later: the stop-58 clean clone listed one job "queued")
        def all_done() -> list[dict[str, Any]] | None:
            jobs: list[dict[str, Any]] = c.get("/v1/jobs").json()["jobs"]
            return jobs if {j["state"] for j in jobs} == {"done"} else None

        every = wait_until(all_done, 30, "the durable store to have every job done", every=0.2)
        assert [j["href"] for j in every] == [batch.headers["Location"], *hrefs[::-1]]
        assert [j["kind"] for j in c.get("/v1/jobs", params={"kind": "batch"}).json()["jobs"]] == ["batch"]
        assert c.get("/v1/jobs", params={"state": "running"}).json()["jobs"] == []
        assert [j["href"] for j in other.get("/v1/jobs").json()["jobs"]] == [mine.headers["Location"]]
        bad = c.get("/v1/jobs", params={"cursor": "not-a-cursor"})
        assert bad.status_code == 422 and bad.json()["errors"][0]["field"] == "cursor"
        assert c.get("/v1/jobs", params={"state": "lost"}).status_code == 422

        # Redis forgets everything: the results and the owners come from the database
        results = c.get(hrefs[0]).json()["results"]
        rds.kill()
        rds.start()
        wait_until(lambda: c.get(hrefs[0]).status_code == 200, 30, "the gateway to reconnect", every=0.5)
        assert c.get(hrefs[0]).json()["results"] == results
        assert other.get(hrefs[0]).status_code == 404  # still not the other key's
        # DELETE removes a finished job's results; then it is gone
        assert c.delete(hrefs[0]).status_code == 204
        assert c.get(hrefs[0]).status_code == 404
        assert [j["href"] for j in c.get("/v1/rollouts").json()["jobs"]] == hrefs[:0:-1]


def test_database_down_in_the_middle_of_a_job(platform: Any) -> None:
    store, pg = job_store(platform), platform.pg
    with client(platform.base) as c:
        r = c.post("/v1/rollouts", json={"position": START, "trials": 6 * CHUNK, "seed": 5, "truncate": 4})
        assert r.status_code == 202, r.text
        href = r.headers["Location"]
        job = r.json()["id"]
        wait_until(lambda: c.get(href).json()["chunks_done"] >= 1, 60, "a first chunk", every=0.1)
        pg.stop()
        try:
            down = c.post("/v1/rollouts", json={"position": START, "trials": CHUNK})
            assert down.status_code == 503 and down.headers["Retry-After"], down.text
            assert down.json()["type"].endswith("store-unavailable")
            assert c.get("/v1/jobs").status_code == 503
            status = c.get(href)  # the running job is still served from Redis
            assert status.status_code == 200, status.text
            wait_until(lambda: c.get(href).json()["state"] == "done", 120, "the job to finish", every=0.2)
        finally:
            pg.start()
        records = store.records
        assert records is not None
        assert records.get(job).state != "done"  # type: ignore[union-attr]  (chunks finished while it was down)
        reconcile(store)
        row = records.get(job)
        assert row is not None and row.state == "done" and len(records.chunks(job)) == 6
        assert [j["state"] for j in c.get("/v1/rollouts", params={"limit": 1}).json()["jobs"]] == ["done"]


MATCH = Path(__file__).resolve().parent / "data" / "charlot1-charlot2_7p_2025-11-08-2305.mat"


def test_analysis_survives_gateway_workers_and_redis(platform: Any, service_process: Any) -> None:
    """The gateway, every worker and Redis (restarted empty) are killed in the middle of a match
    analysis; after a restart the job completes from the database, with the numbers of an uninterrupted
    analysis, and it is listed under ``GET /v1/analyses``."""
    from pulvezar.analysis.match import AnalysisSettings, analyse_match
    from pulvezar.formats import read_mat

    rds, workers = platform.redis, platform.workers

    def uninterrupted() -> dict[str, Any]:
        analysis = analyse_match(  # local(): the workers' net and torch thread count
            read_mat(MATCH.read_bytes()), AnalysisSettings.from_level("0ply"), evaluator=local(platform.model)
        )
        return analysis.to_json()

    def gateway() -> Any:  # its own, on the shared Rules and Evaluator services: this one is killed
        return platform.start_gateway(service_process)

    gw = gateway()
    try:
        with client(f"http://127.0.0.1:{gw.port}") as c:
            r = c.post(
                "/v1/analyses", json={"file": MATCH.read_text(), "filename": MATCH.name, "level": "0ply"}
            )
            assert r.status_code == 202, r.text
            href, total = r.headers["Location"], r.json()["games_total"]
            assert total > 2
            wait_until(
                lambda: c.get(href, params={"games": "false"}).json()["games_done"] >= 1, 120, "a game"
            )
        gw.proc.kill()
        for w in workers.running:
            w.kill()
        rds.kill()
        rds.start()
        gw.proc.wait(10)
        gw = gateway()
        workers.ensure(2)  # as the other tests have it
        with client(f"http://127.0.0.1:{gw.port}") as c:
            # reading the job puts it back from the database and queues its unfinished games
            first = c.get(href, params={"games": "false"})
            assert first.status_code == 200 and first.json()["games_total"] == total, first.text
            want = uninterrupted()  # made here while the workers finish the job
            final = wait_done(c, href, 240)
            assert final["state"] == "done", final
            # the worker writes the end state just after the last game's result
            listed = wait_until(
                lambda: (
                    [(j["href"], j["state"]) for j in c.get("/v1/analyses").json()["jobs"]]
                    == [(href, "done")]
                ),
                30,
                "the analysis listed as done",
                every=0.2,
            )
            assert listed
            got = c.get(href).json()["matches"][0]
            sgf = c.get(got["sgf"])
            assert sgf.status_code == 200
    finally:
        gw.terminate()
    assert got["games"] == want["games"]
    assert [p["pr"] for p in got["summary"]["players"]] == [p["pr"] for p in want["players"]]


def test_the_platforms_own_jobs_for_operator_keys_and_abandoned_daily_runs(platform: Any) -> None:
    """Daily runs are jobs without an owner: an operator key lists and reads them (scope=platform), any
    other key gets 403 for the scope and 404 for the job; a run whose worker died becomes failed."""
    from shared_platform import OPERATOR_KEY

    from services.store.jobs import JobRecords

    records = JobRecords(platform.database)
    stamp = int(time.time() * 1000)
    fresh, stale = f"daily-{stamp}-1", f"daily-{stamp}-2"
    records.create(fresh, "daily", {"dates": ["2026-12-04"]})
    records.create(stale, "daily", {"dates": ["2026-12-03"]}, created=time.time() - 7200)
    with records_session(platform.database) as s:  # its worker died two hours ago
        s.get(Job, stale).updated_at = time.time() - 7200
    assert records.abandon("daily", 3600) == 1
    assert records.get(stale).state == "failed" and "abandoned" in (records.get(stale).error or "")
    assert records.get(fresh).state == "queued"
    with client(platform.base, OPERATOR_KEY) as op, client(platform.base) as c:
        listed = op.get("/v1/jobs", params={"scope": "platform", "kind": "daily"}).json()["jobs"]
        assert {fresh, stale} <= {j["id"] for j in listed}
        one = op.get(f"/v1/jobs/{stale}")
        assert one.status_code == 200 and one.json()["state"] == "failed" and one.json()["kind"] == "daily"
        assert one.json()["href"] == f"/v1/daily-runs/{stale}"  # the daily kind's own route
        refused = c.get("/v1/jobs", params={"scope": "platform"})
        assert refused.status_code == 403 and refused.json()["errors"][0]["field"] == "scope"
        assert c.get(f"/v1/jobs/{stale}").status_code == 404
        assert op.get("/v1/jobs").json()["jobs"] == []  # its own: none
        mine = c.post("/v1/rollouts", json={"position": START, "trials": CHUNK, "truncate": 2})
        got = c.get(f"/v1/jobs/{mine.json()['id']}").json()
        assert got["kind"] == "rollout" and got["href"] == mine.headers["Location"]
        assert op.get(f"/v1/jobs/{mine.json()['id']}").status_code == 404
        wait_done(c, mine.headers["Location"])


def test_an_archive_write_lost_to_a_database_outage_is_retried(platform: Any) -> None:
    """The database goes down while a match is analysed: the analysis finishes from Redis, its archive
    write fails and is noted; once the database is back, the reconciler writes the match's positions."""
    from services.common.owners import owner_of
    from services.jobs.analysis_archive import ARCHIVE_RETRY_KEY
    from services.store.archive import SqlArchive

    store, pg = job_store(platform), platform.pg
    short = Path(__file__).resolve().parent / "data" / "match1495872.txt"
    archive = SqlArchive(platform.database, owner_of(KEY))
    before = len(archive.load_index()[1].entries)
    with client(platform.base) as c:
        body = {"file": short.read_text(), "filename": short.name, "level": "0ply"}
        r = c.post("/v1/analyses", json=body)
        assert r.status_code == 202, r.text
        href, job = r.headers["Location"], r.json()["id"]

        def started() -> bool:
            logs = [e for w in platform.workers.running for e in list(w.logs)]
            return any(e.get("job") == job and "chunk started" in str(e.get("msg")) for e in logs)

        wait_until(started, 60, "the game to start", every=0.05)
        pg.stop()
        try:
            wait_until(
                lambda: c.get(href).json()["state"] == "done", 120, "the analysis to finish", every=0.2
            )
            assert store.redis.sismember(ARCHIVE_RETRY_KEY, f"{job}|0")
        finally:
            pg.start()
    assert len(archive.load_index()[1].entries) == before  # nothing was written while it was down
    counts = reconcile(store)
    assert counts["archived"] == 1
    assert len(archive.load_index()[1].entries) > before
    assert not store.redis.sismember(ARCHIVE_RETRY_KEY, f"{job}|0")
    assert reconcile(store)["archived"] == 0  # done once
