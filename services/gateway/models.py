"""Request and response models shared by the routers, and positions from their text forms."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from pulvezar import XGID, MatchId, Position, PulvezarError, Rules, parse_gnubg_id
from services.common import convert
from services.common.errors import BadArgument
from services.common.pulvezar_proto.v1 import evaluator_pb2 as epb
from services.common.pulvezar_proto.v1 import rules_pb2 as pb
from services.gateway.problems import ProblemError, invalid
from services.jobs.provenance import Engine

Count = Annotated[int, Field(ge=0, le=15)]
Die = Annotated[int, Field(ge=1, le=6)]
Dice = Annotated[tuple[Die, Die], Field(description="the two dice, each 1..6", examples=[[3, 1]])]
PositionText = Annotated[
    str,
    Field(
        min_length=1,
        max_length=200,
        description="a Position ID, gnubg's PositionID:MatchID or an XGID",
        examples=["4HPwATDgc/ABMA", "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"],
    ),
]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Board(Strict):
    """Checker counts, 25 per side in the owner's numbering: points 1..24, then the bar."""

    mine: Annotated[
        list[Count],
        Field(
            min_length=25,
            max_length=25,
            description="the player on roll's checkers: index 0..23 the points 1..24 of its own numbering, "
            "24 the bar",
        ),
    ]
    theirs: Annotated[
        list[Count],
        Field(
            min_length=25,
            max_length=25,
            description="the opponent's checkers in its own numbering, the same way",
        ),
    ]


PositionInput = Annotated[
    PositionText | Board,
    Field(description="an ID (Position ID, PositionID:MatchID, XGID) or a board; the player on roll's view"),
]


class RuleSet(Strict):
    variant: Literal["international", "tavla"] = Field("international", description="international or tavla")
    hit_and_stop: bool = Field(False, description="Tavla: a checker that hits in the home board stops")
    must_bear_off: bool = Field(False, description="Tavla: a die that can bear off must bear off")

    def proto(self) -> pb.RuleSet:
        variant = pb.VARIANT_TAVLA if self.variant == "tavla" else pb.VARIANT_INTERNATIONAL
        return pb.RuleSet(variant=variant, hit_and_stop=self.hit_and_stop, must_bear_off=self.must_bear_off)

    def library(self, field: str = "rules") -> Rules:
        try:
            return convert.rules(self.proto(), field)
        except BadArgument as e:
            raise invalid(e.field, e.description) from None


RulesField = Annotated[RuleSet, Field(default_factory=RuleSet, description="international by default")]

_OWNERS = {
    "centre": epb.CUBE_OWNER_CENTRE,
    "player": epb.CUBE_OWNER_PLAYER,
    "opponent": epb.CUBE_OWNER_OPPONENT,
}


class CubeInput(Strict):
    """The cube and score around the position, the player on roll before rolling (international only)."""

    value: int = Field(1, ge=1, le=32768, description="the cube's value, a power of two")
    owner: Literal["centre", "player", "opponent"] = "centre"
    match_length: int = Field(0, ge=0, le=25, description="0 = money play")
    score: int = Field(0, ge=0, le=24, description="match: the player on roll's points")
    opponent_score: int = Field(0, ge=0, le=24)
    crawford: bool = Field(False, description="match: this is the Crawford game")
    jacoby: bool = Field(False, description="money: gammons count single while the cube is centred")
    beaver: bool = Field(False, description="money: the taker may beaver")

    def proto(self) -> epb.CubeContext:
        return epb.CubeContext(
            cube_value=self.value,
            cube_owner=_OWNERS[self.owner],
            match_length=self.match_length,
            score=self.score,
            opponent_score=self.opponent_score,
            crawford=self.crawford,
            jacoby=self.jacoby,
            beaver=self.beaver,
        )


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
    kind: Literal["position_id", "gnubg_id", "xgid", "board"]
    match: MatchId | None = None
    xgid: XGID | None = None


def id_kind(text: str) -> Literal["position_id", "gnubg_id", "xgid"]:
    s = text.strip()
    if s[:5].upper() == "XGID=" or s.count(":") >= 2:
        return "xgid"
    return "gnubg_id" if ":" in s else "position_id"


def parse_position(value: str | Board, field: str = "position") -> Parsed:
    """Decode any position form; a bad one is a 422 on ``field``."""
    try:
        if isinstance(value, Board):
            return Parsed(Position(value.mine, value.theirs), "board")
        kind = id_kind(value)
        if kind == "xgid":
            x = XGID.parse(value)
            try:
                match: MatchId | None = x.to_match_id()
            except PulvezarError:
                match = None  # a beaver has no Match ID form
            return Parsed(x.position, kind, match, x)
        if kind == "gnubg_id":
            p, m = parse_gnubg_id(value)
            return Parsed(p, kind, m)
        return Parsed(Position.from_position_id(value), kind)
    except PulvezarError as e:
        raise invalid(field, str(e)) from None


def position_ref(value: str | Board, field: str = "position") -> pb.PositionRef:
    """The gRPC form; IDs go to the services as they are (they validate them), gnubg IDs split here."""
    if isinstance(value, Board):
        return pb.PositionRef(board=pb.Board(mine=value.mine, theirs=value.theirs))
    kind = id_kind(value)
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


class Probabilities(BaseModel):
    win: float
    win_gammon: float
    win_backgammon: float
    lose_gammon: float
    lose_backgammon: float


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


def evaluation_out(e: object) -> Evaluation:
    pr = e.probabilities  # type: ignore[attr-defined]
    return Evaluation(
        probabilities=Probabilities(
            win=pr.win,
            win_gammon=pr.win_gammon,
            win_backgammon=pr.win_backgammon,
            lose_gammon=pr.lose_gammon,
            lose_backgammon=pr.lose_backgammon,
        ),
        equity=e.equity,  # type: ignore[attr-defined]
    )


def served_engine(sha256: str) -> Engine:
    """The :class:`Engine` of an Evaluator service reply: its model's SHA-256, named by the model files
    this gateway's pulvezar lists (:func:`pulvezar.eval.provenance.model_name_of`)."""
    import pulvezar
    from pulvezar.eval.provenance import model_name_of

    return Engine(model=model_name_of(sha256), model_sha256=sha256 or None, version=pulvezar.__version__)
