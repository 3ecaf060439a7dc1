"""The opening-book driver as a Celery task: the N-ply searches run on the workers, not in the gateway.

``pulvezar.book.drive(book_id)`` advances a book job (:class:`services.jobs.book.BookJobs`): the
searches of the candidates, the submission of the rollouts (one batch rollout job), the valuing of the
finished rollouts, the replies and the assembly.  While the rollouts run it does not wait in the worker
(with one worker that would starve the rollout chunks): it queues itself again after
:data:`POLL_S` and returns.  The driver lease of :class:`BookJobs` keeps two drivers of one job from
working at once; a ``book:{id}:scheduled`` marker keeps the gateway from queueing a driver that is
already queued.  ``acks_late`` with reject on worker loss: a driver lost with its worker runs again.

With ``PULVEZAR_DATABASE_URL`` the worker's :class:`BookJobs` records every finished step in the durable
store and restores a job that Redis lost from there; a database that cannot be reached puts the
driver off by :data:`POLL_S`.  :func:`recover` queues a driver for every unfinished book job of the
durable store that has none (a Redis restarted empty lost the queued driver with the job's keys).
"""

from __future__ import annotations

import threading
from typing import Any

from services.common.redis_url import connect as connect_redis
from services.jobs.book import TERMINAL, BookJobs, schedule, scheduled_key
from services.jobs.broker import BOOK_TASK
from services.jobs.kinds.rollout import Rollouts
from services.jobs.settings import RolloutSettings
from services.rollout.celery_app import app
from services.store.db import StoreUnavailable

POLL_S = 5.0

_jobs: BookJobs | None = None


def book_jobs() -> BookJobs:
    """This worker process's :class:`BookJobs` on the rollout job store (its evaluator: the default net),
    with the durable store when ``PULVEZAR_DATABASE_URL`` is set."""
    global _jobs
    if _jobs is None:
        from services.store.jobs import JobRecords
        from services.store.settings import StoreSettings

        settings = RolloutSettings()
        client = connect_redis(settings.redis_url, decode_responses=True)
        url = StoreSettings().url
        records = JobRecords(url) if url else None
        _jobs = BookJobs(Rollouts(client, app=app, settings=settings, records=records))
    return _jobs


@app.task(name=BOOK_TASK, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def drive(book_id: str) -> str:
    """Advance the book job until it is done or failed, or its rollouts are running (then poll later)."""
    jobs = book_jobs()
    waiting = threading.Event()

    def progress(status: dict[str, Any]) -> None:
        if status["state"] == "rolling out":
            waiting.set()  # leave the worker to the rollout chunks; come back after POLL_S

    try:
        state = jobs.run(book_id, poll_s=0.0, progress=progress, stop=waiting)
    except StoreUnavailable:  # Redis lost the job and the database is down: try again later
        state = "waiting for the durable store"
    except LookupError:
        return "gone"
    finally:  # only now: until the driver's lease is taken, the mark keeps others from queueing one more
        jobs.redis.delete(scheduled_key(book_id))
    if state not in TERMINAL:
        schedule(jobs, book_id, countdown=POLL_S)
    return state


def recover(jobs: BookJobs, limit: int = 1000) -> int:
    """Queue a driver for each unfinished book job of the durable store that has no driver working or
    queued (e.g. after Redis restarted empty); how many were queued.  Meant for the reconciler."""
    records = jobs.records
    if records is None:
        return 0
    queued = 0
    for row in records.unfinished(kinds=("book",), limit=limit):
        if jobs.redis.exists(f"book:{row.id}:driver"):
            continue
        queued += schedule(jobs, row.id)
    return queued
