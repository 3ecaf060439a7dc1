"""A finished game's luck on the wire: :class:`~pulvezar.play.luck.LuckQuestion` to and from
``GameLuckRequest`` (each roll's position, dice, opening and player exactly; errors name the field)."""

from __future__ import annotations

from pulvezar.play.luck import LuckQuestion, Roll
from services.common import bot_codec, convert
from services.common.errors import BadArgument
from services.common.pulvezar_proto.v1 import evaluator_pb2 as pb
from services.common.pulvezar_proto.v1 import rules_pb2 as rpb

MAX_ROLLS = 2000


def request(q: LuckQuestion) -> pb.GameLuckRequest:
    return pb.GameLuckRequest(
        rules=bot_codec.rule_set(q.rules),
        rolls=[
            pb.LuckRoll(
                position=rpb.PositionRef(board=convert.board(r.position)),
                dice=rpb.Dice(die1=r.dice[0], die2=r.dice[1]),
                opening=r.opening,
                player=r.player,
            )
            for r in q.rolls
        ],
    )


def question(msg: pb.GameLuckRequest) -> LuckQuestion:
    """The question of a request (INVALID_ARGUMENT naming the field it cannot read)."""
    if len(msg.rolls) > MAX_ROLLS:
        raise BadArgument("rolls", f"a game has at most {MAX_ROLLS} rolls, got {len(msg.rolls)}")
    rules = convert.rules(msg.rules)
    rolls = []
    for i, r in enumerate(msg.rolls):
        field = f"rolls[{i}]"
        if r.player > 1:
            raise BadArgument(
                f"{field}.player", f"the player is 0 (the human) or 1 (the bot), got {r.player}"
            )
        position = convert.position(r.position, f"{field}.position")
        if rules.game_result(position) is not None:
            raise BadArgument(f"{field}.position", "the game is over there: no roll to value")
        rolls.append(Roll(position, convert.dice(r.dice, f"{field}.dice"), r.opening, r.player))
    return LuckQuestion(rules, tuple(rolls))
