"""A job kind in stages (:meth:`services.jobs.kind.JobKind.next_chunks`): once its last chunk is recorded the
next stage, planned from the records, is appended once (two workers finishing at once append it once), the
durable chunk list with it; the job is running, not done, between the two; a worker that died between the
record and the append is made good by ``resume``.  A real Redis and a real durable store (SQLite); the
worker's steps are done here, as the chunk task does them (:mod:`services.rollout.kind_tasks`)."""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, ClassVar

import pytest
from pydantic import BaseModel

redis = pytest.importorskip("redis")
pytest.importorskip("celery")
pytest.importorskip("sqlalchemy")

from services.jobs.kind import JobKind, JobRequest  # noqa: E402
from services.jobs.settings import RolloutSettings  # noqa: E402
from services.jobs.states import JobState  # noqa: E402


class Numbers(JobRequest):
    count: int


class Sum(BaseModel):
    total: int | None


class Staged(JobKind):
    """Stage one: a chunk per number; stage two: one chunk of their sum (not registered)."""

    name = "staged-test"
    route = "staged-test"
    summary = "a test kind in two stages"
    Request: ClassVar[type[JobRequest]] = Numbers
    Report: ClassVar[type[BaseModel]] = Sum

    def plan(self, request: Any) -> tuple[dict[str, Any], list[Any]]:
        return {}, [["number", i] for i in range(request.count)]

    @classmethod
    def compute(cls, spec: Mapping[str, Any], chunk: Any, evaluator: Any) -> dict[str, Any]:
        return {"value": chunk[1] if chunk[0] == "number" else chunk[1] * 10}

    def next_chunks(self, spec: Mapping[str, Any], records: Sequence[Mapping[str, Any]]) -> list[Any]:
        if any(c[0] == "sum" for c in spec["chunks"]):
            return []
        return [["sum", sum(r["value"] for r in records)]]

    @classmethod
    def report(cls, spec: Mapping[str, Any], records: Sequence[Mapping[str, Any] | None]) -> dict[str, Any]:
        last = records[-1] if spec["chunks"][-1][0] == "sum" else None
        return {"total": last["value"] if last is not None else None}

    @classmethod
    def chunk_cost(cls, spec: Mapping[str, Any], chunk: Any) -> float:
        return 0.01


@pytest.fixture
def store(redis_server: str, tmp_path: Any) -> Iterator[Staged]:
    from services.rollout.celery_app import make_app
    from services.store.db import upgrade
    from services.store.jobs import JobRecords

    url = f"sqlite:///{tmp_path / 'store.db'}"
    upgrade(url)
    settings = RolloutSettings(redis_url=redis_server)
    client = redis.Redis.from_url(redis_server, decode_responses=True)
    yield Staged(client, app=make_app(settings), settings=settings, records=JobRecords(url))
    client.flushdb()


def run(store: Staged, job_id: str, n: int, next_stage: bool = True) -> int:
    """What the chunk task does with chunk ``n``: compute, record once, store durably, then the next stage."""
    spec = store.spec(job_id)
    now = time.time()
    record = {**store.compute(spec, spec["chunks"][n], None), "started": now, "finished": now, "seconds": 0.0}
    assert store.write_record(store.redis, job_id, n, record, 600)
    store.records.add_chunks(job_id, {n: record})
    return store.next_stage(job_id) if next_stage else 0


def test_the_next_stage_is_appended_once_after_the_last_chunk(store: Staged) -> None:
    job = store.submit({"count": 3})
    assert run(store, job, 0) == 0 and run(store, job, 1) == 0  # not the last: nothing yet
    assert run(store, job, 2, next_stage=False) == 0
    # every chunk is in, the next stage is not yet appended: running, not done
    assert store.state(job)[0] == JobState.RUNNING and store.result(job) is None
    assert store.next_stage(job) == 1
    assert store.next_stage(job) == 0  # a second worker finishing at the same time appends nothing
    assert store.spec(job)["chunks"][-1] == ["sum", 3]
    assert store.records.get(job).chunk_list[-1] == ["sum", 3]  # the durable list too
    assert store.status(job)["chunks_total"] == 4 and store.state(job)[0] == JobState.RUNNING
    assert run(store, job, 3) == 0  # the last stage has none after it
    status = store.status(job)
    assert status["state"] == JobState.DONE and status["report"] == {"total": 30}
    assert store.sync(job) == JobState.DONE and store.records.get(job).state == JobState.DONE


def test_a_worker_lost_between_the_record_and_the_append_is_made_good_by_resume(store: Staged) -> None:
    job = store.submit({"count": 2})
    run(store, job, 0)
    run(store, job, 1, next_stage=False)  # the worker died here
    assert store.resume(job) == 1 and store.spec(job)["chunks"][-1] == ["sum", 1]
    assert store.resume(job) == 1  # the sum chunk is unfinished: scheduled again, no second stage
    assert len(store.spec(job)["chunks"]) == 3


def test_a_failed_or_cancelled_job_gets_no_next_stage(store: Staged) -> None:
    job = store.submit({"count": 1})
    assert store.cancel(job)
    assert run(store, job, 0) == 0 and len(store.spec(job)["chunks"]) == 1
    failed = store.submit({"count": 2})
    run(store, failed, 0)
    store.write_record(store.redis, failed, 1, store.failure(1, RuntimeError("x")), 600)
    assert store.next_stage(failed) == 0 and store.state(failed)[0] == JobState.FAILED
