"""A finished game's luck through the Evaluator service's ``GameLuck`` RPC (one call per game,
docs/adr/0019): the library's :func:`pulvezar.play.card.game_luck` to the bit, and hostile requests refused
by field."""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import grpc
import pytest

sys.path.append(str(Path(__file__).resolve().parents[1] / "play"))  # playkit: the play tests' random driver
from playkit import random_action

from pulvezar import Position
from pulvezar.eval.evaluator import NetEvaluator
from pulvezar.play import GameSettings, PlaySession
from pulvezar.play.card import game_luck
from pulvezar.play.luck import question
from services.common.pulvezar_proto.v1 import evaluator_pb2 as pb
from services.common.pulvezar_proto.v1 import evaluator_pb2_grpc
from services.common.pulvezar_proto.v1 import rules_pb2 as rpb
from services.common.remote_evaluator import GrpcEvaluator

if TYPE_CHECKING:
    from conftest import ServiceProcess

WEIGHTS = {"roll": 10.0, "play": 10.0, "take": 3.0, "pass": 0.5, "accept": 1.0, "reject": 1.0, "beaver": 0.5}
GAMES = [
    {"match_length": 3, "bot": {"level": "easy"}},
    {"match_length": 0, "money": {"jacoby": True}, "bot": {"level": "easy"}},
    {"rules": {"variant": "tavla"}, "match_length": 3, "bot": {"level": "easy"}},
    {"rules": {"variant": "tavla", "hit_and_stop": True}, "match_length": 1, "bot": {"level": "easy"}},
]


def finished_game(settings: dict[str, Any], library: NetEvaluator, seed: int) -> PlaySession:
    """A session whose first game has ended, played at random against the easy bot."""
    s = PlaySession(
        GameSettings.from_dict(settings), seed=bytes(32), evaluator=library, bot_seed=seed, now=0.0
    )
    rng = random.Random(seed)
    for _ in range(2000):
        st = s.state(now=0.0)
        if any(e.get("a") == "end" or e.get("a") == "drop" for e in s.log) or st["status"] == "finished":
            break
        if not any(a in WEIGHTS for a in st["actions"]):
            break
        s.apply(random_action(st, rng, WEIGHTS), now=0.0)
    return s


@pytest.mark.parametrize("settings", GAMES, ids=[str(i) for i in range(len(GAMES))])
def test_a_games_luck_through_the_rpc_is_the_librarys(
    play_service: ServiceProcess, play_client: GrpcEvaluator, library: NetEvaluator, settings: dict[str, Any]
) -> None:
    """The luck of a random game's first game: one ``GameLuck`` call, no board through ``EvaluatePacked``,
    the value of :func:`game_luck` in process to the bit."""

    def calls(method: str) -> float:
        return float(play_service.metric("pulvezar_grpc_requests_total", method=method, code="OK"))

    s = finished_game(settings, library, 3000 + GAMES.index(settings))
    want = game_luck(s, 0, library)  # in process: pulvezar.play.luck.answer
    q = question(s, 0)
    assert len(q.rolls) > 2 and want != (0.0, 0.0)
    before = calls("GameLuck"), calls("EvaluatePacked")
    assert play_client.luck()(q) == want
    assert (calls("GameLuck") - before[0], calls("EvaluatePacked") - before[1]) == (1, 0)
    # the result card's luck (the gateway passes its GrpcEvaluator): the same one call
    assert game_luck(s, 0, play_client) == want
    assert (calls("GameLuck") - before[0], calls("EvaluatePacked") - before[1]) == (2, 0)


@pytest.mark.parametrize("rules", ["international", "tavla"])
def test_a_rolls_ranking_through_the_hint_rpc_is_the_librarys(
    play_service: ServiceProcess, play_client: GrpcEvaluator, library: NetEvaluator, rules: str
) -> None:
    """A player's openings gaps (the gateway's players service): each roll's pruned 2-ply ranking is one
    ``Hint`` call, the library's ``searcher(...).rank`` to the bit, no board through ``EvaluatePacked``."""
    from pulvezar.rules.rules import Rules
    from pulvezar.search.hint import searcher

    def calls(method: str) -> float:
        return float(play_service.metric("pulvezar_grpc_requests_total", method=method, code="OK"))

    rule_set = Rules.tavla() if rules == "tavla" else Rules.international()
    start = rule_set.start_position()
    for dice in [(3, 1), (6, 5)]:
        want = [(c.play.position.position_id, c.cubeless_equity, c.ply)
                for c in searcher(library, rule_set).rank(start, dice, 2)]  # fmt: skip
        before = calls("Hint"), calls("EvaluatePacked")
        assert play_client.ranked(start, dice, 2, rule_set) == want
        assert (calls("Hint") - before[0], calls("EvaluatePacked") - before[1]) == (1, 0)


START = rpb.PositionRef(position_id=Position.start().position_id)
FINISHED = rpb.PositionRef(position_id=Position.from_points({}, {24: 1, 20: 14}).position_id)
ROLL = pb.LuckRoll(position=START, dice=rpb.Dice(die1=3, die2=1))


@pytest.mark.parametrize(
    ("request_", "field"),
    [
        (pb.GameLuckRequest(rolls=[ROLL] * 2001), "rolls"),
        (
            pb.GameLuckRequest(rolls=[ROLL, pb.LuckRoll(position=START, dice=rpb.Dice(die1=7, die2=1))]),
            "rolls[1].dice",
        ),
        (pb.GameLuckRequest(rolls=[pb.LuckRoll(dice=rpb.Dice(die1=3, die2=1))]), "rolls[0].position"),
        (
            pb.GameLuckRequest(rolls=[pb.LuckRoll(position=FINISHED, dice=rpb.Dice(die1=3, die2=1))]),
            "rolls[0].position",
        ),
        (
            pb.GameLuckRequest(rolls=[pb.LuckRoll(position=START, dice=rpb.Dice(die1=3, die2=1), player=2)]),
            "rolls[0].player",
        ),
        (pb.GameLuckRequest(rules=rpb.RuleSet(variant=7), rolls=[ROLL]), "rules.variant"),  # type: ignore[arg-type]
    ],
)
def test_bad_luck_requests_are_invalid_argument_naming_the_field(
    play_service: ServiceProcess, violations: Any, request_: pb.GameLuckRequest, field: str
) -> None:
    stub = evaluator_pb2_grpc.EvaluatorServiceStub(play_service.channel)
    with pytest.raises(grpc.RpcError) as e:
        stub.GameLuck(request_, timeout=10)
    assert violations(e.value) == (grpc.StatusCode.INVALID_ARGUMENT, [field])
