"""The gateway's side of the rollout job store (:class:`services.jobs.rollout.JobStore`).

The store may be synchronous (redis-py) or asynchronous; :class:`Jobs` awaits either, running
synchronous calls in a thread so that Redis round trips never block the event loop.
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
    def submit_rollout(
        self, params: dict[str, Any], priority: str = ..., owner: str | None = ..., admit: Admit | None = ...
    ) -> Any: ...
    def submit_batch(self, positions: list[dict[str, Any]], *args: Any, **kwargs: Any) -> Any: ...
    def status(self, job_id: str) -> Any: ...
    def result(self, job_id: str) -> Any: ...
    def cancel(self, job_id: str) -> Any: ...
    def extend(self, job_id: str, more_trials: int, admit: Admit | None = ...) -> Any: ...
    def delete(self, job_id: str) -> Any: ...


def store_from_url(url: str) -> JobStoreLike:
    """The rollout service's ``JobStore`` on ``url`` (its broker too; other ``PULVEZAR_ROLLOUT_*``
    settings, such as the chunk size, apply).  Imported late: the gateway runs without Celery."""

    from services.jobs.broker import client
    from services.jobs.rollout import JobStore
    from services.jobs.settings import RolloutSettings
    from services.store.jobs import JobRecords
    from services.store.settings import StoreSettings

    settings = RolloutSettings(redis_url=url)
    database = StoreSettings().url  # the durable store, the system of record, when configured
    return JobStore(
        connect_redis(url, decode_responses=True),
        app=client(settings),
        settings=settings,
        records=JobRecords(database) if database else None,
    )


def owner_lookup(store: Any) -> Callable[[str], str | None] | None:
    """The durable store's owner of a job, for :meth:`~services.gateway.security.Client.check`:
    :data:`~services.gateway.security.PLATFORM` for a row without one (the platform's own jobs), None
    for no row; None without a durable store (then only the owners the gateway recorded count)."""
    records = getattr(store, "records", None) if store is not None else None
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
    def __init__(self, store: JobStoreLike | None) -> None:
        self.store = store
        self._kinds: dict[str, KindJobs] = {}

    def of_kind(self, kind: Any) -> KindJobs:
        """The store of a kind of :mod:`services.jobs.kinds`, on this store's Redis, broker and database."""
        if kind.name not in self._kinds:
            self._kinds[kind.name] = KindJobs(kind, self)
        return self._kinds[kind.name]

    def _store(self) -> JobStoreLike:
        if self.store is None:
            raise ProblemError(
                503, "rollouts are not configured on this gateway (no job store)", kind="jobs-unavailable"
            )
        return self.store

    @property
    def records(self) -> Any:
        """The durable store's jobs, or None (no store configured)."""
        return getattr(self.store, "records", None)

    async def submit_rollout(
        self, params: dict[str, Any], priority: str, owner: str | None = None, admit: Admit | None = None
    ) -> str:
        store = self._store()
        return _text(
            await call_store(store.submit_rollout, params, priority=priority, owner=owner, admit=admit)
        )

    async def submit_batch(
        self,
        positions: list[dict[str, Any]],
        priority: str,
        owner: str | None = None,
        admit: Admit | None = None,
    ) -> str:
        store = self._store()
        return _text(
            await call_store(store.submit_batch, positions, priority=priority, owner=owner, admit=admit)
        )

    async def row(self, job_id: str) -> Any:
        """The durable store's row of a job, or None (501 without a store, 503 while it is down)."""
        records = self.records
        if records is None:
            raise ProblemError(
                501, "reading jobs needs the durable store (PULVEZAR_DATABASE_URL)", kind="no-store"
            )
        try:
            return await asyncio.to_thread(records.get, job_id)
        except StoreUnavailable:
            raise ProblemError(
                503, "the database is unavailable; try again shortly", kind="store-unavailable",
                headers={"Retry-After": "5"},
            ) from None  # fmt: skip

    def backlog(self, owner: str) -> tuple[int, int]:
        """``(jobs, trials)`` an owner has unfinished (the durable store's; (0, 0) without one)."""
        if self.records is None:
            return 0, 0
        jobs, trials = self.records.backlog(owner)
        return int(jobs), int(trials)

    def set_shares(self, shares: dict[str, int]) -> None:
        """Owners' fair-share weights into the scheduler (:mod:`services.jobs.scheduler`)."""
        scheduler = getattr(self.store, "scheduler", None)
        if scheduler is not None:
            for owner, share in shares.items():
                scheduler.set_share(owner, share)

    def owner_lookup(self) -> Callable[[str], str | None] | None:
        """The durable store's owner of a job, for :meth:`Client.check` (:func:`owner_lookup`)."""
        return owner_lookup(self.store)

    async def delete(self, job_id: str) -> bool:
        return bool(await call_store(self._store().delete, job_id))

    async def listing(self, owner: str | None, **query: Any) -> tuple[list[Any], str | None]:
        """The owner's jobs from the durable store (501 without one); None: the platform's own."""
        records = self.records
        if records is None:
            raise ProblemError(
                501, "listing jobs needs the durable store (PULVEZAR_DATABASE_URL)", kind="no-store"
            )
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

    async def status(self, job_id: str) -> dict[str, Any]:
        st = await call_store(self._store().status, job_id)
        if not st:
            raise _not_found(job_id)
        return dict(st)

    async def result(self, job_id: str) -> Any:
        return await call_store(self._store().result, job_id)

    async def cancel(self, job_id: str) -> bool:
        return bool(await call_store(self._store().cancel, job_id))

    async def extend(self, job_id: str, more_trials: int, admit: Admit | None = None) -> Any:
        return await call_store(self._store().extend, job_id, more_trials, admit=admit)


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
    """The gateway's side of the store of one kind of :mod:`services.jobs.kinds` (on the rollout store's
    Redis, broker and durable store); 503 when the gateway has no job store."""

    def __init__(self, kind: Any, jobs: Jobs) -> None:
        self.kind = kind
        self.jobs = jobs
        base = jobs.store
        ready = base is not None and all(hasattr(base, a) for a in ("redis", "app", "settings"))
        self.store = (
            kind(base.redis, app=base.app, settings=base.settings, records=base.records) if ready else None
        )

    def _store(self) -> Any:
        if self.store is None:
            raise ProblemError(
                503, f"{self.kind.noun} jobs are not configured on this gateway (no job store)",
                kind="jobs-unavailable",
            )  # fmt: skip
        return self.store

    def owner_lookup(self) -> Callable[[str], str | None] | None:
        return owner_lookup(self.store)

    async def submit(self, body: Any, owner: str | None, admit: Admit | None = None) -> str:
        return _text(await call_store(self._store().submit, body, owner=owner, admit=admit))

    async def status(self, job_id: str) -> dict[str, Any]:
        return dict(await call_store(self._store().status, job_id, noun=self.kind.noun))

    async def result(self, job_id: str) -> dict[str, Any] | None:
        out: dict[str, Any] | None = await call_store(self._store().result, job_id, noun=self.kind.noun)
        return out

    async def cancel(self, job_id: str) -> bool:
        return bool(await call_store(self._store().cancel, job_id, noun=self.kind.noun))

    async def delete(self, job_id: str) -> bool:
        return bool(await call_store(self._store().delete, job_id, noun=self.kind.noun))
