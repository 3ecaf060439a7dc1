"""The Rules gRPC service over real gRPC: every RPC, errors, deadlines, health, reflection, metrics."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import grpc
import pytest
from grpc_health.v1 import health_pb2
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase

from pulvezar import XGID, MatchId, Position, Rules

if TYPE_CHECKING:
    from conftest import ServiceProcess

from services.common.pulvezar_proto.v1 import rules_pb2 as pb
from services.common.pulvezar_proto.v1 import rules_pb2_grpc

START = "4HPwATDgc/ABMA"
FINISHED = Position.from_points({}, {24: 1, 20: 14})  # the mover has borne off everything
D31 = pb.Dice(die1=3, die2=1)
TAVLA = pb.RuleSet(variant=pb.VARIANT_TAVLA, hit_and_stop=True)


@pytest.fixture(scope="module")
def stub(rules_service: ServiceProcess) -> rules_pb2_grpc.RulesServiceStub:
    return rules_pb2_grpc.RulesServiceStub(rules_service.channel)


def pos(position_id: str = START) -> pb.PositionRef:
    return pb.PositionRef(position_id=position_id)


def dice(a: int, b: int) -> pb.Dice:
    return pb.Dice(die1=a, die2=b)


def test_legal_plays_match_the_library(stub: rules_pb2_grpc.RulesServiceStub) -> None:
    got = stub.LegalPlays(pb.LegalPlaysRequest(position=pos(), dice=dice(3, 1)), timeout=5)
    want = Rules.international().legal_plays(Position.start(), (3, 1))
    assert [p.notation for p in got.plays] == [p.notation for p in want]
    assert [p.position_id for p in got.plays] == [p.position.position_id for p in want]
    best = next(p for p in got.plays if p.notation == "8/5 6/5")
    assert best.next_position_id == "sGfwATDgc/ABMA"
    assert [(m.src, m.dst, m.hit) for m in best.moves] == [(8, 5, False), (6, 5, False)]


def test_legal_plays_take_every_position_form_and_tavla_options(
    stub: rules_pb2_grpc.RulesServiceStub,
) -> None:
    p = Position.start()
    forms = [
        pb.PositionRef(xgid=str(XGID.from_position(p))),
        pb.PositionRef(board=pb.Board(mine=p.mine, theirs=p.theirs)),
    ]
    for ref in forms:
        got = stub.LegalPlays(pb.LegalPlaysRequest(position=ref, dice=dice(6, 4), rules=TAVLA), timeout=5)
        want = Rules.tavla(hit_and_stop=True).legal_plays(p, (6, 4))
        assert [x.notation for x in got.plays] == [x.notation for x in want]


def test_apply_play(stub: rules_pb2_grpc.RulesServiceStub) -> None:
    got = stub.ApplyPlay(pb.ApplyPlayRequest(position=pos(), dice=dice(3, 1), notation="8/5  6/5"), timeout=5)
    assert got.play.notation == "8/5 6/5"
    assert got.play.next_position_id == "sGfwATDgc/ABMA"
    assert Position(list(got.board.mine), list(got.board.theirs)).pips() == (163, 167)
    assert not got.HasField("game_result")
    # the last checker off ends the game: a gammon for the mover
    last = Position.from_points({1: 1}, {12: 15})
    got = stub.ApplyPlay(
        pb.ApplyPlayRequest(position=pos(last.position_id), dice=dice(2, 1), notation="1/off"), timeout=5
    )
    assert got.game_result.winner == pb.WINNER_PLAYER
    assert got.game_result.outcome == pb.OUTCOME_GAMMON
    assert got.game_result.points == 2


def test_convert_id(stub: rules_pb2_grpc.RulesServiceStub) -> None:
    got = stub.ConvertId(pb.ConvertIdRequest(position=pos()), timeout=5)
    assert got.position.position_id == START
    assert got.position.xgid == str(XGID.from_position(Position.start()))
    assert list(got.position.board.mine) == list(Position.start().mine)
    assert not got.HasField("match")

    xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:7:10"
    got = stub.ConvertId(pb.ConvertIdRequest(position=pb.PositionRef(xgid=xgid)), timeout=5)
    assert got.position.position_id == START
    assert got.position.xgid == xgid
    assert got.match.match_length == 7
    assert (got.match.dice.die1, got.match.dice.die2) == (5, 2)
    assert got.gnubg_id == f"{START}:{got.match.match_id}"

    got = stub.ConvertId(pb.ConvertIdRequest(match_id="QYkqASAAIAAA"), timeout=5)
    m = MatchId.parse("QYkqASAAIAAA")
    assert (got.match.cube_value, got.match.cube_owner, got.match.match_length) == (2, 0, 9)
    assert (got.match.score0, got.match.score1, got.match.game_state) == (2, 4, m.game_state.name)
    assert not got.HasField("position")

    board = pb.PositionRef(board=pb.Board(mine=Position.start().mine, theirs=Position.start().theirs))
    got = stub.ConvertId(pb.ConvertIdRequest(position=board, match_id="cAkAAAAAAAAA"), timeout=5)
    assert got.gnubg_id == f"{START}:cAkAAAAAAAAA"
    assert got.match.cube_owner == -1


def test_score_game(stub: rules_pb2_grpc.RulesServiceStub) -> None:
    backgammon = FINISHED
    req = pb.ScoreGameRequest(position=pos(backgammon.position_id), cube_value=4)
    got = stub.ScoreGame(req, timeout=5)
    assert got.finished
    assert (got.result.winner, got.result.outcome) == (pb.WINNER_PLAYER, pb.OUTCOME_BACKGAMMON)
    assert (got.result.points, got.result.points_with_cube) == (3, 12)
    tavla = stub.ScoreGame(pb.ScoreGameRequest(position=pos(backgammon.position_id), rules=TAVLA), timeout=5)
    assert (tavla.result.points, tavla.result.points_with_cube) == (2, 2)  # mars
    lost = stub.ScoreGame(pb.ScoreGameRequest(position=pos(backgammon.swap().position_id)), timeout=5)
    assert lost.result.winner == pb.WINNER_OPPONENT
    jacoby = stub.ScoreGame(pb.ScoreGameRequest(position=pos(backgammon.position_id), jacoby=True), timeout=5)
    assert jacoby.result.points_with_cube == 1
    assert not stub.ScoreGame(pb.ScoreGameRequest(position=pos()), timeout=5).finished


@pytest.mark.parametrize(
    ("method", "request_", "field"),
    [
        ("LegalPlays", pb.LegalPlaysRequest(dice=dice(3, 1)), "position"),
        (
            "LegalPlays",
            pb.LegalPlaysRequest(position=pos("nonsense!"), dice=dice(3, 1)),
            "position.position_id",
        ),
        (
            "LegalPlays",
            pb.LegalPlaysRequest(position=pb.PositionRef(xgid="XGID=abc"), dice=dice(3, 1)),
            "position.xgid",
        ),
        (
            "LegalPlays",
            pb.LegalPlaysRequest(position=pb.PositionRef(board=pb.Board(mine=[1] * 24, theirs=[0] * 25))),
            "position.board.mine",
        ),
        ("LegalPlays", pb.LegalPlaysRequest(position=pos(FINISHED.position_id), dice=D31), "position"),
        ("LegalPlays", pb.LegalPlaysRequest(position=pos(), dice=dice(7, 1)), "dice"),
        ("LegalPlays", pb.LegalPlaysRequest(position=pos()), "dice"),
        (
            "LegalPlays",
            pb.LegalPlaysRequest(position=pos(), dice=dice(3, 1), rules=pb.RuleSet(must_bear_off=True)),
            "rules.must_bear_off",
        ),
        ("ApplyPlay", pb.ApplyPlayRequest(position=pos(), dice=dice(3, 1), notation="8/2"), "notation"),
        ("ApplyPlay", pb.ApplyPlayRequest(position=pos(), dice=dice(3, 1), notation="hello"), "notation"),
        ("ConvertId", pb.ConvertIdRequest(), "position"),
        ("ConvertId", pb.ConvertIdRequest(match_id="short"), "match_id"),
        ("ScoreGame", pb.ScoreGameRequest(position=pos(), cube_value=3), "cube_value"),
        ("ScoreGame", pb.ScoreGameRequest(position=pos(), rules=TAVLA, cube_value=2), "cube_value"),
    ],
)
def test_bad_input_is_invalid_argument_naming_the_field(
    stub: rules_pb2_grpc.RulesServiceStub, violations: Any, method: str, request_: object, field: str
) -> None:
    with pytest.raises(grpc.RpcError) as e:
        getattr(stub, method)(request_, timeout=5)
    code, fields = violations(e.value)
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert fields == [field]
    assert e.value.details().startswith(f"{field}: ")


def test_a_tiny_deadline_fails_fast_and_the_service_keeps_serving(
    stub: rules_pb2_grpc.RulesServiceStub, rules_service: ServiceProcess
) -> None:
    # grpcio does not always fail a call whose 1 us deadline passes while it is in flight (a fast answer can
    # win the race; measured: about half of such calls here), so try until one is cut off: every failure
    # must be DEADLINE_EXCEEDED, promptly, and the service must go on serving.
    codes = []
    for _ in range(100):
        t0 = time.monotonic()
        try:
            stub.LegalPlays(pb.LegalPlaysRequest(position=pos(), dice=dice(6, 6)), timeout=1e-6)
        except grpc.RpcError as e:
            codes.append(e.code())
            assert time.monotonic() - t0 < 10  # an answer, not a hang
            break
    assert codes == [grpc.StatusCode.DEADLINE_EXCEEDED]
    assert rules_service.health() == health_pb2.HealthCheckResponse.SERVING


def test_health_names_the_service(rules_service: ServiceProcess) -> None:
    assert rules_service.health("pulvezar.v1.RulesService") == health_pb2.HealthCheckResponse.SERVING


def test_reflection_lists_the_services(rules_service: ServiceProcess) -> None:
    db = ProtoReflectionDescriptorDatabase(rules_service.channel)
    services = set(db.get_services())
    assert {"pulvezar.v1.RulesService", "grpc.health.v1.Health"} <= services
    assert db.FindFileContainingSymbol("pulvezar.v1.RulesService").name == "pulvezar/v1/rules.proto"


def test_metrics_count_requests_by_method_and_code(
    stub: rules_pb2_grpc.RulesServiceStub, rules_service: ServiceProcess
) -> None:
    labels = {"service": "rules", "method": "LegalPlays"}
    ok = rules_service.metric("pulvezar_grpc_requests_total", **labels, code="OK")
    bad = rules_service.metric("pulvezar_grpc_requests_total", **labels, code="INVALID_ARGUMENT")
    stub.LegalPlays(pb.LegalPlaysRequest(position=pos(), dice=dice(2, 1)), timeout=5)
    with pytest.raises(grpc.RpcError):
        stub.LegalPlays(pb.LegalPlaysRequest(position=pos(), dice=dice(0, 1)), timeout=5)
    assert rules_service.metric("pulvezar_grpc_requests_total", **labels, code="OK") == ok + 1
    assert rules_service.metric("pulvezar_grpc_requests_total", **labels, code="INVALID_ARGUMENT") == bad + 1
    assert rules_service.metric("pulvezar_grpc_request_duration_seconds_count", **labels) >= ok + 2


def test_sigterm_stops_cleanly(start: Any) -> None:
    svc = start("services.rules", "--grace-period", "3")
    stub = rules_pb2_grpc.RulesServiceStub(svc.channel)
    stub.LegalPlays(pb.LegalPlaysRequest(position=pos(), dice=dice(3, 1)), timeout=5)
    t0 = time.monotonic()
    assert svc.terminate(timeout=10) == 0
    assert time.monotonic() - t0 < 4
    assert [e["msg"] for e in svc.logs][-2:] == ["shutting down", "stopped"]
