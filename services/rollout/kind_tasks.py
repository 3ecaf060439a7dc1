"""The one chunk task of every kind of :mod:`services.jobs.kinds` (:data:`KIND_CHUNK_TASK`).

Its arguments are ``[kind, job_id, n]``; the kind's class (:class:`services.jobs.kind.JobKind`) gives
the runner (:mod:`services.rollout.runner`) its steps: read the spec and chunk from Redis, compute,
write the record once (``SET NX``), record a failure after the retries as the chunk's record, then the
durable store's copy (the chunk and, after the last, the job's end, or the next stage of a kind in
stages: :meth:`~services.jobs.kind.JobKind.next_stage`).  A task of a kind this worker does
not know (an older worker during a rolling update) is retried a few times (another worker may know it),
then dropped with a warning.
"""

from __future__ import annotations

import logging
from functools import cache
from typing import Any

from celery import Task

from services.common.jsonlog import log
from services.jobs.broker import BOOK_TASK, KIND_CHUNK_TASK
from services.jobs.kind import JobKind
from services.jobs.kinds import kinds
from services.rollout import runner
from services.rollout import tasks as rollout_tasks
from services.rollout.celery_app import app
from services.rollout.runner import ChunkKind

logger = logging.getLogger("pulvezar.services.jobs")
settings = rollout_tasks.settings


class _Outcomes:
    """The kind's slice of ``pulvezar_job_chunks``: the runner's one-label counter; a kind that counts
    trials (the rollouts) counts its outcomes in ``pulvezar_rollout_chunks`` too."""

    def __init__(self, kind: str, trials: bool) -> None:
        self.kind, self.trials = kind, trials

    def labels(self, outcome: str) -> Any:
        from services.rollout import metrics

        counters = [metrics.KIND_CHUNKS.labels(self.kind, outcome)]
        if self.trials:
            counters.append(metrics.CHUNKS.labels(outcome))
        if self.kind == ANALYSIS:  # the analyses' own series, kept from before the job framework
            counters.append(metrics.ANALYSIS_GAMES.labels(outcome))
        return _Counters(counters)


#: the match analyses' kind (:mod:`services.jobs.kinds.analysis`): its games keep their own series too
ANALYSIS = "analysis"


def _observe_game(spec: dict[str, Any], chunk: Any, record: dict[str, Any]) -> None:
    """An analysed game in ``pulvezar_analysis_game_seconds`` and ``pulvezar_analysis_actions`` (by level)."""
    from services.rollout import metrics

    m, g = chunk
    metrics.ANALYSIS_GAME_SECONDS.labels(spec["level"]).observe(record["seconds"])
    metrics.ANALYSIS_ACTIONS.labels(spec["level"]).inc(spec["matches"][m]["actions"][g])


class _Counters:
    def __init__(self, counters: list[Any]) -> None:
        self.counters = counters

    def inc(self, amount: float = 1) -> None:
        for c in self.counters:
            c.inc(amount)


def _sync(r: Any, cls: type[JobKind], job_id: str) -> None:
    """The job's end into the durable store once its last chunk is in (else the reconciler does it)."""
    try:
        cls(r, app=app, settings=settings, records=rollout_tasks.records()).sync(job_id)
    except Exception as e:
        log(logger, logging.WARNING, "job state not stored durably yet", job=job_id, error=repr(e))


def _func(method: Any) -> Any:
    """The function under a bound class method (to tell whether a kind overrides one)."""
    return getattr(method, "__func__", method)


@cache
def chunk_kind(cls: type[JobKind]) -> ChunkKind:
    """The runner's steps of a kind."""
    from services.rollout import metrics

    ttl = settings.job_ttl_s

    def store(r: Any) -> JobKind:
        return cls(r, app=app, settings=settings, records=rollout_tasks.records())

    def compute(spec: dict[str, Any], chunk: Any, ev: Any) -> dict[str, Any]:
        record: dict[str, Any] = store(rollout_tasks.redis_client()).run_chunk(spec, chunk, ev)
        return record

    def failed(r: Any, job_id: str, n: int, spec: dict[str, Any], chunk: Any, e: Exception) -> None:
        record = cls.failure(n, e, chunk)
        if cls.fail_fast:  # the job fails now, not once its other chunks end
            r.set(cls.error_key(job_id), record["error"], nx=True, ex=ttl)
        if cls.write_record(r, job_id, n, record, ttl):
            rollout_tasks.store_chunk(job_id, n, record, complete=False)
            _sync(r, cls, job_id)

    def finished(job_id: str, n: int, spec: dict[str, Any], chunk: Any, record: dict[str, Any]) -> None:
        metrics.KIND_CHUNK_SECONDS.labels(cls.name).observe(record["seconds"])
        trials = cls.trials_of(record)
        if trials:  # the rollout service's own series, by priority
            metrics.CHUNK_SECONDS.labels(spec["priority"]).observe(record["seconds"])
            metrics.TRIALS.labels(spec["priority"]).inc(trials)
        if cls.name == ANALYSIS:
            _observe_game(spec, chunk, record)
        rollout_tasks.store_chunk(job_id, n, record, complete=False)
        r = rollout_tasks.redis_client()
        try:  # the kind's follow-up (e.g. a match's summary after its last game)
            store(r).chunk_done(job_id, n, spec, chunk, record)
        except Exception:
            logger.exception("chunk follow-up failed", extra={"fields": {"job": job_id, "chunk": n}})
        try:  # the job's next stage once this was its last chunk (else the reconciler's resume appends it)
            store(r).next_stage(job_id)
        except Exception:
            logger.exception("next stage not appended", extra={"fields": {"job": job_id, "chunk": n}})
        _sync(r, cls, job_id)

    return ChunkKind(
        name=cls.name,
        store=cls,
        logger=logger,
        counter=_Outcomes(cls.name, _func(cls.trials_of) is not _func(JobKind.trials_of)),
        load=cls.load,
        compute=compute,
        write=lambda r, job_id, n, record: cls.write_record(r, job_id, n, record, ttl),
        failed=failed,
        finished=finished,
        duplicate=lambda r, job_id, n: cls.duplicate(r, job_id, n, ttl),
        started_fields=cls.log_fields,
    )


@app.task(name=KIND_CHUNK_TASK, bind=True)
def run_kind_chunk(self: Task[Any, Any], kind: str, job_id: str, n: int) -> str:
    """Run chunk ``n`` of job ``job_id`` of ``kind``; returns what happened (done, duplicate, ...)."""
    cls = kinds().get(kind)
    if cls is None:
        log(logger, logging.WARNING, "chunk of an unknown job kind", kind=kind, job=job_id, chunk=n)
        if self.request.retries < settings.max_retries:
            raise self.retry(countdown=5)
        return "gone"
    steps = chunk_kind(cls)  # type: ignore[arg-type]  # (mypy: a class is not Hashable; it is)
    return runner.run(self, steps, job_id, n, rollout_tasks.redis_client(), rollout_tasks.evaluator, settings)


@app.task(name=BOOK_TASK, ignore_result=True)
def drive_book(book_id: str) -> str:
    """One release only: the opening-book driver task that an older gateway may still queue.  Books are
    the kind ``book`` now; a job that the older driver kept is continued as a kind job from its durable row
    (:meth:`~services.jobs.kinds.book.BookKind.restore`), one already in Redis is left to its chunks."""
    cls = kinds()["book"]
    store = cls(rollout_tasks.redis_client(), app=app, settings=settings, records=rollout_tasks.records())
    if store.redis.exists(cls.spec_key(book_id)):
        return "running"
    try:
        store.rehydrate(book_id)
    except LookupError:
        return "gone"
    return "restored"
