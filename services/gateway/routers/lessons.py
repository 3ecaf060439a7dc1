"""The five lessons of the app manual (``/v1/lessons``, :mod:`pulvezar.play.lessons`): steps read or played
on the board, a wrong play refused, and each player's progress (with ``player``, in the durable store)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query, Request

from services.gateway.language import language
from services.gateway.learner_models import Lesson, LessonList, StepAnswer, StepResult
from services.gateway.routers.params import Who
from services.gateway.services import lessons
from services.gateway.services.deps import player_records

__all__ = ["StepAnswer", "router"]  # the request body (tests read its examples)

router = APIRouter(prefix="/v1/lessons", tags=["lessons"])
LessonId = Annotated[
    str, Path(max_length=40, pattern=r"^[a-z-]+$", description="e.g. openings", examples=["pip-counting"])
]
PlayerQuery = Annotated[
    str | None,
    Query(
        max_length=32,
        description="the player (POST /v1/players) whose progress to show",
        examples=["p3f0c5e1a2b4c6d8e0f1a2b3c"],
    ),
]


def classroom(request: Request, who: Who) -> lessons.Classroom:
    return lessons.Classroom(lambda: player_records(request), who, language(request))


Classroom = Annotated[lessons.Classroom, Depends(classroom)]


@router.get("", response_model=LessonList, summary="The five lessons, with a player's progress")
async def list_lessons(c: Classroom, player: PlayerQuery = None) -> LessonList:
    return await lessons.listed(c, player)


@router.get(
    "/{lesson_id}", response_model=Lesson, summary="A lesson's steps (the plays to make are not given away)"
)
async def get_lesson(lesson_id: LessonId, c: Classroom, player: PlayerQuery = None) -> Lesson:
    return await lessons.get(c, lesson_id, player)


@router.post(
    "/{lesson_id}/steps/{step}/answers",
    response_model=StepResult,
    summary="Answer a step: a play is taken only if it is the lesson's",
)
async def answer_step(
    lesson_id: LessonId,
    step: Annotated[int, Path(ge=0, le=99, description="the step, from 0", examples=[2])],
    body: StepAnswer,
    c: Classroom,
) -> StepResult:
    return await lessons.answer(c, lesson_id, step, body)
