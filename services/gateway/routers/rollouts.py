"""Rollouts as jobs: submit (202 + ``Location``), progress, server-sent events, cancel, extend, batches.

``"kind": "cube"`` rolls out the cube decision of a position before the roll (no double and
double/take with the same dice, double/pass exact) instead of the position or its candidate plays.

Jobs are the kinds ``rollout`` and ``batch`` (:mod:`services.jobs.kinds.rollout`, ``batch``), in Redis
and, with ``PULVEZAR_DATABASE_URL``, in the durable store (the system of record: ``GET /v1/rollouts`` and
``GET /v1/jobs`` list the caller's jobs from there); each submission counts against the key's daily job
and trial quota.  ``DELETE`` cancels a running job and removes a finished one's stored results.  The work
is below, in :mod:`services.gateway.services.rollouts`.

No ``from __future__ import annotations`` here: each kind's routes depend on its own store (``Store``, made
in :func:`_routes`), read when each route is made.
"""

from collections.abc import Callable
from typing import Annotated, Any, Literal, TypeVar

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse, StreamingResponse

from services.common.schemas import Extend
from services.gateway.jobs import Jobs, KindJobs, cancel_or_remove, not_done
from services.gateway.links import links
from services.gateway.routers.job_lists import (
    EVENTS,
    NOT_DONE,
    REMOVED,
    JobId,
    add_list_route,
    check_owner,
    jobs,
)
from services.gateway.security import Client, client
from services.gateway.services import rollouts
from services.gateway.services.rollouts import Job
from services.gateway.sse import streams
from services.jobs.kinds.batch import BatchRollouts
from services.jobs.kinds.rollout import Rollouts
from services.jobs.states import JobState

router = APIRouter(prefix="/v1", tags=["rollouts"])

ACCEPTED = (
    "accepted; the job is at the Location header (its status; only id, kind, state, href and events "
    "when the store could not report it at once)"
)
KINDS = {"rollout": Rollouts, "batch": BatchRollouts}
Who = Annotated[Client, Depends(client)]
Endpoint = TypeVar("Endpoint", bound=Callable[..., Any])


def _job_links(base: str) -> dict[str, tuple[str, str]]:
    """Where a new job's id goes (OpenAPI links: clients and schemathesis's stateful phase)."""
    job = f"{base}/{{job_id}}"
    return {
        "GetJob": ("GET", job),
        "Result": ("GET", f"{job}/result"),
        "Cancel": ("DELETE", job),
        "Extend": ("POST", f"{job}/extend"),
    }


def _submit_route(kind: Literal["rollout", "batch"], base: str, what: str) -> None:
    """``POST /v1/{base}``: the body validated once, here, and submitted as the kind's request."""
    Body = rollouts.BODIES[kind]
    Store = Annotated[KindJobs, Depends(_of_kind(kind))]

    async def submit(body: Body, who: Who, store: Store) -> JSONResponse:  # type: ignore[valid-type]
        return await rollouts.submit(kind, body, who, store)

    router.post(
        f"/{base}",
        status_code=202,
        response_model=Job,
        summary=f"Start a {what} job",
        name=f"submit_{kind}",
        responses=links(202, ACCEPTED, "job_id", "/job_id", _job_links(f"/v1/{base}")),
    )(submit)


def _of_kind(kind: Literal["rollout", "batch"]) -> Callable[[Request], KindJobs]:
    """The dependency that gives the routes of ``kind`` its jobs."""

    def of_kind(request: Request) -> KindJobs:
        all_jobs: Jobs = jobs(request)
        return all_jobs.of_kind(KINDS[kind])

    return of_kind


def _job_route(method: str, path: str, summary: str, **more: Any) -> Callable[[Endpoint], Endpoint]:
    """A route that answers with the job (:class:`Job`; a key the store left out stays out)."""
    return router.api_route(
        path, methods=[method], response_model=Job, response_model_exclude_unset=True, summary=summary, **more
    )


def _routes(kind: Literal["rollout", "batch"], base: str) -> None:
    add_list_route(router, f"/{base}", kind, kind)
    Store = Annotated[KindJobs, Depends(_of_kind(kind))]

    @_job_route("GET", f"/{base}/{{job_id}}", f"A {kind} job: state, trials, progress, ETA, partial results")
    async def get_job(job_id: JobId, who: Who, store: Store) -> Job:
        await check_owner(who, store, job_id)
        return rollouts.job(kind, job_id, await store.status(job_id))

    @_job_route(
        "GET",
        f"/{base}/{{job_id}}/result",
        f"The final report of a finished {kind} job (what the events' done event carries)",
        responses=NOT_DONE,
    )
    async def get_result(job_id: JobId, who: Who, store: Store) -> Job:
        """As the status, with each result's halves, per-probability errors and, for candidate plays,
        each one's difference to the best with its noise and whether it is playable."""
        await check_owner(who, store, job_id)
        report = await store.result(job_id)
        if report is None:
            raise not_done(job_id, str((await store.status(job_id)).get("state", JobState.QUEUED)))
        return rollouts.job(kind, job_id, report)

    @router.get(
        f"/{base}/{{job_id}}/events",
        response_class=StreamingResponse,
        summary=f"Server-sent events of a {kind} job until it ends",
        responses=EVENTS,
    )
    async def job_events(job_id: JobId, request: Request, who: Who, store: Store) -> StreamingResponse:
        await check_owner(who, store, job_id)
        first = await store.status(job_id)  # 404 before the stream starts
        keepalive = request.app.state.settings.sse_keepalive_s
        return await streams(request).open(
            who.owner, job_id, lambda pace: rollouts.events(kind, job_id, first, store, pace, keepalive)
        )

    _write_routes(kind, base)


def _write_routes(kind: Literal["rollout", "batch"], base: str) -> None:
    Store = Annotated[KindJobs, Depends(_of_kind(kind))]

    @_job_route(
        "DELETE",
        f"/{base}/{{job_id}}",
        f"Cancel a running {kind} job (200, its status); remove a finished one's results (204)",
        responses=REMOVED,
    )
    async def cancel_job(job_id: JobId, who: Who, store: Store) -> Any:
        await check_owner(who, store, job_id)
        await store.status(job_id)  # 404 first

        async def state() -> str:
            return str((await store.status(job_id)).get("state"))

        async def cancelled() -> Job:
            return rollouts.job(kind, job_id, await store.status(job_id))

        return await cancel_or_remove(
            job_id, lambda: store.cancel(job_id), lambda: store.delete(job_id), state, cancelled
        )

    @_job_route("POST", f"/{base}/{{job_id}}/extend", f"Add trials to a {kind} job", status_code=202)
    async def extend_job(job_id: JobId, body: Extend, request: Request, who: Who, store: Store) -> Job:
        await check_owner(who, store, job_id)
        return await rollouts.extend(kind, job_id, body, who, store)


_submit_route("rollout", "rollouts", "rollout")
_submit_route("batch", "batch-rollouts", "batch rollout")
_routes("rollout", "rollouts")
_routes("batch", "batch-rollouts")
