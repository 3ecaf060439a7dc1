"""The mechanics every chunked job kind shares: Redis keys, sending chunks, flags, state, ETA, the
durable store's copy (restore, sync, owner), cancel and delete (:class:`ChunkedJobs`).

A job kind (:mod:`services.jobs.kind`, :mod:`services.jobs.analysis`) subclasses it with its
namespace of keys, its chunk task and what only it knows: how its items are checked and cut into
chunks, how a finished chunk's record merges into its report.  Keys, all under
``{namespace}:{id}:`` and expiring ``job_ttl_s`` after the last write:

``spec``       JSON: the job as submitted (kind, priority, the checked items, ...)
``chunk:{n}``  chunk ``n``'s record, written once (``SET NX``) by the worker that ran it
``started``    when a worker first started a chunk
``cancel``     present once the job is cancelled: workers skip and stop its chunks
``error``      why the job failed (a chunk failed after its retries)

There is no chord and no job-level state to keep in step: the state is derived from these keys
(:meth:`ChunkedJobs.state_of`), so a chunk that ran twice (a redelivery) counts once.  A job is accepted
once the durable store (:class:`services.store.jobs.JobRecords`, required) records it, and Redis is its
live copy: :meth:`sync` copies finished chunks and the end there, :meth:`rehydrate` puts a job that Redis
lost back and queues its unfinished chunks (the fixed chunk grid gives them the same bits).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from services.jobs.errors import JobNotFound, text
from services.jobs.settings import QUEUES, RolloutSettings
from services.jobs.states import ENDED, STOPPED, JobState

if TYPE_CHECKING:
    from services.store.jobs import JobRecords

__all__ = ["ENDED", "ChunkedJobs", "JobState", "timing"]


def timing(
    finished: Sequence[Mapping[str, Any]], done_work: float, left_work: float, state: str
) -> tuple[float | None, float | None]:
    """``(eta_s, elapsed_s)`` from the finished chunks' records (``started``, ``finished``, ``seconds``):
    the work left at the rate of the work done, divided by the parallelism seen so far (busy seconds
    over the span).  None before a chunk is done; no ETA for a cancelled or failed job, 0 when done."""
    if not finished:
        return None, None
    starts = [r["started"] for r in finished]
    ends = [r["finished"] for r in finished]
    busy = sum(r["seconds"] for r in finished)
    span = max(ends) - min(starts)
    workers = max(1.0, busy / span) if span > 0 else 1.0
    eta: float | None = round(left_work * (busy / max(1, done_work)) / workers, 3)
    if state in STOPPED:
        eta = None
    elif state == JobState.DONE:
        eta = 0.0
    return eta, round(span, 3)


class ChunkedJobs:
    """One job kind's store: Redis (live) and the durable store (``records``, required).

    ``redis_client`` is a ``redis.Redis`` (with or without ``decode_responses``) on the workers'
    Redis; ``app`` the Celery app that sends the chunk tasks by name (default: the bare client of
    :func:`services.jobs.broker.client`, configured from ``PULVEZAR_ROLLOUT_*``).
    """

    #: the first part of the kind's Redis keys
    namespace: ClassVar[str]
    #: the name of the Celery task that runs one chunk
    task: ClassVar[str]
    #: the kinds of the durable store's rows that this store owns
    kinds: ClassVar[tuple[str, ...]]
    #: the word for a job of this kind in messages ("no rollout job ...")
    noun: ClassVar[str]

    def __init__(
        self,
        redis_client: Any,
        app: Any = None,
        settings: RolloutSettings | None = None,
        *,
        records: JobRecords,
    ) -> None:
        self.redis = redis_client
        self.settings = settings or RolloutSettings()
        #: the durable store's jobs
        self.records = records
        if app is None:
            from services.jobs.broker import client

            app = client(self.settings)
        self.app = app

    # ---- keys ----------------------------------------------------------
    @classmethod
    def key(cls, job_id: str, part: str) -> str:
        return f"{cls.namespace}:{job_id}:{part}"

    @classmethod
    def spec_key(cls, job_id: str) -> str:
        return cls.key(job_id, "spec")

    @classmethod
    def chunk_key(cls, job_id: str, n: int) -> str:
        return cls.key(job_id, f"chunk:{n}")

    @classmethod
    def cancel_key(cls, job_id: str) -> str:
        return cls.key(job_id, "cancel")

    @classmethod
    def started_key(cls, job_id: str) -> str:
        return cls.key(job_id, "started")

    @classmethod
    def error_key(cls, job_id: str) -> str:
        return cls.key(job_id, "error")

    # ---- what a kind provides --------------------------------------------
    def chunk_count(self, job_id: str, spec: Mapping[str, Any]) -> int:
        """How many chunks the job has."""
        raise NotImplementedError

    def job_keys(self, job_id: str, spec: Mapping[str, Any]) -> list[str]:
        """Every Redis key of the job besides the common ones (deleted with it)."""
        return []

    def state(self, job_id: str) -> tuple[JobState, str | None]:
        """The job's state and error (:meth:`state_of` over its finished chunks)."""
        raise NotImplementedError

    def restore(self, job_id: str, row: Any) -> None:
        """Write a job that Redis lost back from its durable row (spec, chunks, finished records)."""
        raise NotImplementedError

    # ---- sending ---------------------------------------------------------
    @property
    def scheduler(self) -> Any:
        """The fair scheduler (:mod:`services.jobs.scheduler`) that sends this store's chunks."""
        if getattr(self, "_scheduler", None) is None:
            from services.jobs.scheduler import FairScheduler

            self._scheduler = FairScheduler(self.redis, self.app, self.settings.lease_s)
        return self._scheduler

    def task_args(self) -> list[Any]:
        """The chunk task's arguments before ``[job_id, n]``."""
        return []

    def enqueue(self, job_id: str, priority: str, numbers: Iterable[int], owner: str | None = None) -> None:
        """Chunks ``numbers`` of the job become pending in the fair scheduler under ``owner`` (default:
        the owner recorded for the job), which sends them to the queue of ``priority`` as workers free up."""
        if owner is None and not self.scheduler.knows(job_id):
            owner = self.owner(job_id)
        self.scheduler.add(
            job_id,
            numbers,
            task=self.task,
            prefix=self.task_args(),
            queue=QUEUES[priority],
            priority=priority,
            owner=owner,
            cancel_key=self.cancel_key(job_id),
            ttl_s=self.settings.job_ttl_s,
        )
        self.scheduler.feed()

    # ---- reading ---------------------------------------------------------
    def row(self, job_id: str) -> Any:
        """The durable store's row of the job when it is of this kind, else None."""
        row = self.records.get(job_id)
        return row if row is not None and row.kind in self.kinds else None

    def not_found(self, job_id: str) -> JobNotFound:
        return JobNotFound(job_id, self.noun)

    def owner(self, job_id: str) -> str | None:
        """The owner the durable store recorded for a job (None: none recorded)."""
        row = self.records.get(job_id)
        return row.owner if row is not None else None

    def state_of(self, job_id: str, done: int, failed: int, total: int) -> tuple[JobState, str | None]:
        """The state from the flags and the counts of finished chunks (``failed``: chunks whose record
        is a failure): queued, running, done, failed or cancelled, and the job's error."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.get(self.error_key(job_id))
        pipe.exists(self.cancel_key(job_id))
        pipe.exists(self.started_key(job_id))
        pipe.exists(self.spec_key(job_id))
        error, cancelled, started, in_redis = pipe.execute()
        if not in_redis:  # Redis lost or dropped it: the durable state
            row = self.records.get(job_id)
            if row is not None and row.state in STOPPED:
                return JobState(row.state), row.error
        if error is not None:
            return JobState.FAILED, text(error)
        if cancelled:
            return JobState.CANCELLED, None
        if done + failed == total:
            return (JobState.FAILED if failed else JobState.DONE), None
        return (JobState.RUNNING if started or done or failed else JobState.QUEUED), None

    def records_of(self, job_id: str, numbers: Sequence[int]) -> dict[int, dict[str, Any]]:
        """The records of the given chunks that Redis has."""
        if not numbers:
            return {}
        raw = self.redis.mget([self.chunk_key(job_id, n) for n in numbers])
        return {n: json.loads(text(r) or "null") for n, r in zip(numbers, raw, strict=True) if r is not None}

    # ---- changing --------------------------------------------------------
    def write_once(self, pipe: Any, job_id: str, records: Mapping[int, Mapping[str, Any]]) -> None:
        """Queue on ``pipe`` the writes of finished chunks' records that Redis may lack (``SET NX``)."""
        for n, record in records.items():
            pipe.set(self.chunk_key(job_id, n), json.dumps(record), ex=self.settings.job_ttl_s, nx=True)

    def cancel(self, job_id: str) -> bool:
        """Ask the workers to stop the job: queued chunks are skipped, running ones stop at their
        next evaluator call.  True when the job was cancelled now; False when it had already
        finished, failed or been cancelled.  Raises :class:`JobNotFound`."""
        if self.state(job_id)[0] in ENDED:
            return False
        self.records.set_state(job_id, JobState.CANCELLED)
        self.redis.set(self.cancel_key(job_id), str(time.time()), nx=True, ex=self.settings.job_ttl_s)
        return True

    def delete(self, job_id: str) -> bool:
        """Remove a finished job's stored results (Redis and the durable store); False while it runs."""
        if self.state(job_id)[0] not in ENDED:
            return False
        spec = self.spec(job_id)
        keys = [self.key(job_id, part) for part in ("spec", "cancel", "started", "error")]
        keys += [self.chunk_key(job_id, n) for n in range(self.chunk_count(job_id, spec))]
        self.redis.delete(*keys, *self.job_keys(job_id, spec))
        self.scheduler.forget(job_id)
        self.records.delete(job_id)
        return True

    def spec(self, job_id: str) -> dict[str, Any]:
        """The job's spec: from Redis, else from the durable store."""
        raw = text(self.redis.get(self.spec_key(job_id)))
        if raw is None:
            row = self.row(job_id)
            if row is None:
                raise self.not_found(job_id)
            return dict(row.spec)
        spec: dict[str, Any] = json.loads(raw)
        return spec

    def rehydrate(self, job_id: str) -> int:
        """Put a job that Redis lost back from the durable store and queue its unfinished chunks again
        (the fixed chunk grid gives them the same bits); how many were queued."""
        row = self.row(job_id)
        if row is None:
            raise self.not_found(job_id)
        self.restore(job_id, row)
        ttl = self.settings.job_ttl_s
        if row.state == JobState.CANCELLED:
            self.redis.set(self.cancel_key(job_id), str(time.time()), ex=ttl)
            return 0
        if row.state == JobState.FAILED and row.error:
            self.redis.set(self.error_key(job_id), row.error, ex=ttl)
            return 0
        stored = self.records.chunk_numbers(job_id)
        spec = self.spec(job_id)  # as restored (an extended job's chunk list is the row's, not its spec's)
        todo = [n for n in range(self.chunk_count(job_id, spec)) if n not in stored]
        self.enqueue(job_id, row.priority or spec.get("priority", "batch"), todo, owner=row.owner)
        return len(todo)

    def resume(self, job_id: str) -> int:
        """Schedule again the chunks of a job in Redis that have no record (the scheduler lost them);
        how many.  Chunks that are running meanwhile only run twice, to the same bits."""
        spec = self.spec(job_id)
        numbers = list(range(self.chunk_count(job_id, spec)))
        todo = [n for n in numbers if n not in self.records_of(job_id, numbers)]
        if todo:
            self.enqueue(job_id, spec.get("priority", "batch"), todo)
        return len(todo)

    def sync(self, job_id: str) -> JobState:
        """Copy a job's finished chunks and end state from Redis to the durable store (what a worker
        could not write there); the job's state."""
        spec = self.spec(job_id)
        have = self.records.chunk_numbers(job_id)
        missing = self.records_of(job_id, [n for n in range(self.chunk_count(job_id, spec)) if n not in have])
        if missing:
            self.records.add_chunks(job_id, missing)
        state, error = self.state(job_id)
        if state in ENDED:
            self.records.set_state(job_id, state, error)
        return state
