"""The request schemas every service shares: positions, dice, the rule set and the cube as a client sends
them, and the limits on them, set once.

They sit below both the gateway (request bodies) and the jobs (stored items), so that a request is validated
once, where it is parsed, by the library's codec (:meth:`pulvezar.Rules.from_dict`,
:meth:`pulvezar.CubeState.from_dict`).  A rule set that breaks the rules (a Tavla option with international
rules) fails validation like any malformed field: the gateway answers 422 naming it.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from pulvezar import CubeState, Position, PulvezarError, Rules
from pulvezar.cubeful.state import MAX_CUBE, MAX_MATCH_LENGTH
from pulvezar.rules.ogid import OGID, looks_like_ogid
from services.common.pulvezar_proto.v1 import evaluator_pb2 as epb
from services.common.pulvezar_proto.v1 import rules_pb2 as pb

#: the longest position text (an XGID with its match fields is about 70 characters)
MAX_POSITION_TEXT = 200

# ---- the limits of a rollout request, set here only: the gateway's bodies and the jobs' items use them ----
#: trials per position of a rollout job (and a position's trials after ``extend``)
MAX_TRIALS = 1_000_000
#: positions of one batch rollout job
MAX_BATCH_POSITIONS = 64
#: half-moves of a truncated trial
MAX_TRUNCATE = 1000
#: candidate plays of one roll
MAX_PLAYS = 64
#: the deepest move choice a rollout's trials may use (each ply multiplies a rollout's work many times over)
MAX_ROLLOUT_PLY = 2
#: a rollout's seed (the dice of trial i depend on (seed, i) only)
MAX_SEED = 2**63 - 1
#: a batch position's label (the client's name for it, echoed back)
MAX_LABEL = 200

Count = Annotated[int, Field(ge=0, le=15)]
Die = Annotated[int, Field(ge=1, le=6)]
Dice = Annotated[tuple[Die, Die], Field(description="the two dice, each 1..6", examples=[[3, 1]])]


def read_ogid(text: str) -> str:
    """An OGID (OpenGammon's position ID) as the XGID of the same game in play; other text as it is.

    Every position text a client sends passes here once, so the services and the jobs below read a form
    they know (an XGID) rather than each a new one.  A malformed or ended OGID stays as it is: where the
    text is parsed (:func:`services.gateway.models.parse_position`, the jobs' items) it is refused with
    the OGID's own reason, naming the field (not here, where a position's board form would be named too).
    """
    if not looks_like_ogid(text):
        return text
    try:
        return OGID.parse(text).to_xgid().encode()
    except PulvezarError:
        return text


PositionText = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_POSITION_TEXT,
        description="a Position ID, gnubg's PositionID:MatchID, an XGID or an OGID (read as the XGID of the "
        "same game)",
        examples=["4HPwATDgc/ABMA", "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"],
    ),
    AfterValidator(read_ogid),
]


class Strict(BaseModel):
    """A request model: unknown fields are refused."""

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
    Field(
        description="an ID (Position ID, PositionID:MatchID, XGID, OGID) or a board; the player on roll's "
        "view"
    ),
]


class RuleSet(Strict):
    """A rule set as a client sends it; checked by :meth:`pulvezar.Rules.from_dict` when it is parsed."""

    variant: Literal["international", "tavla"] = Field("international", description="international or tavla")
    hit_and_stop: bool = Field(False, description="Tavla: a checker that hits in the home board stops")
    must_bear_off: bool = Field(False, description="Tavla: a die that can bear off must bear off")

    @field_validator("hit_and_stop", "must_bear_off")
    @classmethod
    def _tavla_option(cls, value: bool, info: ValidationInfo) -> bool:
        """A Tavla option with international rules is refused on the option's field, by the codec."""
        if value:
            Rules.from_dict(
                {"variant": info.data.get("variant", "international"), str(info.field_name): value}
            )
        return value

    def proto(self) -> pb.RuleSet:
        variant = pb.VARIANT_TAVLA if self.variant == "tavla" else pb.VARIANT_INTERNATIONAL
        return pb.RuleSet(variant=variant, hit_and_stop=self.hit_and_stop, must_bear_off=self.must_bear_off)

    def library(self, field: str = "rules") -> Rules:
        """The library's rule set (:class:`pulvezar.InvalidValueError` on ``field`` if it breaks them)."""
        return Rules.from_dict(self.model_dump(), field)


RulesField = Annotated[RuleSet, Field(default_factory=RuleSet, description="international by default")]

_OWNERS = {
    "centre": epb.CUBE_OWNER_CENTRE,
    "player": epb.CUBE_OWNER_PLAYER,
    "opponent": epb.CUBE_OWNER_OPPONENT,
}


class CubeInput(Strict):
    """The cube and score around the position, the player on roll before rolling (international only)."""

    value: int = Field(1, ge=1, le=MAX_CUBE, description="the cube's value, a power of two")
    owner: Literal["centre", "player", "opponent"] = "centre"
    match_length: int = Field(0, ge=0, le=MAX_MATCH_LENGTH, description="0 = money play")
    score: int = Field(0, ge=0, le=MAX_MATCH_LENGTH - 1, description="match: the player on roll's points")
    opponent_score: int = Field(0, ge=0, le=MAX_MATCH_LENGTH - 1)
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

    def state(self, position: Position, rules: Rules | None = None, field: str = "cube") -> CubeState:
        """The library's cube state of ``position`` (:meth:`pulvezar.CubeState.from_dict`)."""
        return CubeState.from_dict(position, self.model_dump(), rules, field)


# ---- the rollout requests: the gateway's bodies, the rollout kinds' requests as submitted ----

Priority = Literal["interactive", "batch"]


class RolloutOptions(Strict):
    kind: Literal["position", "cube"] = Field(
        "position",
        description="position: the position (or the candidate plays of dice); cube: its cube decision "
        "before the roll (always cubeful; `cube` gives the cube and score, no dice or plays)",
    )
    trials: int = Field(
        1296, ge=1, le=MAX_TRIALS, description="trials (games) to play; a multiple of 36 balances the dice"
    )
    ply: int = Field(
        0, ge=0, le=MAX_ROLLOUT_PLY, description="the search depth that chooses each trial's plays (0..2)"
    )
    prune: bool = Field(
        True,
        description="ply 1 or 2: the trials' search prunes the replies (the screening net keeps each roll's "
        "4 best); false: the unpruned search (ignored at ply 0, which does not search)",
    )
    seed: int = Field(1, ge=0, lt=MAX_SEED + 1, description="the dice of trial i depend on (seed, i) only")
    variance_reduction: bool = True
    luck: Literal["screened", "full"] = Field(
        "screened",
        description="variance reduction's 21 rolls: 'screened' values the plays a cheap net ranks first "
        "(0-ply trials; unbiased, faster), 'full' values every play",
    )
    truncate: int | None = Field(
        None, ge=1, le=MAX_TRUNCATE, description="stop each trial after N half-moves"
    )
    rules: RulesField
    cubeful: bool = Field(
        False, description="play the cube in the trials and report cubeful equity (international rules)"
    )
    cube: CubeInput | None = Field(
        None, description="cubeful only: the cube and score, as the player on roll sees it; centred money"
    )


class Candidates(Strict):
    dice: Dice | None = Field(None, description="roll out the candidate plays of this roll (after it)")
    plays: (
        Annotated[list[Annotated[str, Field(max_length=100)]], Field(min_length=1, max_length=MAX_PLAYS)]
        | None
    ) = Field(None, description="the candidates in notation; default: every legal play of the dice")


class RolloutRequest(RolloutOptions, Candidates):
    position: PositionInput
    priority: Priority = "interactive"


class Extend(Strict):
    trials: int = Field(ge=1, le=MAX_TRIALS, description="more trials per position")


class BatchPosition(Candidates):  # one position of a batch (no docstring: the OpenAPI schema as it was)
    position: PositionInput
    label: str | None = Field(None, max_length=MAX_LABEL, description="the client's name for it, echoed back")


class BatchRequest(RolloutOptions):  # the public API's body: the options once, then the positions
    positions: Annotated[list[BatchPosition], Field(min_length=1, max_length=MAX_BATCH_POSITIONS)]
    priority: Priority = "batch"
