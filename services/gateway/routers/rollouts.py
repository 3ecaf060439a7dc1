"""Rollouts as jobs: submit (202 + ``Location``), progress, server-sent events, cancel, extend, batches.

``"kind": "cube"`` rolls out the cube decision of a position before the roll (no double and
double/take with the same dice, double/pass exact) instead of the position or its candidate plays.

Jobs live in the rollout service's job store (Redis) and, with ``PULVEZAR_DATABASE_URL``, in the durable
store (the system of record: ``GET /v1/rollouts`` and ``GET /v1/jobs`` list the caller's jobs from there);
each submission counts against the key's daily job and trial quota.  ``DELETE`` cancels a running job
and removes a finished one's stored results.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import Field

from services.gateway.jobs import Jobs, cancel_or_remove, not_done
from services.gateway.links import links
from services.gateway.models import (
    CubeInput,
    Dice,
    PositionInput,
    RulesField,
    Strict,
    parse_position,
    renamed,
)
from services.gateway.problems import ProblemError, invalid
from services.gateway.routers.job_lists import JobId, add_list_route, jobs
from services.gateway.security import Client, client
from services.gateway.sse import Pace, job_events, streams
from services.jobs.rollout_models import RolloutReport
from services.jobs.states import ENDED, JobState

router = APIRouter(prefix="/v1", tags=["rollouts"])

Priority = Literal["interactive", "batch"]
ACCEPTED = (
    "accepted; the job is at the Location header (its status; only id, kind, state, href and events "
    "when the store could not report it at once)"
)


class RolloutOptions(Strict):
    kind: Literal["position", "cube"] = Field(
        "position",
        description="position: the position (or the candidate plays of dice); cube: its cube decision "
        "before the roll (always cubeful; `cube` gives the cube and score, no dice or plays)",
    )
    trials: int = Field(1296, ge=1, description="trials (games) to play; a multiple of 36 balances the dice")
    ply: int = Field(0, ge=0, le=2, description="the search depth that chooses each trial's plays (0..2)")
    prune: bool = Field(
        True,
        description="ply 1 or 2: the trials' search prunes the replies (the screening net keeps each roll's "
        "4 best); false: the unpruned search (ignored at ply 0, which does not search)",
    )
    seed: int = Field(1, ge=0, lt=2**63, description="the dice of trial i depend on (seed, i) only")
    variance_reduction: bool = True
    luck: Literal["screened", "full"] = Field(
        "screened",
        description="variance reduction's 21 rolls: 'screened' values the plays a cheap net ranks first "
        "(0-ply trials; unbiased, faster), 'full' values every play",
    )
    truncate: int | None = Field(None, ge=1, le=1000, description="stop each trial after N half-moves")
    rules: RulesField
    cubeful: bool = Field(
        False, description="play the cube in the trials and report cubeful equity (international rules)"
    )
    cube: CubeInput | None = Field(
        None, description="cubeful only: the cube and score, as the player on roll sees it; centred money"
    )


class Candidates(Strict):
    dice: Dice | None = Field(None, description="roll out the candidate plays of this roll (after it)")
    plays: (
        Annotated[list[Annotated[str, Field(max_length=100)]], Field(min_length=1, max_length=64)] | None
    ) = Field(None, description="the candidates in notation; default: every legal play of the dice")


class RolloutRequest(RolloutOptions, Candidates):
    position: PositionInput
    priority: Priority = "interactive"


class BatchPosition(Candidates):
    position: PositionInput
    label: str | None = Field(None, max_length=200, description="the client's name for it, echoed back")


class BatchRequest(RolloutOptions):
    positions: Annotated[list[BatchPosition], Field(min_length=1)]
    priority: Priority = "batch"


class Extend(Strict):
    trials: int = Field(ge=1, description="more trials per position")


class Job(RolloutReport):
    """A rollout or batch job's status (or final report) as the job store reports it
    (:class:`services.jobs.rollout_models.RolloutReport`), with its links."""

    id: str = Field(description="the job's id (as job_id)")
    href: str = Field(description="the job's URL")
    events: str = Field(description="server-sent events of its progress")


def _params(
    body: RolloutOptions, item: Candidates, position: Any, field: str, settings: Any
) -> dict[str, Any]:
    """The job store's parameters of one position: the body as the job's item
    (:func:`services.jobs.rollout_items.normalise_item` checks what they mean, once, naming its fields).
    The gateway checks only what is its own: its trial limit, and a board given as an object."""
    if body.trials > settings.max_trials:
        raise invalid("trials", f"at most {settings.max_trials} trials per position, got {body.trials}")
    parsed = parse_position(position, field)
    # an XGID keeps its own dice (the store reads them); other forms go as a Position ID
    text = parsed.xgid.encode() if parsed.xgid is not None else parsed.position.position_id
    params: dict[str, Any] = {
        "position": text,
        "dice": list(item.dice) if item.dice is not None else None,
        "plays": item.plays,
        "rules": body.rules.model_dump(),
        "trials": body.trials,
        "ply": body.ply,
        "prune": body.prune,
        "seed": body.seed,
        "variance_reduction": body.variance_reduction,
        "luck": body.luck,
        "truncate": body.truncate,
        "cubeful": body.cubeful,
        "cube": body.cube.model_dump() if body.cube is not None else None,
    }
    if body.kind == "cube":
        params["kind"] = "cube"
    return params


_OPTIONS = frozenset(RolloutOptions.model_fields)


def _options_at_top(problem: ProblemError) -> ProblemError:
    """A batch's options are given once, at the top of the body: the store's ``positions[i].cube`` is
    the body's ``cube`` (its positions' own fields, ``positions[i].dice``, stay as they are)."""
    names = {}
    for f, _reason in problem.errors:
        head, _, rest = f.partition("].")
        if head.startswith("positions[") and rest.split(".")[0].split("[")[0] in _OPTIONS:
            names[f] = rest
    return renamed(problem, names) if names else problem


def _job(kind: str, job_id: str, status: dict[str, Any]) -> Job:
    """The store's status (or report) with the links; serialise with ``exclude_unset`` (a key the
    store left out stays out).  A status the store could not give at submission (only ``state``)
    is the job's links and state alone."""
    if status.get("kind") in ("rollout", "batch"):  # the store knows best
        kind = status["kind"]
    base = "rollouts" if kind == "rollout" else "batch-rollouts"
    href = f"/v1/{base}/{job_id}"
    fields = {k: v for k, v in status.items() if k not in ("id", "kind", "href", "events")}
    fields.setdefault("state", JobState.QUEUED)
    fields["state"] = str(fields["state"])
    links = {"id": job_id, "kind": kind, "href": href, "events": f"{href}/events"}
    if set(fields) == {"state"}:  # accepted, its status not readable yet: no report to check
        return Job.model_construct(**links, **fields)
    return Job.model_validate({**fields, **links})


def _dump(job: Job) -> dict[str, Any]:
    return job.model_dump(mode="json", exclude_unset=True)


async def _submitted(kind: str, job_id: str, store: Jobs) -> JSONResponse:
    try:
        status = await store.status(job_id)
    except ProblemError:
        status = {"state": JobState.QUEUED}
    job = _job(kind, job_id, status)
    return JSONResponse(_dump(job), status_code=202, headers={"Location": job.href})


def _job_links(base: str) -> dict[str, tuple[str, str]]:
    """Where a new job's id goes (OpenAPI links: clients and schemathesis's stateful phase)."""
    job = f"{base}/{{job_id}}"
    return {
        "GetJob": ("GET", job),
        "Result": ("GET", f"{job}/result"),
        "Cancel": ("DELETE", job),
        "Extend": ("POST", f"{job}/extend"),
    }


@router.post(
    "/rollouts",
    status_code=202,
    response_model=Job,
    summary="Start a rollout job",
    responses=links(202, ACCEPTED, "job_id", "/job_id", _job_links("/v1/rollouts")),
)
async def submit_rollout(
    body: RolloutRequest,
    request: Request,
    who: Annotated[Client, Depends(client)],
    store: Annotated[Jobs, Depends(jobs)],
) -> JSONResponse:
    params = _params(body, body, body.position, "position", request.app.state.settings)
    job_id = await who.submit(
        body.trials,
        lambda admit: store.submit_rollout(params, priority=body.priority, owner=who.owner, admit=admit),
        store.backlog,
    )
    return await _submitted("rollout", job_id, store)


@router.post(
    "/batch-rollouts",
    status_code=202,
    response_model=Job,
    summary="Start a batch rollout job",
    responses=links(202, ACCEPTED, "job_id", "/job_id", _job_links("/v1/batch-rollouts")),
)
async def submit_batch(
    body: BatchRequest,
    request: Request,
    who: Annotated[Client, Depends(client)],
    store: Annotated[Jobs, Depends(jobs)],
) -> JSONResponse:
    settings = request.app.state.settings
    if len(body.positions) > settings.max_batch_positions:
        raise invalid(
            "positions", f"at most {settings.max_batch_positions} positions, got {len(body.positions)}"
        )
    positions = []
    for i, item in enumerate(body.positions):
        params = _params(body, item, item.position, f"positions[{i}].position", settings)
        if item.label is not None:
            params["label"] = item.label
        positions.append(params)
    trials = body.trials * len(positions)
    try:
        job_id = await who.submit(
            trials,
            lambda admit: store.submit_batch(positions, priority=body.priority, owner=who.owner, admit=admit),
            store.backlog,
        )
    except ProblemError as e:
        raise _options_at_top(e) from None
    return await _submitted("batch", job_id, store)


async def check(who: Client, store: Jobs, job_id: str) -> None:
    """404 unless the caller's key owns the job (in Redis, this process or the durable store)."""
    await asyncio.to_thread(who.check, job_id, store.owner_lookup())


def _routes(kind: Literal["rollout", "batch"], base: str) -> None:
    add_list_route(router, f"/{base}", kind, kind)

    @router.get(
        f"/{base}/{{job_id}}",
        response_model=Job,
        response_model_exclude_unset=True,
        summary=f"A {kind} job: state, trials, progress, ETA, partial results",
    )
    async def get_job(
        job_id: JobId, who: Annotated[Client, Depends(client)], store: Annotated[Jobs, Depends(jobs)]
    ) -> Job:
        await check(who, store, job_id)
        return _job(kind, job_id, await store.status(job_id))

    @router.get(
        f"/{base}/{{job_id}}/result",
        response_model=Job,
        response_model_exclude_unset=True,
        summary=f"The final report of a finished {kind} job (what the events' done event carries)",
        responses={409: {"description": "the job is not done (queued, running, failed or cancelled)"}},
    )
    async def get_result(
        job_id: JobId, who: Annotated[Client, Depends(client)], store: Annotated[Jobs, Depends(jobs)]
    ) -> Job:
        """As the status, with each result's halves, per-probability errors and, for candidate plays,
        each one's difference to the best with its noise and whether it is playable."""
        await check(who, store, job_id)
        report = await store.result(job_id)
        if report is None:
            raise not_done(job_id, str((await store.status(job_id)).get("state", JobState.QUEUED)))
        return _job(kind, job_id, report)

    @router.get(
        f"/{base}/{{job_id}}/events",
        response_class=StreamingResponse,
        summary=f"Server-sent events of a {kind} job until it ends",
        responses={
            200: {"content": {"text/event-stream": {}}, "description": "progress, then a final event"}
        },
    )
    async def job_events(
        job_id: JobId,
        request: Request,
        who: Annotated[Client, Depends(client)],
        store: Annotated[Jobs, Depends(jobs)],
    ) -> StreamingResponse:
        await check(who, store, job_id)
        first = await store.status(job_id)  # 404 before the stream starts
        keepalive = request.app.state.settings.sse_keepalive_s
        return await streams(request).open(
            who.owner, job_id, lambda pace: _events(kind, job_id, first, store, pace, keepalive)
        )

    @router.delete(
        f"/{base}/{{job_id}}",
        response_model=Job,
        response_model_exclude_unset=True,
        summary=f"Cancel a running {kind} job (200, its status); remove a finished one's results (204)",
        responses={204: {"description": "the finished job and its results are removed"}},
    )
    async def cancel_job(
        job_id: JobId, who: Annotated[Client, Depends(client)], store: Annotated[Jobs, Depends(jobs)]
    ) -> Any:
        await check(who, store, job_id)
        await store.status(job_id)  # 404 first

        async def state() -> str:
            return str((await store.status(job_id)).get("state"))

        async def cancelled() -> Job:
            return _job(kind, job_id, await store.status(job_id))

        return await cancel_or_remove(
            job_id, lambda: store.cancel(job_id), lambda: store.delete(job_id), state, cancelled
        )

    @router.post(
        f"/{base}/{{job_id}}/extend",
        status_code=202,
        response_model=Job,
        response_model_exclude_unset=True,
        summary=f"Add trials to a {kind} job",
    )
    async def extend_job(
        job_id: JobId,
        body: Extend,
        request: Request,
        who: Annotated[Client, Depends(client)],
        store: Annotated[Jobs, Depends(jobs)],
    ) -> Job:
        await check(who, store, job_id)
        status = await store.status(job_id)
        limit = request.app.state.settings.max_trials
        if body.trials > limit:
            raise invalid("trials", f"at most {limit} more trials, got {body.trials}")
        positions = max(1, int(status.get("positions", 1) or 1))
        await who.spend(
            0, body.trials * positions, lambda admit: store.extend(job_id, body.trials, admit=admit)
        )
        return _job(kind, job_id, await store.status(job_id))


_routes("rollout", "rollouts")
_routes("batch", "batch-rollouts")


async def _events(
    kind: Literal["rollout", "batch"],
    job_id: str,
    status: dict[str, Any],
    store: Jobs,
    pace: Pace,
    keepalive_s: float,
) -> AsyncIterator[bytes]:
    """``progress`` events while the status changes, then one ``done``, ``failed`` or ``cancelled``."""

    async def final(job: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
        state = JobState(job["state"])
        if state not in ENDED:
            return None
        if state != JobState.DONE:
            return str(state), job
        try:
            job["result"] = await store.result(job_id)
        except ProblemError as e:
            job["result_error"] = e.detail
        return "done", job

    def view(st: dict[str, Any]) -> dict[str, Any]:
        return _dump(_job(kind, job_id, st))

    async for chunk in job_events(status, lambda: store.status(job_id), view, final, pace, keepalive_s):
        yield chunk
