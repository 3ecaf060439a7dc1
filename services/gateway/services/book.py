"""The opening book below its router: the shipped books and a roll of them, book generation jobs
(the job kind :class:`services.jobs.kinds.book.BookKind` on the job store: submission and status) and the
opening quiz's answers."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, Literal

from fastapi import Request
from pydantic import BaseModel, ConfigDict, Field

from pulvezar import Position, PulvezarError, Rules
from pulvezar.book.model import BookError, opening_rolls, parse_roll, roll_json
from services.gateway.durable import store_call, unavailable
from services.gateway.jobs import owner_lookup
from services.gateway.problems import ProblemError, invalid
from services.gateway.security import Client
from services.gateway.services.players import shipped
from services.jobs.book_models import BookStatus
from services.jobs.errors import InvalidJob
from services.jobs.provenance import engine_of
from services.store.db import StoreUnavailable

if TYPE_CHECKING:
    from services.jobs.kinds.book import BookKind
    from services.store.players import PlayerRecords

Variant = Literal["international", "tavla"]


# ---- the shipped books ----------------------------------------------------------------------------
def book_view(rules: str, roll: str | None) -> dict[str, Any]:
    """The shipped book of ``rules`` with its net's provenance, or its head and one ``roll``."""
    book = shipped(rules)
    provenance = engine_of(book.engine).model_dump()  # the book file's own engine, not the default net
    if roll is None:
        return {**book.to_json(), "provenance": provenance}
    dice = parse_roll(roll, "roll")
    if rules == "international" and dice[0] == dice[1]:
        raise invalid("roll", f"{roll}: a double is no opening roll in international backgammon")
    try:
        entry = book.roll(dice)
    except BookError as e:
        raise ProblemError(404, str(e), kind="not-found", errors=[("roll", str(e))]) from None
    head = book.to_json()
    head.pop("rolls")
    return {**head, "provenance": provenance, "roll": roll_json(entry)}


# ---- book jobs ----------------------------------------------------------------------------------
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


def book_jobs(request: Request) -> BookKind:
    """The app's book kind store (:class:`~services.jobs.kinds.book.BookKind`) on the job store's Redis,
    broker and durable store (made on first use; 503 without a job store)."""
    app = request.app
    jobs: BookKind | None = getattr(app.state, "book_jobs", None)
    if jobs is not None:
        return jobs
    store = app.state.jobs.store
    if store is None or not hasattr(store, "redis"):
        raise ProblemError(
            503, "book jobs need the rollout job store (not configured here)", kind="jobs-unavailable"
        )
    from services.jobs.kinds.book import BookKind

    app.state.book_jobs = jobs = BookKind(
        store.redis, app=store.app, settings=store.settings, records=store.records
    )
    return jobs


def _declared(st: dict[str, Any]) -> dict[str, Any]:
    """The status as declared (``book`` only once done: a key the status left out stays out)."""
    return BookJob.model_validate(st).model_dump(mode="json", exclude_unset=True)


def _status(jobs: BookKind, book_id: str) -> dict[str, Any]:
    st = jobs.book_status(book_id)
    st["href"] = f"/v1/opening-book/jobs/{book_id}"
    return st


async def status(jobs: BookKind, book_id: str) -> dict[str, Any]:
    """The job's status with its link (and the book once done): 404 for no such job, 503 while Redis
    lost it and the database cannot be reached."""
    try:
        return await asyncio.to_thread(_status, jobs, book_id)
    except LookupError:
        raise ProblemError(
            404, f"no book job {book_id!r}", kind="not-found", errors=[("job_id", "unknown job")]
        ) from None
    except StoreUnavailable:
        raise unavailable() from None


def _rolls(body: BookJobRequest) -> tuple[tuple[int, int], ...] | None:
    """The request's opening rolls (422 naming ``rolls[i]`` for one that is not of the rule set)."""
    if body.rolls is None:
        return None
    rolls = tuple(parse_roll(r, f"rolls[{i}]") for i, r in enumerate(body.rolls))
    allowed = opening_rolls(body.rules)
    for i, r in enumerate(rolls):
        if r not in allowed:
            raise invalid(f"rolls[{i}]", f"{r[0]}{r[1]} is not an opening roll of {body.rules}")
    return rolls


async def submit(jobs: BookKind, body: BookJobRequest, who: Client) -> dict[str, Any]:
    """Start (or find) ``who``'s job of these settings, charged its estimated core-seconds; its declared
    status.  The workers run it (its chunks are queued with it)."""
    rolls = _rolls(body)
    n_rolls = len(rolls) if rolls is not None else len(opening_rolls(body.rules))
    trials = body.trials * body.candidates * n_rolls
    try:
        book_id = await who.spend(
            1,
            trials,
            lambda admit: asyncio.to_thread(jobs.submit, body.model_dump(), who.owner, admit),
        )
    except StoreUnavailable:  # not accepted (the quota is refunded)
        raise unavailable() from None
    except InvalidJob as e:
        raise invalid(e.field, e.message) from None
    await asyncio.to_thread(who.claim, book_id)
    return _declared(await status(jobs, book_id))


async def read(jobs: BookKind, book_id: str, who: Client) -> dict[str, Any]:
    """The declared status of a job of ``who``'s key (404 otherwise)."""
    await asyncio.to_thread(who.check, book_id, owner_lookup(jobs))
    return _declared(await status(jobs, book_id))


# ---- the opening quiz (issue 30): a random opening roll, the best play found, a player's streak ----
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


def question(rules: str) -> QuizQuestion:
    """A random opening roll of the shipped book of ``rules``."""
    book = shipped(rules)
    entry = book.rolls[secrets.randbelow(len(book.rolls))]
    return QuizQuestion(rules=rules, roll=entry.roll, dice=list(entry.dice), position_id=book.position_id)


async def answer(body: QuizAnswer, owner: str, players: Callable[[], PlayerRecords]) -> QuizResult:
    """Whether the play is the book's best (its loss if the book lists it); with ``player``, that
    player's counters of the quiz (``players()``: the key's players' records)."""
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
    counters = None
    correct = played.position.position_id == best.position_id
    if body.player is not None:
        kind = f"opening-quiz-{body.rules}"
        got = await store_call(players().exercise_done, owner, body.player, kind, correct)
        if got is None:
            raise invalid("player", f"no player {body.player!r} of this key")
        counters = got
    return QuizResult(
        correct=correct, best=best.play, loss=listed.get(played.position.position_id), counters=counters
    )
