"""One chunk runner for every job kind: the skeleton of a chunk task (:func:`run`).

A chunk task is idempotent: its record goes to the kind's ``chunk:{n}`` key with ``SET NX``; a task
whose key exists returns at once, so a redelivered or duplicated chunk changes nothing (and its numbers
would be the same bits anyway: a chunk's work does not depend on who runs it).  The cancel key is read
before the work and, while it runs, before every evaluator call (:class:`CheckedEvaluator`).  A chunk
that raises is retried ``max_retries`` times, then recorded as failed by its kind.  ``acks_late`` and
reject-on-worker-lost come from the app's configuration (:func:`services.jobs.broker.configure`).

A kind gives the runner a :class:`ChunkKind`: how to read its chunk, compute it, write its record and
what follows a failure or a success.  Every record names the engine that computed it (``engine``:
:func:`services.jobs.provenance.chunk_engine`).  What happens is returned and counted: done, duplicate,
cancelled, gone (the job is unknown, or Redis went away: the reconciler queues it again), failed.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from celery import Task
from celery.exceptions import Retry
from redis.exceptions import ConnectionError as RedisConnectionError

from pulvezar.eval.evaluator import Evaluator
from services.common.jsonlog import log
from services.jobs.chunked import ChunkedJobs
from services.jobs.provenance import chunk_engine
from services.jobs.scheduler import FairScheduler
from services.jobs.settings import RolloutSettings
from services.rollout.evaluators import Cancelled, CheckedEvaluator


@dataclass(frozen=True)
class ChunkKind:
    """What a job kind tells the runner.

    ``load(r, job_id, n)``: ``(spec, chunk)``, or None when the job is unknown;
    ``compute(spec, chunk, evaluator)``: the record's own fields (the runner adds the timings);
    ``write(r, job_id, n, record)``: True when this record was the first (``SET NX``);
    ``duplicate(r, job_id, n)``: made sure of after finding a record (a progress entry, ...);
    ``failed(r, job_id, n, spec, chunk, error)``: record the failure after the retries;
    ``finished(job_id, n, spec, chunk, record)``: after the record is written (durable store, metrics).
    """

    name: str
    store: type[ChunkedJobs]
    logger: logging.Logger
    counter: Any  # a Prometheus counter with the outcome as its one label
    load: Callable[[Any, str, int], tuple[dict[str, Any], Any] | None]
    compute: Callable[[dict[str, Any], Any, Evaluator], dict[str, Any]]
    write: Callable[[Any, str, int, dict[str, Any]], bool]
    failed: Callable[[Any, str, int, dict[str, Any], Any, Exception], None]
    finished: Callable[[str, int, dict[str, Any], Any, dict[str, Any]], None]
    duplicate: Callable[[Any, str, int], None] = lambda r, job_id, n: None
    started_fields: Callable[[dict[str, Any], Any], dict[str, Any]] = lambda spec, chunk: {}


class LeaseKeeper:
    """Renews the lease of the chunk this pool process runs (:mod:`services.jobs.scheduler`), from a
    daemon thread, every quarter of the lease, so that a chunk's lease outlives it only when its process
    or host is gone."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._current: tuple[Any, str, int] | None = None
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None

    def hold(self, scheduler: Any, job_id: str, n: int) -> None:
        with contextlib.suppress(Exception):  # at once: the chunk may have waited in the queue
            scheduler.renew(job_id, n)
        with self._lock:
            self._current = (scheduler, job_id, n)
            if self._thread is None or not self._thread.is_alive():  # a forked pool process has none
                self._thread = threading.Thread(target=self._loop, name="lease-keeper", daemon=True)
                self._thread.start()

    def drop(self) -> None:
        with self._lock:
            self._current = None

    def _loop(self) -> None:
        while True:
            with self._lock:
                current = self._current
            every = current[0].lease_s / 4 if current else 1.0
            if current is not None:
                # Redis away: the lease may expire and the chunk run again
                with contextlib.suppress(Exception):
                    current[0].renew(current[1], current[2])
            self._wake.wait(min(every, 5.0))


_leases = LeaseKeeper()


@functools.lru_cache(maxsize=8)
def _scheduler(redis_client: Any, app: Any, lease_s: float) -> FairScheduler:
    """The pool process's scheduler for this Redis client and app (its scripts registered once)."""
    return FairScheduler(redis_client, app, lease_s)


@contextlib.contextmanager
def chunk_lease(scheduler: FairScheduler, kind: ChunkKind, job_id: str, n: int) -> Iterator[None]:
    """Chunk ``n`` holds its lease in the fair scheduler while the block runs; when the block ends (unless
    the chunk is retried: it keeps its lease) the lease is released and the scheduler sends the next
    chunk for the freed slot."""
    _leases.hold(scheduler, job_id, n)
    retrying = False
    try:
        yield
    except Retry:
        retrying = True
        raise
    finally:
        _leases.drop()
        if not retrying:
            try:
                scheduler.release(job_id, n)
                scheduler.feed()
            except Exception as e:  # Redis is away: the lease expires; a worker's tick feeds later
                log(
                    kind.logger,
                    logging.WARNING,
                    "chunk slot not released",
                    job=job_id,
                    chunk=n,
                    error=repr(e),
                )


def _skipped(kind: ChunkKind, r: Any, job_id: str, n: int) -> str | None:
    """What to answer without running: a chunk already recorded (a redelivery) or a cancelled job."""
    if r.exists(kind.store.chunk_key(job_id, n)):
        kind.duplicate(r, job_id, n)
        kind.counter.labels("duplicate").inc()
        return "duplicate"
    if r.exists(kind.store.cancel_key(job_id)):
        kind.counter.labels("cancelled").inc()
        return "cancelled"
    return None


def _failed(
    task: Task[Any, Any],
    kind: ChunkKind,
    r: Any,
    where: tuple[str, int, Any, Any],
    e: Exception,
    retries: int,
) -> str:
    """A chunk that raised: retried while it may be, then recorded as failed (``where``: job, n, spec,
    chunk)."""
    job_id, n, spec, chunk = where
    prefix = _prefix(kind)
    if task.request.retries < retries:
        kind.counter.labels("retried").inc()
        log(
            kind.logger,
            logging.WARNING,
            f"{prefix}chunk failed, retrying",
            job=job_id,
            chunk=n,
            error=repr(e),
        )
        raise task.retry(exc=e, countdown=1) from e
    kind.counter.labels("failed").inc()
    kind.failed(r, job_id, n, spec, chunk, e)
    kind.logger.exception(f"{prefix}chunk failed", extra={"fields": {"job": job_id, "chunk": n}})
    return "failed"


def _prefix(kind: ChunkKind) -> str:
    """The kind's name before its log lines' words (rollouts: none, as ever)."""
    return "" if kind.name in ("rollout", "batch") else f"{kind.name} "


def run(
    task: Task[Any, Any],
    kind: ChunkKind,
    job_id: str,
    n: int,
    redis_client: Any,
    evaluator: Callable[[], Evaluator],
    settings: RolloutSettings,
) -> str:
    """Run chunk ``n`` of job ``job_id`` of ``kind`` under its lease (:func:`chunk_lease`); returns what
    happened."""
    with chunk_lease(_scheduler(redis_client, task.app, settings.lease_s), kind, job_id, n):
        r, store, logger, prefix = redis_client, kind.store, kind.logger, _prefix(kind)
        skipped = _skipped(kind, r, job_id, n)
        if skipped is not None:
            return skipped
        loaded = kind.load(r, job_id, n)
        if loaded is None:  # expired, or not ours
            kind.counter.labels("gone").inc()
            log(logger, logging.WARNING, f"{prefix}chunk of an unknown job", job=job_id, chunk=n)
            return "gone"
        spec, chunk = loaded
        r.set(store.started_key(job_id), str(time.time()), nx=True, ex=settings.job_ttl_s)
        fields = kind.started_fields(spec, chunk)
        log(logger, logging.INFO, f"{prefix}chunk started", job=job_id, chunk=n, **fields, pid=os.getpid())
        started, t0 = time.time(), time.perf_counter()
        try:
            ev = CheckedEvaluator(
                evaluator(),
                lambda: bool(r.exists(store.cancel_key(job_id))),
                delay_s=settings.eval_delay_ms / 1e3,
                hold_path=settings.eval_hold_path,
            )
            ev.check()
            out = kind.compute(spec, chunk, ev)
        except Cancelled:
            kind.counter.labels("cancelled").inc()
            log(logger, logging.INFO, f"{prefix}chunk cancelled", job=job_id, chunk=n)
            return "cancelled"
        except RedisConnectionError as e:  # the store went away, not the job: no failure to record
            kind.counter.labels("gone").inc()
            log(
                logger,
                logging.WARNING,
                "chunk abandoned: Redis is unreachable",
                job=job_id,
                chunk=n,
                error=repr(e),
            )
            return "gone"  # the reconciler queues it again from the durable store
        except Exception as e:
            return _failed(task, kind, r, (job_id, n, spec, chunk), e, settings.max_retries)
        seconds = time.perf_counter() - t0
        record = {
            "engine": chunk_engine(ev.inner),  # the net that computed it (services.jobs.provenance)
            **out,
            "seconds": seconds,
            "started": started,
            "finished": time.time(),
            "worker": f"{socket.gethostname()}:{os.getpid()}",
        }
        if not kind.write(r, job_id, n, record):
            kind.counter.labels("duplicate").inc()
            return "duplicate"
        kind.counter.labels("done").inc()
        log(logger, logging.INFO, f"{prefix}chunk done", job=job_id, chunk=n, seconds=round(seconds, 4))
        kind.finished(job_id, n, spec, chunk, record)
        return "done"
