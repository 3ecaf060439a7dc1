"""Request and response models shared by the routers, and positions from their text forms."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import BaseModel, Field

from pulvezar import XGID, MatchId, Position, PulvezarError
from pulvezar.formats.position_text import position_text_kind, read_position_text
from pulvezar.rules.ogid import OGID
from services.common.pulvezar_proto.v1 import evaluator_pb2 as epb
from services.common.pulvezar_proto.v1 import rules_pb2 as pb
from services.common.schemas import (
    Board,
    Count,
    CubeInput,
    Dice,
    Die,
    PositionInput,
    PositionText,
    RuleSet,
    RulesField,
    Strict,
)
from services.gateway.problems import ProblemError, invalid
from services.jobs.kinds.evaluations import Probabilities
from services.jobs.provenance import Engine

# the shared request schemas (services.common.schemas) are re-exported for the routers
__all__ = [
    "CUBE_FIELDS",
    "STRENGTHS",
    "Board",
    "Count",
    "CubeInput",
    "Dice",
    "Die",
    "Epoch",
    "Evaluation",
    "InLanguage",
    "MatchState",
    "Move",
    "NextCursor",
    "Parsed",
    "Pips",
    "PlayOut",
    "PositionInput",
    "PositionText",
    "Probabilities",
    "Provenance",
    "RuleSet",
    "RulesField",
    "Strength",
    "Strict",
    "dice_proto",
    "evaluation_out",
    "id_kind",
    "match_state",
    "parse_position",
    "play_out",
    "position_ref",
    "probabilities_out",
    "renamed",
    "served_engine",
]

#: the fields many responses share, described once
NextCursor = Annotated[str | None, Field(description="pass as `cursor` for the next page; null on the last")]
Epoch = Annotated[float, Field(description="seconds since the epoch (UTC)")]
Provenance = Annotated[Engine, Field(description="the engine and net that evaluated (GET /v1/models)")]
InLanguage = Annotated[str, Field(description="in the request's language")]

# the Evaluator service's CubeContext fields as the REST body names them
CUBE_FIELDS = {"cube.cube_value": "cube.value", "cube.cube_owner": "cube.owner"}


def renamed(problem: ProblemError, fields: dict[str, str] = CUBE_FIELDS) -> ProblemError:
    """The same problem with the service's field paths as the REST body names them."""
    if not problem.errors:
        return problem
    problem.errors = [(fields.get(f, f), r) for f, r in problem.errors]
    problem.detail = "; ".join(f"{f}: {r}" for f, r in problem.errors)
    return problem


Strength = Literal["easy", "medium", "hard", "master"]
STRENGTHS = {
    "easy": epb.LEVEL_EASY,
    "medium": epb.LEVEL_MEDIUM,
    "hard": epb.LEVEL_HARD,
    "master": epb.LEVEL_MASTER,
}


@dataclass(frozen=True, slots=True)
class Parsed:
    """A position with what its text form said besides the board."""

    position: Position
    kind: Literal["position_id", "gnubg_id", "xgid", "ogid", "board"]
    match: MatchId | None = None
    xgid: XGID | None = None
    ogid: OGID | None = None


def id_kind(text: str) -> Literal["position_id", "gnubg_id", "xgid", "ogid"]:
    """Which ID ``text`` is meant as (:func:`pulvezar.formats.position_text.position_text_kind`)."""
    return position_text_kind(text)


def parse_position(value: str | Board, field: str = "position") -> Parsed:
    """Decode any position form; a bad one is a 422 on ``field``."""
    try:
        if isinstance(value, Board):
            return Parsed(Position(value.mine, value.theirs), "board")
        r = read_position_text(value)  # the library's one reader of position text
        return Parsed(r.position, r.kind, r.match, r.xgid, r.ogid)
    except PulvezarError as e:
        raise invalid(field, str(e)) from None


def position_ref(value: str | Board, field: str = "position") -> pb.PositionRef:
    """The gRPC form; IDs go to the services as they are (they validate them), gnubg IDs split here."""
    if isinstance(value, Board):
        return pb.PositionRef(board=pb.Board(mine=value.mine, theirs=value.theirs))
    kind = id_kind(value)
    if kind == "ogid":  # the services read the XGID of the same game
        x = parse_position(value, field).xgid
        assert x is not None
        return pb.PositionRef(xgid=x.encode())
    if kind == "xgid":
        return pb.PositionRef(xgid=value)
    if kind == "gnubg_id":
        return pb.PositionRef(position_id=parse_position(value, field).position.position_id)
    return pb.PositionRef(position_id=value)


def dice_proto(d: tuple[int, int]) -> pb.Dice:
    return pb.Dice(die1=d[0], die2=d[1])


# ---- responses -------------------------------------------------------------


class Pips(BaseModel):
    player: int = Field(description="the player on roll")
    opponent: int


class MatchState(BaseModel):
    match_id: str | None = Field(None, description="gnubg Match ID (none for states it cannot express)")
    match_length: int = Field(description="0 = money play")
    score: tuple[int, int]
    cube_value: int
    cube_owner: int | None = Field(description="0 or 1 (gnubg players), none = centred")
    dice_owner: int
    turn: int
    dice: tuple[int, int] = Field(description="0, 0 before the roll")
    crawford: bool
    jacoby: bool
    double_offered: bool
    game_state: str
    resignation: str


def match_state(m: MatchId) -> MatchState:
    return MatchState(
        match_id=m.encode(),
        match_length=m.match_length,
        score=m.score,
        cube_value=m.cube_value,
        cube_owner=m.cube_owner,
        dice_owner=m.dice_owner,
        turn=m.turn,
        dice=m.dice,
        crawford=m.crawford,
        jacoby=m.jacoby,
        double_offered=m.double_offered,
        game_state=m.game_state.name,
        resignation=m.resignation.name,
    )


class Evaluation(BaseModel):
    probabilities: Probabilities
    equity: float = Field(description="cubeless, for the player on roll")


class Move(BaseModel):
    src: int = Field(description="1..24, 25 = bar")
    dst: int = Field(description="0..23, 0 = off")
    hit: bool


class PlayOut(BaseModel):
    notation: str = Field(description='canonical, e.g. "8/5 6/5"; "" when nothing can move')
    position_id: str = Field(description="the resulting position, mover's view")
    next_position_id: str = Field(description="the resulting position with the opponent on roll")
    moves: list[Move]
    hits: int


def play_out(p: pb.Play) -> PlayOut:
    return PlayOut(
        notation=p.notation,
        position_id=p.position_id,
        next_position_id=p.next_position_id,
        moves=[Move(src=m.src, dst=m.dst, hit=m.hit) for m in p.moves],
        hits=p.hits,
    )


def probabilities_out(pr: epb.Probabilities) -> Probabilities:
    return Probabilities(
        win=pr.win,
        win_gammon=pr.win_gammon,
        win_backgammon=pr.win_backgammon,
        lose_gammon=pr.lose_gammon,
        lose_backgammon=pr.lose_backgammon,
    )


def evaluation_out(e: epb.Evaluation) -> Evaluation:
    return Evaluation(probabilities=probabilities_out(e.probabilities), equity=e.equity)


def served_engine(sha256: str) -> Engine:
    """The :class:`Engine` of an Evaluator service reply: its model's SHA-256, named by the model files
    this gateway's pulvezar lists (:func:`pulvezar.eval.provenance.model_name_of`)."""
    import pulvezar
    from pulvezar.eval.provenance import model_name_of

    return Engine(model=model_name_of(sha256), model_sha256=sha256 or None, version=pulvezar.__version__)
