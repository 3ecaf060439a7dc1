"""The caller's jobs, from the durable store: ``GET /v1/jobs`` (every kind, or ``kind=...``) and one list
route per kind (:func:`add_list_route`), newest first with cursor pagination; what every job route shares
(the path's ``JobId``, the app's :class:`~services.gateway.jobs.Jobs`, the answers its routes document)."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path, Query, Request
from pydantic import BaseModel, ConfigDict, Field

from services.gateway.jobs import Jobs, KindJobs
from services.gateway.models import Epoch, NextCursor
from services.gateway.problems import ProblemError
from services.gateway.security import Client, client
from services.jobs.kinds import kinds

router = APIRouter(prefix="/v1", tags=["jobs"])
Responses = dict[int | str, dict[str, Any]]

JobId = Annotated[str, Path(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9_.\-]+$")]

#: the other answer of a job's final report
NOT_DONE: Responses = {409: {"description": "the job is not done (queued, running, failed or cancelled)"}}
#: the other answer of ``DELETE`` of a job (a running one is cancelled: 200)
REMOVED: Responses = {204: {"description": "the finished job and its results are removed"}}
#: the answer of a job's server-sent events
EVENTS: Responses = {
    200: {"content": {"text/event-stream": {}}, "description": "progress, then a final event"}
}


def jobs(request: Request) -> Jobs:
    """The app's job stores (built in ``create_app``)."""
    return request.app.state.jobs  # type: ignore[no-any-return]


async def check_owner(who: Client, store: KindJobs, job_id: str) -> None:
    """404 unless the caller's key owns the job (in Redis, this process or the durable store)."""
    await asyncio.to_thread(who.check, job_id, store.owner_lookup())


class JobSummary(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="the job's id")
    kind: str = Field(description="rollout, batch, analysis, book, daily or a registered kind")
    state: str = Field(description="queued, running, done, failed or cancelled")
    priority: str | None = Field(None, description="interactive or batch: the queue its chunks go to")
    created: Epoch
    finished: float | None = Field(None, description="when it ended (seconds since the epoch, UTC)")
    error: str | None = Field(None, description="why it failed; null otherwise")
    href: str = Field(description="the job's URL")


class JobList(BaseModel):
    model_config = ConfigDict(extra="forbid")

    jobs: list[JobSummary] = Field(description="newest first")
    next_cursor: NextCursor


HREFS = {
    "rollout": "/v1/rollouts",
    "batch": "/v1/batch-rollouts",
    "analysis": "/v1/analyses",
    "book": "/v1/opening-book/jobs",
    "daily": "/v1/jobs",  # the platform's own (operators: scope=platform)
    **{name: f"/v1/{kind.route}" for name, kind in kinds().items()},
}
#: every kind a job listing may ask for
KindName = Literal[tuple(HREFS)]  # type: ignore[valid-type]
States = Literal["queued", "running", "done", "failed", "cancelled"]
Limit = Annotated[int, Query(ge=1, le=200, description="jobs per page")]
Cursor = Annotated[str | None, Query(max_length=200, description="from the last page's next_cursor")]
StateFilter = Annotated[list[States] | None, Query(description="only jobs in these states")]


Scope = Annotated[
    Literal["mine", "platform"],
    Query(
        description="mine: your jobs; platform: the platform's own (daily puzzles, ...), for operator keys"
    ),
]


def owner_for(who: Client, scope: str) -> str | None:
    """Whose jobs ``who`` lists with ``scope`` (None: the platform's); 403 for a key that is no operator."""
    if scope == "mine":
        return who.owner
    if not who.limits.operator:
        raise ProblemError(
            403,
            "the platform's jobs are for operator keys",
            kind="forbidden",
            errors=[("scope", "not allowed")],
        )
    return None


async def job_list(
    who: Client,
    store: Jobs,
    kinds: list[str] | None,
    state: list[States] | None,
    limit: int,
    cursor: str | None,
    scope: str = "mine",
) -> JobList:
    owner = owner_for(who, scope)
    rows, nxt = await store.listing(owner, kinds=kinds, states=state, limit=limit, cursor=cursor)
    return JobList(
        jobs=[JobSummary(**r.summary(), href=f"{HREFS.get(r.kind, '/v1/jobs')}/{r.id}") for r in rows],
        next_cursor=nxt,
    )


@router.get("/jobs", summary="All your jobs (rollouts, batches, analyses, books, ...), newest first")
async def list_jobs(
    who: Annotated[Client, Depends(client)],
    store: Annotated[Jobs, Depends(jobs)],
    kind: Annotated[list[KindName] | None, Query(description="only these kinds")] = None,  # type: ignore[valid-type]
    state: StateFilter = None,
    limit: Limit = 50,
    cursor: Cursor = None,
    scope: Scope = "mine",
) -> JobList:
    return await job_list(who, store, list(kind) if kind else None, state, limit, cursor, scope)


@router.get(
    "/jobs/{job_id}",
    response_model=JobSummary,
    summary="One of your jobs (or, for operator keys, the platform's), from the durable store",
    responses={404: {"description": "no such job of yours"}},
)
async def get_job(
    job_id: JobId, who: Annotated[Client, Depends(client)], store: Annotated[Jobs, Depends(jobs)]
) -> JobSummary:
    row = await store.row(job_id)
    mine = row is not None and row.owner == who.owner
    platform = row is not None and row.owner is None and who.limits.operator
    if not (mine or platform):
        raise ProblemError(404, f"no job {job_id!r}", kind="not-found", errors=[("job_id", "unknown job")])
    return JobSummary(**row.summary(), href=f"{HREFS.get(row.kind, '/v1/jobs')}/{row.id}")


def add_list_route(on: APIRouter, path: str, kind: str, noun: str, tags: list[str] | None = None) -> None:
    """``GET {path}``: the caller's jobs of ``kind``, newest first (cursor pagination)."""

    @on.get(path, summary=f"Your {noun} jobs, newest first (cursor pagination)", tags=tags)  # type: ignore[arg-type]
    async def list_kind(
        who: Annotated[Client, Depends(client)],
        store: Annotated[Jobs, Depends(jobs)],
        state: StateFilter = None,
        limit: Limit = 50,
        cursor: Cursor = None,
    ) -> JobList:
        return await job_list(who, store, [kind], state, limit, cursor)
