"""The players of an API key (``/v1/players``): the learner's record starts here.

A client app has many people per key; each is a player made with ``POST /v1/players`` and named in what
is recorded for it (``"player"`` in ``POST /v1/games``).  A player belongs to the key that made it: another
key gets 404.  ``DELETE`` removes the player and everything recorded for it.  Needs the durable store.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field, field_validator

from services.gateway.durable import database_url, no_store, store_call
from services.gateway.problems import ProblemError, invalid
from services.gateway.security import Client, client

router = APIRouter(prefix="/v1/players", tags=["players"])
Who = Annotated[Client, Depends(client)]
PlayerId = Annotated[str, Path(min_length=1, max_length=32, pattern=r"^[A-Za-z0-9]+$")]


class PlayerIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=100, description="how the app shows the player")

    @field_validator("name")
    @classmethod
    def _not_blank(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("a name is not only spaces")
        return v.strip()


class Player(BaseModel):
    id: str
    name: str
    created: float = Field(description="seconds since the epoch (UTC)")
    updated: float
    href: str


class PlayerList(BaseModel):
    players: list[Player] = Field(description="newest first")
    next_cursor: str | None = Field(description="pass as `cursor` for the next page; null on the last")


def records(request: Request) -> Any:
    url = database_url(request)
    if not url:
        raise no_store("players")
    from services.store.players import PlayerRecords

    return PlayerRecords(url)


def _out(p: Any) -> Player:
    return Player(
        id=p.id, name=p.name, created=p.created_at, updated=p.updated_at, href=f"/v1/players/{p.id}"
    )


def _not_found(player_id: str) -> ProblemError:
    return ProblemError(
        404, f"no player {player_id!r}", kind="not-found", errors=[("player_id", "unknown player")]
    )


@router.post("", status_code=201, response_model=Player, summary="Make a player of your key")
async def create_player(body: PlayerIn, request: Request, who: Who) -> JSONResponse:
    p = await store_call(records(request).create, who.owner, body.name)
    out = _out(p)
    return JSONResponse(out.model_dump(), status_code=201, headers={"Location": out.href})


@router.get("", summary="Your players, newest first (cursor pagination)")
async def list_players(
    request: Request,
    who: Who,
    limit: Annotated[int, Query(ge=1, le=200, description="players per page")] = 50,
    cursor: Annotated[str | None, Query(max_length=200)] = None,
) -> PlayerList:
    try:
        rows, nxt = await store_call(records(request).list, who.owner, limit=limit, cursor=cursor)
    except ValueError as e:
        raise invalid("cursor", str(e)) from None
    return PlayerList(players=[_out(p) for p in rows], next_cursor=nxt)


@router.get("/{player_id}", summary="A player")
async def get_player(player_id: PlayerId, request: Request, who: Who) -> Player:
    p = await store_call(records(request).get, who.owner, player_id)
    if p is None:
        raise _not_found(player_id)
    return _out(p)


@router.patch("/{player_id}", summary="Rename a player")
async def rename_player(player_id: PlayerId, body: PlayerIn, request: Request, who: Who) -> Player:
    p = await store_call(records(request).rename, who.owner, player_id, body.name)
    if p is None:
        raise _not_found(player_id)
    return _out(p)


@router.delete(
    "/{player_id}",
    status_code=204,
    response_class=Response,
    summary="Delete a player and everything recorded for it (its games)",
)
async def delete_player(player_id: PlayerId, request: Request, who: Who) -> Response:
    if not await store_call(records(request).delete, who.owner, player_id):
        raise _not_found(player_id)
    return Response(status_code=204)
