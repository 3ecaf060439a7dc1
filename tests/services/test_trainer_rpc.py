"""The Play API trainer through the Evaluator service's ``Trainer`` RPC (one call per hint or verdict,
docs/adr/0019): the same hints and verdicts as the library's in process, and hostile requests refused by
field."""

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
from pulvezar.play import GameSettings, PlaySession
from pulvezar.play.trainer import TrainerQuestion, answer
from services.common.pulvezar_proto.v1 import evaluator_pb2 as pb
from services.common.pulvezar_proto.v1 import evaluator_pb2_grpc
from services.common.pulvezar_proto.v1 import rules_pb2 as rpb
from services.common.remote_evaluator import GrpcEvaluator

if TYPE_CHECKING:
    from conftest import ServiceProcess

WEIGHTS = {
    "roll": 10.0, "play": 10.0, "double": 2.0, "take": 3.0, "pass": 1.0, "beaver": 1.5, "raccoon": 1.5,
    "resign": 0.1, "accept": 1.0, "reject": 1.0, "end": 0.0,
}  # fmt: skip
# (settings, trainer ply, kinds, steps): money with options, a match, Tavla; the 2-ply trainer in a short
# game.  A game stops once the trainer was asked each of its kinds of question (``TrainerQuestion.ask``),
# at most after ``steps`` actions.
TRAINER = {"trainer": True, "bot": {"level": "easy"}}
ALL_ASKS = {"hint", "play", "double", "answer"}
GAMES: list[tuple[dict[str, Any], int, set[str], int]] = [
    ({**TRAINER, "match_length": 0, "money": {"jacoby": True, "beaver": True, "raccoon": True}}, 0, ALL_ASKS,
     160),
    ({**TRAINER, "match_length": 3}, 1, ALL_ASKS, 80),
    ({**TRAINER, "rules": {"variant": "tavla", "hit_and_stop": True}, "match_length": 3}, 0, {"hint", "play"},
     160),
    ({**TRAINER, "match_length": 0}, 2, {"hint", "play", "double"}, 6),
]  # fmt: skip


@pytest.mark.parametrize(
    ("settings", "ply", "kinds", "steps"), GAMES, ids=[str(i) for i in range(len(GAMES))]
)
def test_the_trainer_through_the_rpc_answers_as_the_library(
    play_client: GrpcEvaluator,
    library: NetEvaluator,
    settings: dict[str, Any],
    ply: int,
    kinds: set[str],
    steps: int,
) -> None:
    """The same random game with the trainer over the RPC and in process, until the trainer was asked
    each kind of question of the game: the same events, log, hints and checked plays (verdicts of plays,
    doubles and answers included)."""
    seed = 2000 + [g[0] for g in GAMES].index(settings)
    asked: list[TrainerQuestion] = []

    class Recorded:
        """The client, its trainer's questions recorded."""

        def __getattr__(self, name: str) -> Any:
            return getattr(play_client, name)

        def trainer(self) -> Any:
            remote = play_client.trainer()

            def ask(q: TrainerQuestion) -> Any:
                asked.append(q)
                return remote(q)

            return ask

    sessions = [
        PlaySession(
            GameSettings.from_dict(settings),
            seed=bytes(32),
            evaluator=ev,
            bot_seed=seed,
            trainer_ply=ply,
            now=0.0,
        )
        for ev in (Recorded(), library)
    ]
    rngs = [random.Random(seed), random.Random(seed)]
    for _ in range(steps):
        states = [s.state(now=0.0) for s in sessions]
        assert states[0] == states[1]
        if states[0]["status"] == "finished" or {q.ask for q in asked} >= kinds:
            break
        if "play" in states[0]["actions"] and (next(iter([r.random() for r in rngs])) < 0.3 or ply == 2):
            hints = [s.hint(limit=3) for s in sessions]
            assert hints[0] == hints[1] and hints[0][0]
            notation = next(iter([r.choice(states[0]["legal_plays"])["notation"] for r in rngs]))
            checks = [s.check({"action": "check", "notation": notation}) for s in sessions]
            assert checks[0] == checks[1]
        events = [
            s.apply(random_action(st, r, WEIGHTS), now=0.0)
            for s, st, r in zip(sessions, states, rngs, strict=True)
        ]
        assert events[0] == events[1]
    assert sessions[0].log == sessions[1].log
    assert {q.ask for q in asked} >= kinds


def test_each_question_is_one_call_with_the_library_answer(
    play_service: ServiceProcess, play_client: GrpcEvaluator, library: NetEvaluator
) -> None:
    """Every kind of question through the codec and the RPC: one ``Trainer`` call (no board sent for
    evaluation), the library's answer to the bit."""

    def calls(method: str) -> float:
        return float(play_service.metric("pulvezar_grpc_requests_total", method=method, code="OK"))

    intl, tavla = Rules.international(), Rules.tavla()
    start = Position.start()
    cube = CubeState(start, 2, "player", 0, (0, 0), beaver=True)
    worst = intl.legal_plays(start, (6, 5))[-1]
    questions = [
        TrainerQuestion("hint", start, intl, 1, dice=(3, 1)),
        TrainerQuestion("hint", start, tavla, 0, dice=(6, 5), limit=1),
        TrainerQuestion("play", start, intl, 1, dice=(6, 5), play=worst),
        TrainerQuestion("play", start, intl, 0, False, dice=(6, 5), play=intl.legal_plays(start, (6, 5))[0]),
        TrainerQuestion("double", start, intl, 1, cube=CubeState(start), doubled=True),
        TrainerQuestion("double", start, intl, 0, cube=CubeState(start)),
        *(TrainerQuestion("answer", start, intl, 1, cube=cube, reply=r) for r in ("take", "drop", "beaver")),
    ]
    ask = play_client.trainer()
    for q in questions:
        want = answer(q, library)
        before = calls("Trainer"), calls("EvaluatePacked")
        assert ask(q) == want, q
        assert (calls("Trainer") - before[0], calls("EvaluatePacked") - before[1]) == (1, 0)
    assert answer(questions[2], library)["loss"] > 0  # a real verdict, explained
    assert answer(questions[2], library)["explanation"]


START = rpb.PositionRef(position_id=Position.start().position_id)
FINISHED = rpb.PositionRef(position_id=Position.from_points({}, {24: 1, 20: 14}).position_id)
DICE = rpb.Dice(die1=3, die2=1)
TAVLA = rpb.RuleSet(variant=rpb.VARIANT_TAVLA)
CUBE = pb.CubeContext()


def req(**fields: Any) -> pb.TrainerRequest:
    """A request: a 0-ply hint of 31 at the start but for ``fields`` (None: unset)."""
    base: dict[str, Any] = {"ask": pb.TRAINER_ASK_HINT, "position": START, "dice": DICE, "limit": 5}
    return pb.TrainerRequest(**{k: v for k, v in (base | fields).items() if v is not None})


@pytest.mark.parametrize(
    ("request_", "field"),
    [
        (req(ask=None), "ask"),
        (req(ask=99), "ask"),
        (req(ply=3), "ply"),
        (req(dice=None), "dice"),
        (req(dice=rpb.Dice(die1=0, die2=1)), "dice"),
        (req(limit=None), "limit"),
        (req(limit=101), "limit"),
        (req(position=None), "position"),
        (req(position=FINISHED), "position"),
        (req(rules=rpb.RuleSet(variant=7)), "rules.variant"),  # type: ignore[arg-type]
        (req(ask=pb.TRAINER_ASK_PLAY), "play"),
        (req(ask=pb.TRAINER_ASK_PLAY, play=rpb.Play(notation="24/21 24/23")), "play"),
        (req(ask=pb.TRAINER_ASK_DOUBLE), "cube"),
        (req(ask=pb.TRAINER_ASK_DOUBLE, rules=TAVLA, cube=CUBE), "cube"),
        (req(ask=pb.TRAINER_ASK_DOUBLE, cube=pb.CubeContext(cube_value=3)), "cube.cube_value"),
        (req(ask=pb.TRAINER_ASK_ANSWER, cube=CUBE, reply="maybe"), "reply"),
        (req(ask=pb.TRAINER_ASK_ANSWER, cube=pb.CubeContext(cube_owner=pb.CUBE_OWNER_OPPONENT)), "cube"),
    ],
)
def test_bad_trainer_questions_are_invalid_argument_naming_the_field(
    play_service: ServiceProcess, violations: Any, request_: pb.TrainerRequest, field: str
) -> None:
    stub = evaluator_pb2_grpc.EvaluatorServiceStub(play_service.channel)
    with pytest.raises(grpc.RpcError) as e:
        stub.Trainer(request_, timeout=10)
    assert violations(e.value) == (grpc.StatusCode.INVALID_ARGUMENT, [field])
