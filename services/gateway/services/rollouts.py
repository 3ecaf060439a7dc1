"""Rollout and batch rollout jobs below their router: the request bodies (:mod:`services.common.schemas`,
validated by FastAPI), their translation into the kinds' typed requests
(:class:`~services.jobs.kinds.rollout.RolloutParams`, :class:`~services.jobs.kinds.rollout.BatchParams`;
the kinds' library codec reads what the fields mean), submitted through
:class:`~services.gateway.jobs.KindJobs`, the job's JSON with its links, and its events."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Literal

from fastapi.responses import JSONResponse
from pydantic import Field

from services.common.schemas import (
    BatchRequest,
    Candidates,
    Extend,
    PositionInput,
    RolloutOptions,
    RolloutRequest,
)
from services.gateway.jobs import KindJobs
from services.gateway.models import parse_position, renamed
from services.gateway.problems import ProblemError
from services.gateway.security import Client
from services.gateway.sse import Pace, job_events
from services.jobs.kinds.rollout import BatchParams, RolloutParams
from services.jobs.rollout_items import ItemParams
from services.jobs.rollout_models import RolloutReport
from services.jobs.states import ENDED, JobState

Kind = Literal["rollout", "batch"]


class Job(RolloutReport):
    """A rollout or batch job's status (or final report) as the job store reports it
    (:class:`services.jobs.rollout_models.RolloutReport`), with its links."""

    id: str = Field(description="the job's id (as job_id)")
    href: str = Field(description="the job's URL")
    events: str = Field(description="server-sent events of its progress")


#: the request body of each kind's ``POST``
BODIES: dict[Kind, type[RolloutOptions]] = {"rollout": RolloutRequest, "batch": BatchRequest}


def _item(body: RolloutOptions, item: Candidates, position: PositionInput, field: str) -> dict[str, Any]:
    """The fields of one position's item, from a validated body (the limits are the schemas'): the
    position as text, the rule set and cube as the codec reads them.  The gateway reads only a board
    given as an object, or a gnubg ID (its Position ID: the match part is the cube's)."""
    parsed = parse_position(position, field)
    # an XGID keeps its own dice (the kind reads them); other forms go as a Position ID
    text = parsed.xgid.encode() if parsed.xgid is not None else parsed.position.position_id
    return {
        "kind": body.kind,
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


def request_of(kind: Kind, body: RolloutOptions) -> RolloutParams | BatchParams:
    """The kind's typed request of a validated body (built, not validated: the body's limits are the
    kind's, :mod:`services.common.schemas`)."""
    if isinstance(body, RolloutRequest):
        return RolloutParams.model_construct(
            **_item(body, body, body.position, "position"), priority=body.priority
        )
    assert isinstance(body, BatchRequest)
    positions = [
        ItemParams.model_construct(**_item(body, p, p.position, f"positions[{i}].position"), label=p.label)
        for i, p in enumerate(body.positions)
    ]
    return BatchParams.model_construct(positions=positions, defaults=None, priority=body.priority)


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


def job(kind: Kind, job_id: str, status: dict[str, Any]) -> Job:
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
    links: dict[str, Any] = {"id": job_id, "kind": kind, "href": href, "events": f"{href}/events"}
    if set(fields) == {"state"}:  # accepted, its status not readable yet: no report to check
        return Job.model_construct(**links, **fields)
    return Job.model_validate({**fields, **links})


def dump(view: Job) -> dict[str, Any]:
    return view.model_dump(mode="json", exclude_unset=True)


async def _submitted(kind: Kind, job_id: str, store: KindJobs) -> JSONResponse:
    try:
        status = await store.status(job_id)
    except ProblemError:
        status = {"state": JobState.QUEUED}
    view = job(kind, job_id, status)
    return JSONResponse(dump(view), status_code=202, headers={"Location": view.href})


async def submit(kind: Kind, body: RolloutOptions, who: Client, store: KindJobs) -> JSONResponse:
    """Submit one position's rollout, or a batch's as one job, charged their trials: 202 with the job."""
    request = request_of(kind, body)
    positions = len(request.positions) if isinstance(request, BatchParams) else 1
    try:  # the typed request as it is (JobKind.submit's checked() takes a model of its Request unchanged)
        job_id = await who.submit(
            body.trials * positions,
            lambda admit: store.submit(request, owner=who.owner, admit=admit),
            store.jobs.backlog,
        )
    except ProblemError as e:
        raise (_options_at_top(e) if kind == "batch" else e) from None
    return await _submitted(kind, job_id, store)


async def extend(kind: Kind, job_id: str, body: Extend, who: Client, store: KindJobs) -> Job:
    """``body.trials`` more trials for every position of the job, charged them; its status."""
    status = await store.status(job_id)
    positions = max(1, int(status.get("positions", 1) or 1))
    more = {"more_trials": body.trials}
    await who.spend(0, body.trials * positions, lambda admit: store.extend(job_id, more, admit=admit))
    return job(kind, job_id, await store.status(job_id))


async def events(
    kind: Kind, job_id: str, status: dict[str, Any], store: KindJobs, pace: Pace, keepalive_s: float
) -> AsyncIterator[bytes]:
    """``progress`` events while the status changes, then one ``done``, ``failed`` or ``cancelled``."""

    async def final(st: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
        state = JobState(st["state"])
        if state not in ENDED:
            return None
        if state != JobState.DONE:
            return str(state), st
        try:
            st["result"] = await store.result(job_id)
        except ProblemError as e:
            st["result_error"] = e.detail
        return "done", st

    def view(st: dict[str, Any]) -> dict[str, Any]:
        return dump(job(kind, job_id, st))

    async for chunk in job_events(status, lambda: store.status(job_id), view, final, pace, keepalive_s):
        yield chunk
