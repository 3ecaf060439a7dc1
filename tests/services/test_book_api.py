"""The opening book over HTTP and on the rollout workers: the real gateway, a real Redis (fresh, on a
free port) and a real Celery worker (subprocesses), compared with the in-process generator.  The
gateway and the worker have a durable store (an SQLite file of the module): a book job (the kind
``book``) is recorded there chunk by chunk, and a book job whose Redis keys are lost is served and
continued from there."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor, wait
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest

pytest.importorskip("celery")
redis = pytest.importorskip("redis")

from procutil import wait_until  # noqa: E402

from pulvezar.book import BOOK_SCHEMA, Book, BookSettings, book_path, generate_book  # noqa: E402
from services.jobs.kinds.book import BookKind  # noqa: E402
from services.jobs.settings import RolloutSettings  # noqa: E402
from services.rollout.celery_app import make_app  # noqa: E402

if TYPE_CHECKING:
    from conftest import GatewayProcess, ServiceProcess

ROOT = Path(__file__).resolve().parents[2]
KEY, OTHER = "book-key", "book-key-2"
KEYS = {
    KEY: {"name": "book tests", "rate_per_s": 1000, "burst": 1000},
    OTHER: {"name": "book tests 2", "rate_per_s": 1000, "burst": 1000},
}
CHUNK = 36
PROBLEM = "application/problem+json"
#: a tiny book: two rolls, 1-ply candidates, 72 trials truncated after 4 half-moves, 0-ply replies
TINY = {
    "rules": "international",
    "rolls": ["43", "31"],
    "trials": 72,
    "ply": 1,
    "candidates": 3,
    "threshold": 0.2,
    "truncate": 4,
    "reply_ply": 0,
}


def tiny_settings(**change: Any) -> BookSettings:
    base: dict[str, Any] = {
        "variant": "international",
        "rolls": ((4, 3), (3, 1)),
        "ply": 1,
        "candidates": 3,
        "threshold": 0.2,
        "trials": 72,
        "truncate": 4,
        "reply_ply": 0,
        "chunk_size": CHUNK,
    }
    return BookSettings(**{**base, **change})


def fields(r: httpx.Response, status: int = 422) -> list[str]:
    assert r.status_code == status, r.text
    assert r.headers["content-type"] == PROBLEM
    return [e["field"] for e in r.json().get("errors", [])]


def same_book(a: dict[str, Any], b: dict[str, Any]) -> None:
    """Equal books up to the date and float noise (the searches ran with other torch threads)."""
    assert a["settings"] == b["settings"] and a["engine"] == b["engine"] and a["rules"] == b["rules"]
    assert [r["roll"] for r in a["rolls"]] == [r["roll"] for r in b["rolls"]]
    for ra, rb in zip(a["rolls"], b["rolls"], strict=True):
        assert [c["play"] for c in ra["candidates"]] == [c["play"] for c in rb["candidates"]]
        for ca, cb in zip(ra["candidates"], rb["candidates"], strict=True):
            for k in ("equity", "search_equity", "rollout_equity", "rollout_se", "loss"):
                assert ca[k] == pytest.approx(cb[k], abs=2e-6), (ra["roll"], k)
            assert ca["trials"] == cb["trials"]
        assert [x["play"] for x in ra["replies"]["replies"]] == [x["play"] for x in rb["replies"]["replies"]]


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The module's durable store: an SQLite file at the newest revision."""
    pytest.importorskip("sqlalchemy")
    pytest.importorskip("alembic")
    from services.store.db import upgrade

    url = f"sqlite:///{tmp_path_factory.mktemp('store') / 'pulvezar.db'}"
    upgrade(url)
    return url


def records(database: str) -> Any:
    from services.store.jobs import JobRecords

    return JobRecords(database)


def job_store(redis_server: str, database: str) -> BookKind:
    settings = RolloutSettings(redis_url=redis_server, chunk_size=CHUNK)
    return BookKind(
        redis.Redis.from_url(redis_server, decode_responses=True),
        app=make_app(settings),
        settings=settings,
        records=records(database),
    )


def forget(store: BookKind, book_id: str) -> int:
    """Redis loses the book job (as restarted empty): its keys and its place in the fair scheduler; how
    many keys there were."""
    keys = list(store.redis.scan_iter(store.key(book_id, "*")))
    store.scheduler.forget(book_id)
    return int(store.redis.delete(*keys)) if keys else 0


@pytest.fixture(scope="module")
def env(redis_server: str, database: str) -> dict[str, str]:
    return {
        "PULVEZAR_DATABASE_URL": database,
        "PULVEZAR_ROLLOUT_REDIS_URL": redis_server,
        "PULVEZAR_ROLLOUT_CHUNK_SIZE": str(CHUNK),
        "PULVEZAR_ROLLOUT_TORCH_THREADS": "1",
        "PULVEZAR_ROLLOUT_DEVICE": "cpu",
        "PULVEZAR_GATEWAY_REDIS_URL": redis_server,
        "PULVEZAR_GATEWAY_API_KEYS": json.dumps(KEYS),
        "OMP_NUM_THREADS": "1",
    }


@pytest.fixture(scope="module")
def worker(env: dict[str, str]) -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen(
        # one worker for the book's chunks (and the platform's background tasks)
        [
            *(sys.executable, "-m", "services.rollout.worker", "--metrics-port", "-1", "--pool", "solo"),
            *("--queues", "rollouts.interactive,rollouts.batch,rollouts.background"),
        ],
        cwd=ROOT,
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    yield proc
    proc.terminate()
    try:
        proc.wait(20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="module")
def gateway(
    env: dict[str, str],
    gateway_process: type[GatewayProcess],
    rules_service: ServiceProcess,
    start: Any,
) -> Iterator[str]:
    evaluator = start("services.evaluator", "--device", "cpu", env={"PULVEZAR_EVALUATOR_MAX_WAIT_MS": "1"})
    # the gateway knows Redis only as its own setting (as in compose): tasks it queues must go there
    gw_env = {k: v for k, v in env.items() if k != "PULVEZAR_ROLLOUT_REDIS_URL"}
    gw = gateway_process(gw_env, rules=rules_service.address, evaluator=evaluator.address)
    try:
        yield gw.base
    finally:
        evaluator.signal_stop()  # both at once
        gw.stop()
        evaluator.terminate()


@pytest.fixture(scope="module")
def http(gateway: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=gateway, headers={"X-API-Key": KEY}, timeout=60) as c:
        yield c


@pytest.fixture(scope="module")
def local_tiny_soon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Future[Book]]:
    """The tiny book made in this process (torch with the workers' one thread), in a thread of its own
    from now on: the first test that asks for it waits for it before it ends (so that nothing else runs
    torch beside it), and makes the platform's meanwhile."""

    def make() -> Book:
        import torch

        before = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            return generate_book(tiny_settings(), tmp_path_factory.mktemp("local"))
        finally:
            torch.set_num_threads(before)

    with ThreadPoolExecutor(1) as pool:
        yield pool.submit(make)


@pytest.fixture(scope="module")
def local_tiny(local_tiny_soon: Future[Book]) -> Book:
    return local_tiny_soon.result()


def test_the_shipped_books_are_served(http: httpx.Client, gateway: str) -> None:
    import jsonschema

    for variant in ("international", "tavla"):
        r = http.get("/v1/opening-book", params={"rules": variant})
        assert r.status_code == 200, r.text
        jsonschema.validate(r.json(), BOOK_SCHEMA)
        served, stored = r.json(), json.loads(book_path(variant).read_text())
        # the file as it is, and the net that made it (the book's own engine, not the default net's)
        provenance = served.pop("provenance")
        assert served == stored
        assert provenance["model"] == stored["engine"]["model"].removesuffix(".pt")
        assert provenance["model_sha256"] == stored["engine"]["model_sha256"]
    whole = http.get("/v1/opening-book").json()  # international by default
    assert whole["rules"]["variant"] == "international" and len(whole["rolls"]) == 15
    one = http.get("/v1/opening-book", params={"roll": "13"}).json()
    assert one["roll"] == next(r for r in whole["rolls"] if r["roll"] == "31")
    assert one["engine"] == whole["engine"] and one["settings"] == whole["settings"]
    assert (
        http.get("/v1/opening-book", params={"rules": "tavla", "roll": "66"}).json()["roll"]["roll"] == "66"
    )
    assert fields(http.get("/v1/opening-book", params={"roll": "33"})) == ["roll"]
    assert fields(http.get("/v1/opening-book", params={"roll": "71"})) == ["roll"]
    assert fields(http.get("/v1/opening-book", params={"rules": "plakoto"})) == ["rules"]
    assert httpx.get(f"{gateway}/v1/opening-book").status_code == 401


def test_a_generation_job_runs_on_the_workers_and_equals_the_local_book(
    http: httpx.Client, worker: subprocess.Popen[bytes], local_tiny_soon: Future[Book]
) -> None:
    try:
        r = http.post("/v1/opening-book/jobs", json=TINY)
        assert r.status_code == 202, r.text
        href = r.headers["Location"]
        first = r.json()
        assert first["state"] in ("searching", "rolling out", "replying", "done")
        assert 0 <= first["progress"] <= 1
        seen = []
        end = time.monotonic() + 240
        while True:
            st = http.get(href).json()
            seen.append((st["state"], st["progress"]))
            if st["state"] in ("done", "failed"):
                break
            assert time.monotonic() < end, f"not done in time: {seen[-5:]}"
            time.sleep(0.3)
    finally:
        wait([local_tiny_soon])  # the local book, made meanwhile
    local_tiny = local_tiny_soon.result()
    assert st["state"] == "done", st.get("error")
    assert st["rollout_job"] is None and st["trials_done"] == st["trials_total"] > 0 and st["progress"] == 1
    assert [state for state, _ in seen][-1] == "done" and not st["driver"]
    progress = [p for _, p in seen]
    assert progress == sorted(progress)  # progress never goes back
    same_book(st["book"], local_tiny.to_json())
    assert st["book"]["settings"]["chunk_size"] == CHUNK
    # the same settings find the same job, done
    again = http.post("/v1/opening-book/jobs", json=TINY)
    assert again.status_code == 202 and again.json()["id"] == st["id"] and again.json()["state"] == "done"


def test_bad_book_jobs_are_problems_naming_the_field(http: httpx.Client) -> None:
    post = http.post
    assert fields(post("/v1/opening-book/jobs", json={**TINY, "rolls": ["33"]})) == ["rolls[0]"]
    assert fields(post("/v1/opening-book/jobs", json={**TINY, "rolls": ["3x"]})) == ["rolls[0]"]
    assert fields(post("/v1/opening-book/jobs", json={**TINY, "trials": 0})) == ["trials"]
    assert fields(post("/v1/opening-book/jobs", json={**TINY, "ply": 4})) == ["ply"]
    assert fields(post("/v1/opening-book/jobs", json={"rules": "plakoto"})) == ["rules"]
    assert fields(post("/v1/opening-book/jobs", json={**TINY, "colour": "red"})) == ["colour"]
    assert fields(http.get("/v1/opening-book/jobs/book-0123456789"), 404) == ["job_id"]


def wait_done(http: httpx.Client, href: str, timeout: float = 240) -> dict[str, Any]:
    end = time.monotonic() + timeout
    while True:
        st: dict[str, Any] = http.get(href).json()
        if st["state"] in ("done", "failed"):
            return st
        assert time.monotonic() < end, f"not done in time: {st}"
        time.sleep(0.3)


def test_a_book_job_is_in_the_durable_store_and_served_from_it_when_redis_lost_it(
    http: httpx.Client, gateway: str, worker: subprocess.Popen[bytes], database: str, redis_server: str,
    local_tiny: Book,
) -> None:  # fmt: skip
    from services.gateway.security import owner_of

    r = http.post("/v1/opening-book/jobs", json=TINY)
    assert r.status_code == 202, r.text
    book_id, href = r.json()["id"], r.headers["Location"]
    st = wait_done(http, href)
    assert st["state"] == "done", st.get("error")
    # the system of record: the job (owned by its first submitter) and every chunk of its three stages; the
    # worker records the end there just after the last chunk's record in Redis (which made the job done)
    db = records(database)

    def ended() -> Any:
        row = db.get(book_id)
        return row if row is not None and row.state == "done" else None

    row = wait_until(ended, 30, "the job's end in the durable store")
    assert row is not None and (row.kind, row.state, row.owner) == ("book", "done", owner_of(KEY))
    assert row.finished_at is not None and row.spec["settings"] == st["settings"]
    stages = [c[0] for c in row.chunk_list]
    assert stages[:2] == ["search", "search"] and stages[-2:] == ["replies", "replies"]
    assert set(stages[2:-2]) == {"rollout"} and sorted(db.chunks(book_id)) == list(range(len(stages)))
    # Redis loses the job: the book is served from the database
    store = job_store(redis_server, database)
    assert forget(store, book_id) >= len(stages)
    again = http.get(href)
    assert again.status_code == 200, again.text
    after = again.json()
    assert after["state"] == "done" and after["book"] == st["book"] and after["progress"] == 1
    same_book(after["book"], local_tiny.to_json())
    # the submitter's job list shows it
    listed = http.get("/v1/jobs").json()["jobs"]
    mine = [j for j in listed if j["id"] == book_id]
    assert mine and mine[0]["kind"] == "book" and mine[0]["state"] == "done"
    assert mine[0]["href"] == href and http.get(mine[0]["href"]).json()["book"] == st["book"]
    # another key gets 404 (issue 40: every job has an owner); its own submission of the same settings
    # would be a job of its own (the id digests the owner too)
    with httpx.Client(base_url=gateway, headers={"X-API-Key": OTHER}, timeout=60) as other:
        assert other.get(href).status_code == 404
        assert book_id not in [j["id"] for j in other.get("/v1/jobs").json()["jobs"]]
    assert db.get(book_id).owner == owner_of(KEY)  # type: ignore[union-attr]


def test_a_book_job_whose_redis_keys_are_lost_midway_continues_from_the_database(
    redis_server: str, worker: subprocess.Popen[bytes], database: str, tmp_path: Path
) -> None:
    import torch

    store = job_store(redis_server, database)
    db = store.records
    body = {**TINY, "seed": 9}
    book_id = store.submit(body, owner="o1")
    row = db.get(book_id)
    assert row is not None and (row.kind, row.owner) == ("book", "o1")
    end = time.monotonic() + 240
    while store.book_status(book_id)["state"] == "searching":  # the searches are in: Redis loses it
        assert time.monotonic() < end
        time.sleep(0.1)
    forget(store, book_id)
    store.rehydrate(book_id)  # as the reconciler does
    while (st := store.book_status(book_id))["state"] not in ("done", "failed"):
        assert time.monotonic() < end, st
        time.sleep(0.3)
    assert st["state"] == "done", st["error"]
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        local = generate_book(tiny_settings(seed=9), tmp_path)
    finally:
        torch.set_num_threads(before)
    same_book(st["book"], local.to_json())
    store.sync(book_id)
    assert db.get(book_id).state == "done"  # type: ignore[union-attr]
    # lost after completion: the same book, from the database; submitting again finds it done
    forget(store, book_id)
    assert store.book_status(book_id)["book"] == st["book"]
    assert store.submit(body, owner="o1") == book_id and store.book_status(book_id)["state"] == "done"
    assert store.submit(body, owner="o2") != book_id  # another owner's job
