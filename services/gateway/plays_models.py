"""The bodies of the plays routes (``/v1/legal-plays``, ``/v1/apply-play``, ``/v1/evaluate``,
``/v1/best-play`` and ``/v1/hint``, also asked by the flash cards), and the position type as analyses
name it (also in ``GET /v1/positions/{id}``)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from services.gateway.models import (
    Board,
    CubeInput,
    Dice,
    Evaluation,
    MatchState,
    Pips,
    PlayOut,
    PositionInput,
    Probabilities,
    Provenance,
    RulesField,
    Strength,
    Strict,
)


class Side(BaseModel):
    player: int = Field(description="the player on roll")
    opponent: int


class PositionType(BaseModel):
    kind: str = Field(description="opening, race, bear-off, blitz, backgame, prime, holding or contact")
    side: str | None = Field(description="whose type it is: player (on roll), opponent; null for the others")
    plan: str = Field(description="the game plan of the type, in a sentence")


class PlaysRequest(Strict):
    position: PositionInput
    dice: Dice
    rules: RulesField


class HintRequest(PlaysRequest):
    ply: int | None = Field(None, ge=0, description="search depth (the gateway caps it); default: level's")
    level: Strength | None = None
    seed: int = Field(0, ge=0, lt=2**63, description="seeds a level's deterministic noise")
    limit: int = Field(20, ge=1, le=1000, description="how many candidates to return, best first")
    cube: CubeInput | None = Field(
        None, description="the cube and score: a cubeful hint (international only)"
    )
    prune: bool = Field(
        True,
        description="at 1 ply or deeper the search prunes the replies (the screening net keeps each "
        "roll's 4 best; the unpruned best play on over 99% of decisions at ~2.5x the speed); false: "
        "the unpruned search",
    )


class Candidate(BaseModel):
    notation: str
    position_id: str = Field(description="the resulting position, mover's view")
    probabilities: Probabilities
    equity: float = Field(
        description="what candidates are compared by, for the player making the play: "
        "cubeful when a cube was given, else cubeless"
    )
    cubeful_equity: float | None = Field(None, description="normalised cubeful equity (with a cube)")
    loss: float = Field(description="the best candidate's equity minus this one's")
    ply: int


class HintResponse(BaseModel):
    candidates: list[Candidate]
    legal_plays: int
    engine: str = Field(description="where the hint was computed")
    provenance: Provenance
    position_type: PositionType = Field(description="the position type, as analyses name it")
    why: dict[str, str] | None = Field(
        None, description="why the best play beats the second, in en, de and tr (null with one candidate)"
    )
    reasons: list[dict[str, Any]] | None = Field(None, description="the differences behind why, as codes")


class PlaysResponse(BaseModel):
    count: int
    plays: list[PlayOut]


class ApplyRequest(PlaysRequest):
    notation: str = Field(min_length=1, max_length=100, examples=["8/5 6/5"])


class GameResult(BaseModel):
    winner: Literal["player", "opponent"]
    outcome: Literal["single", "gammon", "backgammon"]
    points: int


class ApplyResponse(BaseModel):
    play: PlayOut
    board: Board
    game_result: GameResult | None = None


class EvaluateRequest(Strict):
    positions: Annotated[list[PositionInput], Field(min_length=1)]
    rules: RulesField


class EvaluateResponse(BaseModel):
    evaluations: list[Evaluation]
    model: str = Field(description="SHA-256 of the model file")
    provenance: Provenance


class EvaluatedPlay(BaseModel):
    play: PlayOut
    evaluation: Evaluation


class BestPlayResponse(BaseModel):
    best: EvaluatedPlay
    legal_plays: int
    model: str
    provenance: Provenance


class PositionInfo(BaseModel):
    kind: str = Field(description="which form was given: position_id, gnubg_id, xgid or ogid")
    position_id: str
    xgid: str
    ogid: str = Field(description="OpenGammon's position ID of the same state (the player on roll as White)")
    gnubg_id: str | None = Field(None, description="PositionID:MatchID when the match state is known")
    board: Board
    pips: Pips
    off: Side
    bar: Side
    match: MatchState | None = None
    dice: tuple[int, int] | None = Field(None, description="the rolled dice, when the ID says")
    race: bool = Field(description="no contact left")
    diagram: str = Field(description="an ASCII diagram (the player on roll is X)")
    board_svg: str = Field(description="where the SVG picture is")
    position_type: PositionType = Field(description="the position type, as analyses name it")
