"""The bodies of ``/v1/cube-decision`` and ``/v1/resignation``: equities normalised (money per cube, match
as EMG), with match-winning chances beside."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from services.gateway.models import (
    CubeInput,
    PositionInput,
    Probabilities,
    Provenance,
    RulesField,
    Strength,
    Strict,
)

#: the deepest cube decision the gateway asks for
MAX_CUBE_PLY = 2
Resignation = Literal["single", "gammon", "backgammon"]


class _AtCube(Strict):
    """What cube decisions and resignations are asked of: the position before rolling, cube, rules."""

    position: PositionInput = Field(description="the player on roll, before rolling")
    cube: CubeInput = Field(default_factory=CubeInput, description="money, centred cube by default")
    rules: RulesField


class CubeDecisionRequest(_AtCube):
    ply: int | None = Field(None, ge=0, le=MAX_CUBE_PLY, description="default: the level's, else 0")
    level: Strength | None = None
    prune: bool = Field(
        True,
        description="at 1 ply or deeper the lookahead prunes the replies (the screening net keeps each "
        "roll's 4 best); false: the unpruned lookahead",
    )


class CubeEquities(BaseModel):
    no_double: float
    double_take: float | None = Field(description="none when the player cannot double")
    double_pass: float | None
    value: float = Field(description="with the right action")


class GammonPrices(BaseModel):
    player: float
    opponent: float


class CubeDecisionResponse(BaseModel):
    action: str = Field(examples=["No double, take", "Double, pass", "Too good to double, pass"])
    double: bool
    taker_response: Literal["take", "pass", "beaver"] | None = Field(description="none without a double")
    equities: CubeEquities = Field(description="normalised")
    mwc: CubeEquities | None = Field(description="match: the same as match-winning chances")
    costs: dict[str, float] = Field(description="equity each action gives up against the right one")
    can_double: bool
    dead_cube: bool
    take_point: float | None = Field(description="the opponent's take point of this double")
    gammon_price: GammonPrices
    probabilities: Probabilities = Field(description="cubeless, at the ply")
    cubeless_equity: float
    cube_efficiency: float
    ply: int
    notes: list[str]
    model: str
    provenance: Provenance


class ResignationRequest(_AtCube):
    resignation: Resignation | None = Field(
        None, description="the resignation offered; none: only whether the player on roll should resign"
    )
    resigner: Literal["player", "opponent"] = Field("player", description="who offers it")
    ply: int = Field(
        0, ge=0, le=MAX_CUBE_PLY, description="depth of the cube decision that values playing on"
    )


class ResignationDecision(BaseModel):
    resignation: Resignation
    resigner: Literal["player", "opponent"]
    accept: bool = Field(description="the answer of the side offered it")
    value: float = Field(description="what accepting gives the acceptor (normalised)")
    play_on: float = Field(description="the acceptor's cubeful equity of playing on (normalised)")
    cost: float = Field(description="what the wrong answer loses")
    mwc_value: float | None = None
    mwc_play_on: float | None = None


class ResignationResponse(BaseModel):
    decision: ResignationDecision | None
    should_resign: Resignation | None = Field(description="the level the player on roll should resign now")
    model: str
    provenance: Provenance
