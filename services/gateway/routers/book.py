"""``/v1/opening-book``: the shipped opening books, and jobs that generate new ones.

``GET /v1/opening-book?rules=international|tavla[&roll=31]`` serves the book that ships in
``data/book/`` (:func:`pulvezar.book.load_book`), or one roll of it.  ``POST
/v1/opening-book/jobs`` starts a generation on the workers (the job kind
:class:`services.jobs.kinds.book.BookKind`: searches, rollouts and replies as chunks, batch priority) and
answers 202 with the job; ``GET /v1/opening-book/jobs/{id}`` reports its progress and, once done, holds
the book.  The same settings give the same job id, so posting them again returns that job (a failed one
runs again, its finished chunks kept).

A book job is a ``jobs`` row of kind ``book`` with its chunks in the durable store, and a job that Redis
lost is served, and continued, from there; rows written by the older driver (step blobs) stay readable.
A book job belongs to the key that submitted it (``GET /v1/jobs`` of that key lists it, ``href`` here);
another key gets 404, and submitting the same settings gives it a job of its own (the job id is a digest
of the settings, the engine and the owner).  Each submission is charged the job's estimated core-seconds
(:func:`services.jobs.kinds.book.book_cost`).  A database that cannot be reached is a 503 with
Retry-After.  The work is below, in :mod:`services.gateway.services.book`.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request
from fastapi import Path as PathParam
from fastapi.responses import JSONResponse

from services.gateway.security import Client, client
from services.gateway.services import book
from services.gateway.services.book import (
    BookJob,
    BookJobRequest,
    QuizAnswer,
    QuizQuestion,
    QuizResult,
    Variant,
    book_jobs,
)
from services.gateway.services.deps import player_records

router = APIRouter(prefix="/v1/opening-book", tags=["opening book"])

Who = Annotated[Client, Depends(client)]


@router.get(
    "",
    summary="The shipped opening book of a rule set (or one roll of it)",
    description="For each opening roll (international: the 15 non-doubles; Tavla: all 21) the best "
    "candidates with their loss, win and gammon chances (each equity the mean of a search and a "
    "rollout; chances from the rollout), and the best reply to each of the opponent's 21 rolls after "
    "the best play. `engine` and `settings` say what made it; `provenance` names its net as every "
    "evaluation does (GET /v1/models).",
)
async def get_book(
    _: Who,
    rules: Annotated[Variant, Query(description="the rule set")] = "international",
    roll: Annotated[
        str | None, Query(max_length=3, description="one opening roll, e.g. 31 (larger die first or not)")
    ] = None,
) -> JSONResponse:
    return JSONResponse(book.book_view(rules, roll))


@router.post(
    "/jobs",
    status_code=202,
    response_model=BookJob,
    summary="Start (or continue) generating an opening book on the rollout workers",
    responses={202: {"description": "accepted; the job is at the Location header"}},
)
async def submit_book_job(body: BookJobRequest, request: Request, who: Who) -> JSONResponse:
    st = await book.submit(book_jobs(request), body, who)  # a valid body first: 503 without a job store
    return JSONResponse(st, status_code=202, headers={"Location": st["href"]})


@router.get(
    "/jobs/{job_id}", response_model=BookJob, summary="A book job: state, progress and, once done, the book"
)
async def get_book_job(
    job_id: Annotated[str, PathParam(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9_.\-]+$")],
    request: Request,
    who: Who,
) -> JSONResponse:
    return JSONResponse(await book.read(book_jobs(request), job_id, who))


@router.get("/quiz", summary="A random opening roll of the book to find the best play for")
async def quiz(
    rules: Annotated[Variant, Query(description="the book's rule set", examples=["tavla"])] = "international",
) -> QuizQuestion:
    return book.question(rules)


@router.post("/quiz/answers", summary="Answer the opening quiz: the book's best play or not, the streak")
async def quiz_answer(body: QuizAnswer, request: Request, who: Who) -> QuizResult:
    return await book.answer(body, who.owner, lambda: player_records(request))
