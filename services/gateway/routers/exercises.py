"""The exercises of the app manual (``/v1/exercises``, :mod:`pulvezar.play.exercises`): pip counting (20
seconds; none with a screen reader), bearing off (graded by the exact bear-off database) and take points
(within 3 percentage points), each with a player's counters and streaks.  Needs the durable store."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Path, Query, Request

from services.gateway.learner_models import AnswerIn, AnswerOut, ExerciseOut
from services.gateway.routers.params import Who, short_id
from services.gateway.services import exercises
from services.gateway.services.deps import dependencies
from services.store.exercises import Exercises

__all__ = ["AnswerIn", "router"]  # the request body (tests read its examples)

router = APIRouter(prefix="/v1/exercises", tags=["exercises"])
Kind = Annotated[
    Literal["pip-count", "bear-off", "take-point"], Path(description="the exercise", examples=["bear-off"])
]
ExerciseId = Annotated[str, short_id("the exercise's id", "x1b2c3d4e5f6")]


def _store(request: Request) -> Exercises:
    """The exercises' records (the durable store is required)."""
    return dependencies(request).exercises


Store = Annotated[Exercises, Depends(_store)]


@router.get(
    "/{kind}/next",
    response_model=ExerciseOut,
    summary="The next exercise of a kind (pip-count, bear-off, take-point)",
)
async def next_exercise(
    kind: Kind,
    store: Store,
    who: Who,
    player: Annotated[
        str | None,
        Query(max_length=32, description="the player it counts for", examples=["p3f0c5e1a2b4c6d8e0f1a2b3c"]),
    ] = None,
    screen_reader: Annotated[
        bool, Query(description="the player uses a screen reader: no time limit", examples=[True])
    ] = False,
) -> ExerciseOut:
    return await exercises.issue(store, who, kind, player, screen_reader)


@router.post(
    "/{kind}/{exercise_id}/answers",
    response_model=AnswerOut,
    summary="Answer an exercise: right or not, and the right answer",
)
async def answer_exercise(
    kind: Kind, exercise_id: ExerciseId, body: AnswerIn, store: Store, who: Who
) -> AnswerOut:
    return await exercises.answer(store, who, kind, exercise_id, body)
