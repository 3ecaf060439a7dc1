"""A finished game's luck as one question: the game's rolls (:class:`LuckQuestion`), valued by
:func:`answer` as :func:`pulvezar.play.card.game_luck` values them (0 ply, in the game's order), so an
evaluator that is a :class:`~pulvezar.play.provider.DecisionProvider` answers the whole game in one call
(``luck()``, docs/adr/0019)."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any

from pulvezar.eval.evaluator import Evaluator
from pulvezar.rules.position import Position
from pulvezar.rules.rules import Rules


@dataclass(frozen=True)
class Roll:
    """One roll of the game: the position it was rolled in, the dice, the game's opening roll or not,
    and who rolled (0: the human, 1: the bot)."""

    position: Position
    dice: tuple[int, int]
    opening: bool
    player: int


@dataclass(frozen=True)
class LuckQuestion:
    rules: Rules
    rolls: tuple[Roll, ...]


def question(session: Any, index: int) -> LuckQuestion:
    """The rolls of game ``index`` (0-based) of ``session`` (a :class:`~pulvezar.play.PlaySession`)."""
    from pulvezar.formats.record import apply_action

    record = session.to_record(("You", "pulvezar"))
    game_record = record.games[index]
    game = record.new_game(game_record)
    rolls: list[Roll] = []
    first = True
    for action in game_record.actions:
        if action.kind == "roll" and action.dice is not None:
            opening = first and record.rules.variant == "international"
            rolls.append(Roll(game.position, (action.dice[0], action.dice[1]), opening, action.player))
            first = False
        apply_action(game, action)
    return LuckQuestion(record.rules, tuple(rolls))


def answer(q: LuckQuestion, evaluator: Evaluator) -> tuple[float, float]:
    """Each side's luck (human, bot), in equity per cube at 0 ply."""
    from pulvezar.analysis.decisions import luck

    out = [0.0, 0.0]
    for r in q.rolls:
        with contextlib.suppress(ValueError):  # a Tavla opening double (re-rolled): no play to value
            out[r.player] += luck(
                r.position, r.dice, opening=r.opening, rules=q.rules, evaluator=evaluator
            ).value
    return out[0], out[1]
