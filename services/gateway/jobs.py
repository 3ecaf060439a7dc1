"""The gateway's side of the job kinds' stores (:mod:`services.jobs.kinds`): :class:`Jobs`, the base store
(the rollout kind's Redis, broker and durable store) and one :class:`KindJobs` per kind.

A store may be synchronous (redis-py) or asynchronous; the calls await either, running synchronous
calls in a thread so that Redis round trips never block the event loop.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from services.common.redis_url import connect as connect_redis
from services.gateway.problems import ProblemError, invalid
from services.gateway.security import PLATFORM
from services.store.db import StoreUnavailable

logger = logging.getLogger("pulvezar.gateway")

#: what a store calls with a job's estimated core-seconds (:class:`~services.gateway.security.Admission`)
Admit = Callable[[float], None]


class JobStoreLike(Protocol):
    """The base store that every kind's store is made on (:class:`~services.jobs.kinds.rollout.Rollouts`
    from :func:`store_from_url`): its Redis, Celery app, settings and durable store."""

    redis: Any
    app: Any
    settings: Any
    records: Any

    @property
    def scheduler(self) -> Any:
        """The fair scheduler of its chunks (:mod:`services.jobs.scheduler`)."""


def store_from_url(url: str, database: str) -> JobStoreLike:
    """The rollout kind's store on ``url`` (its broker too; other ``PULVEZAR_ROLLOUT_*`` settings, such as
    the chunk size, apply) and the durable store at ``database``: the base of every kind's store.
    Imported late: the gateway runs without Celery."""

    from services.jobs.broker import client
    from services.jobs.kinds.rollout import Rollouts
    from services.jobs.settings import RolloutSettings
    from services.store.jobs import JobRecords

    settings = RolloutSettings(redis_url=url)
    return Rollouts(
        connect_redis(url, decode_responses=True),
        app=client(settings),
        settings=settings,
        records=JobRecords(database),
    )


def owner_lookup(store: JobStoreLike | None) -> Callable[[str], str | None] | None:
    """The durable store's owner of a job, for :meth:`~services.gateway.security.Client.check`:
    :data:`~services.gateway.security.PLATFORM` for a row without one (the platform's own jobs), None
    for no row; None without a job store (then only the owners the gateway recorded count)."""
    records = store.records if store is not None else None
    if records is None:
        return None

    def lookup(job_id: str) -> str | None:
        row = records.get(job_id)
        if row is None:
            return None
        return str(row.owner) if row.owner is not None else PLATFORM

    return lookup


async def call_store(fn: Callable[..., Any], *args: Any, noun: str = "job", **kwargs: Any) -> Any:
    """Call a job store (in a thread when it is synchronous) and map its errors to problems, the same for
    every job kind: :class:`~services.jobs.errors.InvalidJob` and the library's errors a 422 naming their
    field, :class:`~services.jobs.errors.JobNotFound` a 404, :class:`~services.jobs.errors.JobStateError`
    a 409 naming its field, the database down a 503 with ``Retry-After``; anything else a logged 503."""
    from services.jobs.errors import JobStateError

    try:
        if inspect.iscoroutinefunction(fn):
            out = await fn(*args, **kwargs)
        else:
            out = await asyncio.to_thread(fn, *args, **kwargs)
            if inspect.isawaitable(out):
                out = await out
    except ProblemError:
        raise
    except StoreUnavailable:
        raise ProblemError(
            503,
            "the database is unavailable; try again shortly",
            kind="store-unavailable",
            headers={"Retry-After": "5"},
        ) from None
    except LookupError:  # JobNotFound is a KeyError
        raise _not_found(str(args[0]) if args else "", noun) from None
    except JobStateError as e:  # the job's state does not allow it
        field = getattr(e, "field", None) or "job_id"
        raise ProblemError(409, str(e), kind="job-state", errors=[(field, str(e))]) from None
    except ValueError as e:  # the store's validation (InvalidJob, PulvezarError: with .field)
        field = getattr(e, "field", None) or "request"
        if field == "job_id":
            raise ProblemError(409, str(e), kind="job-state", errors=[(field, str(e))]) from None
        raise invalid(field, getattr(e, "message", None) or str(e)) from None
    except Exception as e:
        logger.exception("job store call %s failed", getattr(fn, "__name__", fn))
        raise ProblemError(
            503,
            f"the job store is unavailable ({type(e).__name__})",
            kind="jobs-unavailable",
            headers={"Retry-After": "1"},
        ) from None
    return out


class Jobs:
    """The gateway's job stores: the base store (None: no job store on this gateway, every job route a 503)
    and each kind's, made from it on first use (:meth:`of_kind`)."""

    def __init__(self, store: JobStoreLike | None) -> None:
        self.store = store
        self._kinds: dict[str, KindJobs] = {}

    def of_kind(self, kind: Any) -> KindJobs:
        """The store of a kind of :mod:`services.jobs.kinds`, on this store's Redis, broker and database."""
        if kind.name not in self._kinds:
            self._kinds[kind.name] = KindJobs(kind, self)
        return self._kinds[kind.name]

    @property
    def records(self) -> Any:
        """The durable store's jobs (the job store's), or None without a job store."""
        return self.store.records if self.store is not None else None

    def _records(self) -> Any:
        records = self.records
        if records is None:
            raise ProblemError(
                503, "jobs are not configured on this gateway (no job store)", kind="jobs-unavailable"
            )
        return records

    async def row(self, job_id: str) -> Any:
        """The durable store's row of a job, or None (503 while it is down or without a job store)."""
        records = self._records()
        try:
            return await asyncio.to_thread(records.get, job_id)
        except StoreUnavailable:
            raise ProblemError(
                503, "the database is unavailable; try again shortly", kind="store-unavailable",
                headers={"Retry-After": "5"},
            ) from None  # fmt: skip

    def backlog(self, owner: str) -> tuple[int, int]:
        """``(jobs, trials)`` an owner has unfinished (the durable store's; (0, 0) without a job store)."""
        if self.records is None:
            return 0, 0
        jobs, trials = self.records.backlog(owner)
        return int(jobs), int(trials)

    def set_shares(self, shares: dict[str, int]) -> None:
        """Owners' fair-share weights into the scheduler (:mod:`services.jobs.scheduler`)."""
        if self.store is not None:
            for owner, share in shares.items():
                self.store.scheduler.set_share(owner, share)

    def owner_lookup(self) -> Callable[[str], str | None] | None:
        """The durable store's owner of a job, for :meth:`Client.check` (:func:`owner_lookup`)."""
        return owner_lookup(self.store)

    async def listing(self, owner: str | None, **query: Any) -> tuple[list[Any], str | None]:
        """The owner's jobs from the durable store; None: the platform's own."""
        records = self._records()
        try:
            out: tuple[list[Any], str | None] = await asyncio.to_thread(records.list, owner, **query)
        except StoreUnavailable:
            raise ProblemError(
                503, "the database is unavailable; try again shortly", kind="store-unavailable",
                headers={"Retry-After": "5"},
            ) from None  # fmt: skip
        except ValueError as e:
            raise invalid("cursor", str(e)) from None
        return out


async def cancel_or_remove(
    job_id: str,
    cancel: Callable[[], Awaitable[bool]],
    delete: Callable[[], Awaitable[bool]],
    state: Callable[[], Awaitable[str]],
    cancelled: Callable[[], Awaitable[Any]],
) -> Any:
    """``DELETE`` of a job, the same for every kind: a running job is cancelled (200, ``cancelled()``, its
    status), a finished one removed (204); a 409 when neither can be (it changed meanwhile)."""
    from fastapi.responses import Response

    if await cancel():
        return await cancelled()
    if await delete():
        return Response(status_code=204)
    raise ProblemError(409, f"job {job_id} cannot be cancelled: it is {await state()}", kind="job-finished")


def not_done(job_id: str, state: str) -> ProblemError:
    """The 409 of a job's final report asked for before the job is done."""
    return ProblemError(
        409, f"job {job_id} has no final report: it is {state}", kind="job-not-done",
        errors=[("job_id", f"the job is {state}")],
    )  # fmt: skip


def _text(v: Any) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


def _not_found(job_id: str, noun: str = "job") -> ProblemError:
    return ProblemError(404, f"no {noun} {job_id!r}", kind="not-found", errors=[("job_id", "unknown job")])


class KindJobs:
    """The gateway's side of the store of one kind of :mod:`services.jobs.kinds` (on the base store's
    Redis, broker and durable store; the base store itself when it is of the kind); 503 when the gateway
    has no job store."""

    def __init__(self, kind: Any, jobs: Jobs) -> None:
        self.kind = kind
        self.jobs = jobs
        #: the word for its jobs in problems (a kind with routes of its own keeps their older "job")
        self.noun: str = "job" if kind.own_routes else kind.noun
        base: Any = jobs.store
        if base is None or type(base) is kind:
            self.store = base
        else:
            self.store = kind(base.redis, app=base.app, settings=base.settings, records=base.records)

    def _store(self) -> Any:
        if self.store is None:
            what = f"{self.kind.noun}s" if self.kind.own_routes else f"{self.kind.noun} jobs"  # older words
            raise ProblemError(
                503, f"{what} are not configured on this gateway (no job store)", kind="jobs-unavailable"
            )
        return self.store

    def owner_lookup(self) -> Callable[[str], str | None] | None:
        return owner_lookup(self.store)

    async def submit(self, body: Any, owner: str | None, admit: Admit | None = None) -> str:
        return _text(await call_store(self._store().submit, body, owner=owner, admit=admit))

    async def status(self, job_id: str) -> dict[str, Any]:
        st = await call_store(self._store().status, job_id, noun=self.noun)
        if not st:
            raise _not_found(job_id, self.noun)
        return dict(st)

    async def result(self, job_id: str) -> dict[str, Any] | None:
        out: dict[str, Any] | None = await call_store(self._store().result, job_id, noun=self.noun)
        return out

    async def cancel(self, job_id: str) -> bool:
        return bool(await call_store(self._store().cancel, job_id, noun=self.noun))

    async def delete(self, job_id: str) -> bool:
        return bool(await call_store(self._store().delete, job_id, noun=self.noun))

    async def extend(self, job_id: str, body: Any, admit: Admit | None = None) -> int:
        """More work for a job (``body``: the kind's ``Extension``); how many chunks it adds."""
        return int(await call_store(self._store().extend, job_id, body, admit=admit, noun=self.noun))
