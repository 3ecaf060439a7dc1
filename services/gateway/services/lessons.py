"""The five lessons (:mod:`pulvezar.play.lessons`): their steps in the request's language, an answer
judged, and, with a player, its progress kept in its counters (:class:`services.store.players.PlayerRecords`;
the lessons themselves need no store)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pulvezar.errors import PulvezarError
from services.gateway.durable import store_call
from services.gateway.learner_models import Lesson, LessonList, StepAnswer, StepResult
from services.gateway.problems import ProblemError, invalid
from services.gateway.security import Client

if TYPE_CHECKING:
    from services.store.players import PlayerRecords


@dataclass(frozen=True)
class Classroom:
    """What a call on the lessons needs: the players' records (made when a player is named), the caller
    and the request's language."""

    players: Callable[[], PlayerRecords]
    who: Client
    lang: str


def _found(lesson_id: str) -> dict[str, Any]:
    from pulvezar.play.lessons import lesson

    found = lesson(lesson_id)
    if found is None:
        raise ProblemError(
            404, f"no lesson {lesson_id!r}", kind="not-found", errors=[("lesson_id", "unknown lesson")]
        )
    return found


async def _progress(c: Classroom, player: str | None) -> dict[str, Any]:
    """The player's lessons progress (a 422 naming ``player`` for another key's or none)."""
    if player is None:
        return {}
    stats = await store_call(c.players().statistics, c.who.owner, player)
    if stats is None:
        raise invalid("player", f"no player {player!r} of this key")
    return dict(stats.get("lessons") or {})


def _summary(
    found: dict[str, Any], lang: str, progress: dict[str, Any], player: str | None
) -> dict[str, Any]:
    p = progress.get(found["id"], {"done": [], "completed": None}) if player else None
    title = found["title"].get(lang, found["title"]["en"])
    return {"id": found["id"], "title": title, "steps": len(found["steps"]), "progress": p}


async def listed(c: Classroom, player: str | None) -> LessonList:
    """The five lessons, with a player's progress."""
    from pulvezar.play.lessons import LESSONS

    progress = await _progress(c, player)
    return LessonList.model_validate({"lessons": [_summary(x, c.lang, progress, player) for x in LESSONS]})


async def get(c: Classroom, lesson_id: str, player: str | None) -> Lesson:
    """A lesson's steps (the plays to make are not given away)."""
    found = _found(lesson_id)
    progress = await _progress(c, player)
    lang = c.lang
    items = [
        {"kind": s["kind"], "text": s["text"].get(lang, s["text"]["en"]), "position": s.get("position"),
         "dice": s.get("dice")}
        for s in found["steps"]
    ]  # fmt: skip
    return Lesson.model_validate({**_summary(found, lang, progress, player), "items": items})


async def answer(c: Classroom, lesson_id: str, step: int, body: StepAnswer) -> StepResult:
    """Judge a step's answer; a right one counts for the player's progress."""
    from pulvezar.play.lessons import answer as judge

    found = _found(lesson_id)
    if body.player is not None:
        await _progress(c, body.player)  # the key's player, or a 422
    try:
        judged = judge(lesson_id, step, body.model_dump(exclude_none=True))
    except PulvezarError as e:
        raise invalid(e.field or "notation", str(e)) from None
    progress = None
    if body.player is not None and judged["correct"]:
        total = len(found["steps"])
        progress = await store_call(c.players().lesson_step, c.who.owner, body.player, lesson_id, step, total)
    elif body.player is not None:
        progress = (await _progress(c, body.player)).get(lesson_id, {"done": [], "completed": None})
    return StepResult(correct=judged["correct"], expected=judged["expected"] if judged["correct"] else None,
                      progress=progress)  # fmt: skip
