"""``/v1/games``: games and matches against pulvezar's bots (the Play API).

A game is a :class:`pulvezar.play.PlaySession` kept in the durable store
(:class:`services.store.games.GameRecords`): every request reads its record, applies the client's action
and the bot's replies up to the client's next decision, and writes the new record with the events over
the version it read, in one transaction.  Two requests on one game at once: the second waits for the
first in this process (a lock per game) and, across gateway replicas, is refused with 409 when the
first changed the game meanwhile.  The bots' nets run in the Evaluator service
(:class:`services.common.remote_evaluator.GrpcEvaluator`); the rules and the search run here.

``Idempotency-Key`` (at most 128 characters) on ``POST /v1/games`` and ``POST .../actions``: the answer is
stored with the change it made, so a retried request gets the same answer (``Idempotent-Replayed:
true``) and acts once; the same key with another request is a 422.

Routes: ``POST /v1/games`` (201), ``GET /v1/games`` (the caller's games, newest first),
``GET /v1/games/{id}``, ``POST /v1/games/{id}/actions``, ``GET /v1/games/{id}/events`` (server-sent
events, from ``Last-Event-ID``), ``POST /v1/games/{id}/verify``, ``GET /v1/games/{id}/export?format=``,
``POST /v1/games/{id}/analysis`` (an analysis job of the finished match).  Other keys get 404; the
secret dice seed never leaves the store before the match is over.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
import weakref
from collections import OrderedDict
from collections.abc import AsyncIterator
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Header, Path, Query, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field

from pulvezar import PulvezarError
from services.gateway.durable import database_url, no_store, store_call
from services.gateway.idempotency import IdempotencyKey, fingerprint, replayed
from services.gateway.language import language
from services.gateway.links import links
from services.gateway.models import RuleSet
from services.gateway.problems import ProblemError, invalid
from services.gateway.security import Client, client
from services.gateway.sse import Pace, sse, streams
from services.gateway.uploads import content_disposition

logger = logging.getLogger("pulvezar.gateway")

router = APIRouter(prefix="/v1/games", tags=["games"])

Who = Annotated[Client, Depends(client)]
GameId = Annotated[
    str, Path(min_length=1, max_length=64, description="a game's id", examples=["g0123456789abcdef01234567"])
]


# ---- request bodies --------------------------------------------------------------------------------
class MoneyIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    jacoby: bool = False
    beaver: bool = False
    raccoon: bool = False
    automatic_doubles: int = Field(0, ge=0, le=8)


class BotIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    level: Literal["easy", "medium", "hard", "master", "adaptive"] = "medium"
    style: Literal["balanced", "aggressive", "cautious", "runner"] | None = None
    rating: float | None = Field(None, description="adaptive: the player's rating")
    rating_kind: Literal["elo", "pr"] | None = None


class ClockIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    enabled: bool = True
    scope: Literal["match", "game"] | None = None
    minutes: float | None = Field(None, gt=0, le=600)
    delay: float | None = Field(None, ge=0, le=120)


class StartIn(BaseModel):
    """Where the game starts instead of the opening: a position (an ID), or a step of a finished game's
    replay ("play from here")."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"position": "4HPwATDgc/ABMA:QYkqASAAIAAA"},
                {"position": "XGID=-b----E-C---eE---c-e----B-:1:1:1:52:3:1:0:7:10", "side": "opponent"},
                {"game": "g0123456789abcdef01234567", "step": 12},
            ]
        },
    )
    position: str | None = Field(
        None,
        max_length=100,
        description="a Position ID, PositionID:MatchID or XGID: the board and, where the ID holds them, the "
        "cube, score, Crawford game, side on roll and its dice or double (its match length is the game's)",
    )
    side: Literal["on_roll", "opponent"] = Field(
        "on_roll", description="with position: you play the side on roll (or the doubler), or the other"
    )
    game: str | None = Field(
        None, max_length=64, description="play from here: one of your finished games (GET .../replay)"
    )
    step: int | None = Field(None, ge=0, le=1_000_000, description="with game: the step of its replay")


class GameIn(BaseModel):
    """A new game or match, e.g. ``{"rules": {"variant": "tavla"}, "bot": {"level": "easy"},
    "match_length": 1}``."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"rules": {"variant": "tavla"}, "bot": {"level": "easy"}, "match_length": 1},
                {"match_length": 5, "bot": {"level": "hard"}, "trainer": True, "hint_limit": 3},
                {"start": {"position": "4HPwATDgc/ABMA:QYkqASAAIAAA"}},
            ]
        },
    )
    rules: RuleSet | None = None
    match_length: int = Field(1, ge=0, le=25, description="0: a money session (international only)")
    money: MoneyIn | None = Field(None, description="money: Jacoby, beaver, raccoon, automatic doubles")
    bot: BotIn | None = None
    trainer: bool = Field(False, description="a verdict on each of your decisions")
    dice: Literal["server", "client"] = Field(
        "server", description="server: provably fair (SHA-256 commitment); client: you enter all rolls"
    )
    auto_forced: bool = Field(False, description="a play that is the only legal one is played for you")
    clock: bool | ClockIn = Field(False, description="the match clock (2 minutes per point, 12 s delay)")
    hint_limit: int | None = Field(
        None, ge=0, le=99, description='hints ({"action": "hint"}) allowed per match; none: no limit'
    )
    warn_at: float = Field(
        0.02, gt=0, le=1, description="the trainer warns from this loss on (0.02; 0.08: blunders only)"
    )
    player: str | None = Field(
        None,
        max_length=32,
        description="the player (POST /v1/players) the game is recorded for; none: nothing",
    )
    start: StartIn | None = Field(
        None, description="start from a position instead of the opening (a free game)"
    )
    free: bool | None = Field(
        None,
        description="a free game: neither archived nor counted for the player (always with start; default "
        "false otherwise)",
    )


class ActionIn(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"action": "roll"},
                {"action": "play", "notation": "8/5 6/5"},
                {"action": "hint"},
                {"action": "check", "notation": "13/10 6/5"},
                {"action": "resign", "level": "gammon"},
            ]
        },
    )
    action: Literal[
        "roll",
        "play",
        "double",
        "take",
        "pass",
        "beaver",
        "raccoon",
        "resign",
        "accept",
        "reject",
        "end",
        "hint",
        "check",
    ] = Field(
        description="hint: the engine's best plays of your roll (counted); check: the trainer's verdict on a "
        "play without making it"
    )
    notation: str | None = Field(None, max_length=64, description="play or check: e.g. 8/5 6/5")
    position_id: str | None = Field(None, max_length=32, description="play or check: the position after it")
    dice: tuple[int, int] | None = Field(None, description="roll with client dice")
    level: Literal["single", "gammon", "mars", "backgammon"] | int | None = Field(
        None, description="resign: the level"
    )


# ---- the store and the bots' evaluator --------------------------------------------------------------
def records(request: Request) -> Any:
    url = database_url(request)
    if not url:
        raise no_store("playing games")
    from services.store.games import GameRecords

    return GameRecords(url)


def evaluator(request: Request) -> Any:
    """The bots' evaluator: the Evaluator service (made on first use, one per app)."""
    state = request.app.state
    ev = getattr(state, "game_evaluator", None)
    if ev is None:
        from services.common.remote_evaluator import GrpcEvaluator

        ev = state.game_evaluator = GrpcEvaluator(
            state.settings.evaluator_address, timeout_s=state.settings.grpc_timeout_s
        )
    return ev


_LOCKS: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()


def _lock(game_id: str) -> asyncio.Lock:
    lock = _LOCKS.get(game_id)
    if lock is None:
        lock = _LOCKS[game_id] = asyncio.Lock()
    return lock


def _verdict(v: dict[str, Any] | None, lang: str) -> dict[str, Any] | None:
    if v is None:
        return None
    out = dict(v)
    explanation = out.get("explanation")
    out["why"] = explanation.get(lang) if isinstance(explanation, dict) else None
    out["language"] = lang
    return out


def _view(
    game_id: str, session: Any, now: float, lang: str, created: float | None = None, player: str | None = None
) -> dict[str, Any]:
    """The state a client sees (never the seed before the end); ``player``: the player it is recorded for."""
    state: dict[str, Any] = session.state(now=now)
    if state.get("status") != "finished":
        state.pop("dice_seed", None)
    state["trainer"] = _verdict(state.get("trainer"), lang)
    head: dict[str, Any] = {"id": game_id, "href": f"/v1/games/{game_id}"}
    if created:
        head["created"] = created
    if player is not None:
        head["player"] = player
    return {**head, **state}


def _summary(session: Any) -> dict[str, Any]:
    """What a list of games shows."""
    st = session.state()
    bot = session.settings.bot
    return {
        "free": session.settings.free,
        "rules": session.settings.rules.name,
        "match_length": session.settings.match_length,
        "bot": st.get("bot"),
        # an adaptive bot plays at this rating (its level in use is in "bot"): the player's statistics
        "adaptive_rating": bot.rating if bot.level == "adaptive" else None,
        "score": st.get("score"),
        "game": st.get("game"),
        "result": st.get("result"),
        "hints_used": session.hints_used,
    }


def _refused(e: PulvezarError) -> ProblemError:
    """A refused action: 409 when it does not fit the state, 422 when it is wrong in itself."""
    code = getattr(e, "code", "invalid")
    field = e.field or "action"
    if code in ("not_available", "finished"):
        return ProblemError(409, str(e), kind="game-state", errors=[(field, str(e))])
    kind = "illegal-play" if code == "illegal_play" else "invalid-input"
    return ProblemError(422, str(e), kind=kind, errors=[(field, str(e))])


def _no_game(game_id: str) -> ProblemError:
    return ProblemError(404, f"no game {game_id!r}", kind="not-found", errors=[("game_id", "unknown game")])


async def _load(request: Request, who: Client, game_id: str) -> tuple[Any, Any, Any]:
    """``(records, stored game, session)`` of the caller's game; 404 for another key's or none."""
    games = records(request)
    stored = await store_call(games.get, who.owner, game_id)
    if stored is None:
        raise _no_game(game_id)
    from pulvezar.play import PlaySession

    session = await asyncio.to_thread(PlaySession.from_json, stored.record, evaluator=evaluator(request))
    return games, stored, session


async def _save(
    games: Any, stored: Any, session: Any, events: list[dict[str, Any]], idem: Any = None
) -> None:
    from services.store.games import StaleGame

    try:
        await store_call(
            games.save, stored, session.to_json(), _summary(session), session.status, events, idem
        )
    except StaleGame:
        raise ProblemError(
            409, "the game changed while this request was answered; read it and act again",
            kind="game-changed",
        ) from None  # fmt: skip


async def _in_thread(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """A session call in a thread: refused actions are problems; the evaluator's failure is a 503."""
    try:
        return await asyncio.to_thread(fn, *args, **kwargs)
    except PulvezarError as e:
        raise _refused(e) from None
    except Exception as e:
        import grpc

        if isinstance(e, grpc.RpcError):
            logger.warning("the bots' evaluator failed: %s", e)
            raise ProblemError(
                503, "the evaluator service is unavailable; try again", kind="evaluator-unavailable",
                headers={"Retry-After": "2"},
            ) from None  # fmt: skip
        raise


# ---- routes ---------------------------------------------------------------------------------------
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
}


@router.post(
    "",
    status_code=201,
    summary="Start a game or match against a bot",
    responses=links(201, "The new game's state", "game_id", "/id", _GAME_LINKS),
)
async def create_game(
    body: GameIn, request: Request, who: Who, idempotency_key: IdempotencyKey = None
) -> JSONResponse:
    games = records(request)
    data = body.model_dump(exclude_none=True)
    fp = fingerprint(request, data)
    replay = await replayed(games, who, idempotency_key, fp)
    if replay is not None:
        return replay
    data.pop("player", None)
    start = None
    if body.start is not None:
        start, data = await _start_of(request, who, body, data)
    elif body.free is not None:
        data["free"] = body.free
    if body.player is not None:
        from services.store.players import PlayerRecords

        counters = await store_call(PlayerRecords(games.url).statistics, who.owner, body.player)
        if counters is None:
            raise invalid("player", f"no player {body.player!r} of this key")
        bot = data.get("bot") or {}
        if bot.get("level") == "adaptive" and bot.get("rating") is None:  # the player's own rating
            data["bot"] = {**bot, "rating": float(counters.get("rating", 1500.0))}
    from pulvezar.play import GameSettings, PlaySession

    if isinstance(body.clock, bool):
        data["clock"] = body.clock
    try:
        settings = GameSettings.from_dict(data)
    except PulvezarError as e:
        raise invalid(e.field or "body", str(e)) from None
    now = time.time()
    seeds = getattr(request.app.state, "game_seeds", None)  # tests: reproducible dice and bot noise
    seed, bot_seed = seeds() if seeds is not None else (None, None)
    session = await _in_thread(
        PlaySession, settings, evaluator=evaluator(request), now=now, bot_seed=bot_seed,
        trainer_ply=request.app.state.settings.trainer_ply,
        seed=seed if settings.dice == "server" else None, start=start,
    )  # fmt: skip
    game_id = "g" + secrets.token_hex(12)
    lang = language(request)
    created: dict[str, Any] = {"settings": settings.to_dict()}
    if start is not None:
        created["start"] = start.to_dict()
    events = [{"type": "created", "player": None, "details": created}]
    if session.bot_pending:  # the start gives the bot the first decision
        events += await _in_thread(session.resume, now)
    view = _view(game_id, session, now, lang, created=now, player=body.player)
    if len(events) > 1:
        view["events"] = [_event_view(e, lang) for e in events[1:]]
    idem = (idempotency_key, fp, 201, view) if idempotency_key else None
    recorded_for = None if settings.free else body.player  # a free game is not counted or archived
    await store_call(
        games.create, game_id, who.owner, session.to_json(), _summary(session), session.status, events, idem,
        now, recorded_for,
    )  # fmt: skip
    return JSONResponse(view, status_code=201, headers={"Location": f"/v1/games/{game_id}"})


async def _start_of(
    request: Request, who: Client, body: GameIn, data: dict[str, Any]
) -> tuple[Any, dict[str, Any]]:
    """The :class:`~pulvezar.play.start.Start` of ``body.start`` and the settings to start it with: a
    position's match length (unless the body sets one), or "play from here": the replayed match's rules,
    length and bot, under what the body sets itself.  Always a free game."""
    from pulvezar.play.start import Start

    st = body.start
    assert st is not None
    data.pop("start", None)
    if body.free is False:
        raise invalid("free", "a game from a position is always free (not archived or counted)")
    if (st.position is None) == (st.game is None):
        raise invalid("start", "give either position, or game and step")
    if st.position is not None:
        if st.step is not None:
            raise invalid("start.step", "step goes with game, not with position")
        try:
            start = Start.parse(st.position, st.side)
        except PulvezarError as e:
            raise invalid(e.field or "start.position", str(e)) from None
        if "match_length" not in body.model_fields_set and start.match_length is not None:
            data["match_length"] = start.match_length
        return start, {**data, "free": True}
    if st.step is None:
        raise invalid("start.step", "play from here needs the step of the game's replay")
    if "side" in st.model_fields_set:
        raise invalid("start.side", "play from here keeps your side of the replayed match")
    _, _, replayed_session = await _load(request, who, st.game)  # type: ignore[arg-type]
    if replayed_session.status != "finished":
        raise ProblemError(
            409, "play from here starts from a finished game", kind="game-state",
            errors=[("start.game", "not finished")],
        )  # fmt: skip
    steps = await _in_thread(_steps, replayed_session)
    if st.step >= len(steps):
        raise invalid("start.step", f"the game has steps 0 to {len(steps) - 1}")
    step = steps[st.step]
    if step["start"] is None:
        raise invalid("start.step", f"no game starts at step {st.step} ({step['phase']}: {step['action']})")
    base = replayed_session.settings.to_dict()
    base.pop("clock", None)
    own = {k: data[k] for k in body.model_fields_set if k in data and k not in ("start", "free", "player")}
    return Start.parse(step["start"], step["side"]), {**base, **own, "free": True}


def _steps(session: Any) -> list[dict[str, Any]]:
    from pulvezar.play.replay import replay_steps

    return replay_steps(session.to_record())


class GameSummary(BaseModel):
    id: str
    status: str
    rules: str
    match_length: int
    score: list[int] | None = None
    game: int | None = None
    bot: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    hints_used: int = Field(0, description="hints asked for in the match")
    free: bool = Field(False, description="a free game: not archived or counted for a player")
    created: float
    updated: float
    href: str


class GameList(BaseModel):
    games: list[GameSummary] = Field(description="newest first")
    next_cursor: str | None = Field(description="pass as `cursor` for the next page; null on the last")


@router.get("", summary="Your games, newest first (cursor pagination)")
async def list_games(
    request: Request,
    who: Who,
    status: Annotated[list[Literal["playing", "finished"]] | None, Query(description="only these")] = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    cursor: Annotated[str | None, Query(max_length=200)] = None,
) -> GameList:
    games = records(request)
    try:
        rows, nxt = await store_call(games.list, who.owner, statuses=status, limit=limit, cursor=cursor)
    except ValueError as e:
        raise invalid("cursor", str(e)) from None
    return GameList(
        games=[
            GameSummary(
                id=g.id, status=g.status, created=g.created_at, updated=g.updated_at,
                href=f"/v1/games/{g.id}",
                rules=g.summary.get("rules", "?"), match_length=g.summary.get("match_length", 0),
                score=g.summary.get("score"), game=g.summary.get("game"), bot=g.summary.get("bot"),
                result=g.summary.get("result"), hints_used=g.summary.get("hints_used", 0),
                free=g.summary.get("free", False),
            )
            for g in rows
        ],
        next_cursor=nxt,
    )  # fmt: skip


@router.get("/{game_id}", summary="A game's state: board, score, cube, whose turn, actions, legal plays")
async def get_game(game_id: GameId, request: Request, who: Who) -> JSONResponse:
    async with _lock(game_id):
        games, stored, session = await _load(request, who, game_id)
        now = time.time()
        events: list[dict[str, Any]] = []
        if session.status == "playing" and session.clock is not None:
            events += await _in_thread(session.check_clock, now)  # a side's time ran out since
        if session.bot_pending:  # a record the bot owes a reply in (its evaluator failed then)
            events += await _in_thread(session.resume, now)
        if events:
            await _save(games, stored, session, events)
        view = _view(game_id, session, now, language(request), stored.created_at, stored.player_id)
        return JSONResponse(view)


@router.post(
    "/{game_id}/actions",
    summary="Act (roll, play, double, take, pass, beaver, raccoon, resign, accept, reject, end; hint, "
    "check): the new state with the bot's replies up to your next decision",
)
async def act(
    game_id: GameId, body: ActionIn, request: Request, who: Who, idempotency_key: IdempotencyKey = None
) -> JSONResponse:
    action = body.model_dump(exclude_none=True)
    async with _lock(game_id):
        games, stored, session = await _load(request, who, game_id)
        fp = fingerprint(request, action)
        replay = await replayed(games, who, idempotency_key, fp)
        if replay is not None:
            return replay
        now = time.time()
        if "dice" in action:
            action["dice"] = list(action["dice"])
        lang = language(request)
        if action["action"] == "check":  # a verdict, nothing made or stored
            verdict = await _in_thread(session.check, action)
            view = _view(game_id, session, now, lang, stored.created_at, stored.player_id)
            return JSONResponse({**view, "check": _verdict(verdict, lang), "events": []})
        hint = None
        if action["action"] == "hint":
            if set(action) != {"action"}:
                raise invalid("action", "'hint' takes no other field")
            hint, events = await _in_thread(session.hint)
        else:
            events = await _in_thread(session.apply, action, now)
        view = _view(game_id, session, now, lang, stored.created_at, stored.player_id)
        if hint is not None:
            view["hint"] = hint
        view["events"] = [_event_view(e, lang) for e in events]
        idem = (idempotency_key, fp, 200, view) if idempotency_key else None
        await _save(games, stored, session, events, idem)
        return JSONResponse(view)


def _event_view(e: dict[str, Any], lang: str) -> dict[str, Any]:
    details = e.get("details") or {}
    if isinstance(details, dict) and details.get("verdict") is not None:
        return {**e, "details": {**details, "verdict": _verdict(details["verdict"], lang)}}
    return e


@router.get(
    "/{game_id}/events",
    summary="The game's transitions as server-sent events (from Last-Event-ID, or all)",
    response_class=StreamingResponse,
    responses={200: {"content": {"text/event-stream": {}}}},
)
async def game_events(
    game_id: GameId,
    request: Request,
    who: Who,
    last_event_id: Annotated[str | None, Header(alias="Last-Event-ID", max_length=20)] = None,
    after: Annotated[int | None, Query(ge=0, description="events numbered above this")] = None,
) -> StreamingResponse:
    games = records(request)
    stored = await store_call(games.get, who.owner, game_id)
    if stored is None:
        raise _no_game(game_id)
    start = after or 0
    if last_event_id is not None:
        try:
            start = max(start, int(last_event_id))
        except ValueError:
            raise invalid("Last-Event-ID", "an event number") from None
    settings = request.app.state.settings
    lang = language(request)

    async def stream(pace: Pace) -> AsyncIterator[bytes]:
        yield f"retry: {pace.retry_ms}\n\n".encode()
        seen, quiet = start, time.monotonic()
        while True:
            try:
                batch = await store_call(games.events, game_id, seen)
                status = None
                if not batch:
                    status = (await store_call(games.get, who.owner, game_id) or stored).status
            except ProblemError as e:
                yield sse("error", {"status": e.status, "detail": e.detail})
                return
            for n, e in batch:
                yield sse(str(e.get("type", "event")), _event_view(e, lang), n)
                seen, quiet = n, time.monotonic()
            if not batch:
                if status == "finished":
                    yield sse("end", {"status": "finished"}, seen)
                    return
                if time.monotonic() - quiet >= settings.sse_keepalive_s:
                    yield b": keep-alive\n\n"
                    quiet = time.monotonic()
                if await request.is_disconnected():
                    return
                await pace.wait(settings.sse_keepalive_s)

    return await streams(request).open(who.owner, f"game:{game_id}", stream)


@router.post("/{game_id}/verify", summary="Check every roll of a finished game against the revealed seed")
async def verify(game_id: GameId, request: Request, who: Who) -> dict[str, Any]:
    _, _, session = await _load(request, who, game_id)
    if session.status != "finished":
        raise ProblemError(
            409, "the dice seed is revealed when the match is over", kind="game-state",
            errors=[("game_id", "not finished")],
        )  # fmt: skip
    ok = await _in_thread(session.verify)
    st = session.state()
    return {
        "verified": bool(ok), "rolls": len(session.rolls()), "dice_commitment": st.get("dice_commitment"),
        "dice_seed": st.get("dice_seed"),
    }  # fmt: skip


_TEXT = "text/plain; charset=utf-8"
_MEDIA = {"mat": _TEXT, "txt": _TEXT, "sgf": "application/x-go-sgf"}


@router.get("/{game_id}/export", summary="The match as .mat, .sgf or .txt")
async def export(
    game_id: GameId,
    request: Request,
    who: Who,
    format: Annotated[Literal["mat", "sgf", "txt"], Query(description="the file format")] = "mat",
) -> Response:
    _, _, session = await _load(request, who, game_id)
    text = await _in_thread(session.export, format, ("You", "pulvezar"))
    return Response(
        text, media_type=_MEDIA[format],
        headers={"Content-Disposition": content_disposition(f"{game_id}.{format}")},
    )  # fmt: skip


class CubeState(BaseModel):
    value: int
    owner: int | None = Field(description="0 you, 1 the bot, null centred")


class ReplayStep(BaseModel):
    step: int = Field(description="from 0; POST /v1/games with start {game, step} plays from here")
    game: int = Field(description="the game of the match, from 1")
    player: int = Field(description="who acts: 0 you, 1 the bot")
    action: str = Field(description="roll, play, double, take, drop, beaver, raccoon, resign, accept, reject")
    dice: list[int] | None = Field(description="a roll's dice; a play's dice")
    notation: str | None = Field(description="a play")
    value: int | None = Field(description="the cube offered (double), the level (resign)")
    phase: str = Field(description="the game's phase before the step")
    score: list[int] = Field(description="yours, the bot's")
    crawford: bool
    cube: CubeState
    position_id: str = Field(description="before the step, seen from the side on roll (or the doubler)")
    match_id: str | None
    gnubg_id: str | None
    xgid: str | None = Field(description="you at the bottom")
    start: str | None = Field(description="the ID a game from here starts from; null: none can")
    side: Literal["on_roll", "opponent"] = Field(description="your side in that ID")


class Replay(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "id": "g0123456789abcdef01234567",
                    "rules": "international",
                    "match_length": 3,
                    "bot": {"level": "easy", "style": "balanced", "margin": 0.04},
                    "score": [3, 1],
                    "steps": [
                        {
                            "step": 0,
                            "game": 1,
                            "player": 1,
                            "action": "roll",
                            "dice": [3, 1],
                            "notation": None,
                            "value": None,
                            "phase": "opening",
                            "score": [0, 0],
                            "crawford": False,
                            "cube": {"value": 1, "owner": None},
                            "position_id": "4HPwATDgc/ABMA",
                            "match_id": "cAkAAAAAAAAA",
                            "gnubg_id": "4HPwATDgc/ABMA:cAkAAAAAAAAA",
                            "xgid": None,
                            "start": None,
                            "side": "on_roll",
                        },
                        {
                            "step": 3,
                            "game": 1,
                            "player": 0,
                            "action": "play",
                            "dice": [6, 4],
                            "notation": "24/14",
                            "value": None,
                            "phase": "move",
                            "score": [0, 0],
                            "crawford": False,
                            "cube": {"value": 1, "owner": None},
                            "position_id": "4HPwATDgc/ABMA",
                            "match_id": "cInpAAAAAAAA",
                            "gnubg_id": "4HPwATDgc/ABMA:cInpAAAAAAAA",
                            "xgid": "XGID=-b----E-C---eE---c-e----B-:0:0:1:64:0:0:0:3:10",
                            "start": "4HPwATDgc/ABMA:cInpAAAAAAAA",
                            "side": "on_roll",
                        },
                    ],
                }
            ]
        }
    )

    id: str
    rules: str
    match_length: int
    bot: dict[str, Any]
    score: list[int]
    steps: list[ReplayStep]


@router.get(
    "/{game_id}/replay", summary="Every step of a finished match with its IDs (and where to play from)"
)
async def replay(game_id: GameId, request: Request, who: Who) -> Replay:
    _, _, session = await _load(request, who, game_id)
    if session.status != "finished":
        raise ProblemError(
            409,
            "a match is replayed when it is over",
            kind="game-state",
            errors=[("game_id", "not finished")],
        )
    steps = await _in_thread(_steps, session)
    st = session.state()
    return Replay(
        id=game_id, rules=session.settings.rules.name, match_length=session.settings.match_length,
        bot=st["bot"], score=st["score"], steps=[ReplayStep(**x) for x in steps],
    )  # fmt: skip


_CARDS: OrderedDict[tuple[str, int, str], bytes] = OrderedDict()  # the last result cards drawn


@router.get(
    "/{game_id}/card.png",
    response_class=Response,
    summary="A game's result card as a PNG to share: who won how many points and how, the score, the luck",
    responses={200: {"content": {"image/png": {}}}},
)
async def result_card(
    game_id: GameId,
    request: Request,
    who: Who,
    game: Annotated[
        int | None,
        Query(ge=1, le=999, description="the game of the match (default: the last ended)", examples=[2]),
    ] = None,
) -> Response:
    from pulvezar.play.card import card_lines, game_luck
    from services.gateway import svg

    games, _, session = await _load(request, who, game_id)
    ends, seen = [], 0
    while batch := await store_call(games.events, game_id, seen):
        ends += [e for _, e in batch if e.get("type") == "game_end"]
        seen = batch[-1][0]
    if not ends:
        raise ProblemError(409, "no game of this match has ended yet", kind="game-state",
                           errors=[("game_id", "no ended game")])  # fmt: skip
    n = game or len(ends)
    if n > len(ends):
        raise invalid("game", f"game {n} has not ended; ended: 1 to {len(ends)}")
    lang = language(request)
    key = (game_id, n, lang)
    data = _CARDS.get(key)
    if data is None:
        luck = await _in_thread(game_luck, session, n - 1, evaluator(request))
        end = ends[n - 1]
        lines = card_lines(end, session.settings.match_length, n, luck, lang)
        won = (end.get("details") or {}).get("winner") == 0
        data = await asyncio.to_thread(svg.png, svg.card_svg(lines, won))
        _CARDS[key] = data
        while len(_CARDS) > 256:
            _CARDS.popitem(last=False)
    return Response(data, media_type="image/png", headers={"Cache-Control": "private, max-age=86400"})


class AnalysisIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    level: str | None = Field(None, description="the analysis level (default: the platform's)")


@router.post("/{game_id}/analysis", status_code=202, summary="Analyse the finished match (an analysis job)")
async def analyse(
    game_id: GameId, request: Request, who: Who, body: AnalysisIn | None = None
) -> JSONResponse:
    _, stored, session = await _load(request, who, game_id)
    if session.status != "finished":
        raise ProblemError(
            409, "a match is analysed when it is over", kind="game-state",
            errors=[("game_id", "not finished")],
        )  # fmt: skip
    text = await _in_thread(session.export, "mat", ("You", "pulvezar"))
    from services.gateway.routers.analyses import submit_files

    return await submit_files(
        request,
        who,
        [{"data": text, "filename": f"{game_id}.mat", "format": "mat"}],
        level=body.level if body else None,
        priority="interactive",
        learner=None
        if stored.player_id is None
        else {"player": stored.player_id, "side": 0, "game_id": game_id},
    )
