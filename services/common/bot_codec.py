"""The Play API's bot decisions on the wire: :class:`~pulvezar.play.bot.Question` and
:class:`~pulvezar.play.bot.Decision` to and from ``BotDecisionRequest`` / ``BotDecisionResponse``.

The gateway writes questions and reads decisions (:class:`services.common.remote_evaluator.GrpcEvaluator`);
the Evaluator service reads questions (each error names its field) and writes decisions. Every value
travels exactly (boards, the cube, a rating as a double), so a decision is the library's to the bit.
"""

from __future__ import annotations

from typing import Any

from pulvezar import Position, PulvezarError
from pulvezar.cubeful import CubeState
from pulvezar.play.bot import ASKS, Decision, Question
from pulvezar.play.settings import BotSettings
from pulvezar.rules.rules import Play, Rules
from services.common import convert, reading
from services.common.errors import BadArgument
from services.common.pulvezar_proto.v1 import evaluator_pb2 as pb
from services.common.pulvezar_proto.v1 import rules_pb2 as rpb

ASK_OF: dict[int, str] = {i + 1: ask for i, ask in enumerate(ASKS)}  # BOT_ASK_PLAY = 1, ...
CODE_OF = {ask: code for code, ask in ASK_OF.items()}
_OWNER = {"centre": pb.CUBE_OWNER_CENTRE, "player": pb.CUBE_OWNER_PLAYER, "opponent": pb.CUBE_OWNER_OPPONENT}
_OWNER_OF = {code: owner for owner, code in _OWNER.items()} | {pb.CUBE_OWNER_UNSPECIFIED: "centre"}
_CUBE_FIELDS = {  # the library's field: the message's
    "cube": "cube_value", "cube_owner": "cube_owner", "score": "score", "crawford": "crawford",
    "options": "jacoby",
}  # fmt: skip
REPLIES = {
    "take": ("take", "drop", "beaver"),
    "beaver": ("take", "drop", "raccoon"),
    "raccoon": ("take", "drop"),
}


# ---- the gateway's side -----------------------------------------------------------------------------
def request(settings: BotSettings, seed: int, prune: bool, q: Question) -> pb.BotDecisionRequest:
    """The RPC's request of question ``q`` to the bot of ``settings`` and ``seed``."""
    c = q.cube
    return pb.BotDecisionRequest(
        bot=pb.BotSettings(
            level=settings.level,
            style=settings.style,
            rating=settings.rating,
            rating_kind=settings.rating_kind,
            seed=seed,
            no_prune=not prune,
        ),
        ask=CODE_OF[q.ask],  # type: ignore[arg-type]
        position=rpb.PositionRef(board=convert.board(q.position)),
        rules=rule_set(q.rules),
        dice=rpb.Dice(die1=q.dice[0], die2=q.dice[1]) if q.dice is not None else None,
        cube=cube_context(c) if c is not None else None,
        level=q.level,
        resigner_on_turn=q.resigner_on_turn,
        raccoon=q.raccoon,
    )


def cube_context(c: CubeState) -> pb.CubeContext:
    """The message of the cube ``c`` (every field exactly)."""
    return pb.CubeContext(
        cube_value=c.cube_value,
        cube_owner=_OWNER[c.cube_owner],
        match_length=c.match_length,
        score=c.score[0],
        opponent_score=c.score[1],
        crawford=c.crawford,
        jacoby=c.jacoby,
        beaver=c.beaver,
    )


def rule_set(rules: Rules) -> rpb.RuleSet:
    if rules.variant == "international":
        return rpb.RuleSet(variant=rpb.VARIANT_INTERNATIONAL)
    return rpb.RuleSet(
        variant=rpb.VARIANT_TAVLA, hit_and_stop=rules.hit_and_stop, must_bear_off=rules.must_bear_off
    )


def decision(q: Question, reply: pb.BotDecisionResponse) -> Decision:
    """The service's answer to ``q``; a play is the legal play of ``q`` it names (RuntimeError: none)."""
    play: Play | None = None
    if q.ask == "play":
        assert q.dice is not None
        got = reply.play
        play = next(
            (
                p
                for p in q.rules.legal_plays(q.position, q.dice)
                if p.notation == got.notation and p.position.position_id == got.position_id
            ),
            None,
        )
        if play is None:
            raise RuntimeError(f"the evaluator's bot played {got.notation!r}, not a legal play")
    if reply.reply not in REPLIES.get(q.ask, ("",)):
        raise RuntimeError(f"the evaluator's bot answered {reply.reply!r} to {q.ask}")
    return Decision(play=play, level=reply.level, yes=reply.yes, reply=reply.reply)


# ---- the service's side -----------------------------------------------------------------------------
def bot_settings(msg: pb.BotSettings, field: str = "bot") -> tuple[BotSettings, int, bool]:
    """The bot's settings, seed and pruning of a request."""
    rating = msg.rating if msg.HasField("rating") else None
    try:
        kind: Any = msg.rating_kind or "elo"  # checked by BotSettings
        settings = BotSettings(msg.level or "medium", msg.style or "balanced", rating, kind)
    except PulvezarError as e:
        raise BadArgument(f"{field}.{(e.field or '').removeprefix('bot.') or 'level'}", str(e)) from None
    return settings, msg.seed, not msg.no_prune


def question(msg: pb.BotDecisionRequest) -> Question:
    """The :class:`Question` of a request (INVALID_ARGUMENT naming the field it cannot read)."""
    ask = ASK_OF.get(msg.ask)
    if ask is None:
        raise BadArgument("ask", f"unknown question {msg.ask}")
    position, rules = reading.position(msg)
    if rules.game_result(position) is not None:
        raise BadArgument("position", "the game is over: nothing to decide")
    dice = convert.dice(msg.dice) if ask == "play" else None
    cube = None
    if msg.HasField("cube") and ask != "play":
        if not rules.uses_cube:
            raise BadArgument("cube", "Tavla is played without a cube")
        cube = cube_state(msg.cube, position, rules)
    elif ask in ("double", "take", "beaver", "raccoon"):
        raise BadArgument("cube", f"a question of the cube ({ask}) needs the cube")
    elif rules.uses_cube and ask in ("resign", "accept"):
        raise BadArgument("cube", f"{ask} under international rules needs the cube")
    if ask in ("resign", "accept") and not 1 <= msg.level <= 3:
        raise BadArgument(
            "level", f"a resignation level is 1 (single), 2 (gammon) or 3 (backgammon), got {msg.level}"
        )
    return Question(ask, position, rules, dice, cube, msg.level, msg.resigner_on_turn, msg.raccoon)  # type: ignore[arg-type]


def cube_state(msg: pb.CubeContext, position: Position, rules: Rules) -> CubeState:
    """The library's checks of the cube, their fields named as the message's (no bound on the cube beyond
    the message's: a game's cube goes where its doubles take it)."""
    value = msg.cube_value or 1
    if msg.cube_owner not in _OWNER_OF:
        raise BadArgument("cube.cube_owner", f"unknown cube owner {msg.cube_owner}")
    try:
        return CubeState(
            position, value, _OWNER_OF[msg.cube_owner], msg.match_length,  # type: ignore[arg-type]
            (msg.score, msg.opponent_score), msg.crawford, msg.jacoby, msg.beaver, rules,
        )  # fmt: skip
    except PulvezarError as e:
        raise BadArgument(f"cube.{_CUBE_FIELDS.get(e.field or '', 'cube_value')}", str(e)) from None


def response(d: Decision, model: str) -> pb.BotDecisionResponse:
    return pb.BotDecisionResponse(
        play=convert.play(d.play) if d.play is not None else None,
        level=d.level,
        yes=d.yes,
        reply=d.reply,
        model=model,
    )
