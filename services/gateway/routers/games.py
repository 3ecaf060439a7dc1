"""``/v1/games``: games and matches against pulvezar's bots (the Play API).

A game is a :class:`pulvezar.play.PlaySession` kept in the durable store; loading, acting and saving, the
per-game lock and the idempotent replays are :mod:`services.gateway.services.games`'.  The bots' nets run
in the Evaluator service (:class:`services.common.remote_evaluator.GrpcEvaluator`); the rules and the
search run here.

``Idempotency-Key`` (at most 128 characters) on ``POST /v1/games`` and ``POST .../actions``: the answer is
stored with the change it made, so a retried request gets the same answer (``Idempotent-Replayed:
true``) and acts once; the same key with another request is a 422.

Routes: ``POST /v1/games`` (201), ``GET /v1/games`` (the caller's games, newest first),
``GET /v1/games/{id}``, ``POST /v1/games/{id}/actions``, ``GET /v1/games/{id}/events`` (server-sent
events, from ``Last-Event-ID``), ``POST /v1/games/{id}/verify``, ``GET /v1/games/{id}/export?format=``,
``GET /v1/games/{id}/replay``, ``GET /v1/games/{id}/card.png``, ``POST /v1/games/{id}/analysis`` (an
analysis job of the finished match), ``GET /v1/games/{id}/end`` (the end-of-game summary),
``POST /v1/games/{id}/forfeit`` (resign the whole match: a loss), ``DELETE /v1/games/{id}`` (an unfinished
match only: 409 for a finished one).  Other keys get 404; the secret dice seed never leaves the store
before the match is over.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Header, Path, Query, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse

from services.gateway.analysis_models import AnalysisJob
from services.gateway.idempotency import IdempotencyKey, fingerprint
from services.gateway.language import language
from services.gateway.links import links
from services.gateway.play_models import (
    ActionIn,
    AnalysisIn,
    GameEnd,
    GameIn,
    GameList,
    GameView,
    Replay,
    Verification,
)
from services.gateway.problems import ProblemError, invalid
from services.gateway.routers.params import Who, add_call_routes, download
from services.gateway.services import games
from services.gateway.services.analyses import submit_files
from services.gateway.services.deps import dependencies
from services.gateway.sse import Pace, sse, streams

__all__ = ["ActionIn", "GameIn", "router"]  # the request bodies (tests read their examples)

router = APIRouter(prefix="/v1/games", tags=["games"])

GameId = Annotated[
    str, Path(min_length=1, max_length=64, description="a game's id", examples=["g0123456789abcdef01234567"])
]


def table(request: Request, who: Who) -> games.Table:
    """The caller's games, with what acting on them needs (the app's records and evaluator)."""
    deps = dependencies(request)
    return games.Table(
        deps.games, deps.players, deps.evaluator, who, language(request),
        request.app.state.settings.trainer_ply, getattr(request.app.state, "game_seeds", None),
    )  # fmt: skip


Games = Annotated[games.Table, Depends(table)]


_GAME = "/v1/games/{game_id}"
_GAME_LINKS = {  # where a new game's id goes (OpenAPI links: clients and schemathesis's stateful phase)
    "GetGame": ("GET", _GAME),
    "Act": ("POST", f"{_GAME}/actions"),
    "Events": ("GET", f"{_GAME}/events"),
    "Export": ("GET", f"{_GAME}/export"),
    "Replay": ("GET", f"{_GAME}/replay"),
    "Card": ("GET", f"{_GAME}/card.png"),
    "Verify": ("POST", f"{_GAME}/verify"),
    "Analyse": ("POST", f"{_GAME}/analysis"),
    "End": ("GET", f"{_GAME}/end"),
    "Forfeit": ("POST", f"{_GAME}/forfeit"),
    "Delete": ("DELETE", _GAME),
}


@router.post(
    "",
    status_code=201,
    response_model=GameView,
    response_model_exclude_unset=True,
    summary="Start a game or match against a bot",
    responses=links(201, "The new game's state", "game_id", "/id", _GAME_LINKS),
)
async def create_game(
    body: GameIn, request: Request, t: Games, idempotency_key: IdempotencyKey = None
) -> JSONResponse:
    idem = games.Idem(idempotency_key, fingerprint(request, body.model_dump(exclude_none=True)))
    out = await games.create(t, body, idem)
    if isinstance(out, JSONResponse):  # an Idempotency-Key's stored answer
        return out
    return JSONResponse(out.body(), status_code=201, headers={"Location": out.href})


@router.get("", response_model=GameList, summary="Your games, newest first (cursor pagination)")
async def list_games(
    t: Games,
    status: Annotated[list[Literal["playing", "finished"]] | None, Query(description="only these")] = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    cursor: Annotated[str | None, Query(max_length=200)] = None,
    player: Annotated[
        str | None, Query(max_length=64, description="only the games recorded for this player")
    ] = None,
) -> GameList:
    return await games.listed(t, status, limit, cursor, player)


@router.get(
    "/{game_id}",
    response_model=GameView,
    response_model_exclude_unset=True,
    summary="A game's state: board, score, cube, whose turn, actions, legal plays",
)
async def get_game(game_id: GameId, t: Games) -> JSONResponse:
    return JSONResponse((await games.get(t, game_id)).body())


@router.post(
    "/{game_id}/actions",
    response_model=GameView,
    response_model_exclude_unset=True,
    summary="Act (roll, play, double, take, pass, beaver, raccoon, resign, accept, reject, end; hint, "
    "check; hold: true to have the trainer hold a decision it warns about): the new state with the bot's "
    "replies up to your next decision",
)
async def act(
    game_id: GameId, body: ActionIn, request: Request, t: Games, idempotency_key: IdempotencyKey = None
) -> JSONResponse:
    idem = games.Idem(idempotency_key, fingerprint(request, body.model_dump(exclude_none=True)))
    out = await games.act(t, game_id, body, idem)
    return out if isinstance(out, JSONResponse) else JSONResponse(out.body())


@router.get(
    "/{game_id}/events",
    summary="The game's transitions as server-sent events (from Last-Event-ID, or all)",
    response_class=StreamingResponse,
    responses={200: {"content": {"text/event-stream": {}}}},
)
async def game_events(
    game_id: GameId,
    request: Request,
    t: Games,
    last_event_id: Annotated[str | None, Header(alias="Last-Event-ID", max_length=20)] = None,
    after: Annotated[int | None, Query(ge=0, description="events numbered above this")] = None,
) -> StreamingResponse:
    stored = await games.stored(t, game_id)
    start = after or 0
    if last_event_id is not None:
        try:
            start = max(start, int(last_event_id))
        except ValueError:
            raise invalid("Last-Event-ID", "an event number") from None
    keepalive_s: float = request.app.state.settings.sse_keepalive_s

    async def stream(pace: Pace) -> AsyncIterator[bytes]:
        yield f"retry: {pace.retry_ms}\n\n".encode()
        seen, quiet = start, time.monotonic()
        while True:
            try:
                batch, status = await games.events_after(t, stored, seen)
            except ProblemError as e:
                yield sse("error", {"status": e.status, "detail": e.detail})
                return
            for n, event in batch:
                yield sse(str(event.get("type", "event")), games.event_view(event, t.lang), n)
                seen, quiet = n, time.monotonic()
            if not batch:
                if status == "finished":
                    yield sse("end", {"status": "finished"}, seen)
                    return
                if time.monotonic() - quiet >= keepalive_s:
                    yield b": keep-alive\n\n"
                    quiet = time.monotonic()
                if await request.is_disconnected():
                    return
                await pace.wait(keepalive_s)

    return await streams(request).open(t.who.owner, f"game:{game_id}", stream)


#: the parameters of the routes of one game, in the order of the service's functions
ONE_GAME = {"t": Games, "game_id": GameId}

# the routes that answer with what a finished game's record shows
add_call_routes(router, ONE_GAME, (
    ("POST", "/{game_id}/verify", "verify", Verification, games.verify,
     "Check every roll of a finished game against the revealed seed"),
    ("GET", "/{game_id}/replay", "replay", Replay, games.replay,
     "Every step of a finished match with its IDs (and where to play from)"),
))  # fmt: skip


_TEXT = "text/plain; charset=utf-8"
_MEDIA = {"mat": _TEXT, "txt": _TEXT, "sgf": "application/x-go-sgf", "ogxm": "application/octet-stream"}


@router.get("/{game_id}/export", response_class=Response, summary="The match as .mat, .sgf, .txt or .ogxm")
async def export(
    game_id: GameId,
    t: Games,
    format: Annotated[
        Literal["mat", "sgf", "txt", "ogxm"],
        Query(description="the file format (.ogxm: not Tavla; a Tavla .sgf: gnubg cannot read it)"),
    ] = "mat",
) -> Response:
    return download(await games.export(t, game_id, format), _MEDIA[format], f"{game_id}.{format}")


@router.get(
    "/{game_id}/card.png",
    response_class=Response,
    summary="A game's result card as a PNG to share: who won how many points and how, the score, the luck",
    responses={200: {"content": {"image/png": {}}}},
)
async def result_card(
    game_id: GameId,
    t: Games,
    game: Annotated[
        int | None,
        Query(ge=1, le=999, description="the game of the match (default: the last ended)", examples=[2]),
    ] = None,
) -> Response:
    data = await games.result_card(t, game_id, game)
    return Response(data, media_type="image/png", headers={"Cache-Control": "private, max-age=86400"})


@router.post(
    "/{game_id}/analysis",
    status_code=202,
    response_model=AnalysisJob,
    response_model_exclude_unset=True,
    summary="Analyse the finished match (an analysis job)",
)
async def analyse(
    game_id: GameId, request: Request, t: Games, body: AnalysisIn | None = None
) -> JSONResponse:
    match, learner = await games.match_file(t, game_id)
    level = body.level if body else None
    return await submit_files(request, t.who, [match], level, "interactive", learner=learner)


@router.post(
    "/{game_id}/forfeit",
    response_model=GameView,
    response_model_exclude_unset=True,
    summary="Resign the whole match: the bot wins the points the match still needs; counted as a loss",
)
async def forfeit(game_id: GameId, t: Games) -> JSONResponse:
    return JSONResponse((await games.forfeit(t, game_id)).body())


@router.delete(
    "/{game_id}",
    status_code=204,
    response_class=Response,
    summary="Delete an unfinished match (a finished one is the record: 409)",
)
async def delete_game(game_id: GameId, t: Games) -> Response:
    await games.delete(t, game_id)
    return Response(status_code=204)


@router.get(
    "/{game_id}/end",
    response_model=GameEnd,
    summary="The summary of an ended game and of the match: duration, points, how, average roll, luck, "
    "a quick 0-ply PR (analyse the match for the full one), hints, warnings",
)
async def game_end(
    game_id: GameId,
    t: Games,
    game: Annotated[
        int | None,
        Query(ge=1, le=999, description="the game of the match (default: the last ended)", examples=[2]),
    ] = None,
) -> GameEnd:
    return await games.game_end(t, game_id, game)
