"""The exercises of the app manual (``/v1/exercises``, :mod:`pulvezar.play.exercises`): pip counting (20
seconds; none with a screen reader), bearing off (graded by the exact bear-off database) and take points
(within 3 percentage points), each with a player's counters and streaks.  Needs the durable store."""

from __future__ import annotations

import secrets
import time
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path, Query, Request
from pydantic import BaseModel, ConfigDict, Field

from pulvezar.errors import PulvezarError
from services.gateway.durable import database_url, no_store, store_call
from services.gateway.learner_models import ExerciseResults
from services.gateway.problems import ProblemError, invalid
from services.gateway.security import Client, client

router = APIRouter(prefix="/v1/exercises", tags=["exercises"])
Who = Annotated[Client, Depends(client)]
Kind = Annotated[
    Literal["pip-count", "bear-off", "take-point"], Path(description="the exercise", examples=["bear-off"])
]
ExerciseId = Annotated[
    str,
    Path(
        min_length=1,
        max_length=32,
        pattern=r"^[A-Za-z0-9]+$",
        description="the exercise's id",
        examples=["x1b2c3d4e5f6"],
    ),
]


class ExerciseOut(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "id": "x1b2c3d4e5f6",
                    "kind": "bear-off",
                    "position_id": "ZgIAQFQAAAAAAA",
                    "dice": [3, 6],
                    "match_length": None,
                    "score": None,
                    "cube_value": None,
                    "time_limit_s": None,
                }
            ]
        }
    )

    id: str = Field(description="answer it at POST /v1/exercises/{kind}/{id}/answers")
    kind: str = Field(description="pip-count, bear-off or take-point")
    position_id: str | None = Field(None, description="pip-count, bear-off: the position, on roll's view")
    dice: list[int] | None = Field(None, description="bear-off: the roll to play")
    match_length: int | None = Field(None, description="take-point: the match")
    score: list[int] | None = Field(None, description="take-point: your score and the opponent's")
    cube_value: int | None = Field(None, description="take-point: the cube before the double")
    time_limit_s: float | None = Field(
        None, description="pip-count: seconds to answer; null with a screen reader"
    )


class AnswerIn(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [{"pips": [167, 167]}, {"notation": "6/off 5/off"}, {"take_point": 0.25}]
        },
    )
    pips: list[int] | None = Field(None, min_length=2, max_length=2, description="pip-count: [yours, theirs]")
    notation: str | None = Field(None, max_length=64, description="bear-off: the play, e.g. 6/off 5/off")
    take_point: float | None = Field(None, ge=0, le=1, description="take-point: the chance, e.g. 0.25")


class AnswerOut(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "correct": False,
                    "first_attempt": True,
                    "attempt": 1,
                    "details": {"loss": 0.0412},
                    "answer": {"play": "6/off 5/2", "position_id": "ZgIAQAkAAAAAAA", "equity": 0.725612},
                    "counters": {"tried": 8, "correct": 6, "streak": 0, "best_streak": 4},
                }
            ]
        }
    )

    correct: bool = Field(description="whether the answer is right (a pip count: also in time)")
    first_attempt: bool = Field(description="only the first answer counts for the counters")
    attempt: int = Field(description="1 for the first")
    details: dict[str, Any] = Field(description="loss (bear-off), error (take-point), seconds (pip-count)")
    answer: dict[str, Any] = Field(description="the right answer")
    counters: ExerciseResults | None = Field(description="the player's counters after a first answer")


def _store(request: Request) -> Any:
    url = database_url(request)
    if not url:
        raise no_store("exercises")
    from services.store.exercises import Exercises

    return Exercises(url)


@router.get("/{kind}/next", summary="The next exercise of a kind (pip-count, bear-off, take-point)")
async def next_exercise(
    kind: Kind,
    request: Request,
    who: Who,
    player: Annotated[
        str | None,
        Query(max_length=32, description="the player it counts for", examples=["p3f0c5e1a2b4c6d8e0f1a2b3c"]),
    ] = None,
    screen_reader: Annotated[
        bool, Query(description="the player uses a screen reader: no time limit", examples=[True])
    ] = False,
) -> ExerciseOut:
    from pulvezar.play.exercises import make

    spec = make(kind, secrets.randbits(31))
    store = _store(request)
    exercise_id = await store_call(store.issue, who.owner, player, kind, spec, screen_reader)
    if exercise_id is None:
        raise invalid("player", f"no player {player!r} of this key")
    shown = {k: v for k, v in spec.items() if k != "answer"}
    if screen_reader and "time_limit_s" in shown:
        shown["time_limit_s"] = None
    return ExerciseOut.model_validate({**shown, "id": exercise_id})


@router.post(
    "/{kind}/{exercise_id}/answers", summary="Answer an exercise: right or not, and the right answer"
)
async def answer_exercise(
    kind: Kind, exercise_id: ExerciseId, body: AnswerIn, request: Request, who: Who
) -> AnswerOut:
    from pulvezar.play.exercises import fold, judge

    store = _store(request)
    found = await store_call(store.get, who.owner, exercise_id)
    if found is None or found.kind != kind:
        raise ProblemError(
            404, f"no {kind} exercise {exercise_id!r}", kind="not-found", errors=[("exercise_id", "unknown")]
        )
    try:
        judged = judge(found.spec, body.model_dump(exclude_none=True), time.time() - found.issued_at,
                       found.screen_reader)  # fmt: skip
    except PulvezarError as e:
        raise invalid(e.field or "answer", str(e)) from None
    done = await store_call(store.answered, who.owner, exercise_id, judged, lambda s, ok: fold(s, kind, ok))
    if done is None:
        raise ProblemError(
            404, f"no exercise {exercise_id!r}", kind="not-found", errors=[("exercise_id", "unknown")]
        )
    attempt, counters = done
    details = {k: v for k, v in judged.items() if k != "correct"}
    return AnswerOut(correct=judged["correct"], first_attempt=attempt == 1, attempt=attempt, details=details,
                     answer=found.spec["answer"], counters=counters)  # fmt: skip
