"""The exercises of the app manual (:mod:`pulvezar.play.exercises`): one issued for a player and kept
(:class:`services.store.exercises.Exercises`), an answer judged and folded into the player's counters."""

from __future__ import annotations

import secrets
import time
from typing import TYPE_CHECKING

from pulvezar.errors import PulvezarError
from services.gateway.durable import store_call
from services.gateway.learner_models import AnswerIn, AnswerOut, ExerciseOut
from services.gateway.problems import ProblemError, invalid
from services.gateway.security import Client

if TYPE_CHECKING:
    from services.store.exercises import Exercises


async def issue(
    store: Exercises, who: Client, kind: str, player: str | None, screen_reader: bool
) -> ExerciseOut:
    """A new exercise of ``kind`` (its answer kept back); ``player``: the caller's player it counts for."""
    from pulvezar.play.exercises import make

    spec = make(kind, secrets.randbits(31))
    exercise_id = await store_call(store.issue, who.owner, player, kind, spec, screen_reader)
    if exercise_id is None:
        raise invalid("player", f"no player {player!r} of this key")
    shown = {k: v for k, v in spec.items() if k != "answer"}
    if screen_reader and "time_limit_s" in shown:
        shown["time_limit_s"] = None
    return ExerciseOut.model_validate({**shown, "id": exercise_id})


async def answer(store: Exercises, who: Client, kind: str, exercise_id: str, body: AnswerIn) -> AnswerOut:
    """Judge an answer (the first counts for the player's counters)."""
    from pulvezar.play.exercises import fold, judge

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
