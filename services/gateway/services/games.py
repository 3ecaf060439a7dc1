"""The Play API's service: games against the bots, loaded, acted on and saved.

A game is a :class:`pulvezar.play.PlaySession` kept in the durable store
(:class:`services.store.games.GameRecords`): every call reads its record, applies the client's action and
the bot's replies up to the client's next decision, and writes the new record with the events over the
version it read, in one transaction.  Two calls on one game at once: the second waits for the first in
this process (:func:`locked`) and, across gateway replicas, is refused with 409 when the first changed
the game meanwhile.  An ``Idempotency-Key``'s answer is stored with the change it made (:class:`Idem`).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fastapi.responses import JSONResponse

from pulvezar import PulvezarError
from services.gateway.durable import store_call
from services.gateway.idempotency import replayed
from services.gateway.play_models import (
    ActionIn,
    BotView,
    EndSide,
    GameEnd,
    GameIn,
    GameList,
    GameSummary,
    GameView,
    Replay,
    ReplayStep,
    Verification,
)
from services.gateway.problems import ProblemError, invalid
from services.gateway.security import Client
from services.gateway.services.adaptive import adaptive_basis, adaptive_elo
from services.gateway.services.paging import page

if TYPE_CHECKING:
    from pulvezar.play import PlaySession
    from pulvezar.play.start import Start
    from services.store.games import GameRecords, StoredGame
    from services.store.players import PlayerRecords

logger = logging.getLogger("pulvezar.gateway")


@dataclass(frozen=True)
class Table:
    """What a call on the caller's games needs: the records, the bots' evaluator, the caller."""

    records: GameRecords
    players: PlayerRecords
    evaluator: Any
    who: Client
    lang: str
    trainer_ply: int
    seeds: Callable[[], tuple[bytes, int]] | None = None  # tests: reproducible dice and bot noise

    @property
    def games(self) -> GameRecords:
        return self.records


@dataclass(frozen=True)
class Idem:
    """A request's ``Idempotency-Key`` and fingerprint (:func:`services.gateway.idempotency.fingerprint`)."""

    key: str | None
    fingerprint: str

    def answer(self, status: int, body: dict[str, Any]) -> tuple[str, str, int, dict[str, Any]] | None:
        return (self.key, self.fingerprint, status, body) if self.key else None


@dataclass
class Loaded:
    stored: StoredGame
    session: PlaySession


_LOCKS: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()


def locked(game_id: str) -> asyncio.Lock:
    """This process's lock of one game."""
    lock = _LOCKS.get(game_id)
    if lock is None:
        lock = _LOCKS[game_id] = asyncio.Lock()
    return lock


# ---- errors ---------------------------------------------------------------------------------------
def refused(e: PulvezarError, lang: str = "en") -> ProblemError:
    """A refused action: 409 when it does not fit the state, 422 when it is wrong in itself; its words in
    the caller's language (``Accept-Language``) where the library has them."""
    code = getattr(e, "code", "invalid")
    field = e.field or "action"
    words = e.text(lang)
    if code in ("not_available", "finished"):
        return ProblemError(409, words, kind="game-state", errors=[(field, words)])
    kind = "illegal-play" if code == "illegal_play" else "invalid-input"
    return ProblemError(422, words, kind=kind, errors=[(field, words)])


def no_game(game_id: str) -> ProblemError:
    return ProblemError(404, f"no game {game_id!r}", kind="not-found", errors=[("game_id", "unknown game")])


def not_finished(why: str, field: str = "game_id") -> ProblemError:
    return ProblemError(409, why, kind="game-state", errors=[(field, "not finished")])


async def in_thread(fn: Callable[..., Any], *args: Any, lang: str = "en", **kwargs: Any) -> Any:
    """A session call in a thread: refused actions are problems (said in ``lang``); the evaluator's
    failure is a 503."""
    try:
        return await asyncio.to_thread(fn, *args, **kwargs)
    except PulvezarError as e:
        raise refused(e, lang) from None
    except Exception as e:
        import grpc

        if isinstance(e, grpc.RpcError):
            logger.warning("the bots' evaluator failed: %s", e)
            raise ProblemError(
                503, "the evaluator service is unavailable; try again", kind="evaluator-unavailable",
                headers={"Retry-After": "2"},
            ) from None  # fmt: skip
        raise


# ---- load and save --------------------------------------------------------------------------------
async def load(t: Table, game_id: str) -> Loaded:
    """The caller's game; 404 for another key's or none."""
    stored = await store_call(t.games.get, t.who.owner, game_id)
    if stored is None:
        raise no_game(game_id)
    from pulvezar.play import PlaySession

    session = await asyncio.to_thread(PlaySession.from_json, stored.record, evaluator=t.evaluator)
    return Loaded(stored, session)


def summary(session: PlaySession) -> dict[str, Any]:
    """What a list of games shows."""
    st = session.state()
    bot = session.settings.bot
    return {
        "free": session.settings.free,
        "rules": session.settings.rules.name,
        "match_length": session.settings.match_length,
        "bot": st.get("bot"),
        # an adaptive bot plays at this rating (its level in use is in "bot"): the player's statistics
        "adaptive_rating": adaptive_elo(bot.rating, bot.rating_kind) if bot.rating is not None else None,
        "score": st.get("score"),
        "game": st.get("game"),
        "result": st.get("result"),
        "hints_used": session.hints_used,
    }


async def save(t: Table, g: Loaded, events: list[dict[str, Any]], idem: Any = None) -> None:
    from services.store.games import StaleGame

    s = g.session
    try:
        await store_call(t.games.save, g.stored, s.to_json(), summary(s), s.status, events, idem)
    except StaleGame:
        raise ProblemError(
            409, "the game changed while this request was answered; read it and act again",
            kind="game-changed",
        ) from None  # fmt: skip


# ---- what a client sees ---------------------------------------------------------------------------
def verdict(v: dict[str, Any] | None, lang: str) -> dict[str, Any] | None:
    if v is None:
        return None
    out = dict(v)
    explanation = out.get("explanation")
    out["why"] = explanation.get(lang) if isinstance(explanation, dict) else None
    out["language"] = lang
    return out


def event_view(e: dict[str, Any], lang: str) -> dict[str, Any]:
    details = e.get("details") or {}
    if isinstance(details, dict) and details.get("verdict") is not None:
        return {**e, "details": {**details, "verdict": verdict(details["verdict"], lang)}}
    return e


def human_type(session: PlaySession) -> dict[str, Any]:
    """The position's type (:func:`pulvezar.analysis.classify`) in the human's view."""
    from pulvezar.analysis.classify import classify
    from pulvezar.play import HUMAN

    g = session.game
    kind = classify(g.position if g.turn == HUMAN else g.position.swap())
    return {"kind": kind.kind, "side": kind.side}


def view(
    game_id: str, session: PlaySession, now: float, lang: str, created: float | None = None,
    player: str | None = None, **extra: Any,
) -> GameView:  # fmt: skip
    """The state a client sees (never the seed before the end); ``player``: the player it is recorded for;
    ``extra``: what the request produced (hint, check, events)."""
    state: dict[str, Any] = session.state(now=now)
    if state.get("status") != "finished":
        state.pop("dice_seed", None)
    state["trainer"] = verdict(state.get("trainer"), lang)
    if state.get("status") == "playing":
        state["position_type"] = human_type(session)
    head: dict[str, Any] = {"id": game_id, "href": f"/v1/games/{game_id}"}
    if created:
        head["created"] = created
    if player is not None:
        head["player"] = player
    return GameView.model_validate({**head, **state, **extra})


def _of(t: Table, g: Loaded, game_id: str, now: float, **extra: Any) -> GameView:
    return view(game_id, g.session, now, t.lang, g.stored.created_at, g.stored.player_id, **extra)


# ---- the calls ------------------------------------------------------------------------------------
async def get(t: Table, game_id: str) -> GameView:
    """A game's state, after what its clock or a bot that owes a reply did since."""
    async with locked(game_id):
        g = await load(t, game_id)
        now = time.time()
        events: list[dict[str, Any]] = []
        if g.session.status == "playing" and g.session.clock is not None:
            events += await in_thread(g.session.check_clock, now, lang=t.lang)  # a side's time ran out since
        if g.session.bot_pending:  # a record the bot owes a reply in (its evaluator failed then)
            events += await in_thread(g.session.resume, now, lang=t.lang)
        if events:
            await save(t, g, events)
        return _of(t, g, game_id, now)


async def act(t: Table, game_id: str, body: ActionIn, idem: Idem) -> GameView | JSONResponse:
    """Apply the client's action and the bot's replies; a retried request's stored answer."""
    action = body.model_dump(exclude_none=True)
    async with locked(game_id):
        g = await load(t, game_id)
        replay = await replayed(t.games, t.who, idem.key, idem.fingerprint)
        if replay is not None:
            return replay
        now = time.time()
        if "dice" in action:
            action["dice"] = list(action["dice"])
        if action["action"] == "check":  # a verdict, nothing made or stored
            checked = await in_thread(_check, g.session, action, lang=t.lang)
            return _of(t, g, game_id, now, check=verdict(checked, t.lang), events=[])
        if "decision" in action:
            raise invalid("decision", "only 'check' takes a decision")
        extra: dict[str, Any] = {}
        if action["action"] == "hint":  # the library picks the hint: a play's candidates or the cube's
            if set(action) != {"action"}:
                raise invalid("action", "'hint' takes no other field")
            at_cube = g.session.cube_moment() is not None  # the library's rule: a cube decision's hint
            hint, events = await in_thread(g.session.hint, lang=t.lang)
            extra["cube_hint" if at_cube else "hint"] = hint
        else:
            events = await in_thread(g.session.apply, action, now, lang=t.lang)
            held = [e for e in events if e.get("type") == "held"]
            if held:  # the trainer held the action: nothing was made
                extra["held"] = verdict(held[0]["details"]["verdict"], t.lang)
        out = _of(t, g, game_id, now, **extra, events=[event_view(e, t.lang) for e in events])
        await save(t, g, events, idem.answer(200, out.body()))
        return out


def _check(session: PlaySession, action: dict[str, Any]) -> dict[str, Any]:
    """The trainer's verdict on the play or, with ``decision``, the cube action the client would make."""
    if "hold" in action:
        raise invalid("hold", "a check makes nothing: it takes no hold")
    if "decision" not in action:
        return session.check(action)
    if set(action) != {"action", "decision"}:
        raise invalid("decision", "a cube action's check takes no play")
    return session.check_cube(action["decision"])


async def create(t: Table, body: GameIn, idem: Idem) -> GameView | JSONResponse:
    """A new game or match (``body.player``: recorded for the caller's player)."""
    replay = await replayed(t.games, t.who, idem.key, idem.fingerprint)
    if replay is not None:
        return replay
    start, settings = await _settings(t, body)
    now = time.time()
    seed, bot_seed = t.seeds() if t.seeds is not None else (None, None)
    from pulvezar.play import PlaySession

    session: PlaySession = await in_thread(
        PlaySession, settings, evaluator=t.evaluator, now=now, bot_seed=bot_seed, trainer_ply=t.trainer_ply,
        seed=seed if settings.dice == "server" else None, start=start,
    )  # fmt: skip
    game_id = "g" + secrets.token_hex(12)
    created: dict[str, Any] = {"settings": settings.to_dict()}
    if start is not None:
        created["start"] = start.to_dict()
    events = [{"type": "created", "player": None, "details": created}]
    if session.bot_pending:  # the start gives the bot the first decision
        events += await in_thread(session.resume, now, lang=t.lang)
    extra = {"events": [event_view(e, t.lang) for e in events[1:]]} if len(events) > 1 else {}
    out = view(game_id, session, now, t.lang, created=now, player=body.player, **extra)
    recorded_for = None if settings.free else body.player  # a free game is not counted or archived
    await store_call(
        t.games.create, game_id, t.who.owner, session.to_json(), summary(session), session.status, events,
        idem.answer(201, out.body()), now, recorded_for,
    )  # fmt: skip
    return out


async def _settings(t: Table, body: GameIn) -> tuple[Start | None, Any]:
    """The start (if any) and the :class:`~pulvezar.play.GameSettings` of a new game."""
    data = body.model_dump(exclude_none=True)
    data.pop("player", None)
    start = None
    if body.start is not None:
        start, data = await start_of(t, body, data)
    elif body.free is not None:
        data["free"] = body.free
    if body.player is not None:
        counters = await store_call(t.players.statistics, t.who.owner, body.player)
        if counters is None:
            raise invalid("player", f"no player {body.player!r} of this key")
        bot = data.get("bot") or {}
        if bot.get("level") == "adaptive" and bot.get("rating") is None:  # recent grades, else the rating
            rating, kind = adaptive_basis(counters)
            data["bot"] = {**bot, "rating": rating, "rating_kind": kind}
    from pulvezar.play import GameSettings

    if isinstance(body.clock, bool):
        data["clock"] = body.clock
    try:
        return start, GameSettings.from_dict(data)
    except PulvezarError as e:
        raise invalid(e.field or "body", str(e)) from None


async def start_of(t: Table, body: GameIn, data: dict[str, Any]) -> tuple[Start, dict[str, Any]]:
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
    assert st.game is not None
    replayed_session = (await load(t, st.game)).session
    if replayed_session.status != "finished":
        raise not_finished("play from here starts from a finished game", "start.game")
    steps = await in_thread(replay_steps, replayed_session)
    if st.step >= len(steps):
        raise invalid("start.step", f"the game has steps 0 to {len(steps) - 1}")
    step = steps[st.step]
    if step["start"] is None:
        raise invalid("start.step", f"no game starts at step {st.step} ({step['phase']}: {step['action']})")
    base = replayed_session.settings.to_dict()
    base.pop("clock", None)
    own = {k: data[k] for k in body.model_fields_set if k in data and k not in ("start", "free", "player")}
    return Start.parse(step["start"], step["side"]), {**base, **own, "free": True}


def replay_steps(session: PlaySession) -> list[dict[str, Any]]:
    from pulvezar.play.replay import replay_steps as steps_of

    return steps_of(session.to_record())


async def finished(t: Table, game_id: str, why: str) -> Loaded:
    """The caller's game, which must be over (409 ``why`` if not)."""
    g = await load(t, game_id)
    if g.session.status != "finished":
        raise not_finished(why)
    return g


async def verify(t: Table, game_id: str) -> Verification:
    """Every roll of a finished game checked against its revealed seed."""
    session = (await finished(t, game_id, "the dice seed is revealed when the match is over")).session
    ok = await in_thread(session.verify)
    st = session.state()
    return Verification(
        verified=bool(ok), rolls=len(session.rolls()), dice_commitment=st.get("dice_commitment"),
        dice_seed=st.get("dice_seed"),
    )  # fmt: skip


async def export(t: Table, game_id: str, fmt: str) -> str | bytes:
    session = (await load(t, game_id)).session
    data: str | bytes = await in_thread(session.export, fmt, ("You", "pulvezar"))
    return data


async def replay(t: Table, game_id: str) -> Replay:
    """Every step of a finished match with its IDs."""
    session = (await finished(t, game_id, "a match is replayed when it is over")).session
    steps = await in_thread(replay_steps, session)
    st = session.state()
    return Replay(
        id=game_id, rules=session.settings.rules.name, match_length=session.settings.match_length,
        bot=BotView(**st["bot"]), score=st["score"], steps=[ReplayStep(**x) for x in steps],
    )  # fmt: skip


async def listed(
    t: Table, statuses: Sequence[str] | None, limit: int, cursor: str | None, player: str | None = None
) -> GameList:
    """The caller's games, newest first (``player``: only those recorded for that player)."""
    rows, nxt = await page(
        t.games.list, t.who.owner, statuses=statuses, limit=limit, cursor=cursor, player_id=player
    )
    return GameList(
        games=[
            GameSummary(
                id=g.id, status=g.status, created=g.created_at, updated=g.updated_at,
                href=f"/v1/games/{g.id}",
                rules=g.summary.get("rules", "?"), match_length=g.summary.get("match_length", 0),
                score=g.summary.get("score"), game=g.summary.get("game"), bot=g.summary.get("bot"),
                result=g.summary.get("result"), hints_used=g.summary.get("hints_used", 0),
                free=g.summary.get("free", False), player=g.player_id,
            )
            for g in rows
        ],
        next_cursor=nxt,
    )  # fmt: skip


async def stored(t: Table, game_id: str) -> StoredGame:
    """The caller's stored game (its record unread); 404 for another key's or none."""
    found = await store_call(t.games.get, t.who.owner, game_id)
    if found is None:
        raise no_game(game_id)
    return found


async def events_after(
    t: Table, game: StoredGame, seen: int
) -> tuple[list[tuple[int, dict[str, Any]]], str | None]:
    """The game's events numbered above ``seen``, and, when there are none, its status now."""
    batch = await store_call(t.games.events, game.id, seen)
    status = None
    if not batch:
        status = (await store_call(t.games.get, t.who.owner, game.id) or game).status
    return batch, status


_CARDS: OrderedDict[tuple[str, int, str], bytes] = OrderedDict()  # the last result cards drawn


async def result_card(t: Table, game_id: str, game: int | None) -> bytes:
    """The PNG result card of an ended game of the match (``game``: from 1; default the last ended)."""
    from pulvezar.play.card import card_lines, game_luck
    from services.gateway import svg

    session = (await load(t, game_id)).session
    ended, n = await ended_game(t, game_id, game)
    ends = [one["end"] for one in ended]
    key = (game_id, n, t.lang)
    data = _CARDS.get(key)
    if data is None:
        luck = await in_thread(game_luck, session, n - 1, t.evaluator)
        end = ends[n - 1]
        lines = card_lines(end, session.settings.match_length, n, luck, t.lang)
        won = (end.get("details") or {}).get("winner") == 0
        data = await asyncio.to_thread(svg.png, svg.card_svg(lines, won))
        _CARDS[key] = data
        while len(_CARDS) > 256:
            _CARDS.popitem(last=False)
    return data


async def match_file(t: Table, game_id: str) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """A finished match as a .mat file to analyse (``{"data", "filename", "format"}``), and the player the
    analysis is recorded for (``learner``; None when the game is recorded for none)."""
    g = await finished(t, game_id, "a match is analysed when it is over")
    text = await in_thread(g.session.export, "mat", ("You", "pulvezar"))
    learner = None
    if g.stored.player_id is not None:
        learner = {"player": g.stored.player_id, "side": 0, "game_id": game_id}
    return {"data": text, "filename": f"{game_id}.mat", "format": "mat"}, learner


# ---- the end of a game and of a match (the web client's end-of-game card) ----------------------------
async def forfeit(t: Table, game_id: str) -> GameView:
    """Resign the whole match: the bot wins what the match still needs, a loss (409 when it is over)."""
    async with locked(game_id):
        g = await load(t, game_id)
        if g.session.status == "finished":
            raise ProblemError(409, "the match is over", kind="game-state", errors=[("game_id", "finished")])
        now = time.time()
        events = await in_thread(g.session.forfeit, now, lang=t.lang)
        out = _of(t, g, game_id, now, events=[event_view(e, t.lang) for e in events])
        await save(t, g, events)
        return out


async def delete(t: Table, game_id: str) -> None:
    """Delete the caller's unfinished match with its events (409 for a finished one: it is the record)."""
    async with locked(game_id):
        found = await stored(t, game_id)
        if found.status == "finished":
            raise ProblemError(
                409, "a finished match is kept (it is your record); only an unfinished one is deleted",
                kind="game-state", errors=[("game_id", "finished")],
            )  # fmt: skip
        await store_call(t.games.delete, t.who.owner, game_id)


def _pips(dice: Sequence[int]) -> int:
    return 4 * dice[0] if dice[0] == dice[1] else dice[0] + dice[1]


def _side(pips: list[int], luck: float | None, pr: float | None) -> EndSide:
    average = round(sum(pips) / len(pips), 2) if pips else None
    return EndSide(rolls=len(pips), average_roll=average, luck=luck, pr=pr)


_PRS: OrderedDict[tuple[str, int], tuple[float | None, float | None]] = OrderedDict()  # the last games' PRs


async def quick_pr(t: Table, session: PlaySession, game_id: str, n: int) -> tuple[float | None, float | None]:
    """Each side's 0-ply PR in ended game ``n`` (:func:`pulvezar.play.game_pr.game_pr`), off the event loop
    and kept for the last 256 games asked (an ended game does not change)."""
    from pulvezar.play.game_pr import game_pr

    key = (game_id, n)
    if key not in _PRS:
        _PRS[key] = await in_thread(game_pr, session, n - 1, t.evaluator)
        while len(_PRS) > 256:
            _PRS.popitem(last=False)
    return _PRS[key]


async def ended_game(t: Table, game_id: str, game: int | None) -> tuple[list[dict[str, Any]], int]:
    """The match's ended games (each: ``events``, its events up to and with its ``end``, the game_end event)
    and the number of the one asked for (``game``: from 1; default the last ended): 409 before any game has
    ended, 422 naming ``game`` for one that has not."""
    ended: list[dict[str, Any]] = []
    current: list[dict[str, Any]] = []
    seen = 0
    while batch := await store_call(t.games.events, game_id, seen):
        for _, e in batch:
            current.append(e)
            if e.get("type") == "game_end":
                ended.append({"events": current, "end": e})
                current = []
        seen = batch[-1][0]
    if not ended:
        raise ProblemError(409, "no game of this match has ended yet", kind="game-state",
                           errors=[("game_id", "no ended game")])  # fmt: skip
    n = game or len(ended)
    if n > len(ended):
        raise invalid("game", f"game {n} has not ended; ended: 1 to {len(ended)}")
    return ended, n


async def game_end(t: Table, game_id: str, game: int | None) -> GameEnd:
    """The summary of an ended game (``game``: from 1; default the last ended) and of the match once it is
    over: duration, points and how, each side's average roll, luck and quick (0-ply) PR, the hints and
    warnings."""
    from pulvezar.play.card import game_luck

    g = await load(t, game_id)
    games_, n = await ended_game(t, game_id, game)
    one = games_[n - 1]
    end = one["end"].get("details") or {}
    pips: tuple[list[int], list[int]] = ([], [])
    hints = warnings = 0
    for e in one["events"]:
        kind, d = e.get("type"), e.get("details") or {}
        if kind == "roll" and e.get("player") in (0, 1):
            pips[int(e["player"])].append(_pips(d["dice"]))
        elif kind == "opening" and d.get("winner") is not None:
            pips[int(d["winner"])].append(_pips(d["dice"]))
        elif kind == "hint":
            hints += 1
        elif e.get("player") == 0 and (d.get("verdict") or {}).get("warn") and not d.get("anyway"):
            warnings += 1  # a held decision, or a warned one made without a hold (made anyway: held before)
    luck: tuple[float | None, float | None] = (None, None)  # a game without rolls has no luck to tell
    if pips[0] or pips[1]:
        luck = await in_thread(game_luck, g.session, n - 1, t.evaluator)
    pr = await quick_pr(t, g.session, game_id, n)  # a game of cube decisions only has a PR too
    start = games_[n - 2]["end"].get("details", {}).get("at") if n > 1 else g.stored.created_at
    at = end.get("at")
    over = g.session.status == "finished" and n == len(games_)
    result = g.session.result if over else None
    return GameEnd(
        id=game_id, game=n, games_ended=len(games_), match_over=over,
        match_length=g.session.settings.match_length, winner=int(end.get("winner", 0)),
        points=int(end.get("points", 0)), how=str(end.get("how", "")), outcome=end.get("outcome"),
        score=list(end.get("score") or []),
        duration_s=round(at - start, 1) if at is not None and start is not None else None,
        match_duration_s=round(at - g.stored.created_at, 1) if over and at is not None else None,
        hints_used=hints, warnings=warnings,
        you=_side(pips[0], None if luck[0] is None else round(luck[0], 3), pr[0]),
        bot=_side(pips[1], None if luck[1] is None else round(luck[1], 3), pr[1]),
        result=result,
    )  # fmt: skip
