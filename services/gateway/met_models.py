"""The bodies of ``/v1/match-equity`` (:mod:`pulvezar.met`) and ``GET /v1/models`` (the nets)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Table = Literal["kazaross-xg2", "tavla"]


class GammonPrices(BaseModel):
    player: float
    opponent: float


class EquityAtScore(BaseModel):
    table: str
    length: int = Field(description="0 = money")
    away: tuple[int, int] = Field(description="points needed: (player, opponent)")
    cube_value: int
    crawford: bool
    post_crawford: bool
    mwc: float | None = Field(description="match-winning chance of the player; none for money")
    take_point: float | None = Field(description="the player's take point of a double; none without one")
    gammon_price: GammonPrices | None
    notes: list[str]


class EquityTable(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "table": "Kazaross-XG2",
                    "length": 3,
                    "pre_crawford": [[0.5, 0.6774, 0.7508], [0.3226, 0.5, 0.5995], [0.2492, 0.4005, 0.5]],
                    "post_crawford": [0.5, 0.512, 0.6774],
                }
            ]
        }
    )

    table: str = Field(description="the table's name")
    length: int = Field(description="the rows and columns: 1- to length-away")
    pre_crawford: list[list[float]] = Field(
        description="pre_crawford[i][j]: the match-winning chance of a player i+1-away against one j+1-away "
        "(a 1-away score: the Crawford game)"
    )
    post_crawford: list[float] | None = Field(
        description="post_crawford[j]: the 1-away player's chance against one j+1-away after the Crawford "
        "game (null for a table without a cube)"
    )


class ModelOut(BaseModel):
    """One model file the library can load."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(description='the net\'s name, e.g. "pulvezar-v4"')
    sha256: str = Field(description="SHA-256 of its model file")
    encoding_version: int | None = Field(description="the input encoding its nets take")
    nets: list[str] = Field(description="the nets it holds: contact, crashed, race")
    variants: list[str] = Field(description="the rule sets it has nets of its own for")
    default: bool = Field(description="whether the library, the CLI and the workers load it by default")
    served: bool = Field(description="whether the Evaluator service evaluates with it")


class ServedModel(BaseModel):
    """The model the Evaluator service reports it serves."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="the name the service reports")
    sha256: str
    device: str = Field(description='where its nets run: "cpu", "cuda:0", ...')
    variants: list[str]


class ModelsResponse(BaseModel):
    """The nets, the default one and the served one."""

    model_config = ConfigDict(extra="forbid")

    version: str = Field(description="pulvezar's version")
    models: list[ModelOut]
    served: ServedModel | None = Field(description="the Evaluator service's model; null: it did not answer")
