"""The five lessons of the app manual (``/v1/lessons``, :mod:`pulvezar.play.lessons`): steps read or played
on the board, a wrong play refused, and each player's progress (with ``player``, in the durable store)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path, Query, Request
from pydantic import BaseModel, ConfigDict, Field

from pulvezar.errors import PulvezarError
from services.gateway.durable import store_call
from services.gateway.language import language
from services.gateway.problems import ProblemError, invalid
from services.gateway.security import Client, client
from services.gateway.services.deps import player_records

router = APIRouter(prefix="/v1/lessons", tags=["lessons"])
Who = Annotated[Client, Depends(client)]
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


class Progress(BaseModel):
    done: list[int] = Field(description="the steps done, from 0")
    completed: float | None = Field(description="when every step was done (seconds since the epoch, UTC)")


class LessonSummary(BaseModel):
    id: str = Field(description="the lesson's id")
    title: str = Field(description="in the request's language")
    steps: int = Field(description="how many steps")
    progress: Progress | None = Field(None, description="with player: the player's progress")


class LessonList(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "lessons": [
                        {
                            "id": "pip-counting",
                            "title": "Pip counting",
                            "steps": 6,
                            "progress": {"done": [0, 1], "completed": None},
                        },
                        {"id": "openings", "title": "Openings", "steps": 7, "progress": None},
                    ]
                }
            ]
        }
    )

    lessons: list[LessonSummary] = Field(description="the five lessons, in the manual's order")


class Step(BaseModel):
    kind: Literal["read", "play", "pips"] = Field(
        description="read: text; play: make the play the text asks for on the board; pips: count both sides"
    )
    text: str = Field(description="in the request's language")
    position: str | None = Field(
        None, description="play and pips: the position (Position ID, on roll's view)"
    )
    dice: list[int] | None = Field(None, description="play: the roll")


class Lesson(LessonSummary):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "id": "openings",
                    "title": "Openings",
                    "steps": 2,
                    "progress": None,
                    "items": [
                        {"kind": "read", "text": "With 3-1, make your 5-point: 8/5 6/5."},
                        {"kind": "play", "text": "Play 3-1.", "position": "4HPwATDgc/ABMA", "dice": [3, 1]},
                    ],
                }
            ]
        }
    )

    items: list[Step] = Field(description="the steps, in order")


class StepAnswer(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"notation": "8/5 6/5", "player": "p3f0c5e1a2b4c6d8e0f1a2b3c"},
                {"pips": [167, 167]},
                {},
            ]
        },
    )
    notation: str | None = Field(None, max_length=64, description="a play step: the play, e.g. 8/5 6/5")
    pips: list[int] | None = Field(
        None, min_length=2, max_length=2, description="a pips step: [yours, theirs]"
    )
    player: str | None = Field(
        None, max_length=32, description="the player whose progress this step counts for"
    )


class StepResult(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"correct": True, "expected": "8/5 6/5", "progress": {"done": [0, 1], "completed": None}}
            ]
        }
    )

    correct: bool = Field(description="false: not the lesson's play (the board refuses it) or a wrong count")
    expected: Any = Field(description="the right play or counts once answered right; null while not")
    progress: Progress | None = Field(description="with player: the player's progress in the lesson")


def _found(lesson_id: str) -> dict[str, Any]:
    from pulvezar.play.lessons import lesson

    found = lesson(lesson_id)
    if found is None:
        raise ProblemError(
            404, f"no lesson {lesson_id!r}", kind="not-found", errors=[("lesson_id", "unknown lesson")]
        )
    return found


async def _progress(request: Request, who: Client, player: str | None) -> dict[str, Any]:
    """The player's lessons progress (a 422 naming ``player`` for another key's or none)."""
    if player is None:
        return {}
    stats = await store_call(player_records(request).statistics, who.owner, player)
    if stats is None:
        raise invalid("player", f"no player {player!r} of this key")
    return dict(stats.get("lessons") or {})


def _summary(
    found: dict[str, Any], lang: str, progress: dict[str, Any], player: str | None
) -> dict[str, Any]:
    p = progress.get(found["id"], {"done": [], "completed": None}) if player else None
    title = found["title"].get(lang, found["title"]["en"])
    return {"id": found["id"], "title": title, "steps": len(found["steps"]), "progress": p}


@router.get("", summary="The five lessons, with a player's progress")
async def list_lessons(request: Request, who: Who, player: PlayerQuery = None) -> LessonList:
    from pulvezar.play.lessons import LESSONS

    progress = await _progress(request, who, player)
    lang = language(request)
    return LessonList.model_validate({"lessons": [_summary(x, lang, progress, player) for x in LESSONS]})


@router.get("/{lesson_id}", summary="A lesson's steps (the plays to make are not given away)")
async def get_lesson(lesson_id: LessonId, request: Request, who: Who, player: PlayerQuery = None) -> Lesson:
    found = _found(lesson_id)
    progress = await _progress(request, who, player)
    lang = language(request)
    items = [
        {"kind": s["kind"], "text": s["text"].get(lang, s["text"]["en"]), "position": s.get("position"),
         "dice": s.get("dice")}
        for s in found["steps"]
    ]  # fmt: skip
    return Lesson.model_validate({**_summary(found, lang, progress, player), "items": items})


@router.post(
    "/{lesson_id}/steps/{step}/answers", summary="Answer a step: a play is taken only if it is the lesson's"
)
async def answer_step(
    lesson_id: LessonId,
    step: Annotated[int, Path(ge=0, le=99, description="the step, from 0", examples=[2])],
    body: StepAnswer,
    request: Request,
    who: Who,
) -> StepResult:
    from pulvezar.play.lessons import answer

    found = _found(lesson_id)
    if body.player is not None:
        await _progress(request, who, body.player)  # the key's player, or a 422
    try:
        judged = answer(lesson_id, step, body.model_dump(exclude_none=True))
    except PulvezarError as e:
        raise invalid(e.field or "notation", str(e)) from None
    progress = None
    if body.player is not None and judged["correct"]:
        total = len(found["steps"])
        progress = await store_call(
            player_records(request).lesson_step, who.owner, body.player, lesson_id, step, total
        )
    elif body.player is not None:
        progress = (await _progress(request, who, body.player)).get(
            lesson_id, {"done": [], "completed": None}
        )
    return StepResult(correct=judged["correct"], expected=judged["expected"] if judged["correct"] else None,
                      progress=progress)  # fmt: skip
