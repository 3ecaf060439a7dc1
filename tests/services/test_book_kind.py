"""The opening book as a job kind (:mod:`services.jobs.kinds.book`), its chunks run here as the chunk task
runs them (compute, record once, the durable copy, the next stage): the book is the library's
(:func:`pulvezar.book.generate_book`) at tiny settings, bit for bit but the date; the stages follow one
another (searching, rolling out, replying, done); an older driver's row (step blobs) stays readable,
finished or not.  A real Redis and a real durable store (SQLite)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

redis = pytest.importorskip("redis")
pytest.importorskip("celery")
pytest.importorskip("sqlalchemy")

from pulvezar.book import BookSettings, generate_book  # noqa: E402
from services.jobs.errors import InvalidJob  # noqa: E402
from services.jobs.kinds.book import BookKind  # noqa: E402
from services.jobs.settings import RolloutSettings  # noqa: E402

CHUNK = 36
TINY = {
    "rolls": ["43", "31"],
    "trials": 72,
    "ply": 1,
    "candidates": 3,
    "threshold": 0.2,
    "truncate": 4,
    "reply_ply": 0,
}
#: :data:`TINY` as the library's settings (what the kind's job makes of it)
TINY_SETTINGS = BookSettings(
    variant="international",
    rolls=((4, 3), (3, 1)),
    ply=1,
    candidates=3,
    threshold=0.2,
    trials=72,
    truncate=4,
    reply_ply=0,
    chunk_size=CHUNK,
)


@pytest.fixture(scope="module")
def evaluator() -> Any:
    import torch

    from pulvezar.eval.evaluator import default_evaluator

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield default_evaluator()
    finally:
        torch.set_num_threads(before)


@pytest.fixture
def store(redis_server: str, tmp_path: Path) -> Iterator[BookKind]:
    from services.rollout.celery_app import make_app
    from services.store.db import upgrade
    from services.store.jobs import JobRecords

    url = f"sqlite:///{tmp_path / 'store.db'}"
    upgrade(url)
    settings = RolloutSettings(redis_url=redis_server, chunk_size=CHUNK)
    client = redis.Redis.from_url(redis_server, decode_responses=True)
    yield BookKind(client, app=make_app(settings), settings=settings, records=JobRecords(url))
    client.flushdb()


def run_all(store: BookKind, job: str, evaluator: Any) -> list[str]:
    """Every chunk of the job, stage after stage, as the workers run them; the states seen."""
    seen = [store.book_status(job)["state"]]
    while True:
        spec = store.spec(job)
        todo = [n for n in range(len(spec["chunks"])) if n not in store.records_of(job, [n])]
        if not todo:
            return seen
        for n in todo:
            now = time.time()
            record = {**store.run_chunk(spec, spec["chunks"][n], evaluator), "started": now, "finished": now}
            record["seconds"] = 0.0
            assert store.write_record(store.redis, job, n, json.loads(json.dumps(record)), 600)
            store.records.add_chunks(job, {n: record})
            store.next_stage(job)
            state = store.book_status(job)["state"]
            if state != seen[-1]:
                seen.append(state)


def same_book(a: dict[str, Any], b: dict[str, Any]) -> None:
    """Equal books (as JSON) but the date of generation; the library's also repeats the best play's
    replies in its candidate (``replies``), which the platform's book never did (it is the roll's)."""
    a, b = json.loads(json.dumps(a)), json.loads(json.dumps(b))
    assert a.pop("generated") and b.pop("generated")
    for roll in b["rolls"]:
        assert roll["candidates"][0].pop("replies") == roll["replies"]
    assert a == b


def test_the_kind_s_book_is_the_library_s(store: BookKind, evaluator: Any, tmp_path: Path) -> None:
    job = store.submit(TINY)
    assert store.submit(TINY) == job  # the same settings: the same job
    assert run_all(store, job, evaluator) == ["searching", "rolling out", "replying", "done"]
    status = store.book_status(job)
    assert status["progress"] == 1.0 and status["trials_done"] == status["trials_total"] == 2 * 72
    assert status["rolls_searched"] == status["rolls_replied"] == status["rolls_total"] == 2
    settings = TINY_SETTINGS
    local = generate_book(settings, tmp_path / "work", evaluator=evaluator)
    same_book(status["book"], local.to_json())
    assert store.status(job)["report"]["book"] == status["book"]


def test_bad_settings_name_the_field(store: BookKind) -> None:
    for body, field in (
        ({"rolls": ["4x"]}, "rolls[0]"),
        ({"rolls": ["11"]}, "rolls"),
        ({"trials": 5}, "trials"),
    ):
        with pytest.raises(InvalidJob) as e:
            store.submit(body)
        assert e.value.field == field


def older_row(store: BookKind, job: str, state: str, blobs: dict[str, Any]) -> None:
    """A book job as the older driver stored it: its spec (no chunks) and step blobs."""
    settings = TINY_SETTINGS
    spec = {
        "id": job,
        "owner": None,
        "rules": settings.rules_json(),
        "settings": settings.to_json(),
        "engine": store.engine(),
        "priority": "batch",
        "created": "2026-11-30T10:00:00Z",
    }
    store.records.create(job, "book", spec, owner=None, priority="batch")
    for name, value in blobs.items():
        store.records.put_blob(job, name, (value if isinstance(value, str) else json.dumps(value)).encode())
    store.records.set_state(job, state)


def test_an_older_driver_s_rows_stay_readable(store: BookKind, evaluator: Any) -> None:
    older_row(store, "book-old-done", "done", {"book": {"rolls": [], "x": 1}, "rollout": "abc"})
    st = store.book_status("book-old-done")
    assert st["state"] == "done" and st["book"] == {"rolls": [], "x": 1} and st["rollout_job"] == "abc"
    # an unfinished one continues as a kind job from its searches, to the library's book
    settings = BookSettings.from_json(
        store.records.get("book-old-done").spec["rules"], store.records.get("book-old-done").spec["settings"]
    )
    from pulvezar.book.generate import search_candidates

    search = search_candidates(settings, (4, 3), evaluator)
    older_row(store, "book-old-half", "running", {"search:43": search})
    assert store.rehydrate("book-old-half") == 1  # the other roll's search
    assert store.book_status("book-old-half")["rolls_searched"] == 1
    assert run_all(store, "book-old-half", evaluator)[-1] == "done"
    book = store.book_status("book-old-half")["book"]
    assert book["generated"] == "2026-11-30T10:00:00Z" and [r["roll"] for r in book["rolls"]] == ["31", "43"]


def test_a_failed_chunk_fails_the_book_and_the_same_settings_run_it_again(
    store: BookKind, evaluator: Any
) -> None:
    job = store.submit(TINY)
    spec = store.spec(job)
    failure = store.failure(0, RuntimeError("no net here"))
    store.redis.set(store.error_key(job), failure["error"])  # what the worker does (fail_fast)
    store.write_record(store.redis, job, 0, failure, 600)
    st = store.book_status(job)
    assert st["state"] == "failed" and "no net here" in st["error"] and "book" not in st
    assert store.next_stage(job) == 0  # no stage after a failure
    assert store.submit(TINY) == job  # runs again: the failed chunk is forgotten
    assert store.book_status(job)["state"] == "searching" and store.records_of(job, [0]) == {}
    assert run_all(store, job, evaluator)[-1] == "done" and len(store.spec(job)["chunks"]) > len(
        spec["chunks"]
    )


def test_an_older_driver_s_failed_job_runs_again_when_its_settings_come_again(
    store: BookKind, evaluator: Any
) -> None:
    older_row(store, "book-old-failed", "running", {})
    store.records.set_state("book-old-failed", "failed", "RuntimeError: no net here")
    st = store.book_status("book-old-failed")
    assert st["state"] == "failed" and "no net here" in st["error"]
    store.new_id = lambda request, owner: "book-old-failed"  # type: ignore[method-assign]  # its digest
    assert store.submit(TINY) == "book-old-failed"
    assert store.book_status("book-old-failed")["state"] == "searching"
    assert store.scheduler.knows("book-old-failed") and len(store.spec("book-old-failed")["chunks"]) == 2
