"""The routes of every kind of :mod:`services.jobs.kinds`, made from the kind (:func:`add_routes`).

For a kind with ``route = "evaluations"``: ``POST /v1/evaluations`` (the kind's ``Request`` is the body;
202 with ``Location``), ``GET /v1/evaluations`` (your jobs of the kind), ``GET /v1/evaluations/{id}``
(state, progress, ETA and the ``report`` so far), ``GET .../result`` (the final report; 409 before the
job is done), ``GET .../events`` (server-sent events until it ends) and ``DELETE /v1/evaluations/{id}``
(cancel a running job; remove a finished one, 204).  Errors are the problems of every job route
(:func:`services.gateway.jobs.call_store`).

No ``from __future__ import annotations`` here: the routes' types are the kind's classes, read when
each route is made.
"""

from collections.abc import AsyncIterator, Callable
from typing import Annotated, Any, Generic, TypeVar

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field

from services.gateway.jobs import Jobs, KindJobs, cancel_or_remove, not_done
from services.gateway.links import links
from services.gateway.models import Epoch
from services.gateway.problems import ProblemError
from services.gateway.routers.job_lists import NOT_DONE, REMOVED, JobId, add_list_route, check_owner
from services.gateway.routers.params import Who
from services.gateway.sse import Pace, job_events, streams
from services.jobs.kinds import kinds
from services.jobs.provenance import Engine
from services.jobs.states import ENDED, JobState

router = APIRouter(prefix="/v1")
R = TypeVar("R", bound=BaseModel)
E = TypeVar("E", bound=Callable[..., Any])


class KindJob(BaseModel, Generic[R]):
    """A job of a registered kind: its state and progress, and the kind's report of the chunks done."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="the job's id")
    kind: str = Field(description="the job's kind")
    priority: str = Field(description="interactive or batch: the queue its chunks go to")
    state: JobState = Field(description="queued, running, done, failed or cancelled")
    error: str | None = Field(None, description="why it failed; null otherwise")
    chunks_done: int = Field(description="chunks finished")
    chunks_total: int = Field(description="chunks of the job")
    progress: float = Field(description="0..1")
    eta_s: float | None = Field(None, description="seconds left (null until a chunk is done; 0 when done)")
    elapsed_s: float | None = Field(
        None, description="seconds from the first finished chunk's start to the last one's end (null before)"
    )
    created: Epoch
    provenance: Engine | None = Field(
        None,
        description="the engine and net of the finished chunks (GET /v1/models); null before the first, "
        "or when chunks were computed by different nets (then `engines` lists them)",
    )
    engines: list[Engine] | None = Field(
        None, description="only when the finished chunks' nets differ: each engine that computed some"
    )
    href: str = Field(description="the job's URL")
    report: R = Field(description="the kind's report of the chunks done")


class _Mount:
    """What the routes of one kind share: its paths, its response model and its store."""

    def __init__(self, kind: Any) -> None:
        self.kind = kind
        self.base, self.noun, self.tags = f"/{kind.route}", kind.noun, [kind.route]
        self.model = KindJob[kind.Report]

    def store(self, request: Request) -> KindJobs:
        all_jobs: Jobs = request.app.state.jobs
        return all_jobs.of_kind(self.kind)

    def job(self, job_id: str, status: dict[str, Any]) -> BaseModel:
        return self.model.model_validate({**status, "href": f"/v1/{self.kind.route}/{job_id}"})

    def job_route(self, method: str, below: str, summary: str, **more: Any) -> Callable[[E], E]:
        """A route of one job (``{base}/{job_id}{below}``) that answers with the job."""
        path = f"{self.base}/{{job_id}}{below}"
        return router.api_route(
            path, methods=[method], response_model=self.model, tags=self.tags, summary=summary, **more
        )


def add_routes(kind: Any) -> None:
    """Mount the routes of ``kind`` (a :class:`services.jobs.kind.JobKind` subclass) on :data:`router`."""
    m = _Mount(kind)
    _submit_route(m)
    add_list_route(router, m.base, kind.name, m.noun, m.tags)
    _read_routes(m)
    _events_route(m)
    _cancel_route(m)


def _submit_route(m: _Mount) -> None:
    Store = Annotated[KindJobs, Depends(m.store)]

    @router.post(
        m.base, status_code=202, response_model=m.model, tags=m.tags,
        summary=f"Submit a job: {m.kind.summary}",
        responses=links(202, "accepted; Location is the job's URL", "job_id", "/id", {
            "Get": ("GET", f"{router.prefix}{m.base}/{{job_id}}"),
            "Result": ("GET", f"{router.prefix}{m.base}/{{job_id}}/result"),
            "Cancel": ("DELETE", f"{router.prefix}{m.base}/{{job_id}}"),
        }),
    )  # fmt: skip
    async def submit(body: m.kind.Request, who: Who, s: Store) -> JSONResponse:  # type: ignore[name-defined]
        job_id = await who.submit(
            0, lambda admit: s.submit(body, owner=who.owner, admit=admit), s.jobs.backlog
        )
        try:
            status = await s.status(job_id)
        except ProblemError:  # accepted all the same: the client polls the Location
            status = None
        href = f"/v1/{m.kind.route}/{job_id}"
        content = m.job(job_id, status).model_dump(mode="json") if status else {"id": job_id, "href": href}
        return JSONResponse(content, status_code=202, headers={"Location": href})


def _read_routes(m: _Mount) -> None:
    Store = Annotated[KindJobs, Depends(m.store)]

    @m.job_route("GET", "", f"A {m.noun} job: state, progress, ETA and the report so far")
    async def get(job_id: JobId, who: Who, s: Store) -> Any:
        await check_owner(who, s, job_id)
        return m.job(job_id, await s.status(job_id))

    @m.job_route("GET", "/result", f"The final report of a finished {m.noun} job", responses=NOT_DONE)
    async def result(job_id: JobId, who: Who, s: Store) -> Any:
        await check_owner(who, s, job_id)
        report = await s.result(job_id)
        if report is None:
            raise not_done(job_id, (await s.status(job_id))["state"])
        return m.job(job_id, report)


def _events_route(m: _Mount) -> None:
    Store = Annotated[KindJobs, Depends(m.store)]

    @router.get(
        f"{m.base}/{{job_id}}/events", response_class=StreamingResponse, tags=m.tags,
        summary=f"Server-sent events of a {m.noun} job until it ends",
        responses={200: {"content": {"text/event-stream": {}}, "description": "progress, then the end"}},
    )  # fmt: skip
    async def events(job_id: JobId, request: Request, who: Who, s: Store) -> StreamingResponse:
        await check_owner(who, s, job_id)
        first = await s.status(job_id)  # 404 before the stream starts
        settings = request.app.state.settings

        async def final(st: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
            return (str(st["state"]), st) if st["state"] in ENDED else None

        def view(st: dict[str, Any]) -> dict[str, Any]:
            return m.job(job_id, st).model_dump(mode="json")

        def stream(pace: Pace) -> AsyncIterator[bytes]:
            return job_events(first, lambda: s.status(job_id), view, final, pace, settings.sse_keepalive_s)

        return await streams(request).open(who.owner, job_id, stream)


def _cancel_route(m: _Mount) -> None:
    Store = Annotated[KindJobs, Depends(m.store)]

    @m.job_route(
        "DELETE",
        "",
        f"Cancel a running {m.noun} job (200, its status); remove a finished one (204)",
        responses=REMOVED,
    )
    async def cancel(job_id: JobId, who: Who, s: Store) -> Any:
        await check_owner(who, s, job_id)

        async def state() -> str:
            return str((await s.status(job_id))["state"])

        async def cancelled() -> BaseModel:
            return m.job(job_id, await s.status(job_id))

        return await cancel_or_remove(
            job_id, lambda: s.cancel(job_id), lambda: s.delete(job_id), state, cancelled
        )


for _kind in kinds().values():
    if not _kind.own_routes:  # rollouts keep their older wire format (services.gateway.routers.rollouts)
        add_routes(_kind)
