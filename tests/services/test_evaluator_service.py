"""The Evaluator gRPC service over real gRPC, and its micro-batcher in-process."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import grpc
import numpy as np
import pytest
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase
from procutil import run_coroutine

from pulvezar import XGID, Position, Rules
from pulvezar.cube import CubeState, cube_decision, resignation_decision, should_resign
from pulvezar.eval.evaluator import (
    NetEvaluator,
    boards_of,
    default_evaluator,
    default_model_path,
    equity,
    for_rules,
)
from pulvezar.search import hint

if TYPE_CHECKING:
    from conftest import ServiceProcess

from services.common.pulvezar_proto.v1 import evaluator_pb2 as pb
from services.common.pulvezar_proto.v1 import evaluator_pb2_grpc
from services.common.pulvezar_proto.v1 import rules_pb2 as rpb
from services.evaluator.batcher import MicroBatcher, QueueFull

Stub = evaluator_pb2_grpc.EvaluatorServiceStub
TOL = 1e-6  # float32 nets: a batch's composition may move the last bits
SLOW = {  # a slow model, one board per batch, a short queue
    "PULVEZAR_EVALUATOR_BATCH_DELAY_MS": "400",
    "PULVEZAR_EVALUATOR_MAX_BATCH_SIZE": "1",
    "PULVEZAR_EVALUATOR_QUEUE_SIZE": "2",
}


def sample_positions(n: int, seed: int = 7) -> list[Position]:
    """Positions of random games (results of plays, mover's view: contact, races, bear-offs, ends)."""
    rng, rules, out = random.Random(seed), Rules.international(), []
    p = Position.start()
    while len(out) < n:
        plays = rules.legal_plays(p, (rng.randint(1, 6), rng.randint(1, 6)))
        after = plays[rng.randrange(len(plays))].position
        out.append(after)
        p = Position.start() if rules.game_result(after) else after.swap()
    return out


def ref(p: Position) -> rpb.PositionRef:
    return rpb.PositionRef(position_id=p.position_id)


@pytest.fixture(scope="module")
def evaluator_service(start: Any) -> Iterator[ServiceProcess]:
    env = {"PULVEZAR_EVALUATOR_MAX_WAIT_MS": "20", "PULVEZAR_EVALUATOR_MAX_POSITIONS": "256"}
    svc = start("services.evaluator", "--device", "cpu", env=env)
    yield svc
    assert svc.terminate() == 0


@pytest.fixture(scope="module")
def stub(evaluator_service: ServiceProcess) -> Stub:
    return evaluator_pb2_grpc.EvaluatorServiceStub(evaluator_service.channel)


@pytest.fixture(scope="module")
def library() -> NetEvaluator:
    return default_evaluator()


def test_evaluate_matches_the_library(stub: Stub, library: NetEvaluator) -> None:
    positions = sample_positions(200)
    refs = [ref(p) for p in positions]
    refs[1] = rpb.PositionRef(xgid=str(XGID.from_position(positions[1])))
    refs[2] = rpb.PositionRef(board=rpb.Board(mine=positions[2].mine, theirs=positions[2].theirs))
    got = stub.Evaluate(pb.EvaluateRequest(positions=refs), timeout=10)
    want = library.evaluate_boards(boards_of(positions))
    probs = np.array([[getattr(e.probabilities, f) for f in _FIELDS] for e in got.evaluations])
    np.testing.assert_allclose(probs, want, atol=TOL)
    np.testing.assert_allclose([e.equity for e in got.evaluations], equity(want), atol=TOL)
    assert got.model == library.info.sha256  # type: ignore[union-attr]
    tavla = stub.Evaluate(pb.EvaluateRequest(positions=refs, rules=rpb.RuleSet(variant=rpb.VARIANT_TAVLA)))
    # a Tavla rule set is evaluated by the model's nets for it where it has them (pulvezar-v4: plain Tavla's
    # own crashed net; ADR 0015), with a mars worth 2
    own = for_rules(library, Rules.tavla()).evaluate_boards(boards_of(positions))
    np.testing.assert_allclose([e.equity for e in tavla.evaluations], equity(own, Rules.tavla()), atol=TOL)


_FIELDS = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")


def test_best_play_matches_the_library(stub: Stub, library: NetEvaluator) -> None:
    rng = random.Random(3)
    rules = Rules.international()
    cases = [(p.swap(), (rng.randint(1, 6), rng.randint(1, 6))) for p in sample_positions(40, seed=11)[::4]]
    for p, roll in [(Position.start(), (3, 1)), *((p, r) for p, r in cases if not rules.game_result(p))]:
        req = pb.BestPlayRequest(position=ref(p), dice=rpb.Dice(die1=roll[0], die2=roll[1]))
        got = stub.BestPlay(req, timeout=10)
        want = library.best_play(p, roll)
        plays = rules.legal_plays(p, roll)
        assert got.best.play.notation == want.notation
        assert got.legal_plays == len(plays)
        assert got.best.evaluation.equity == pytest.approx(library.play_equities(plays).max(), abs=TOL)
    assert stub.BestPlay(pb.BestPlayRequest(position=ref(Position.start()), dice=rpb.Dice(die1=3, die2=1)))


def test_concurrent_calls_are_micro_batched(
    stub: Stub, evaluator_service: ServiceProcess, library: NetEvaluator
) -> None:
    def multi() -> float:  # batches that served more than one request
        total = evaluator_service.metric("pulvezar_evaluator_batch_requests_count")
        return total - evaluator_service.metric("pulvezar_evaluator_batch_requests_bucket", le="1.0")

    before = multi()
    positions = sample_positions(64, seed=5)
    calls = [stub.Evaluate.future(pb.EvaluateRequest(positions=[ref(p)]), timeout=20) for p in positions]
    results = [c.result() for c in calls]
    want = library.evaluate_boards(boards_of(positions))
    got = np.array([[getattr(r.evaluations[0].probabilities, f) for f in _FIELDS] for r in results])
    np.testing.assert_allclose(got, want, atol=TOL)
    assert multi() > before
    assert evaluator_service.metric("pulvezar_evaluator_queue_wait_seconds_count") >= 64
    assert evaluator_service.metric("pulvezar_grpc_requests_total", method="Evaluate", code="OK") >= 64


@pytest.mark.parametrize(
    ("method", "request_", "field"),
    [
        ("Evaluate", pb.EvaluateRequest(), "positions"),
        ("Evaluate", pb.EvaluateRequest(positions=[ref(Position.start())] * 257), "positions"),
        (
            "Evaluate",
            pb.EvaluateRequest(positions=[ref(Position.start()), rpb.PositionRef(position_id="??")]),
            "positions[1].position_id",
        ),
        ("Evaluate", pb.EvaluateRequest(positions=[rpb.PositionRef()]), "positions[0]"),
        (
            "Evaluate",
            pb.EvaluateRequest(positions=[ref(Position.start())], rules=rpb.RuleSet(variant=9)),
            "rules.variant",
        ),
        ("BestPlay", pb.BestPlayRequest(position=ref(Position.start())), "dice"),
        ("BestPlay", pb.BestPlayRequest(dice=rpb.Dice(die1=1, die2=2)), "position"),
    ],
)
def test_bad_input_is_invalid_argument_naming_the_field(
    stub: Stub, violations: Any, method: str, request_: object, field: str
) -> None:
    with pytest.raises(grpc.RpcError) as e:
        getattr(stub, method)(request_, timeout=5)
    assert violations(e.value) == (grpc.StatusCode.INVALID_ARGUMENT, [field])


# ---- EvaluatePacked, ModelInfo ----------------------------------------------------------------------


def random_boards(n: int, seed: int) -> np.ndarray[Any, np.dtype[np.uint8]]:
    """Legal boards of random games (contact, races, bear-offs, finished games), packed."""
    return boards_of(sample_positions(n, seed=seed))


def test_evaluate_packed_equals_the_library(stub: Stub, library: NetEvaluator) -> None:
    """Packed boards through the service give the in-process evaluator's probabilities to the bit
    (float64; the C forward pass does not depend on the batch), float32 their rounding."""
    boards = random_boards(3000, seed=23)
    want = library.evaluate_boards(boards)
    got = stub.EvaluatePacked(pb.EvaluatePackedRequest(boards=boards.tobytes()), timeout=20)
    assert (got.count, got.format, got.model) == (3000, pb.FLOAT_FORMAT_FLOAT64, library.info.sha256)  # type: ignore[union-attr]
    np.testing.assert_array_equal(np.frombuffer(got.probabilities, "<f8").reshape(-1, 5), want)
    f32 = stub.EvaluatePacked(
        pb.EvaluatePackedRequest(boards=boards.tobytes(), format=pb.FLOAT_FORMAT_FLOAT32), timeout=20
    )
    assert f32.format == pb.FLOAT_FORMAT_FLOAT32 and len(f32.probabilities) == 3000 * 5 * 4
    np.testing.assert_array_equal(np.frombuffer(f32.probabilities, "<f4").reshape(-1, 5), want.astype("<f4"))


def test_packed_calls_of_many_clients_share_batches(
    stub: Stub, evaluator_service: ServiceProcess, library: NetEvaluator
) -> None:
    parts = [random_boards(40, seed=100 + i) for i in range(24)]
    calls = [
        stub.EvaluatePacked.future(pb.EvaluatePackedRequest(boards=b.tobytes()), timeout=20) for b in parts
    ]
    for b, call in zip(parts, calls, strict=True):
        got = np.frombuffer(call.result().probabilities, "<f8").reshape(-1, 5)
        np.testing.assert_array_equal(got, library.evaluate_boards(b))
    assert evaluator_service.metric("pulvezar_grpc_requests_total", method="EvaluatePacked", code="OK") >= 24


def test_a_workers_grpc_evaluator_equals_the_library(
    evaluator_service: ServiceProcess, library: NetEvaluator
) -> None:
    """The rollout worker's client: terminal boards scored locally, the rest in requests of at most
    ``max_boards`` (here several), the result the library's to the bit."""
    from services.rollout.evaluators import GrpcEvaluator

    client = GrpcEvaluator(evaluator_service.address, max_boards=700)
    try:
        assert client.race_table_points == 6  # not asked yet: the home boards only
        assert client.info(5).model == library.info.sha256  # type: ignore[union-attr]
        # the served model's race table, so the client's rollouts end their trials where the library's do
        assert client.race_table_points == library.race_table_points == 9
        assert client.for_rules(Rules.tavla()).race_table_points == 9
        boards = random_boards(3000, seed=31)
        before = evaluator_service.metric("pulvezar_grpc_requests_total", method="EvaluatePacked", code="OK")
        np.testing.assert_array_equal(client.evaluate_boards(boards), library.evaluate_boards(boards))
        after = evaluator_service.metric("pulvezar_grpc_requests_total", method="EvaluatePacked", code="OK")
        assert after - before == 5  # fewer than 3000 boards are not over: 5 requests of <= 700
    finally:
        client.close()


def test_model_info_names_the_model_and_its_device(stub: Stub, library: NetEvaluator) -> None:
    info = stub.ModelInfo(pb.ModelInfoRequest(), timeout=5)
    assert info.model == library.info.sha256  # type: ignore[union-attr]
    assert (info.device, info.accelerator) == ("cpu", False)
    assert info.name == default_model_path().stem and info.max_packed_boards == 65536
    assert info.race_table_points == library.race_table_points


def _packed(*boards: bytes) -> pb.EvaluatePackedRequest:
    return pb.EvaluatePackedRequest(boards=b"".join(boards))


_START = Position.start().board
_BOTH = bytearray(_START)
_BOTH[5], _BOTH[0] = _BOTH[5] - 1, 1  # from the 6 point to the 1 point: the opponent's back checkers
_SIXTEEN = bytearray(_START)
_SIXTEEN[5] += 1
_THEIRS_SIXTEEN = bytearray(_START)
_THEIRS_SIXTEEN[25 + 7] += 1


@pytest.mark.parametrize(
    ("request_", "field", "says"),
    [
        (pb.EvaluatePackedRequest(), "boards", "at least one board"),
        (_packed(_START, _START[:49]), "boards", "99 bytes"),
        (_packed(_START, bytes(_BOTH)), "boards[1]", "both colours"),
        (_packed(bytes(_SIXTEEN)), "boards[0]", "player on roll has more than 15"),
        (_packed(_START, _START, bytes(_THEIRS_SIXTEEN)), "boards[2]", "opponent has more than 15"),
        (_packed(_START, bytes(50)), "boards[1]", "borne off"),
        (pb.EvaluatePackedRequest(boards=_START, format=7), "format", "unknown float format"),
    ],
)
def test_bad_packed_input_is_invalid_argument_naming_the_board(
    stub: Stub, violations: Any, request_: pb.EvaluatePackedRequest, field: str, says: str
) -> None:
    with pytest.raises(grpc.RpcError) as e:
        stub.EvaluatePacked(request_, timeout=5)
    assert violations(e.value) == (grpc.StatusCode.INVALID_ARGUMENT, [field])
    assert says in e.value.details()


def test_packed_requests_are_limited(start: Any, violations: Any) -> None:
    svc = start("services.evaluator", "--device", "cpu", env={"PULVEZAR_EVALUATOR_MAX_PACKED_BOARDS": "4"})
    try:
        stub = evaluator_pb2_grpc.EvaluatorServiceStub(svc.channel)
        assert stub.ModelInfo(pb.ModelInfoRequest(), timeout=5).max_packed_boards == 4
        assert stub.EvaluatePacked(_packed(*[_START] * 4), timeout=5).count == 4
        with pytest.raises(grpc.RpcError) as e:
            stub.EvaluatePacked(_packed(*[_START] * 5), timeout=5)
        assert violations(e.value) == (grpc.StatusCode.INVALID_ARGUMENT, ["boards"])
        assert "at most 4 boards" in e.value.details()
    finally:
        assert svc.terminate() == 0


# ---- Hint, CubeDecision, Resignation ---------------------------------------------------------------

RACE = Position.from_points({6: 5, 5: 5, 4: 5}, {6: 3, 5: 3, 4: 3, 3: 3, 2: 3})
TAVLA = Position.from_points({1: 3, 2: 4, 4: 4, 6: 4}, {20: 5, 22: 10})


def dice(a: int, b: int) -> rpb.Dice:
    return rpb.Dice(die1=a, die2=b)


def test_hint_matches_the_library(stub: Stub, library: NetEvaluator) -> None:
    got = stub.Hint(
        pb.HintRequest(position=ref(Position.start()), dice=dice(3, 1), ply=1, limit=5), timeout=20
    )
    want = hint(Position.start(), (3, 1), ply=1, evaluator=library)
    assert got.legal_plays == len(want) == 16 and len(got.candidates) == 5 and not got.cubeful
    assert [c.play.notation for c in got.candidates] == [c.notation for c in want[:5]]
    for g, w in zip(got.candidates, want, strict=False):
        assert g.ply == w.ply and g.equity == pytest.approx(w.equity, abs=TOL)
        assert g.loss == pytest.approx(w.loss, abs=TOL) and not g.HasField("cubeful_equity")
        assert g.play.position_id == w.play.position.position_id
        np.testing.assert_allclose([getattr(g.probabilities, f) for f in _FIELDS], w.probs, atol=TOL)
    assert got.candidates[0].ply == 1 and got.model == library.info.sha256  # type: ignore[union-attr]
    # Tavla, a level with noise, all candidates
    tavla = rpb.RuleSet(variant=rpb.VARIANT_TAVLA, must_bear_off=True)
    req = pb.HintRequest(position=ref(TAVLA), dice=dice(6, 2), rules=tavla, level=pb.LEVEL_EASY, seed=5)
    got = stub.Hint(req, timeout=20)
    want = hint(TAVLA, (6, 2), level="easy", seed=5, rules=Rules.tavla(must_bear_off=True), evaluator=library)
    assert [c.play.notation for c in got.candidates] == [c.notation for c in want]
    # cubeful: the cube and score of a CubeContext
    cube = pb.CubeContext(
        cube_value=2, cube_owner=pb.CUBE_OWNER_PLAYER, match_length=7, score=2, opponent_score=4
    )
    got = stub.Hint(pb.HintRequest(position=ref(Position.start()), dice=dice(6, 4), cube=cube), timeout=20)
    state = CubeState(Position.start(), 2, "player", 7, (2, 4))
    want = hint(state, (6, 4), evaluator=library)
    assert got.cubeful and [c.play.notation for c in got.candidates] == [c.notation for c in want]
    assert got.candidates[0].cubeful_equity == pytest.approx(want[0].cubeful_equity, abs=TOL)


def opt(msg: Any, field: str) -> Any:
    """An optional field's value, None when unset."""
    return getattr(msg, field) if msg.HasField(field) else None


def test_cube_decision_matches_the_library(stub: Stub, library: NetEvaluator) -> None:
    cases = [
        (pb.CubeContext(), CubeState(Position.start()), 1),
        (pb.CubeContext(beaver=True, jacoby=True), CubeState(RACE, jacoby=True, beaver=True), 2),
        (
            pb.CubeContext(cube_value=2, cube_owner=pb.CUBE_OWNER_OPPONENT, match_length=7, opponent_score=3),
            CubeState(RACE.swap(), 2, "opponent", 7, (0, 3)),
            1,
        ),
    ]
    for ctx, state, ply in cases:
        req = pb.CubeDecisionRequest(position=ref(state.position), cube=ctx, ply=ply)
        got = stub.CubeDecision(req, timeout=20)
        want = cube_decision(state, library, ply=ply)
        assert (got.action, got.should_double, got.ply) == (want.action, want.double, ply)
        assert (got.taker_response or None) == want.response and got.can_double == want.can_double
        assert got.no_double == pytest.approx(want.nd, abs=TOL)
        if want.can_double:
            assert got.double_take == pytest.approx(want.dt, abs=TOL)
            assert got.double_pass == pytest.approx(want.dp, abs=TOL)
        else:  # the opponent owns the cube
            assert not got.HasField("double_take") and not got.HasField("double_pass")
        assert got.value == pytest.approx(want.value, abs=TOL)
        assert dict(got.costs) == pytest.approx(want.costs, abs=TOL)
        assert got.gammon_price.player == pytest.approx(want.gammon_price.me)
        if state.match_length:
            assert got.mwc_no_double == pytest.approx(want.mwc_nd, abs=TOL)
            assert got.mwc_value == pytest.approx(want.mwc_value, abs=TOL)
            assert opt(got, "take_point") == (want.take_point and pytest.approx(want.take_point))
        else:
            assert not got.HasField("mwc_no_double") and got.take_point == pytest.approx(0.25)
    # a level instead of a ply
    got = stub.CubeDecision(pb.CubeDecisionRequest(position=ref(RACE), level=pb.LEVEL_HARD), timeout=20)
    assert got.ply == 1 and got.action == cube_decision(CubeState(RACE), library, level="hard").action


def test_resignation_matches_the_library(stub: Stub, library: NetEvaluator) -> None:
    req = pb.ResignationRequest(position=ref(RACE.swap()), resignation=rpb.OUTCOME_SINGLE)
    got = stub.Resignation(req, timeout=20)
    want = resignation_decision(CubeState(RACE.swap()), 1, evaluator=library)
    d = got.decision
    assert (d.accept, d.resignation, d.resigner) == (want.accept, rpb.OUTCOME_SINGLE, pb.SIDE_PLAYER)
    assert d.value == pytest.approx(want.value) and d.play_on == pytest.approx(want.play_on, abs=TOL)
    assert got.should_resign == rpb.OUTCOME_UNSPECIFIED  # still a race to play
    # the opponent offers a gammon in a 5-point match, 1 ply; and a race lost for sure
    lost = CubeState(Position.from_points({6: 3, 12: 1}, {1: 1}))
    cube = pb.CubeContext(match_length=5, score=1, opponent_score=2)
    req = pb.ResignationRequest(
        position=ref(lost.position),
        cube=cube,
        resignation=rpb.OUTCOME_GAMMON,
        resigner=pb.SIDE_OPPONENT,
        ply=1,
    )
    got = stub.Resignation(req, timeout=20)
    state = CubeState(lost.position, match_length=5, score=(1, 2))
    want = resignation_decision(state, 2, resigner="opponent", evaluator=library, ply=1)
    assert got.decision.accept == want.accept and got.decision.mwc_value == pytest.approx(want.mwc_value)
    assert got.decision.mwc_play_on == pytest.approx(want.mwc_play_on, abs=TOL)
    assert should_resign(state, library) == 1 and got.should_resign == rpb.OUTCOME_SINGLE
    only = stub.Resignation(pb.ResignationRequest(position=ref(lost.position)), timeout=20)
    assert not only.HasField("decision") and only.should_resign == rpb.OUTCOME_SINGLE


START_REF = ref(Position.start())
FINISHED = ref(Position.from_points({}, {24: 1, 20: 14}))


@pytest.mark.parametrize(
    ("method", "request_", "field"),
    [
        ("Hint", pb.HintRequest(position=START_REF), "dice"),
        ("Hint", pb.HintRequest(position=START_REF, dice=dice(3, 1), ply=4), "ply"),
        ("Hint", pb.HintRequest(position=START_REF, dice=dice(3, 1), filter="huge"), "filter"),
        ("Hint", pb.HintRequest(position=START_REF, dice=dice(3, 1), level=9), "level"),
        ("Hint", pb.HintRequest(position=FINISHED, dice=dice(3, 1)), "position"),
        (
            "Hint",
            pb.HintRequest(
                position=START_REF,
                dice=dice(3, 1),
                rules=rpb.RuleSet(variant=rpb.VARIANT_TAVLA),
                cube=pb.CubeContext(),
            ),
            "cube",
        ),
        ("CubeDecision", pb.CubeDecisionRequest(position=rpb.PositionRef(xgid="XGID=nope")), "position.xgid"),
        ("CubeDecision", pb.CubeDecisionRequest(position=START_REF, ply=3), "ply"),
        (
            "CubeDecision",
            pb.CubeDecisionRequest(position=START_REF, cube=pb.CubeContext(cube_value=3)),
            "cube.cube_value",
        ),
        (
            "CubeDecision",
            pb.CubeDecisionRequest(position=START_REF, cube=pb.CubeContext(match_length=7, opponent_score=7)),
            "cube.opponent_score",
        ),
        (
            "CubeDecision",
            pb.CubeDecisionRequest(position=START_REF, cube=pb.CubeContext(match_length=7, crawford=True)),
            "cube.crawford",
        ),
        (
            "CubeDecision",
            pb.CubeDecisionRequest(position=START_REF, cube=pb.CubeContext(match_length=7, jacoby=True)),
            "cube.jacoby",
        ),
        (
            "CubeDecision",
            pb.CubeDecisionRequest(position=START_REF, cube=pb.CubeContext(crawford=True)),
            "cube.crawford",
        ),
        ("Resignation", pb.ResignationRequest(position=START_REF, resignation=9), "resignation"),
        ("Resignation", pb.ResignationRequest(position=FINISHED, resignation=rpb.OUTCOME_SINGLE), "position"),
        ("Resignation", pb.ResignationRequest(position=START_REF, ply=5), "ply"),
    ],
)
def test_analysis_bad_input_is_invalid_argument_naming_the_field(
    stub: Stub, violations: Any, method: str, request_: object, field: str
) -> None:
    with pytest.raises(grpc.RpcError) as e:
        getattr(stub, method)(request_, timeout=5)
    assert violations(e.value) == (grpc.StatusCode.INVALID_ARGUMENT, [field])


def test_a_tiny_deadline_fails_fast(stub: Stub) -> None:
    t0 = time.monotonic()
    with pytest.raises(grpc.RpcError) as e:
        stub.Evaluate(pb.EvaluateRequest(positions=[ref(Position.start())] * 256), timeout=1e-6)
    assert e.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    assert time.monotonic() - t0 < 10  # an answer, not a hang
    assert stub.Evaluate(pb.EvaluateRequest(positions=[ref(Position.start())]), timeout=5)


def test_reflection_lists_the_services(evaluator_service: ServiceProcess) -> None:
    db = ProtoReflectionDescriptorDatabase(evaluator_service.channel)
    assert {"pulvezar.v1.EvaluatorService", "grpc.health.v1.Health"} <= set(db.get_services())


# ---- a slow model: deadlines inside the server, a full queue, SIGTERM with work in flight ----------


@pytest.fixture(scope="module")
def slow_service(start: Any) -> Iterator[ServiceProcess]:
    svc = start("services.evaluator", "--device", "cpu", env=SLOW)
    yield svc
    assert svc.terminate() == 0


def test_the_server_honours_deadlines(slow_service: ServiceProcess) -> None:
    stub = evaluator_pb2_grpc.EvaluatorServiceStub(slow_service.channel)
    t0 = time.monotonic()
    with pytest.raises(grpc.RpcError) as e:
        stub.Evaluate(pb.EvaluateRequest(positions=[ref(Position.start())]), timeout=0.15)
    assert e.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    assert time.monotonic() - t0 < 5  # the deadline, not the slow model, ended it
    time.sleep(0.4)  # let the abandoned batch finish


def test_a_full_queue_is_resource_exhausted(slow_service: ServiceProcess) -> None:
    stub = evaluator_pb2_grpc.EvaluatorServiceStub(slow_service.channel)
    calls = [
        stub.Evaluate.future(pb.EvaluateRequest(positions=[ref(Position.start())]), timeout=10)
        for _ in range(8)
    ]
    codes = []
    for c in calls:
        try:
            c.result()
            codes.append(grpc.StatusCode.OK)
        except grpc.RpcError as e:
            codes.append(e.code())
    assert set(codes) == {grpc.StatusCode.OK, grpc.StatusCode.RESOURCE_EXHAUSTED}
    assert slow_service.metric("pulvezar_evaluator_rejected_total") == codes.count(
        grpc.StatusCode.RESOURCE_EXHAUSTED
    )


def test_a_search_past_its_deadline_is_deadline_exceeded_and_stops(slow_service: ServiceProcess) -> None:
    stub = evaluator_pb2_grpc.EvaluatorServiceStub(slow_service.channel)
    batches = "pulvezar_evaluator_batch_requests_count"
    t0 = time.monotonic()
    for method, req in (
        ("Hint", pb.HintRequest(position=START_REF, dice=dice(3, 1), ply=2)),
        ("CubeDecision", pb.CubeDecisionRequest(position=START_REF, ply=2)),
    ):
        with pytest.raises(grpc.RpcError) as e:
            getattr(stub, method)(req, timeout=0.6)
        assert e.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    assert time.monotonic() - t0 < 5  # the deadlines, not the slow searches, ended them
    time.sleep(0.5)  # the abandoned searches' last batches end; they submit no more
    before = slow_service.metric(batches)
    time.sleep(0.9)
    assert slow_service.metric(batches) == before
    got = stub.Hint(pb.HintRequest(position=START_REF, dice=dice(3, 1)), timeout=10)
    assert got.candidates[0].play.notation == "8/5 6/5"


def test_sigterm_finishes_in_flight_calls_then_exits_0(start: Any) -> None:
    # a long grace: a server that waited it out instead of stopping once its call finished takes 30 s, a
    # prompt one a second or two (more on a loaded machine, never near 30)
    svc = start("services.evaluator", "--device", "cpu", "--grace-period", "30", env=SLOW)
    stub = evaluator_pb2_grpc.EvaluatorServiceStub(svc.channel)
    call = stub.Evaluate.future(pb.EvaluateRequest(positions=[ref(Position.start())]), timeout=10)
    time.sleep(0.15)  # the call is in the (slow) model now
    t0 = time.monotonic()
    svc.proc.send_signal(15)
    assert call.result().evaluations[0].probabilities.win == pytest.approx(0.5, abs=0.1)
    assert svc.terminate(timeout=40) == 0
    assert time.monotonic() - t0 < 25
    assert [e["msg"] for e in svc.logs][-2:] == ["shutting down", "stopped"]


# ---- the micro-batcher in-process -----------------------------------------------------------------


def test_batcher_delivers_an_error_to_every_caller_of_the_batch() -> None:
    sizes: list[int] = []

    def broken(boards: np.ndarray) -> np.ndarray:
        sizes.append(len(boards))
        raise RuntimeError("the GPU caught fire")

    async def main() -> list[BaseException | np.ndarray]:
        b = MicroBatcher(broken, max_batch_size=64, max_wait_s=0.05, queue_size=16)
        b.start()
        boards = boards_of([Position.start()])
        results = await asyncio.gather(*(b.submit(boards) for _ in range(5)), return_exceptions=True)
        await b.stop()
        return results

    results = run_coroutine(main())
    assert sizes == [5]
    assert all(isinstance(r, RuntimeError) and "fire" in str(r) for r in results)


def test_batcher_splits_results_and_respects_the_batch_size() -> None:
    sizes: list[int] = []

    def fake(boards: np.ndarray) -> np.ndarray:
        sizes.append(len(boards))
        return np.repeat(boards[:, :1].astype(np.float64), 5, axis=1)  # echo: probs = mine[0]

    async def main() -> list[np.ndarray]:
        b = MicroBatcher(fake, max_batch_size=4, max_wait_s=0.05, queue_size=16)
        b.start()
        jobs = [np.full((n, 50), n, dtype=np.uint8) for n in (1, 2, 3, 1, 1)]
        out = await asyncio.gather(*(b.submit(j) for j in jobs))
        await b.stop()
        return out

    out = run_coroutine(main())
    assert [r.shape[0] for r in out] == [1, 2, 3, 1, 1]
    assert [int(r[0, 0]) for r in out] == [1, 2, 3, 1, 1]
    assert sizes == [3, 4, 1]  # 1+2 (3 would exceed 4), 3+1, 1


def test_a_search_on_the_model_equals_one_through_the_batcher_and_stops_at_its_deadline(
    library: NetEvaluator,
) -> None:
    """On CPUs a search evaluates on the model in its own thread (services/evaluator/analysis.py), with the
    plays' incremental first layer: the same bits as through the micro-batcher; past its deadline (or
    cancelled) its next evaluation raises Expired, as a batched one does."""
    from services.evaluator.analysis import BatchedEvaluator, Expired, Job

    rng = random.Random(7)
    rules = Rules.international()
    cases = [(p, (rng.randint(1, 6), rng.randint(1, 6))) for p in sample_positions(12, seed=17)]
    cases = [(p, d) for p, d in cases if not rules.game_result(p)]

    async def main() -> tuple[list[list[float]], list[list[float]]]:
        loop = asyncio.get_running_loop()
        b = MicroBatcher(library.evaluate_boards, max_batch_size=1024, max_wait_s=0.0, queue_size=64)
        b.start()
        out = []
        for direct in (None, library):
            ev = BatchedEvaluator(b, loop, direct=direct, race_table_points=library.race_table_points)

            def search(ev: BatchedEvaluator = ev) -> list[list[float]]:
                return [[c.equity for c in hint(p, d, ply=2, evaluator=ev)] for p, d in cases]

            out.append(await asyncio.to_thread(search))
        await b.stop()
        return out[0], out[1]

    batched, direct = run_coroutine(main())
    assert batched == direct and len(batched) >= 10
    ev = BatchedEvaluator(None, None, direct=library)  # type: ignore[arg-type]
    boards = boards_of([Position.start()])
    ev.job = Job(deadline=time.monotonic() - 1)
    with pytest.raises(Expired):
        ev.evaluate_boards(boards)
    ev.job = Job(deadline=None, cancelled=True)
    with pytest.raises(Expired):
        ev.evaluate_plays(boards, np.zeros(1, dtype=np.intp), boards)
    ev.job = Job(deadline=None)
    np.testing.assert_array_equal(ev.evaluate_boards(boards), library.evaluate_boards(boards))


def test_batcher_refuses_when_the_queue_is_full() -> None:
    async def main() -> None:
        b = MicroBatcher(lambda x: np.zeros((len(x), 5)), max_batch_size=1, max_wait_s=0, queue_size=2)
        b.start()
        boards = boards_of([Position.start()])
        tasks = [asyncio.create_task(b.submit(boards)) for _ in range(2)]  # fill the queue
        await asyncio.sleep(0)
        with pytest.raises(QueueFull):
            for _ in range(3):
                await b.submit(boards)
        await asyncio.gather(*tasks)
        await b.stop()

    run_coroutine(main())


def test_a_model_that_cannot_load_exits_1_and_never_serves(tmp_path: Path, service_process: Any) -> None:
    missing = str(tmp_path / "missing.pt")
    svc = service_process("services.evaluator", "--device", "cpu", "--model-path", missing)
    svc.wait_log("warm-up failed", timeout=60)
    svc.wait_log("stopped", timeout=10)
    # it exits by itself; a SIGTERM here would race its last steps after "stopped" (seen as -15 under load)
    assert svc.wait_exit() == 1
    assert not any(e["msg"] == "serving" for e in svc.logs)


def test_a_models_own_nets_for_a_rule_set_serve_its_requests(start: Any, tmp_path: Path) -> None:
    """A model with nets of its own for Tavla with "must bear off" (issue 28): requests under that rule
    set (EvaluatePacked, Evaluate, Hint, a worker's client) are answered by them, others by the base."""
    import copy

    import torch

    from services.rollout.evaluators import GrpcEvaluator

    base = default_evaluator()
    mb, hs = Rules.tavla(must_bear_off=True), Rules.tavla(hit_and_stop=True)
    own = copy.deepcopy(base.contact_net)
    with torch.no_grad():
        own.head.bias[0] += 1.0  # values every contact board otherwise
    path = tmp_path / "variant.pt"
    NetEvaluator(
        base.contact_net, base.race_net, device="cpu", encoding_version=base.encoding_version,
        crashed_net=base.crashed_net, variants={mb.name: {"contact": own}},
    ).save(path, {"name": "variant-test"})  # fmt: skip
    model = NetEvaluator.load(path, device="cpu")
    svc = start("services.evaluator", "--device", "cpu", "--model-path", str(path))
    client = GrpcEvaluator(svc.address, max_boards=700)
    try:
        stub = Stub(svc.channel)
        assert list(stub.ModelInfo(pb.ModelInfoRequest(), timeout=5).variants) == [mb.name]
        boards = random_boards(1500, seed=41)
        msgs = {
            "international": rpb.RuleSet(),
            mb.name: rpb.RuleSet(variant=rpb.VARIANT_TAVLA, must_bear_off=True),
            hs.name: rpb.RuleSet(variant=rpb.VARIANT_TAVLA, hit_and_stop=True),
        }
        got = {}
        for rules in (Rules.international(), mb, hs):
            reply = stub.EvaluatePacked(
                pb.EvaluatePackedRequest(boards=boards.tobytes(), rules=msgs[rules.name])
            )
            got[rules.name] = np.frombuffer(reply.probabilities, dtype="<f8").reshape(-1, 5)
            np.testing.assert_array_equal(got[rules.name], model.for_rules(rules).evaluate_boards(boards))
        assert not np.array_equal(got[mb.name], got["international"])
        assert np.array_equal(got[hs.name], got["international"])  # no nets of its own: the base's
        view = client.for_rules(mb)
        assert view is client.for_rules(mb) and client.for_rules(Rules.international()) is client
        np.testing.assert_array_equal(view.evaluate_boards(boards), got[mb.name])
        np.testing.assert_array_equal(client.evaluate_boards(boards), got["international"])
        positions = sample_positions(20, seed=3)
        reply = stub.Evaluate(pb.EvaluateRequest(positions=[ref(p) for p in positions], rules=msgs[mb.name]))
        probs = np.array([[getattr(e.probabilities, f) for f in _FIELDS] for e in reply.evaluations])
        np.testing.assert_allclose(probs, model.for_rules(mb).evaluate_boards(boards_of(positions)), atol=TOL)
        req = pb.HintRequest(position=ref(TAVLA), dice=dice(6, 2), rules=msgs[mb.name], ply=1)
        cands = stub.Hint(req, timeout=30).candidates
        want = hint(TAVLA, (6, 2), ply=1, rules=mb, evaluator=model)
        assert [c.play.notation for c in cands] == [c.notation for c in want]
        assert [c.equity for c in cands] == pytest.approx([c.equity for c in want], abs=TOL)
        base_hint = hint(TAVLA, (6, 2), ply=1, rules=mb, evaluator=base)
        assert want[0].equity != pytest.approx(base_hint[0].equity, abs=1e-3)  # the own nets did answer
    finally:
        client.close()
        assert svc.terminate() == 0
