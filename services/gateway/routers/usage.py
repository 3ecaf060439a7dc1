"""``GET /v1/usage``: the caller's spending today (UTC) against its key's limits, and the problem+json of
a refusal on cost (:class:`~services.gateway.security.CostProblem`: ``estimate_core_s``, ``limit_core_s``).

Every job is charged its estimated core-seconds when it is accepted (:mod:`services.gateway.security`), a
request answered at once the measured time of its engine calls (:mod:`services.common.metering`); the
spending starts again at midnight UTC (``resets_at``)."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from typing import Annotated

from fastapi import APIRouter, Depends, FastAPI, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from services.gateway.problems import problem_response
from services.gateway.security import Client, CostProblem, client, seconds_to_reset

router = APIRouter(prefix="/v1", tags=["usage"])


class Spending(BaseModel):
    """One quantity of the day: used, the key's daily limit, and what is left of it."""

    model_config = ConfigDict(extra="forbid")

    used: float = Field(description="charged today")
    limit: float = Field(description="the key's daily limit")
    remaining: float = Field(description="limit - used (never below 0)")


class UsageReport(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "key": "web",
                    "day": "2026-12-06",
                    "resets_at": "2026-12-07T00:00:00Z",
                    "jobs": {"used": 3, "limit": 200, "remaining": 197},
                    "trials": {"used": 3888, "limit": 5000000, "remaining": 4996112},
                    "core_s": {"used": 97.2, "limit": 1000000, "remaining": 999902.8},
                    "max_job_core_s": 200000,
                }
            ]
        },
    )

    key: str = Field(description="the key's name (never its secret)")
    day: str = Field(description="the UTC day counted (YYYY-MM-DD)")
    resets_at: str = Field(description="when the day's counts start again (midnight UTC, ISO 8601)")
    jobs: Spending = Field(description="jobs submitted today (every kind)")
    trials: Spending = Field(
        description="rollout trials submitted today (rollouts, batches, books, extensions)"
    )
    core_s: Spending = Field(
        description="today's core-seconds: the estimates of its jobs (every kind) and the measured engine "
        "time of the requests answered at once"
    )
    max_job_core_s: float = Field(description="the most one job may cost, in estimated core-seconds")


def _spending(used: float, limit: float) -> Spending:
    return Spending(used=round(used, 3), limit=limit, remaining=round(max(0.0, limit - used), 3))


@router.get(
    "/usage", response_model=UsageReport, summary="Your key's spending today: jobs, trials, core-seconds"
)
async def get_usage(request: Request, who: Annotated[Client, Depends(client)]) -> UsageReport:
    usage = await asyncio.to_thread(who.guard.usage, who.secret)
    limits = who.limits
    now = datetime.now(UTC)
    reset = (now + timedelta(seconds=seconds_to_reset(now))).replace(microsecond=0)
    return UsageReport(
        key=limits.name,
        day=usage.day,
        resets_at=reset.strftime("%Y-%m-%dT%H:%M:%SZ"),
        jobs=_spending(usage.jobs, limits.daily_jobs),
        trials=_spending(usage.trials, limits.daily_trials),
        core_s=_spending(usage.core_s, limits.daily_core_s),
        max_job_core_s=limits.max_job_core_s,
    )


def install(app: FastAPI) -> None:
    """Mount ``/v1/usage`` and answer refusals on cost with their estimate and limit."""

    @app.exception_handler(CostProblem)
    async def _cost(request: Request, exc: CostProblem) -> JSONResponse:
        response = problem_response(
            exc.status, exc.detail, kind=exc.kind, title=exc.title, errors=exc.errors, headers=exc.headers
        )
        body = json.loads(bytes(response.body))
        body.update(exc.extra)
        return JSONResponse(body, status_code=exc.status, headers=exc.headers, media_type=response.media_type)

    app.include_router(router)
