"""The bodies of ``/v1/matches``: a match file read into games, decisions and their IDs, and the stored
uploads."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from services.gateway.models import Epoch, NextCursor
from services.gateway.signature_models import SignatureOut

Format = Literal["mat", "sgf", "xg", "gmd", "ogxm", "bgf"]


class ActionOut(BaseModel):
    player: int
    kind: str
    dice: tuple[int, int] | None = None
    notation: str | None = None
    value: int = 0


class GameOut(BaseModel):
    number: int
    score: tuple[int, int]
    crawford: bool
    winner: int | None
    points: int
    cut_at: str | None = Field(description="where replay stopped at an action the rules do not allow")
    notes: list[str]
    actions: list[ActionOut]


class DecisionOut(BaseModel):
    game: int = Field(description="index into games")
    index: int = Field(description="index into the game's actions")
    player: int
    kind: str
    dice: tuple[int, int] | None
    notation: str | None
    position_id: str = Field(description="seen from the player on roll")
    match_id: str
    gnubg_id: str
    xgid: str | None


class MatchOut(BaseModel):
    id: str | None = Field(None, description="the stored upload (GET /v1/matches/{id})")
    format: Format
    filename: str | None
    length: int = Field(description="0 = money session")
    players: tuple[str, str]
    tags: dict[str, str]
    comments: list[str]
    cut_games: int
    games: list[GameOut]
    decisions: list[DecisionOut]
    signatures: list[SignatureOut] | None = Field(
        None, description="the file's signature checks against the upload's `keys` (left out without keys)"
    )


class UploadSummary(BaseModel):
    id: str
    filename: str | None
    format: Format
    players: tuple[str, str]
    length: int = Field(description="0 = money session")
    games: int
    decisions: int
    created: Epoch
    href: str


class UploadList(BaseModel):
    matches: list[UploadSummary] = Field(description="newest first")
    next_cursor: NextCursor
