"""``evaluate_boards`` through the Evaluator service: the one client of its ``EvaluatePacked`` RPC (the
rollout workers) and its ``BotDecision``, ``Trainer``, ``GameLuck`` and ``Hint`` RPCs (the gateway's bots,
trainer, result cards and a player's openings: one call per decision, docs/adr/0019): it is the library's
:class:`~pulvezar.play.provider.DecisionProvider`."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from pulvezar.eval.evaluator import Boards, Probs, terminal
from pulvezar.play.provider import DecisionProvider, Ranked
from pulvezar.rules.position import Position
from pulvezar.rules.rules import Rules

__all__ = ["GrpcEvaluator", "Ranked"]

if TYPE_CHECKING:
    from pulvezar.play.bot import BotPlayer, Decision, Question
    from pulvezar.play.luck import LuckQuestion
    from pulvezar.play.settings import BotSettings
    from pulvezar.play.trainer import TrainerQuestion


class GrpcEvaluator:
    """``evaluate_boards`` through the Evaluator service's ``EvaluatePacked`` RPC (finished games locally).

    Boards travel packed (``N x 50`` bytes), probabilities come back as float64, so the numbers are
    the service's to the last bit; batches larger than ``max_boards`` go in several requests.
    :meth:`for_rules` gives the client whose requests name a rule set (the service evaluates them with
    its model's nets for it, where it has some). Calls carry ``token`` (default: ``PULVEZAR_GRPC_TOKEN``);
    made while the gateway serves a request, they are metered against the request's key (:mod:`metering`).
    """

    def __init__(
        self, target: str, max_boards: int = 32768, timeout_s: float = 60.0, token: str | None = None
    ) -> None:
        from services.common.grpc_auth import env_token, sync_channel
        from services.common.metering import MeteredStub
        from services.common.pulvezar_proto.v1 import evaluator_pb2, evaluator_pb2_grpc

        self._pb = evaluator_pb2
        self.target = target
        self.channel = sync_channel(target, token or env_token())
        # a gateway request's calls are metered and costed (services/common/metering.py); elsewhere free
        self.stub: Any = MeteredStub(evaluator_pb2_grpc.EvaluatorServiceStub(self.channel))
        self.max_boards = max_boards
        self.timeout_s = timeout_s
        self.model = ""
        self.rules: Any = None  # the RuleSet message of the requests; None: international
        self._root = self
        self._race_table_points = 6
        self._views: dict[str, GrpcEvaluator] = {}

    def for_rules(self, rules: Rules) -> GrpcEvaluator:
        """This client with its requests under ``rules`` (one per rule set, sharing the channel)."""
        root = self._root
        if rules.variant == "international":
            return root
        view = root._views.get(rules.name)
        if view is None:
            from services.common.pulvezar_proto.v1 import rules_pb2

            view = copy.copy(root)
            view.rules = rules_pb2.RuleSet(
                variant=rules_pb2.VARIANT_TAVLA,
                hit_and_stop=rules.hit_and_stop,
                must_bear_off=rules.must_bear_off,
            )
            root._views[rules.name] = view
        return view

    def info(self, timeout_s: float) -> Any:
        """The service's ``ModelInfo`` (waits up to ``timeout_s`` for the service to come up)."""
        reply = self.stub.ModelInfo(self._pb.ModelInfoRequest(), timeout=timeout_s, wait_for_ready=True)
        if reply.max_packed_boards:
            self.max_boards = min(self.max_boards, reply.max_packed_boards)
        self.model = reply.model
        self._root._race_table_points = max(6, reply.race_table_points)
        return reply

    @property
    def race_table_points(self) -> int:
        """The served model's (``ModelInfo``; 6 until :meth:`info` was asked, and from an older server):
        where rollouts end their trials (:func:`~pulvezar.eval.evaluator.exact_races`)."""
        return self._root._race_table_points

    def evaluate_boards(self, boards: Boards) -> Probs:
        boards = np.ascontiguousarray(boards, dtype=np.uint8).reshape(-1, 50)
        done, out = terminal(boards)
        todo = np.flatnonzero(~done)
        for start in range(0, len(todo), self.max_boards):
            idx = todo[start : start + self.max_boards]
            request = self._pb.EvaluatePackedRequest(
                boards=boards[idx].tobytes(), format=self._pb.FLOAT_FORMAT_FLOAT64, rules=self.rules
            )
            reply = self.stub.EvaluatePacked(request, timeout=self.timeout_s)
            if reply.count != len(idx):
                raise RuntimeError(f"the evaluator answered {reply.count} boards of {len(idx)}")
            out[idx] = np.frombuffer(reply.probabilities, dtype="<f8").reshape(-1, 5)
            self.model = reply.model
        return out

    def bot(self, settings: BotSettings, seed: int, prune: bool = True) -> BotPlayer:
        """The Play API's bot whose every decision is one ``BotDecision`` call (the service runs the
        library's :meth:`~pulvezar.play.bot.BotPlayer.decide` there, on its model)."""
        from pulvezar.play.bot import BotPlayer
        from services.common import bot_codec

        def ask(q: Question) -> Decision:
            request = bot_codec.request(settings, seed, prune, q)
            reply = self.stub.BotDecision(request, timeout=self.timeout_s)
            self.model = reply.model
            return bot_codec.decision(q, reply)

        return BotPlayer(settings, self, seed, prune, ask=ask)

    def trainer(self) -> Callable[[TrainerQuestion], Any]:
        """The Play API trainer's searches (hints, verdicts), each one ``Trainer`` call (the service runs
        the library's :func:`~pulvezar.play.trainer.answer` there, on its model)."""
        from services.common import trainer_codec

        def ask(q: TrainerQuestion) -> Any:
            reply = self.stub.Trainer(trainer_codec.request(q), timeout=self.timeout_s)
            self.model = reply.model
            return trainer_codec.answer(reply)

        return ask

    def luck(self) -> Callable[[LuckQuestion], tuple[float, float]]:
        """A finished game's luck in one ``GameLuck`` call (the service runs the library's
        :func:`~pulvezar.play.luck.answer` there, on its model)."""
        from services.common import luck_codec

        def ask(q: LuckQuestion) -> tuple[float, float]:
            reply = self.stub.GameLuck(luck_codec.request(q), timeout=self.timeout_s)
            self.model = reply.model
            return reply.human, reply.bot

        return ask

    def ranked(self, position: Position, dice: tuple[int, int], ply: int, rules: Rules) -> list[Ranked]:
        """Every legal play of ``dice`` as the pruned ``ply`` search ranks it, best first, in one ``Hint``
        call (the library's ``searcher(evaluator, rules).rank(position, dice, ply)`` in the service):
        ``(position_id after the play, cubeless equity, the ply it was valued at)``."""
        from services.common import bot_codec
        from services.common.pulvezar_proto.v1 import rules_pb2

        request = self._pb.HintRequest(
            position=rules_pb2.PositionRef(position_id=position.position_id),
            dice=rules_pb2.Dice(die1=dice[0], die2=dice[1]),
            rules=bot_codec.rule_set(rules),
            ply=ply,
        )
        reply = self.stub.Hint(request, timeout=self.timeout_s)
        self.model = reply.model
        return [(c.play.position_id, c.cubeless_equity, c.ply) for c in reply.candidates]

    def close(self) -> None:
        self.channel.close()


if TYPE_CHECKING:  # mypy checks that the client is the library's DecisionProvider
    _provider: type[DecisionProvider] = GrpcEvaluator
