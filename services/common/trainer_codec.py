"""The Play API trainer's searches on the wire: :class:`~pulvezar.play.trainer.TrainerQuestion` to and from
``TrainerRequest``, its answer as ``TrainerResponse.answer_json``.

The gateway writes questions and reads answers (:class:`services.common.remote_evaluator.GrpcEvaluator`);
the Evaluator service reads questions (each error names its field) and writes answers. The question travels
exactly (boards, the cube) and the answer as JSON, whose floats are Python's repr: the library's to the bit.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from pulvezar.play.trainer import TRAINER_ASKS, TrainerQuestion
from pulvezar.rules.rules import Play
from services.common import bot_codec, convert, reading
from services.common.errors import BadArgument
from services.common.pulvezar_proto.v1 import evaluator_pb2 as pb
from services.common.pulvezar_proto.v1 import rules_pb2 as rpb

ASK_OF: dict[int, str] = {i + 1: ask for i, ask in enumerate(TRAINER_ASKS)}  # TRAINER_ASK_HINT = 1, ...
CODE_OF = {ask: code for code, ask in ASK_OF.items()}
REPLIES = ("take", "drop", "pass", "beaver", "raccoon")
MAX_LIMIT = 100


# ---- the gateway's side -----------------------------------------------------------------------------
def request(q: TrainerQuestion) -> pb.TrainerRequest:
    """The RPC's request of question ``q``."""
    return pb.TrainerRequest(
        ask=CODE_OF[q.ask],  # type: ignore[arg-type]
        position=rpb.PositionRef(board=convert.board(q.position)),
        rules=bot_codec.rule_set(q.rules),
        ply=q.ply,
        no_prune=not q.prune,
        dice=rpb.Dice(die1=q.dice[0], die2=q.dice[1]) if q.dice is not None else None,
        play=convert.play(q.play) if q.play is not None else None,
        cube=bot_codec.cube_context(q.cube) if q.cube is not None else None,
        doubled=q.doubled,
        reply=q.reply,
        limit=q.limit,
    )


def answer(reply: pb.TrainerResponse) -> Any:
    """The service's answer (RuntimeError: not JSON)."""
    try:
        return json.loads(reply.answer_json)
    except ValueError:
        raise RuntimeError("the evaluator's trainer answered no JSON") from None


# ---- the service's side -----------------------------------------------------------------------------
def question(msg: pb.TrainerRequest) -> TrainerQuestion:
    """The :class:`TrainerQuestion` of a request (INVALID_ARGUMENT naming the field it cannot read)."""
    ask = ASK_OF.get(msg.ask)
    if ask is None:
        raise BadArgument("ask", f"unknown question {msg.ask}")
    if msg.ply > 2:
        raise BadArgument("ply", f"the trainer searches at 0, 1 or 2 plies, got {msg.ply}")
    position, rules = reading.position(msg)
    if rules.game_result(position) is not None:
        raise BadArgument("position", "the game is over: nothing to decide")
    dice = play = cube = None
    if ask in ("hint", "play"):
        dice = convert.dice(msg.dice)
        if ask == "hint" and not 1 <= msg.limit <= MAX_LIMIT:
            raise BadArgument("limit", f"a hint has 1..{MAX_LIMIT} candidates, got {msg.limit}")
        if ask == "play":
            play = _play(msg.play, rules.legal_plays(position, dice))
    else:
        if not rules.uses_cube:
            raise BadArgument("cube", "Tavla is played without a cube")
        if not msg.HasField("cube"):
            raise BadArgument("cube", f"a question of the cube ({ask}) needs the cube")
        cube = bot_codec.cube_state(msg.cube, position, rules)
        if not cube.cube.can_double:
            raise BadArgument(
                "cube", f"a verdict on a double ({ask}) needs a cube the player on turn may double"
            )
        if ask == "answer" and msg.reply not in REPLIES:
            raise BadArgument(
                "reply", f"the answer to a double is one of {', '.join(REPLIES)}, got {msg.reply!r}"
            )
    return TrainerQuestion(
        ask, position, rules, msg.ply, not msg.no_prune, dice, play, cube, msg.doubled, msg.reply,  # type: ignore[arg-type]
        msg.limit or 5,
    )  # fmt: skip


def _play(msg: rpb.Play, plays: Iterable[Play]) -> Play:
    for p in plays:
        if p.notation == msg.notation and p.position.position_id == msg.position_id:
            return p
    raise BadArgument("play", f"{msg.notation!r} (to {msg.position_id!r}) is not a legal play of the dice")


def response(result: Any, model: str) -> pb.TrainerResponse:
    return pb.TrainerResponse(answer_json=json.dumps(result, allow_nan=False), model=model)
