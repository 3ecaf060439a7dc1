"""Messages of ``pulvezar.v1`` to and from the engine library's types.

Every parse function names the request field it read, so that a library error
becomes INVALID_ARGUMENT on that field (see :class:`BadArgument`).
"""

from __future__ import annotations

from pulvezar import XGID, GameResult, MatchId, Outcome, Play, Position, PulvezarError, Rules
from pulvezar.rules.rules import LegalPlays
from services.common.errors import BadArgument
from services.common.pulvezar_proto.v1 import rules_pb2 as pb

_MAX_CUBE = 1 << 15
_OUTCOMES = {
    Outcome.SINGLE: pb.OUTCOME_SINGLE,
    Outcome.GAMMON: pb.OUTCOME_GAMMON,
    Outcome.BACKGAMMON: pb.OUTCOME_BACKGAMMON,
}


def position(ref: pb.PositionRef, field: str = "position") -> Position:
    """The position of a ``PositionRef`` (Position ID, XGID or board)."""
    kind = ref.WhichOneof("kind")
    if kind is None:
        raise BadArgument(field, "a position is required (position_id, xgid or board)")
    try:
        if kind == "position_id":
            return Position.from_position_id(ref.position_id)
        if kind == "xgid":
            return Position.from_xgid(ref.xgid)
        return Position(list(ref.board.mine), list(ref.board.theirs))
    except PulvezarError as e:
        sub = f".{e.field}" if kind == "board" and e.field in ("mine", "theirs") else ""
        raise BadArgument(f"{field}.{kind}{sub}", str(e)) from None


def dice(msg: pb.Dice, field: str = "dice") -> tuple[int, int]:
    d = (msg.die1, msg.die2)
    if not all(1 <= x <= 6 for x in d):
        raise BadArgument(field, f"dice are two values 1..6, got {d[0]} and {d[1]}")
    return d


def rules(msg: pb.RuleSet, field: str = "rules") -> Rules:
    if msg.variant in (pb.VARIANT_UNSPECIFIED, pb.VARIANT_INTERNATIONAL):
        for option in ("hit_and_stop", "must_bear_off"):
            if getattr(msg, option):
                raise BadArgument(f"{field}.{option}", f"{option} is a Tavla option (variant VARIANT_TAVLA)")
        return Rules.international()
    if msg.variant == pb.VARIANT_TAVLA:
        return Rules.tavla(hit_and_stop=msg.hit_and_stop, must_bear_off=msg.must_bear_off)
    raise BadArgument(f"{field}.variant", f"unknown variant {msg.variant}")


def legal_plays(
    rule_set: Rules, start: Position, roll: tuple[int, int], field: str = "position"
) -> LegalPlays:
    try:
        return rule_set.legal_plays(start, roll)
    except PulvezarError as e:  # a finished game has no plays
        raise BadArgument(field, str(e)) from None


def cube_value(value: int, rule_set: Rules, field: str = "cube_value") -> int:
    cube = value or 1
    if cube > _MAX_CUBE or cube & (cube - 1):
        raise BadArgument(field, f"the cube is a power of two from 1 to {_MAX_CUBE}, got {value}")
    if cube > 1 and not rule_set.uses_cube:
        raise BadArgument(field, f"{rule_set.name} has no cube")
    return cube


def match_id(text: str, field: str = "match_id") -> MatchId:
    try:
        return MatchId.parse(text)
    except PulvezarError as e:
        raise BadArgument(field, str(e)) from None


# ---- library -> messages --------------------------------------------------


def board(p: Position) -> pb.Board:
    return pb.Board(mine=p.mine, theirs=p.theirs)


def play(p: Play) -> pb.Play:
    return pb.Play(
        notation=p.notation,
        position_id=p.position.position_id,
        next_position_id=p.position.swap().position_id,
        moves=[pb.Move(src=m.src, dst=m.dst, hit=m.hit) for m in p.moves],
        hits=p.hits,
    )


def game_result(result: GameResult, cube: int = 1, jacoby: bool = False) -> pb.GameResult:
    points = 1 if jacoby and cube == 1 else result.points
    return pb.GameResult(
        winner=pb.WINNER_PLAYER if result.winner == "player" else pb.WINNER_OPPONENT,
        outcome=_OUTCOMES[result.outcome],
        points=result.points,
        points_with_cube=points * cube,
    )


def position_ids(p: Position, xgid: XGID | None = None) -> pb.PositionIds:
    x = xgid if xgid is not None else XGID.from_position(p)
    return pb.PositionIds(position_id=p.position_id, xgid=x.encode(), board=board(p))


def match_state(m: MatchId) -> pb.MatchState:
    return pb.MatchState(
        match_id=m.encode(),
        cube_value=m.cube_value,
        cube_owner=-1 if m.cube_owner is None else m.cube_owner,
        dice_owner=m.dice_owner,
        crawford=m.crawford,
        game_state=m.game_state.name,
        turn=m.turn,
        double_offered=m.double_offered,
        resignation=m.resignation.name,
        dice=pb.Dice(die1=m.dice[0], die2=m.dice[1]),
        match_length=m.match_length,
        score0=m.score[0],
        score1=m.score[1],
        jacoby=m.jacoby,
    )
