"""The Play API's bot through the Evaluator service's ``BotDecision`` RPC (one call per decision,
docs/adr/0019): the same decisions as the library's bot in process, and hostile requests refused by field."""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import grpc
import pytest

sys.path.append(str(Path(__file__).resolve().parents[1] / "play"))  # playkit: the play tests' random driver
from playkit import random_action

from pulvezar import Position, Rules
from pulvezar.cubeful import CubeState
from pulvezar.eval.evaluator import NetEvaluator
from pulvezar.play import DecisionProvider, GameSettings, PlaySession
from pulvezar.play.bot import BotPlayer, Decision, Question
from pulvezar.play.settings import BotSettings
from services.common.pulvezar_proto.v1 import evaluator_pb2 as pb
from services.common.pulvezar_proto.v1 import evaluator_pb2_grpc
from services.common.pulvezar_proto.v1 import rules_pb2 as rpb
from services.common.remote_evaluator import GrpcEvaluator

if TYPE_CHECKING:
    from conftest import ServiceProcess

WEIGHTS = {
    "roll": 10.0, "play": 10.0, "double": 1.5, "take": 3.0, "pass": 1.0, "beaver": 1.5, "raccoon": 1.5,
    "resign": 0.15, "accept": 1.0, "reject": 1.0, "end": 0.0,
}  # fmt: skip
# (settings, kinds, steps): every level (adaptive by Elo and by PR too), every style, money with every
# option, matches, Tavla; the master level's 2-ply searches in a short game.  A game stops once the bot
# was asked each of its kinds of question (``Question.ask``), at most after ``steps`` actions.
EASY = {"level": "easy"}
CUBE_ASKS = {"play", "double", "take", "resign", "accept"}
TAVLA_ASKS = {"play", "resign", "accept"}
GAMES: list[tuple[dict[str, Any], set[str], int]] = [
    ({"match_length": 0, "money": {"jacoby": True, "beaver": True, "raccoon": True}, "bot": EASY},
     CUBE_ASKS | {"beaver", "raccoon"}, 400),
    ({"match_length": 3, "bot": {"level": "medium", "style": "aggressive"}}, CUBE_ASKS, 400),
    ({"match_length": 0, "money": {"beaver": True}, "bot": {"level": "hard", "style": "cautious"}},
     CUBE_ASKS | {"beaver"}, 60),
    ({"match_length": 5, "bot": {"level": "adaptive", "rating": 1350, "style": "runner"}}, CUBE_ASKS, 200),
    ({"match_length": 3, "bot": {"level": "adaptive", "rating": 9.5, "rating_kind": "pr"}}, CUBE_ASKS, 200),
    ({"rules": {"variant": "tavla", "hit_and_stop": True}, "match_length": 3, "bot": {"level": "easy"}},
     TAVLA_ASKS, 400),
    ({"rules": {"variant": "tavla"}, "match_length": 1, "bot": {"level": "medium", "style": "runner"}},
     TAVLA_ASKS, 300),
    ({"match_length": 0, "bot": {"level": "master"}}, {"play", "double", "resign", "accept"}, 12),
]  # fmt: skip


@pytest.mark.parametrize(("settings", "kinds", "steps"), GAMES, ids=[str(i) for i in range(len(GAMES))])
def test_a_bot_through_the_rpc_decides_as_the_library_bot(
    play_client: GrpcEvaluator, library: NetEvaluator, settings: dict[str, Any], kinds: set[str], steps: int
) -> None:
    """The same random game against the bot over the RPC and in process, until the bot was asked each
    kind of question of the game: the same events, the same log; and every question the RPC answered,
    answered alike by the library bot."""
    seed = 1000 + [g[0] for g in GAMES].index(settings)
    asked: list[tuple[Question, Decision]] = []

    class Recorded:
        """The client, its bot's questions and answers recorded."""

        def __getattr__(self, name: str) -> Any:
            return getattr(play_client, name)

        def bot(self, s: Any, seed: int, prune: bool = True) -> BotPlayer:
            bot = play_client.bot(s, seed, prune)
            remote = bot.ask

            def ask(q: Question) -> Decision:
                asked.append((q, remote(q)))
                return asked[-1][1]

            bot.ask = ask
            return bot

    sessions = [
        PlaySession(
            GameSettings.from_dict(settings),
            seed=bytes(32),
            evaluator=ev,
            bot_seed=seed,
            trainer_ply=0,
            now=0.0,
        )
        for ev in (Recorded(), library)
    ]
    remote, local = sessions
    assert local.bot.ask == local.bot.decide and remote.bot.ask != remote.bot.decide
    rngs = [random.Random(seed), random.Random(seed)]
    for _ in range(steps):
        states = [s.state(now=0.0) for s in sessions]
        assert states[0] == states[1]
        if states[0]["status"] == "finished" or {q.ask for q, _ in asked} >= kinds:
            break
        events = [
            s.apply(random_action(st, r, WEIGHTS), now=0.0)
            for s, st, r in zip(sessions, states, rngs, strict=True)
        ]
        assert events[0] == events[1]
    assert remote.log == local.log and {q.ask for q, _ in asked} >= kinds
    mine = BotPlayer(remote.settings.bot, library, seed)
    for q, d in asked:
        assert mine.decide(q) == d, q


def test_a_bots_level_and_margin_stay_in_the_gateway(play_client: GrpcEvaluator) -> None:
    """Level and margin (shown in the game's state) come from the settings, with no call; the client is
    the library's :class:`DecisionProvider` (the sessions use it as one)."""
    assert isinstance(play_client, DecisionProvider)
    s = GameSettings.from_dict({"bot": {"level": "adaptive", "rating": 1800}}).bot
    bot = play_client.bot(s, 3)
    assert (bot.level, bot.margin) == (
        BotPlayer(s, play_client, 3).level,
        BotPlayer(s, play_client, 3).margin,
    )


START = rpb.PositionRef(position_id=Position.start().position_id)
FINISHED = rpb.PositionRef(position_id=Position.from_points({}, {24: 1, 20: 14}).position_id)
BOT = pb.BotSettings(level="easy")
DICE = rpb.Dice(die1=3, die2=1)
TAVLA = rpb.RuleSet(variant=rpb.VARIANT_TAVLA)


def req(**fields: Any) -> pb.BotDecisionRequest:
    """A request: an easy bot's play of 31 at the start but for ``fields`` (None: unset)."""
    base: dict[str, Any] = {"bot": BOT, "ask": pb.BOT_ASK_PLAY, "position": START, "dice": DICE}
    return pb.BotDecisionRequest(**{k: v for k, v in (base | fields).items() if v is not None})


CUBE = pb.CubeContext()
ADAPTIVE = {"level": "adaptive", "rating": 1500}


@pytest.mark.parametrize(
    ("request_", "field"),
    [
        (req(ask=None), "ask"),
        (req(ask=99), "ask"),
        (req(bot=pb.BotSettings(level="wizard")), "bot.level"),
        (req(bot=pb.BotSettings(style="wild")), "bot.style"),
        (req(bot=pb.BotSettings(level="adaptive")), "bot.rating"),
        (req(bot=pb.BotSettings(level="adaptive", rating=1e9)), "bot.rating"),
        (req(bot=pb.BotSettings(level="easy", rating=1500)), "bot.rating"),
        (req(bot=pb.BotSettings(**ADAPTIVE, rating_kind="fide")), "bot.rating_kind"),
        (req(dice=None), "dice"),
        (req(dice=rpb.Dice(die1=7, die2=1)), "dice"),
        (req(position=None), "position"),
        (req(position=FINISHED), "position"),
        (req(rules=rpb.RuleSet(variant=7)), "rules.variant"),
        (req(ask=pb.BOT_ASK_DOUBLE), "cube"),
        (req(ask=pb.BOT_ASK_DOUBLE, rules=TAVLA, cube=CUBE), "cube"),
        (req(ask=pb.BOT_ASK_TAKE, cube=pb.CubeContext(cube_value=3)), "cube.cube_value"),
        (req(ask=pb.BOT_ASK_TAKE, cube=pb.CubeContext(cube_owner=9)), "cube.cube_owner"),
        (req(ask=pb.BOT_ASK_TAKE, cube=pb.CubeContext(match_length=5, score=7)), "cube.score"),
        (req(ask=pb.BOT_ASK_RESIGN, cube=CUBE), "level"),
        (req(ask=pb.BOT_ASK_ACCEPT, rules=TAVLA, level=4), "level"),
        (req(ask=pb.BOT_ASK_ACCEPT, level=1), "cube"),
    ],
)
def test_bad_bot_questions_are_invalid_argument_naming_the_field(
    play_service: ServiceProcess, violations: Any, request_: pb.BotDecisionRequest, field: str
) -> None:
    stub = evaluator_pb2_grpc.EvaluatorServiceStub(play_service.channel)
    with pytest.raises(grpc.RpcError) as e:
        stub.BotDecision(request_, timeout=10)
    assert violations(e.value) == (grpc.StatusCode.INVALID_ARGUMENT, [field])


def test_each_question_is_one_call_with_the_library_answer(
    play_service: ServiceProcess, play_client: GrpcEvaluator, library: NetEvaluator
) -> None:
    """Every kind of question through the codec and the RPC: one ``BotDecision`` call (and no board
    sent for evaluation), the library bot's answer; a sure loss in a Tavla race is resigned."""

    def calls(method: str) -> float:
        return float(play_service.metric("pulvezar_grpc_requests_total", method=method, code="OK"))

    intl, tavla = Rules.international(), Rules.tavla()
    start = Position.start()
    cube = CubeState(start, 2, "opponent", 0, (0, 0), beaver=True)
    questions = [
        Question("play", start, intl, (3, 1)),
        Question("play", start, tavla, (6, 5)),
        *(
            Question(ask, start, intl, cube=cube, raccoon=True)
            for ask in ("double", "take", "beaver", "raccoon")
        ),
        Question("resign", start, intl, cube=cube, level=3),
        Question("accept", start, intl, cube=cube, level=2, resigner_on_turn=True),
        Question("accept", start, tavla, level=1),
        Question("resign", Position.from_points({6: 3, 12: 1}, {1: 1}), tavla, level=3),
    ]
    for level in ("easy", "hard"):
        s = BotSettings(level)
        for q in questions:
            want = BotPlayer(s, library, 5).decide(q)
            before = calls("BotDecision"), calls("EvaluatePacked")
            assert play_client.bot(s, 5).ask(q) == want, q
            assert (calls("BotDecision") - before[0], calls("EvaluatePacked") - before[1]) == (1, 0)
    assert want.level == 1  # the sure loss, resigned
