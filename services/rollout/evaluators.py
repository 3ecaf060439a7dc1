"""The evaluator a rollout worker uses: the net in-process, or the Evaluator service over gRPC.

``PULVEZAR_ROLLOUT_EVALUATOR=inprocess`` (embedded mode) loads ``PULVEZAR_ROLLOUT_MODEL_PATH`` (default:
the shipped net) into every worker process.  ``grpc://host:port`` (deployed mode) sends the boards
to ``pulvezar.v1.EvaluatorService/Evaluate``; the service micro-batches them with other callers'
boards, so chunk results are then reproducible only to about 1e-7 (see the README).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from pulvezar.eval.evaluator import Boards, Evaluator, Probs, terminal
from services.rollout.settings import RolloutSettings


class Cancelled(Exception):
    """The job was cancelled while its chunk ran."""


class CheckedEvaluator:
    """Wraps an evaluator: before each call, checks for cancellation (at most every
    ``check_every_s``) and, for tests, waits ``delay_s``.  The numbers are the inner evaluator's."""

    def __init__(
        self,
        inner: Evaluator,
        cancelled: Callable[[], bool],
        delay_s: float = 0.0,
        check_every_s: float = 0.2,
    ) -> None:
        self.inner = inner
        self.cancelled = cancelled
        self.delay_s = delay_s
        self.check_every_s = check_every_s
        self._next_check = 0.0

    def check(self) -> None:
        now = time.monotonic()
        if now >= self._next_check:
            self._next_check = now + self.check_every_s
            if self.cancelled():
                raise Cancelled

    def evaluate_boards(self, boards: Boards) -> Probs:
        self.check()
        if self.delay_s:
            time.sleep(self.delay_s)
            self.check()
        return self.inner.evaluate_boards(boards)


class GrpcEvaluator:
    """``evaluate_boards`` through the Evaluator service's ``Evaluate`` RPC (finished games locally)."""

    def __init__(self, target: str, max_positions: int = 4096, timeout_s: float = 60.0) -> None:
        import grpc

        from services.common.pulvezar_proto.v1 import evaluator_pb2, evaluator_pb2_grpc, rules_pb2

        self._pb, self._rules_pb = evaluator_pb2, rules_pb2
        self.channel = grpc.insecure_channel(target)
        self.stub: Any = evaluator_pb2_grpc.EvaluatorServiceStub(self.channel)
        self.max_positions = max_positions
        self.timeout_s = timeout_s

    def evaluate_boards(self, boards: Boards) -> Probs:
        boards = np.ascontiguousarray(boards, dtype=np.uint8).reshape(-1, 50)
        done, out = terminal(boards)
        todo = np.flatnonzero(~done)
        for start in range(0, len(todo), self.max_positions):
            idx = todo[start : start + self.max_positions]
            refs = [
                self._rules_pb.PositionRef(
                    board=self._rules_pb.Board(mine=b[:25].tolist(), theirs=b[25:].tolist())
                )
                for b in boards[idx]
            ]
            reply = self.stub.Evaluate(self._pb.EvaluateRequest(positions=refs), timeout=self.timeout_s)
            out[idx] = [
                [p.win, p.win_gammon, p.win_backgammon, p.lose_gammon, p.lose_backgammon]
                for p in (e.probabilities for e in reply.evaluations)
            ]
        return out


def make_evaluator(settings: RolloutSettings) -> Evaluator:
    """The worker process's evaluator, as ``settings.evaluator`` says."""
    if settings.evaluator.startswith("grpc://"):
        return GrpcEvaluator(settings.evaluator.removeprefix("grpc://"))
    from pulvezar.eval.evaluator import DEFAULT_MODEL, NetEvaluator, default_evaluator

    device = None if settings.device == "auto" else settings.device
    if settings.model_path is None and device is None:
        return default_evaluator()
    return NetEvaluator.load(settings.model_path or DEFAULT_MODEL, device=device)
