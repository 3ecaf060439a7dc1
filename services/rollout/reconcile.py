"""The reconciler: the durable store and Redis brought back into agreement, on the beat schedule.

For every unfinished chunked job of the durable store (rollouts, analyses, the kinds of
:mod:`services.jobs.kinds`; oldest first):

- Redis still has it: the chunks a worker finished but could not write to the database (it was down),
  and the job's end (done, failed, cancelled), are copied there (`ChunkedJobs.sync`);
- Redis has it but the fair scheduler does not (its keys were lost or expired apart from the job's):
  its unfinished chunks are scheduled again (:meth:`~services.jobs.chunked.ChunkedJobs.resume`);
- Redis lost it (restarted empty, or its keys expired): its spec, chunk list and finished chunks are
  written back from the database and its unfinished chunks queued again (`ChunkedJobs.rehydrate`);
  the fixed chunk grid makes the recomputed chunks the same bits.

Archive writes of analysed matches that failed (the database down at that moment) are retried.
Retention (:func:`services.store.retention.apply`, docs/store.md "Retention"; at most every
``PULVEZAR_DATABASE_RETENTION_INTERVAL_S``) removes what aged out of every table or is over an owner's cap;
an ended analysis job's uploaded files leave Redis once the durable store holds them
(:func:`drop_ended_files`); Redis's memory over ``MEMORY_WARN_RATIO`` of its ``maxmemory`` is logged.
Idempotent: two reconcilers at once only queue a chunk twice, and a chunk computed twice is written once.
"""

from __future__ import annotations

import logging
from typing import Any

from services.common.jsonlog import log
from services.common.redis_url import connect as connect_redis
from services.jobs.broker import RECONCILE_TASK
from services.jobs.chunked import ChunkedJobs
from services.jobs.kinds.rollout import Rollouts
from services.jobs.states import ENDED
from services.rollout.celery_app import app
from services.store.settings import StoreSettings

logger = logging.getLogger("pulvezar.services.rollout")


def reconcile(store: Rollouts, settings: StoreSettings | None = None) -> dict[str, int]:
    """One pass over the jobs of every kind of :mod:`services.jobs.kinds` (analyses, rollouts, batches,
    books and daily runs among them); ``store`` gives the Redis, broker and durable store; counts of what
    it did (``synced``, ``rehydrated``, ``requeued`` chunks, ``expired`` jobs and uploads, ``failed``)."""
    from services.jobs.kinds import kinds

    stores: dict[str, type[ChunkedJobs]] = dict(kinds())
    owners: dict[str, Any] = {
        name: cls(store.redis, app=store.app, settings=store.settings, records=store.records)
        for name, cls in stores.items()
    }
    s = settings or StoreSettings()
    counts = {"synced": 0, "rehydrated": 0, "requeued": 0, "expired": 0, "failed": 0}
    for row in store.records.unfinished(kinds=tuple(owners)):
        try:
            owner = owners[row.kind]
            if store.redis.exists(owner.spec_key(row.id)):
                if owner.sync(row.id) not in ENDED and not owner.scheduler.knows(row.id):
                    counts["requeued"] += owner.resume(row.id)  # Redis kept the job, not its schedule
                counts["synced"] += 1
            else:
                counts["requeued"] += owner.rehydrate(row.id)
                counts["rehydrated"] += 1
                log(logger, logging.INFO, "job restored from the durable store", job=row.id, kind=row.kind)
        except Exception as e:
            counts["failed"] += 1
            log(logger, logging.WARNING, "job not reconciled", job=row.id, error=repr(e))
    try:  # analysed matches whose archive write failed (the database was down then)
        counts["archived"], still = owners["analysis"].archive_again()
        counts["failed"] += still
    except Exception as e:
        counts["failed"] += 1
        log(logger, logging.WARNING, "archive writes not retried", error=repr(e))
    try:  # uploaded files of ended analyses: the durable store has them (job_blobs)
        counts["files_dropped"] = drop_ended_files(store.redis, store.records)
    except Exception as e:
        counts["failed"] += 1
        log(logger, logging.WARNING, "ended jobs' files not dropped", error=repr(e))
    counts["expired"] = 0
    if store.redis.set(RETENTION_LOCK, "1", nx=True, ex=max(1, int(s.retention_interval_s))):
        from services.store.retention import apply as retain

        gone = retain(store.records.url, s)
        counts["expired"] = gone["jobs"] + gone["uploads"]
        counts.update({f"expired_{name}": n for name, n in gone.items()})
    watch_memory(store.redis)
    return counts


#: held for ``retention_interval_s`` by the pass that applies retention (its group-by scans are not for
#: every 15 s, nor for two reconcilers at once)
RETENTION_LOCK = "pulvezar:retention:lock"
#: where the reconciler left off in the ended analysis jobs (their ``finished_at``)
FILES_WATERMARK = "pulvezar:retention:files-since"
#: finished_at of jobs by several workers' clocks: look this far behind the watermark
CLOCK_SLACK_S = 60.0
#: Redis's memory above this share of its maxmemory is logged at each pass (the alert is on the gauge)
MEMORY_WARN_RATIO = 0.8


def drop_ended_files(redis: Any, records: Any, limit: int = 500) -> int:
    """Remove from Redis the uploaded files (``analysis:{id}:file:{m}``) of analysis jobs that ended
    since the last pass, each only when the durable store holds it (``file:{m}`` blob): the job's
    results read it from there, and a resume puts it back.  How many files."""
    from services.jobs.kinds.analysis import Analyses

    raw = redis.get(FILES_WATERMARK)
    since = float(raw) if raw else 0.0
    rows = records.ended_since("analysis", since, limit)
    dropped = 0
    for job_id, _finished in rows:
        kept = [n for n in records.blob_names(job_id) if n.startswith("file:")]
        keys = [Analyses.file_key(job_id, int(n.split(":", 1)[1])) for n in kept]
        if keys:
            dropped += int(redis.delete(*keys))
    if rows:  # a full batch goes on from its last; else the next pass looks a little behind (clocks)
        last = rows[-1][1]
        redis.set(FILES_WATERMARK, repr(last if len(rows) == limit else max(since, last - CLOCK_SLACK_S)))
    return dropped


def watch_memory(redis: Any) -> float | None:
    """Redis's used share of ``maxmemory``, logged as a warning above :data:`MEMORY_WARN_RATIO`."""
    from services.common.redis_memory import memory, used_ratio

    try:
        used, limit = memory(redis)
    except Exception:
        return None
    ratio = used_ratio(used, limit)
    if ratio >= MEMORY_WARN_RATIO:
        log(logger, logging.WARNING, "Redis memory high", used=used, maxmemory=limit, ratio=round(ratio, 3))
    return ratio


_store: Rollouts | None = None


def job_store() -> Rollouts:
    """This worker process's job store with the durable store (the task's)."""
    global _store
    if _store is None:
        from services.jobs.settings import RolloutSettings
        from services.store.db import required_url
        from services.store.jobs import JobRecords

        settings = RolloutSettings()
        _store = Rollouts(
            connect_redis(settings.redis_url, decode_responses=True),
            app=app,
            settings=settings,
            records=JobRecords(required_url("the reconciler")),
        )
    return _store


@app.task(name=RECONCILE_TASK, ignore_result=True)
def reconcile_task() -> dict[str, Any]:
    counts = reconcile(job_store())
    noteworthy = ("rehydrated", "requeued", "expired", "failed", "archived")
    if any(counts.get(k) for k in noteworthy):
        log(logger, logging.INFO, "reconciled", **counts)
    return counts
