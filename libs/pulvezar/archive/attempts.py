"""A learner's answer to a daily puzzle (:mod:`pulvezar.archive.daily`), judged against the puzzle's answer.

:func:`judge` takes the puzzle as it is served (its JSON) and the answer: a play (``notation`` or the
``position_id`` after it) for the daily position, ``double`` and ``response`` for the daily cube decision.
A play is correct when it is the answer's play; its loss is its listed candidate's loss (a play the puzzle
does not list lost at least what the worst listed one lost: that is its loss, marked inexact).  A cube answer
is correct when both halves are the right ones; its loss is the cost of the doubling half plus the cost of the
response (the puzzle's ``costs``).  :func:`hidden` is the puzzle without what gives the answer away.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pulvezar.errors import PulvezarError
from pulvezar.rules.notation import parse_play
from pulvezar.rules.position import Position
from pulvezar.rules.rules import Rules


@dataclass(frozen=True)
class Judged:
    correct: bool
    loss: float
    loss_exact: bool
    answer: dict[str, Any]  # what the player answered, normalised


def _rules(name: str) -> Rules:
    return Rules.tavla() if name.startswith("tavla") else Rules.international()


def judge(puzzle: Mapping[str, Any], given: Mapping[str, Any]) -> Judged:
    """Judge ``given`` against ``puzzle``; :class:`PulvezarError` naming the field when it is not an answer
    of the puzzle's kind (or not a legal play)."""
    if puzzle["kind"] == "cube":
        return _judge_cube(puzzle, given)
    position = Position.from_position_id(puzzle["position_id"])
    dice = (int(puzzle["dice"][0]), int(puzzle["dice"][1]))
    rules = _rules(str(puzzle["rules"]))
    if given.get("notation"):
        try:
            play = parse_play(str(given["notation"]), position, dice, rules)
        except PulvezarError as e:  # not notation, not legal here, or ambiguous
            raise PulvezarError(str(e), field="notation") from None
        after = play.position.position_id
    elif given.get("position_id"):
        after = str(given["position_id"])
        if after not in {p.position.position_id for p in rules.legal_plays(position, dice)}:
            raise PulvezarError(f"no legal play of {dice[0]}{dice[1]} leads to {after}", field="position_id")
    else:
        raise PulvezarError("the play: notation or position_id", field="notation")
    best = puzzle["answer"]["position_id"]
    listed = {c["position_id"]: float(c["loss"]) for c in puzzle["candidates"]}
    if after == best:
        return Judged(True, 0.0, True, {"position_id": after})
    if after in listed:
        return Judged(False, max(0.0, listed[after]), True, {"position_id": after})
    return Judged(False, max(listed.values(), default=0.0), False, {"position_id": after})


def _judge_cube(puzzle: Mapping[str, Any], given: Mapping[str, Any]) -> Judged:
    if given.get("double") is None:
        raise PulvezarError("whether to double: true or false", field="double")
    if given.get("response") not in ("take", "pass"):
        raise PulvezarError("the opponent's answer: take or pass", field="response")
    answer = puzzle["answer"]
    double, response = bool(given["double"]), str(given["response"])
    costs = answer["costs"]
    loss = float(costs["double" if double else "no double"]) + float(costs.get(response, 0.0))
    correct = double == bool(answer["double"]) and response == answer["response"]
    return Judged(correct, 0.0 if correct else max(0.0, loss), True, {"double": double, "response": response})


def hidden(puzzle: Mapping[str, Any]) -> dict[str, Any]:
    """The puzzle for someone who has not answered it: no answer, no reason, and the candidates without
    their values and not best first (a play and where it leads, by notation; the three cube options by
    name)."""
    keep = ("action",) if puzzle["kind"] == "cube" else ("play", "position_id")
    candidates = [{k: c[k] for k in keep if k in c} for c in puzzle["candidates"]]
    if puzzle["kind"] != "cube":  # listed best first: in the order of their notation instead
        candidates.sort(key=lambda c: str(c.get("play", "")))
    return {**puzzle, "answer": None, "reason": None, "candidates": candidates}
