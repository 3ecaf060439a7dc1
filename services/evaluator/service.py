"""The ``pulvezar.v1.EvaluatorService`` servicer."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import grpc
import numpy as np
import torch

from pulvezar import Position, Rules
from pulvezar.cube import (
    CubeDecision,
    ResignationDecision,
    cube_decision,
    resignation_decision,
    should_resign,
)
from pulvezar.cube.decision import MAX_CUBE_PLY
from pulvezar.eval.evaluator import (
    NetEvaluator,
    boards_of,
    default_model_path,
    equity,
    flip,
    swap_boards,
    variant_rulesets,
)
from pulvezar.play import luck, trainer
from pulvezar.play.bot import BotPlayer, Decision, level_of
from pulvezar.search import FILTERS, STRENGTHS, Candidate, hint
from services.common import bot_codec, convert, luck_codec, reading, trainer_codec
from services.common.errors import BadArgument, RpcAbort
from services.common.jsonlog import log
from services.common.pulvezar_proto.v1 import evaluator_pb2 as pb
from services.common.pulvezar_proto.v1 import evaluator_pb2_grpc
from services.common.pulvezar_proto.v1 import rules_pb2 as rpb
from services.common.server import check_deadline, rpc
from services.evaluator import analysis, packed
from services.evaluator.analysis import Analyst, BatchedEvaluator
from services.evaluator.batcher import BatcherStopped, Boards, MicroBatcher, Probs, QueueFull
from services.evaluator.settings import EvaluatorSettings

SERVICE = "pulvezar.v1.EvaluatorService"
logger = logging.getLogger("pulvezar.services.evaluator")
_rpc = rpc("evaluator")


def _evaluations(probs: Probs, rules: Rules) -> list[pb.Evaluation]:
    eq = equity(probs, rules)
    return [
        pb.Evaluation(probabilities=_probabilities(p), equity=e)
        for p, e in zip(probs.tolist(), eq.tolist(), strict=True)
    ]


def _probabilities(p: tuple[float, ...] | list[float]) -> pb.Probabilities:
    return pb.Probabilities(
        win=p[0], win_gammon=p[1], win_backgammon=p[2], lose_gammon=p[3], lose_backgammon=p[4]
    )


def _candidate(c: Candidate) -> pb.HintCandidate:
    return pb.HintCandidate(
        play=convert.play(c.play),
        probabilities=_probabilities(c.probs),
        cubeless_equity=c.cubeless_equity,
        cubeful_equity=c.cubeful_equity,
        equity=c.equity,
        loss=c.loss,
        ply=c.ply,
    )


def _cube_decision(d: CubeDecision, model: str) -> pb.CubeDecisionResponse:
    return pb.CubeDecisionResponse(
        probabilities=_probabilities(d.probs),
        cubeless_equity=d.cubeless_equity,
        cube_efficiency=d.x,
        ply=d.ply,
        no_double=d.nd,
        double_take=d.dt,
        double_pass=d.dp,
        value=d.value,
        mwc_no_double=d.mwc_nd,
        mwc_double_take=d.mwc_dt,
        mwc_double_pass=d.mwc_dp,
        mwc_value=d.mwc_value,
        action=d.action,
        should_double=d.double,
        taker_response=d.response or "",
        costs=d.costs,
        can_double=d.can_double,
        dead_cube=d.dead_cube,
        take_point=d.take_point,
        gammon_price=pb.GammonPrice(player=d.gammon_price.me, opponent=d.gammon_price.opp),
        notes=list(d.notes),
        model=model,
    )


_OUTCOME_OF_LEVEL = {1: rpb.OUTCOME_SINGLE, 2: rpb.OUTCOME_GAMMON, 3: rpb.OUTCOME_BACKGAMMON}


def _resignation(d: ResignationDecision) -> pb.ResignationDecision:
    return pb.ResignationDecision(
        resignation=_OUTCOME_OF_LEVEL[d.level],
        resigner=pb.SIDE_PLAYER if d.resigner == "player" else pb.SIDE_OPPONENT,
        accept=d.accept,
        value=d.value,
        play_on=d.play_on,
        cost=d.cost,
        mwc_value=d.mwc_value,
        mwc_play_on=d.mwc_play_on,
    )


def _slowed(evaluate: Callable[[Boards], Probs], delay_s: float) -> Callable[[Boards], Probs]:
    def slow(boards: Boards) -> Probs:
        time.sleep(delay_s)
        return evaluate(boards)

    return slow


class EvaluatorServicer(evaluator_pb2_grpc.EvaluatorServiceServicer):
    def __init__(self, settings: EvaluatorSettings) -> None:
        self.settings = settings
        self.batcher: MicroBatcher | None = None
        self.variant_batchers: dict[str, MicroBatcher] = {}  # by rule set: the model's own nets for it
        self.analyst: Analyst | None = None
        self.model = ""
        self.model_name = ""
        self.race_table_points = 6
        self.device = ""

    # ---- life cycle ----------------------------------------------------
    async def warm(self) -> None:
        """Load the model (off the event loop), start the batcher and run one batch through it."""
        s = self.settings
        device = None if s.device == "auto" else s.device
        path = s.model_path or default_model_path()  # PULVEZAR_MODEL names a candidate, as in the library
        net = await asyncio.to_thread(NetEvaluator.load, path, device)
        self.model = net.info.sha256 if net.info else ""
        self.model_name = Path(path).stem
        self.device = str(net.device)

        def batcher(ev: NetEvaluator) -> MicroBatcher:
            evaluate: Callable[[Boards], Probs] = ev.evaluate_boards
            if s.batch_delay_ms:
                evaluate = _slowed(evaluate, s.batch_delay_ms / 1e3)
            b = MicroBatcher(
                evaluate,
                max_batch_size=s.max_batch_size,
                max_wait_s=s.max_wait_ms / 1e3,
                queue_size=s.queue_size,
            )
            b.start()
            return b

        self.batcher = batcher(net)
        for rules in variant_rulesets():
            own = net.for_rules(rules)
            if own is not net:
                self.variant_batchers[rules.name] = batcher(own)
        for b in (self.batcher, *self.variant_batchers.values()):
            await b.submit(boards_of([Position.start()]))
        self.race_table_points = net.race_table_points
        # on CPUs searches evaluate on the model in their own threads (analysis.py); a GPU's batches, and the
        # tests' slow model (batch_delay_ms), go through the batcher
        direct = net if net.device.type == "cpu" and not s.batch_delay_ms else None
        self.analyst = Analyst(
            self.batcher, s.analysis_workers, s.analysis_queue, self.variant_batchers, net.race_table_points,
            direct=direct,
        )  # fmt: skip
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
        if self.analyst is not None:
            self.analyst.stop()
        for b in (*self.variant_batchers.values(), self.batcher):
            if b is not None:
                await b.stop()

    async def _evaluate(
        self, boards: Boards, context: grpc.aio.ServicerContext[Any, Any], rules: Rules
    ) -> Probs:
        """``boards`` evaluated by the model's nets for ``rules`` (its base nets unless it has own ones)."""
        if self.batcher is None:
            raise RpcAbort(grpc.StatusCode.UNAVAILABLE, "the evaluator is still loading its model")
        check_deadline(context, "evaluation")
        remaining = context.time_remaining()
        batcher = self.variant_batchers.get(rules.name, self.batcher)
        try:
            return await asyncio.wait_for(batcher.submit(boards), remaining)
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
    async def EvaluatePacked(
        self, request: pb.EvaluatePackedRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.EvaluatePackedResponse:
        boards = packed.boards(request.boards, self.settings.max_packed_boards)
        dtype = packed.dtype(request.format)
        rules = convert.rules(request.rules)
        probs = await self._evaluate(boards, context, rules)
        return pb.EvaluatePackedResponse(
            probabilities=np.ascontiguousarray(probs, dtype=dtype).tobytes(),
            format=request.format or pb.FLOAT_FORMAT_FLOAT64,
            count=len(boards),
            model=self.model,
        )

    @_rpc
    async def ModelInfo(
        self, request: pb.ModelInfoRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.ModelInfoResponse:
        if self.batcher is None:
            raise RpcAbort(grpc.StatusCode.UNAVAILABLE, "the evaluator is still loading its model")
        return pb.ModelInfoResponse(
            model=self.model,
            name=self.model_name,
            device=self.device,
            accelerator=self.device != "cpu",
            max_packed_boards=self.settings.max_packed_boards,
            variants=sorted(self.variant_batchers),
            race_table_points=self.race_table_points,
        )

    @_rpc
    async def Evaluate(
        self, request: pb.EvaluateRequest, context: grpc.aio.ServicerContext[Any, Any]
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
        probs = await self._evaluate(boards_of(positions), context, rules)
        return pb.EvaluateResponse(evaluations=_evaluations(probs, rules), model=self.model)

    @_rpc
    async def BestPlay(
        self, request: pb.BestPlayRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.BestPlayResponse:
        rules, plays = reading.plays(request)
        # each play's result with the opponent on roll, as EvaluatorBase.play_equities does
        after = await self._evaluate(swap_boards(boards_of(plays.positions())), context, rules)
        mover = flip(after)
        best = int(np.argmax(equity(mover, rules)))
        return pb.BestPlayResponse(
            best=pb.EvaluatedPlay(
                play=convert.play(plays[best]), evaluation=_evaluations(mover[best : best + 1], rules)[0]
            ),
            legal_plays=len(plays),
            model=self.model,
        )

    async def _analyse(
        self,
        fn: Callable[[BatchedEvaluator], analysis.T],
        ply: int,
        context: grpc.aio.ServicerContext[Any, Any],
    ) -> analysis.T:
        """Run a library search on the service's model in a worker thread (heavy from 1 ply)."""
        if self.analyst is None:
            raise RpcAbort(grpc.StatusCode.UNAVAILABLE, "the evaluator is still loading its model")
        check_deadline(context, "the search")
        return await self.analyst.run(fn, heavy=ply >= 1, context=context)

    @_rpc
    async def Hint(
        self, request: pb.HintRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.HintResponse:
        start, roll, rules = reading.roll(request)
        ply = request.ply if request.HasField("ply") else None
        analysis.check_ply(ply, self.settings.max_hint_ply)
        lv = analysis.level(request.level)
        depth = analysis.depth(ply, lv)
        if depth > self.settings.max_hint_ply:
            raise BadArgument("level", f"this service searches at most {self.settings.max_hint_ply} plies")
        mf = request.filter or None
        if mf is not None and mf not in FILTERS:
            raise BadArgument("filter", f"unknown move filter {mf!r}; presets: {', '.join(FILTERS)}")
        if request.seed >= 1 << 63:
            raise BadArgument("seed", "the seed lies below 2^63")
        analysis.not_over(start, rules, "no plays")
        state = analysis.cube_state(request.cube, start, rules) if request.HasField("cube") else None
        subject = state if state is not None else start
        seed, prune = request.seed, not request.no_prune  # pruned unless asked for the unpruned search

        def search(ev: BatchedEvaluator) -> list[Candidate]:
            return hint(
                subject, roll, ply=ply, level=lv, rules=rules, evaluator=ev, filter=mf, seed=seed, prune=prune
            )

        cands = await self._analyse(search, depth, context)
        shown = cands[: request.limit] if request.limit else cands
        return pb.HintResponse(
            candidates=[_candidate(c) for c in shown],
            legal_plays=len(cands),
            cubeful=state is not None,
            model=self.model,
        )

    @_rpc
    async def CubeDecision(
        self, request: pb.CubeDecisionRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.CubeDecisionResponse:
        start, rules = reading.position(request)
        ply = request.ply if request.HasField("ply") else None
        analysis.check_ply(ply, MAX_CUBE_PLY)
        lv = analysis.level(request.level)
        depth = analysis.depth(ply, lv)
        if depth > MAX_CUBE_PLY:
            raise BadArgument("level", f"cube decisions search at most {MAX_CUBE_PLY} plies")
        analysis.not_over(start, rules, "no cube decision")
        state = analysis.cube_state(request.cube, start, rules)
        prune = not request.no_prune

        def decide(ev: BatchedEvaluator) -> CubeDecision:
            return cube_decision(state, ev, ply=ply, level=lv, prune=prune)

        return _cube_decision(await self._analyse(decide, depth, context), self.model)

    @_rpc
    async def Resignation(
        self, request: pb.ResignationRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.ResignationResponse:
        start, rules = reading.position(request)
        analysis.check_ply(request.ply, MAX_CUBE_PLY)
        if request.resignation not in (rpb.OUTCOME_UNSPECIFIED, *analysis.RESIGNATIONS):
            raise BadArgument("resignation", f"unknown resignation {request.resignation}")
        if request.resigner not in analysis.SIDES:
            raise BadArgument("resigner", f"unknown side {request.resigner}")
        offered = analysis.RESIGNATIONS.get(request.resignation)
        resigner = analysis.SIDES[request.resigner]
        analysis.not_over(start, rules, "nothing to resign")
        state = analysis.cube_state(request.cube, start, rules)
        ply = request.ply

        def answer(ev: BatchedEvaluator) -> tuple[ResignationDecision | None, int | None]:
            decision = None
            if offered is not None:
                decision = resignation_decision(
                    state,
                    offered,
                    resigner=resigner,  # type: ignore[arg-type]
                    evaluator=ev,
                    ply=ply,
                )
            return decision, should_resign(state, ev)

        decision, resign_at = await self._analyse(answer, ply, context)
        return pb.ResignationResponse(
            decision=_resignation(decision) if decision is not None else None,
            should_resign=_OUTCOME_OF_LEVEL[resign_at] if resign_at else rpb.OUTCOME_UNSPECIFIED,
            model=self.model,
        )

    @_rpc
    async def BotDecision(
        self, request: pb.BotDecisionRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.BotDecisionResponse:
        settings, seed, prune = bot_codec.bot_settings(request.bot)
        q = bot_codec.question(request)

        def decide(ev: BatchedEvaluator) -> Decision:
            return BotPlayer(settings, ev, seed, prune).decide(q)

        decision = await self._analyse(decide, STRENGTHS[level_of(settings)].ply, context)
        return bot_codec.response(decision, self.model)

    @_rpc
    async def Trainer(
        self, request: pb.TrainerRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.TrainerResponse:
        q = trainer_codec.question(request)
        result = await self._analyse(partial(trainer.answer, q), q.ply, context)
        return trainer_codec.response(result, self.model)

    @_rpc
    async def GameLuck(
        self, request: pb.GameLuckRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.GameLuckResponse:
        human, bot = await self._analyse(partial(luck.answer, luck_codec.question(request)), 0, context)
        return pb.GameLuckResponse(human=human, bot=bot, model=self.model)


def add_to(server: grpc.aio.Server, servicer: EvaluatorServicer) -> list[str]:
    evaluator_pb2_grpc.add_EvaluatorServiceServicer_to_server(servicer, server)
    return [SERVICE]
