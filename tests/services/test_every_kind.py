"""Every registered job kind (:func:`services.jobs.kinds.kinds`), the same steps for each, no per-kind code:
its own small request (``example()``) is submitted and runs to its end with progress, its chunks' records
are the same bits as the kind's computation of the same chunks here with the library's evaluator, its
owner sees it through the gateway and another key does not, a job that Redis lost is rehydrated from the
durable store and ends with the same bits, and a cancelled job stays cancelled.

Through the session's shared platform (``shared_platform.py``: Redis, the durable store, two Celery
workers, the gateway); a kind added to ``services/jobs/kinds`` is tested here without an edit.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from services.gateway.security import owner_of
from services.jobs.kind import JobKind
from services.jobs.kinds import kinds
from services.jobs.states import ENDED, JobState

KEY, OTHER = "kinds-key", "owners-a"  # the shared platform's keys: this module's, and another's
#: what the runner adds to a chunk's record (when, where, by which net): not the kind's numbers
RUNNER_FIELDS = ("engine", "seconds", "started", "finished", "worker")


@pytest.fixture(scope="module")
def local(shared_platform: Any) -> Iterator[Any]:
    """The library's evaluator of the workers' net, with the workers' torch thread count."""
    import torch

    from pulvezar.eval.evaluator import NetEvaluator

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield NetEvaluator.load(shared_platform.model, device="cpu")
    finally:
        torch.set_num_threads(before)


def store_of(platform: Any, kind: type[JobKind]) -> JobKind:
    """The kind's store on the platform's Redis, broker and durable store (as the gateway has it)."""
    base = platform.durable_store()
    return kind(base.redis, app=base.app, settings=base.settings, records=base.records)


def wait_end(store: JobKind, job_id: str, timeout: float = 120) -> tuple[dict[str, Any], list[float]]:
    """The job's status once it ended, and the progress seen on the way."""
    seen: list[float] = []
    deadline = time.monotonic() + timeout
    while True:
        status = store.status(job_id)
        seen.append(float(status["progress"]))
        if status["state"] in ENDED:
            return status, seen
        assert time.monotonic() < deadline, f"{job_id} did not end within {timeout} s: {status['state']}"
        time.sleep(0.1)


def numbers(store: JobKind, job_id: str) -> list[Any]:
    """The job's chunk records without the runner's fields, as JSON values."""
    _spec, records = store.gather(job_id)
    assert all(r is not None for r in records)
    return [{k: v for k, v in r.items() if k not in RUNNER_FIELDS} for r in records if r is not None]


def here(store: JobKind, job_id: str, evaluator: Any) -> list[Any]:
    """The kind's computation of the job's chunks in this process (what the workers run:
    :meth:`~services.jobs.kind.JobKind.run_chunk`), as JSON values."""
    spec = store.spec(job_id)
    return [json.loads(json.dumps(store.run_chunk(spec, chunk, evaluator))) for chunk in spec["chunks"]]


def lose(store: JobKind, job_id: str) -> None:
    """Redis loses the job: its keys and its place in the fair scheduler (the durable store keeps it)."""
    spec = store.spec(job_id)
    keys = [store.key(job_id, part) for part in ("spec", "cancel", "started", "error")]
    keys += [store.chunk_key(job_id, n) for n in range(store.chunk_count(job_id, spec))]
    store.redis.delete(*keys, *store.job_keys(job_id, spec))
    store.scheduler.forget(job_id)


@pytest.mark.parametrize("name", sorted(kinds()))
def test_every_kind_runs_resumes_cancels_and_keeps_to_its_owner(
    name: str, shared_platform: Any, local: Any
) -> None:
    kind = kinds()[name]
    shared_platform.ready(2)
    store = store_of(shared_platform, kind)
    owner = owner_of(KEY)

    # submit; progress to the end; the same bits as here
    job = store.submit(kind.example(), owner=owner)
    assert store.status(job)["state"] in (JobState.QUEUED, JobState.RUNNING)
    status, seen = wait_end(store, job)
    assert status["state"] == JobState.DONE, status.get("error")
    assert seen == sorted(seen) and seen[-1] == 1.0
    assert store.result(job) is not None
    expected = here(store, job, local)
    assert numbers(store, job) == expected

    # the owner sees it through the gateway, another key does not
    href = f"/v1/{kind.route}/{job}"
    with httpx.Client(base_url=shared_platform.base, timeout=30) as c:
        mine = c.get(href, headers={"X-API-Key": KEY})
        assert mine.status_code == 200 and mine.json()["state"] == "done", mine.text
        assert c.get(href, headers={"X-API-Key": OTHER}).status_code == 404

    # Redis loses a job at once: it comes back from the durable store, ends, the same bits (the jobs below
    # are other owners', so that a kind whose id digests the request and its owner, books, makes new ones)
    again = store.submit(kind.example(), owner=owner_of(f"{KEY}-again"))
    lose(store, again)
    store.rehydrate(again)
    status, _seen = wait_end(store, again)
    assert status["state"] == JobState.DONE, status.get("error")
    assert numbers(store, again) == expected

    # a cancelled job stays cancelled, in Redis and in the durable store
    stopped = store.submit(kind.example(), owner=owner_of(f"{KEY}-stopped"))
    assert store.cancel(stopped)
    shared_platform.ready(2)  # its queued chunks are skipped, a running one stops
    assert store.status(stopped)["state"] == JobState.CANCELLED
    assert store.records.get(stopped).state == JobState.CANCELLED
    assert store.result(stopped) is None
    assert store.delete(stopped) and store.delete(job) and store.delete(again)
