"""``/v1/opening-book``: the shipped opening books, and jobs that generate new ones.

``GET /v1/opening-book?rules=international|tavla[&roll=31]`` serves the book that ships in
``data/book/`` (:func:`pulvezar.book.load_book`), or one roll of it.  ``POST
/v1/opening-book/jobs`` starts a generation on the rollout workers
(:class:`services.jobs.book.BookJobs`, batch priority) and answers 202 with the job;
``GET /v1/opening-book/jobs/{id}`` reports its progress and, once done, holds the book.  The
same settings give the same job id, so posting them again continues (or returns) that job.

The job's searches run on the workers (the ``pulvezar.book.drive`` task, queued here); a job whose
driver is gone (a lost worker, a Redis restarted empty) gets a new one when it is read.

With the durable store (``PULVEZAR_DATABASE_URL``) a book job is a ``jobs`` row of kind ``book``,
its finished steps and the finished book are stored there as they are done
(:mod:`services.jobs.book`), and a job that Redis lost is served, and continued, from there.
A book job belongs to the key that submitted it (``GET /v1/jobs`` of that key lists it, ``href``
here), and so does its batch rollout job (``rollout_job``); another key gets 404 for both, and
submitting the same settings gives it a job of its own (the job id is a digest of the settings and the
owner).  Each submission is charged the job's estimated core-seconds
(:func:`services.jobs.book_store.book_cost`).  A database that cannot be reached is a 503 with
Retry-After.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Request
from fastapi import Path as PathParam
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from pulvezar.book.model import Book, BookError, book_path, parse_roll, read_book, roll_json
from pulvezar.errors import PulvezarError
from services.gateway.durable import store_call, unavailable
from services.gateway.jobs import owner_lookup
from services.gateway.problems import ProblemError, invalid
from services.gateway.security import Client, client
from services.jobs.book_models import BookStatus
from services.jobs.provenance import engine_of
from services.store.db import StoreUnavailable

router = APIRouter(prefix="/v1/opening-book", tags=["opening book"])

Variant = Literal["international", "tavla"]
_BOOKS: dict[str, tuple[float, Book]] = {}


def shipped(variant: str) -> Book:
    """The shipped book of ``variant``, read again when its file changes."""
    path: Path = book_path(variant)
    try:
        mtime = path.stat().st_mtime
    except OSError:
        raise ProblemError(503, f"no {variant} opening book is installed", kind="book-unavailable") from None
    cached = _BOOKS.get(variant)
    if cached is None or cached[0] != mtime:
        try:
            cached = (mtime, read_book(path))
        except BookError as e:
            raise ProblemError(
                503, f"the {variant} opening book is damaged: {e}", kind="book-unavailable"
            ) from None
        _BOOKS[variant] = cached
    return cached[1]


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
    _: Annotated[Client, Depends(client)],
    rules: Annotated[Variant, Query(description="the rule set")] = "international",
    roll: Annotated[
        str | None, Query(max_length=3, description="one opening roll, e.g. 31 (larger die first or not)")
    ] = None,
) -> JSONResponse:
    book = shipped(rules)
    provenance = engine_of(book.engine).model_dump()  # the book file's own engine, not the default net
    if roll is None:
        return JSONResponse({**book.to_json(), "provenance": provenance})
    dice = parse_roll(roll, "roll")
    if rules == "international" and dice[0] == dice[1]:
        raise invalid("roll", f"{roll}: a double is no opening roll in international backgammon")
    try:
        entry = book.roll(dice)
    except BookError as e:
        raise ProblemError(404, str(e), kind="not-found", errors=[("roll", str(e))]) from None
    head = book.to_json()
    head.pop("rolls")
    return JSONResponse({**head, "provenance": provenance, "roll": roll_json(entry)})


class BookJobRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    rules: Variant = "international"
    rolls: Annotated[list[Annotated[str, Field(max_length=3)]], Field(min_length=1, max_length=21)] | None = (
        Field(None, description="only these opening rolls (default: all of the rule set)")
    )
    trials: int = Field(5184, ge=36, le=1_000_000, description="rollout trials per candidate")
    candidates: int = Field(5, ge=1, le=10, description="at most this many candidates per roll ...")
    threshold: float = Field(0.16, ge=0, le=1, description="... within this equity of the best")
    ply: int = Field(3, ge=0, le=3, description="search depth of the candidates")
    reply_ply: int = Field(3, ge=0, le=3, description="search depth of the replies")
    rollout_ply: int = Field(0, ge=0, le=2, description="search depth of the plays in the rollout trials")
    truncate: int | None = Field(None, ge=1, le=1000, description="half-moves per trial; none: to the end")
    seed: int = Field(1, ge=0, lt=2**63)


class BookJob(BookStatus):
    """A book job's status (:class:`services.jobs.book_models.BookStatus`), its link and, once it is
    done, the book."""

    href: str = Field(description="the job's URL")
    book: dict[str, Any] | None = Field(
        None,
        description="done only: the book, in the format of the shipped books (GET /v1/opening-book); "
        "null if it cannot be read",
    )


def _book_job(st: dict[str, Any]) -> dict[str, Any]:
    """The status as declared (``book`` only once done: a key the status left out stays out)."""
    return BookJob.model_validate(st).model_dump(mode="json", exclude_unset=True)


def _book_jobs(request: Request) -> Any:
    """The app's :class:`BookJobs` (made on first use from the rollout job store)."""
    app = request.app
    jobs = getattr(app.state, "book_jobs", None)
    if jobs is not None:
        return jobs
    store = app.state.jobs.store
    if store is None or not hasattr(store, "redis"):
        raise ProblemError(
            503, "book jobs need the rollout job store (not configured here)", kind="jobs-unavailable"
        )
    from services.jobs.book import BookJobs

    app.state.book_jobs = jobs = BookJobs(store)
    return jobs


async def _status(jobs: Any, book_id: str) -> dict[str, Any]:
    try:
        st: dict[str, Any] = await asyncio.to_thread(jobs.status, book_id)
        st["href"] = f"/v1/opening-book/jobs/{book_id}"
        if st["state"] == "done":
            book = await asyncio.to_thread(jobs.book, book_id)
            st["book"] = book.to_json() if book is not None else None
    except LookupError:
        raise ProblemError(
            404, f"no book job {book_id!r}", kind="not-found", errors=[("job_id", "unknown job")]
        ) from None
    except StoreUnavailable:  # Redis lost the job and the database cannot be reached now
        raise unavailable() from None
    return st


@router.post(
    "/jobs",
    status_code=202,
    response_model=BookJob,
    summary="Start (or continue) generating an opening book on the rollout workers",
    responses={202: {"description": "accepted; the job is at the Location header"}},
)
async def submit_book_job(
    body: BookJobRequest, request: Request, who: Annotated[Client, Depends(client)]
) -> JSONResponse:
    jobs = _book_jobs(request)
    from pulvezar.book.model import opening_rolls

    rolls = None
    if body.rolls is not None:
        rolls = tuple(parse_roll(r, f"rolls[{i}]") for i, r in enumerate(body.rolls))
        allowed = opening_rolls(body.rules)
        for i, r in enumerate(rolls):
            if r not in allowed:
                raise invalid(f"rolls[{i}]", f"{r[0]}{r[1]} is not an opening roll of {body.rules}")
    n_rolls = len(rolls) if rolls is not None else len(opening_rolls(body.rules))
    trials = body.trials * body.candidates * n_rolls
    try:
        book_id = await who.spend(
            1, trials, lambda admit: asyncio.to_thread(_submit, jobs, body, rolls, who.owner, admit)
        )
    except StoreUnavailable:  # not accepted (the quota is refunded)
        raise unavailable() from None
    except BookError as e:
        raise invalid(e.field or "request", str(e)) from None
    await asyncio.to_thread(who.claim, book_id)
    await asyncio.to_thread(_schedule, jobs, book_id)
    st = await _status(jobs, book_id)
    return JSONResponse(_book_job(st), status_code=202, headers={"Location": st["href"]})


def _schedule(jobs: Any, book_id: str) -> None:
    """Queue the job's driver task on the workers (the searches run there, not in the gateway)."""
    from services.jobs.book import schedule

    schedule(jobs, book_id)


def _submit(
    jobs: Any,
    body: BookJobRequest,
    rolls: tuple[tuple[int, int], ...] | None,
    owner: str | None,
    admit: Callable[[float], None],
) -> str:
    from pulvezar.book.generate import BookSettings

    settings = BookSettings.from_args(body, rolls=rolls, chunk_size=jobs.store.settings.chunk_size)
    book_id: str = jobs.submit(settings, priority="batch", owner=owner, admit=admit)
    return book_id


async def _check(who: Client, jobs: Any, book_id: str) -> None:
    """404 unless the caller's key owns the book job (an operator key: or it is the platform's)."""
    await asyncio.to_thread(who.check, book_id, owner_lookup(jobs.store))


@router.get(
    "/jobs/{job_id}", response_model=BookJob, summary="A book job: state, progress and, once done, the book"
)
async def get_book_job(
    job_id: Annotated[str, PathParam(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9_.\-]+$")],
    request: Request,
    who: Annotated[Client, Depends(client)],
) -> JSONResponse:
    jobs = _book_jobs(request)
    await _check(who, jobs, job_id)
    st = await _status(jobs, job_id)
    if st.get("rollout_job") and jobs.records is None:  # no durable owner: the book's owner owns it
        await asyncio.to_thread(who.claim, st["rollout_job"])
    if st["state"] not in ("done", "failed") and not st["driver"]:
        await asyncio.to_thread(_schedule, jobs, job_id)  # no driver working or queued: queue one
    return JSONResponse(_book_job(st))


# ---- the opening quiz (issue 30): a random opening roll, the best play found, a player's streak
class QuizQuestion(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"rules": "international", "roll": "31", "dice": [3, 1], "position_id": "4HPwATDgc/ABMA"}
            ]
        }
    )

    rules: str = Field(description="international or tavla")
    roll: str = Field(description="the opening roll to play, e.g. 31")
    dice: list[int] = Field(description="the same as two dice")
    position_id: str = Field(description="the starting position, the player on roll's view")


class QuizAnswer(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"rules": "international", "roll": "31", "notation": "8/5 6/5"}]},
    )
    rules: Variant = Field("international", description="the book's rule set")
    roll: str = Field(pattern=r"^[1-6][1-6]$", description="the roll answered, e.g. 31")
    notation: str = Field(max_length=64, description="the play, e.g. 8/5 6/5")
    player: str | None = Field(None, max_length=32, description="the player whose streak it counts for")


class QuizResult(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "correct": False,
                    "best": "8/5 6/5",
                    "loss": 0.1436,
                    "counters": {"tried": 12, "correct": 9, "streak": 0, "best_streak": 5},
                }
            ]
        }
    )

    correct: bool = Field(description="the book's best play (in any order of its moves)")
    best: str = Field(description="the book's best play")
    loss: float | None = Field(
        description="the book's loss of the play answered; null for one it does not list"
    )
    counters: dict[str, int] | None = Field(description="with player: tried, correct, streak, best_streak")


@router.get("/quiz", summary="A random opening roll of the book to find the best play for")
async def quiz(
    rules: Annotated[Variant, Query(description="the book's rule set", examples=["tavla"])] = "international",
) -> QuizQuestion:
    import secrets

    book = shipped(rules)
    entry = book.rolls[secrets.randbelow(len(book.rolls))]
    return QuizQuestion(rules=rules, roll=entry.roll, dice=list(entry.dice), position_id=book.position_id)


@router.post("/quiz/answers", summary="Answer the opening quiz: the book's best play or not, the streak")
async def quiz_answer(
    body: QuizAnswer, request: Request, who: Annotated[Client, Depends(client)]
) -> QuizResult:
    from pulvezar import Position, Rules
    from pulvezar.rules.notation import parse_play

    book = shipped(body.rules)
    entry = next((r for r in book.rolls if sorted(r.roll) == sorted(body.roll)), None)
    if entry is None:
        raise invalid("roll", f"no opening roll {body.roll} in the {body.rules} book")
    rules = Rules.tavla() if body.rules == "tavla" else Rules.international()
    try:
        played = parse_play(body.notation, Position.from_position_id(book.position_id), entry.dice, rules)
    except PulvezarError as e:
        raise invalid("notation", str(e)) from None
    best = entry.candidates[0]
    listed = {c.position_id: c.loss for c in entry.candidates}
    correct = played.position.position_id == best.position_id
    counters = None
    if body.player is not None:
        from services.gateway.routers.players import records

        kind = f"opening-quiz-{body.rules}"
        got = await store_call(records(request).exercise_done, who.owner, body.player, kind, correct)
        if got is None:
            raise invalid("player", f"no player {body.player!r} of this key")
        counters = got
    return QuizResult(
        correct=correct, best=best.play, loss=listed.get(played.position.position_id), counters=counters
    )
