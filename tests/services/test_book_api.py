"""The opening book over HTTP and on the rollout workers: the real gateway, a real Redis (fresh, on a
free port) and a real Celery worker (subprocesses), compared with the in-process generator."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest

pytest.importorskip("celery")
redis = pytest.importorskip("redis")

from pulvezar.book import BOOK_SCHEMA, Book, BookSettings, book_path, generate_book  # noqa: E402
from services.rollout.book_jobs import BookJobs  # noqa: E402
from services.rollout.celery_app import make_app  # noqa: E402
from services.rollout.jobs import JobStore  # noqa: E402
from services.rollout.settings import RolloutSettings  # noqa: E402

if TYPE_CHECKING:
    from conftest import ServiceProcess

ROOT = Path(__file__).resolve().parents[2]
KEY = "book-key"
KEYS = {KEY: {"name": "book tests", "rate_per_s": 1000, "burst": 1000}}
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
    return BookSettings(
        variant="international",
        rolls=((4, 3), (3, 1)),
        ply=1,
        candidates=3,
        threshold=0.2,
        trials=72,
        truncate=4,
        reply_ply=0,
        chunk_size=CHUNK,
        **change,
    )


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
def env(redis_server: str) -> dict[str, str]:
    return {
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
        # one worker for the book's rollout chunks and its driver (the background queue) alike
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
    env: dict[str, str], service_process: type[ServiceProcess], rules_service: ServiceProcess, start: Any
) -> Iterator[str]:
    evaluator = start("services.evaluator", "--device", "cpu", env={"PULVEZAR_EVALUATOR_MAX_WAIT_MS": "1"})
    # the gateway knows Redis only as its own setting (as in compose): tasks it queues must go there
    gw_env = {k: v for k, v in env.items() if k != "PULVEZAR_ROLLOUT_REDIS_URL"}
    gw = service_process(
        "services.gateway", "--rules", rules_service.address, "--evaluator", evaluator.address, env=gw_env
    )
    try:
        yield f"http://127.0.0.1:{gw.port}"
    finally:
        assert gw.terminate() == 0
        evaluator.terminate()
        assert not [e for e in gw.logs if e.get("level") == "error"], "errors logged"


@pytest.fixture(scope="module")
def http(gateway: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=gateway, headers={"X-API-Key": KEY}, timeout=60) as c:
        yield c


@pytest.fixture(scope="module")
def local_tiny(tmp_path_factory: pytest.TempPathFactory) -> Book:
    """The tiny book made in this process (torch with the workers' one thread)."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return generate_book(tiny_settings(), tmp_path_factory.mktemp("local"))
    finally:
        torch.set_num_threads(before)


def test_the_shipped_books_are_served(http: httpx.Client, gateway: str) -> None:
    import jsonschema

    for variant in ("international", "tavla"):
        r = http.get("/v1/opening-book", params={"rules": variant})
        assert r.status_code == 200, r.text
        jsonschema.validate(r.json(), BOOK_SCHEMA)
        assert r.json() == json.loads(book_path(variant).read_text())
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
    http: httpx.Client, worker: subprocess.Popen[bytes], local_tiny: Book
) -> None:
    r = http.post("/v1/opening-book/jobs", json=TINY)
    assert r.status_code == 202, r.text
    href = r.headers["Location"]
    first = r.json()
    assert first["state"] in ("searching", "rolling out", "replying", "done") and 0 <= first["progress"] <= 1
    seen = []
    end = time.monotonic() + 240
    while True:
        st = http.get(href).json()
        seen.append((st["state"], st["progress"]))
        if st["state"] in ("done", "failed"):
            break
        assert time.monotonic() < end, f"not done in time: {seen[-5:]}"
        time.sleep(0.3)
    assert st["state"] == "done", st.get("error")
    assert st["rollout_job"] and st["trials_done"] == st["trials_total"] > 0 and st["progress"] == 1
    progress = [p for _, p in seen]
    assert progress == sorted(progress)  # progress never goes back
    same_book(st["book"], local_tiny.to_json())
    assert st["book"]["settings"]["chunk_size"] == CHUNK
    # the same settings find the same job, done
    again = http.post("/v1/opening-book/jobs", json=TINY)
    assert again.status_code == 202 and again.json()["id"] == st["id"] and again.json()["state"] == "done"
    # the rollouts are an ordinary batch job of the job store
    job = http.get(f"/v1/batch-rollouts/{st['rollout_job']}").json()
    assert job["state"] == "done" and [x["label"] for x in job["results"]] == ["31", "43"]


def test_bad_book_jobs_are_problems_naming_the_field(http: httpx.Client) -> None:
    post = http.post
    assert fields(post("/v1/opening-book/jobs", json={**TINY, "rolls": ["33"]})) == ["rolls[0]"]
    assert fields(post("/v1/opening-book/jobs", json={**TINY, "rolls": ["3x"]})) == ["rolls[0]"]
    assert fields(post("/v1/opening-book/jobs", json={**TINY, "trials": 0})) == ["trials"]
    assert fields(post("/v1/opening-book/jobs", json={**TINY, "ply": 4})) == ["ply"]
    assert fields(post("/v1/opening-book/jobs", json={"rules": "plakoto"})) == ["rules"]
    assert fields(post("/v1/opening-book/jobs", json={**TINY, "colour": "red"})) == ["colour"]
    assert fields(http.get("/v1/opening-book/jobs/book-0123456789"), 404) == ["job_id"]


def test_an_interrupted_job_continues_from_redis(
    redis_server: str, worker: subprocess.Popen[bytes], tmp_path: Path
) -> None:
    import torch

    settings_store = RolloutSettings(redis_url=redis_server, chunk_size=CHUNK)
    store = JobStore(
        redis.Redis.from_url(redis_server, decode_responses=True),
        app=make_app(settings_store),
        settings=settings_store,
    )
    settings = tiny_settings(seed=5)
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        first = BookJobs(store)
        book_id = first.submit(settings)
        assert first.advance(book_id) == "searching"  # one roll searched, then the driver "dies"
        assert first.status(book_id)["rolls_searched"] == 1
        # a second driver is kept out while the first holds the lease
        store.redis.set(f"book:{book_id}:driver", "someone", ex=30)
        assert BookJobs(store).run(book_id) == "searching"
        store.redis.delete(f"book:{book_id}:driver")
        # a new driver (a new process: nothing in memory) continues and finishes
        later = BookJobs(store)
        assert later.submit(settings) == book_id
        assert later.run(book_id, poll_s=0.2) == "done"
        book = later.book(book_id)
        assert book is not None
        local = generate_book(settings, tmp_path)
    finally:
        torch.set_num_threads(before)
    same_book(book.to_json(), local.to_json())
    assert [r["roll"] for r in book.to_json()["rolls"]] == ["31", "43"]
