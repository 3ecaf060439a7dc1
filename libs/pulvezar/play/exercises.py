"""The app manual's exercises (section 5.12): pip counting, bearing off and take points.

:func:`make` draws an exercise of a kind from a seed (the same seed, the same exercise); :func:`judge`
grades an answer against it; :func:`fold` adds a first answer to a player's counters (tried, correct,
streak, best streak per kind).

- ``pip-count``: a position of a game played with random legal plays from the start; both pip counts, within
  :data:`PIP_SECONDS` seconds (no limit for a player with a screen reader);
- ``bear-off``: a no-contact bear-off (at most six checkers a side, so no gammon) with dice; the answer is
  graded by the exact two-sided bear-off database (:class:`~pulvezar.eval.bearoff.TwoSidedBearoff`): its
  loss in exact equity against the best play;
- ``take-point``: a match score and a cube value; the taker's take point without gammons (dead cube,
  :meth:`~pulvezar.met.MatchEquity.take_point`), correct within :data:`TAKE_TOLERANCE`.

>>> e = make("bear-off", 7)
>>> right = judge(e, {"notation": e["answer"]["play"]}, 1.0)
>>> right["correct"], right["loss"]
(True, 0.0)
>>> make("take-point", 3) == make("take-point", 3)
True
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from functools import cache
from typing import Any

from pulvezar.errors import PulvezarError
from pulvezar.rules.notation import parse_play
from pulvezar.rules.position import Position
from pulvezar.rules.rules import Rules

KINDS = ("pip-count", "bear-off", "take-point")
#: seconds for a pip count (without a screen reader)
PIP_SECONDS = 20.0
#: a take point within this of the right one is correct
TAKE_TOLERANCE = 0.03


@cache
def _bearoff() -> Any:
    from pulvezar.eval.bearoff import TwoSidedBearoff

    return TwoSidedBearoff.default()


def make(kind: str, seed: int) -> dict[str, Any]:
    """The exercise of ``kind`` drawn from ``seed``: what is asked, and its ``answer``."""
    rng = random.Random(f"{kind}:{seed}")
    if kind == "pip-count":
        return _pip_count(rng)
    if kind == "bear-off":
        return _bear_off(rng)
    if kind == "take-point":
        return _take_point(rng)
    raise PulvezarError(f"no exercise {kind!r}; exercises: {', '.join(KINDS)}", field="kind")


def _pip_count(rng: random.Random) -> dict[str, Any]:
    rules = Rules.international()
    position = Position.start()
    for _ in range(rng.randint(6, 40)):
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        plays = list(rules.legal_plays(position, dice))
        if rules.game_result(position) is not None or not plays:
            break
        after = rng.choice(plays).position
        if rules.game_result(after) is not None:
            break
        position = after.swap()
    mine, theirs = position.pips()
    return {"kind": "pip-count", "position_id": position.position_id, "time_limit_s": PIP_SECONDS,
            "answer": {"pips": [mine, theirs]}}  # fmt: skip


def _home(rng: random.Random, checkers: int) -> dict[int, int]:
    out: dict[int, int] = {}
    for _ in range(checkers):
        p = rng.randint(1, 6)
        out[p] = out.get(p, 0) + 1
    return out


def _equities(position: Position, dice: tuple[int, int]) -> list[tuple[str, str, float]]:
    """Every legal play: notation, the position after it, and its exact cubeless equity for the mover."""
    db = _bearoff()
    out = []
    for play in Rules.international().legal_plays(position, dice):
        after = play.position.swap()  # the opponent on roll
        mine, theirs = after.mine[:6], after.theirs[:6]
        # the mover bore off its last checker, or the opponent on roll wins with the table's chance
        win = 1.0 if not any(theirs) else 1.0 - db.win_probability(mine, theirs)
        out.append((play.notation, play.position.position_id, 2.0 * win - 1.0))
    return out


def _bear_off(rng: random.Random) -> dict[str, Any]:
    while True:
        position = Position.from_points(_home(rng, rng.randint(2, 6)), _home(rng, rng.randint(1, 6)))
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        plays = _equities(position, dice)
        if len({round(e, 9) for _, _, e in plays}) >= 2:  # a choice that matters
            break
    best = max(plays, key=lambda p: p[2])
    return {"kind": "bear-off", "position_id": position.position_id, "dice": list(dice),
            "answer": {"play": best[0], "position_id": best[1], "equity": round(best[2], 6)}}  # fmt: skip


def _take_point(rng: random.Random) -> dict[str, Any]:
    from pulvezar.met import MatchEquity

    met = MatchEquity.kazaross_xg2()
    while True:
        length = rng.choice((3, 5, 7, 9, 11))
        mine, theirs = rng.randint(0, length - 1), rng.randint(0, length - 1)
        cube = rng.choice((1, 1, 2))
        point = met.take_point(length - mine, length - theirs, cube)
        if point is not None and 2 * cube <= 2 * length:
            break
    return {"kind": "take-point", "match_length": length, "score": [mine, theirs], "cube_value": cube,
            "answer": {"take_point": round(point, 4)}}  # fmt: skip


def judge(exercise: Mapping[str, Any], given: Mapping[str, Any], seconds: float,
          screen_reader: bool = False) -> dict[str, Any]:  # fmt: skip
    """Grade ``given`` (answered ``seconds`` after the exercise was given): ``{"correct", ...}`` with the
    kind's details; :class:`PulvezarError` naming the field for what is not an answer of the kind."""
    kind, answer = exercise["kind"], exercise["answer"]
    if kind == "pip-count":
        pips = given.get("pips")
        if not isinstance(pips, list | tuple) or len(pips) != 2 or not all(type(p) is int for p in pips):
            raise PulvezarError("both pip counts: [yours, the opponent's]", field="pips")
        in_time = screen_reader or seconds <= PIP_SECONDS
        exact = list(pips) == answer["pips"]
        return {"correct": exact and in_time, "in_time": in_time, "seconds": round(seconds, 1)}
    if kind == "bear-off":
        notation = given.get("notation")
        if not isinstance(notation, str) or not notation.strip():
            raise PulvezarError("the play, e.g. 6/off 5/off", field="notation")
        position = Position.from_position_id(exercise["position_id"])
        dice = (int(exercise["dice"][0]), int(exercise["dice"][1]))
        try:
            played = parse_play(notation, position, dice, Rules.international())
        except PulvezarError as e:
            raise PulvezarError(str(e), field="notation") from None
        by_id = {pid: eq for _, pid, eq in _equities(position, dice)}
        best = max(by_id.values())  # exact, not the answer's rounded equity
        loss = max(0.0, best - by_id[played.position.position_id])
        return {"correct": loss < 1e-9, "loss": round(loss, 6), "loss_exact": True}
    value = given.get("take_point")
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise PulvezarError("the take point, a chance from 0 to 1 (0.25 for 25 %)", field="take_point")
    error = abs(float(value) - answer["take_point"])
    return {"correct": error <= TAKE_TOLERANCE, "error": round(error, 4)}


def fold(stats: Mapping[str, Any] | None, kind: str, correct: bool) -> dict[str, Any]:
    """The counters ``stats`` with a first answer to an exercise of ``kind`` added."""
    from pulvezar.play.statistics import fold as fold_games

    out = fold_games(stats, [], {})
    c = out.setdefault("exercises", {}).setdefault(
        kind, {"tried": 0, "correct": 0, "streak": 0, "best_streak": 0}
    )
    c["tried"] += 1
    if correct:
        c["correct"] += 1
        c["streak"] += 1
        c["best_streak"] = max(c["best_streak"], c["streak"])
    else:
        c["streak"] = 0
    return out
