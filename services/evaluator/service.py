"""The ``pulvezar.v1.EvaluatorService`` servicer."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

import grpc
import numpy as np
import torch

from pulvezar import Position, Rules
from pulvezar.eval.evaluator import DEFAULT_MODEL, NetEvaluator, boards_of, equity, flip, swap_boards
from services.common import convert
from services.common.errors import BadArgument, RpcAbort
from services.common.jsonlog import log
from services.common.pulvezar_proto.v1 import evaluator_pb2 as pb
from services.common.pulvezar_proto.v1 import evaluator_pb2_grpc
from services.common.server import check_deadline, rpc
from services.evaluator.batcher import BatcherStopped, Boards, MicroBatcher, Probs, QueueFull
from services.evaluator.settings import EvaluatorSettings

SERVICE = "pulvezar.v1.EvaluatorService"
logger = logging.getLogger("pulvezar.services.evaluator")
_rpc = rpc("evaluator")


def _evaluations(probs: Probs, rules: Rules) -> list[pb.Evaluation]:
    eq = equity(probs, rules)
    return [
        pb.Evaluation(
            probabilities=pb.Probabilities(
                win=p[0], win_gammon=p[1], win_backgammon=p[2], lose_gammon=p[3], lose_backgammon=p[4]
            ),
            equity=e,
        )
        for p, e in zip(probs.tolist(), eq.tolist(), strict=True)
    ]


def _slowed(evaluate: Callable[[Boards], Probs], delay_s: float) -> Callable[[Boards], Probs]:
    def slow(boards: Boards) -> Probs:
        time.sleep(delay_s)
        return evaluate(boards)

    return slow


class EvaluatorServicer(evaluator_pb2_grpc.EvaluatorServiceServicer):
    def __init__(self, settings: EvaluatorSettings) -> None:
        self.settings = settings
        self.batcher: MicroBatcher | None = None
        self.model = ""

    # ---- life cycle ----------------------------------------------------
    async def warm(self) -> None:
        """Load the model (off the event loop), start the batcher and run one batch through it."""
        s = self.settings
        device = None if s.device == "auto" else s.device
        path = s.model_path or DEFAULT_MODEL
        net = await asyncio.to_thread(NetEvaluator.load, path, device)
        self.model = net.info.sha256 if net.info else ""
        evaluate: Callable[[Boards], Probs] = net.evaluate_boards
        if s.batch_delay_ms:
            evaluate = _slowed(evaluate, s.batch_delay_ms / 1e3)
        self.batcher = MicroBatcher(
            evaluate,
            max_batch_size=s.max_batch_size,
            max_wait_s=s.max_wait_ms / 1e3,
            queue_size=s.queue_size,
        )
        self.batcher.start()
        await self.batcher.submit(boards_of([Position.start()]))
        log(
            logger,
            logging.INFO,
            "model loaded",
            model=str(path),
            sha256=self.model,
            device=str(net.device),
            cuda_available=torch.cuda.is_available(),
        )

    async def stop(self) -> None:
        if self.batcher is not None:
            await self.batcher.stop()

    async def _evaluate(self, boards: Boards, context: grpc.aio.ServicerContext) -> Probs:
        if self.batcher is None:
            raise RpcAbort(grpc.StatusCode.UNAVAILABLE, "the evaluator is still loading its model")
        check_deadline(context, "evaluation")
        remaining = context.time_remaining()
        try:
            return await asyncio.wait_for(self.batcher.submit(boards), remaining)
        except QueueFull as e:
            raise RpcAbort(grpc.StatusCode.RESOURCE_EXHAUSTED, str(e)) from None
        except BatcherStopped as e:
            raise RpcAbort(grpc.StatusCode.UNAVAILABLE, str(e)) from None
        except TimeoutError:
            raise RpcAbort(
                grpc.StatusCode.DEADLINE_EXCEEDED, "deadline exceeded waiting for evaluation"
            ) from None

    # ---- RPCs ----------------------------------------------------------
    @_rpc
    async def Evaluate(
        self, request: pb.EvaluateRequest, context: grpc.aio.ServicerContext
    ) -> pb.EvaluateResponse:
        n = len(request.positions)
        if n == 0:
            raise BadArgument("positions", "give at least one position")
        if n > self.settings.max_positions:
            raise BadArgument(
                "positions", f"at most {self.settings.max_positions} positions per request, got {n}"
            )
        positions = [convert.position(ref, f"positions[{i}]") for i, ref in enumerate(request.positions)]
        rules = convert.rules(request.rules)
        probs = await self._evaluate(boards_of(positions), context)
        return pb.EvaluateResponse(evaluations=_evaluations(probs, rules), model=self.model)

    @_rpc
    async def BestPlay(
        self, request: pb.BestPlayRequest, context: grpc.aio.ServicerContext
    ) -> pb.BestPlayResponse:
        start = convert.position(request.position)
        roll = convert.dice(request.dice)
        rules = convert.rules(request.rules)
        plays = convert.legal_plays(rules, start, roll)
        # each play's result with the opponent on roll, as EvaluatorBase.play_equities does
        after = await self._evaluate(swap_boards(boards_of(plays.positions())), context)
        mover = flip(after)
        best = int(np.argmax(equity(mover, rules)))
        return pb.BestPlayResponse(
            best=pb.EvaluatedPlay(
                play=convert.play(plays[best]), evaluation=_evaluations(mover[best : best + 1], rules)[0]
            ),
            legal_plays=len(plays),
            model=self.model,
        )


def add_to(server: grpc.aio.Server, servicer: EvaluatorServicer) -> list[str]:
    evaluator_pb2_grpc.add_EvaluatorServiceServicer_to_server(servicer, server)
    return [SERVICE]
