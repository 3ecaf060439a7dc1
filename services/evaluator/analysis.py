"""Hints, cube decisions and resignations: the library's search in worker threads.

The search (:func:`pulvezar.search.hint`, :mod:`pulvezar.cube`) is synchronous
and calls ``evaluate_boards`` many times. It runs in a worker thread whose
evaluator, a :class:`BatchedEvaluator`, hands each call to the service's
micro-batcher on the event loop and waits for it, so the search shares the
service's one model (and its batches) with every other request: on a GPU, where
batches are what makes it fast. On CPUs the model's C kernels gain nothing from
batching, and each hop through the event loop and the batcher's thread costs
more than a small evaluation: there the search evaluates on the model itself, in
its own thread (the kernels release the GIL, so searches run on as many cores as
there are workers), with the plays' incremental first layer (``evaluate_plays``)
that the batcher's boards cannot carry; the same bits (ADR 0013). The deadline is
checked before each evaluation either way.

Each worker thread has its own :class:`BatchedEvaluator`, hence its own
:class:`~pulvezar.search.Search` and evaluation cache (the cache is not safe
to share between threads). Analyses at ply >= 1 are *heavy*: they run on a
pool of ``analysis_workers`` threads with at most ``analysis_queue`` of them
waiting or running (more: RESOURCE_EXHAUSTED); 0-ply ones on a small pool of
their own, so that quick answers do not wait behind deep searches.

Deadlines: the RPC waits at most the caller's time remaining, then answers
DEADLINE_EXCEEDED; the abandoned search stops at its next evaluation (its
:class:`Job` is marked cancelled), so it frees its thread and the batcher soon.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import grpc
import numpy as np
import numpy.typing as npt

from pulvezar import PulvezarError
from pulvezar.cube import CubeState
from pulvezar.rules.position import Position
from pulvezar.rules.rules import Rules
from services.common.errors import BadArgument, RpcAbort
from services.common.pulvezar_proto.v1 import evaluator_pb2 as pb
from services.common.pulvezar_proto.v1 import rules_pb2 as rpb
from services.evaluator.batcher import BatcherStopped, Boards, MicroBatcher, Probs, QueueFull

T = TypeVar("T")
LIGHT_WORKERS = 4  # threads for 0-ply analyses

STRENGTHS: dict[int, str] = {
    pb.LEVEL_EASY: "easy",
    pb.LEVEL_MEDIUM: "medium",
    pb.LEVEL_HARD: "hard",
    pb.LEVEL_MASTER: "master",
}
OWNERS = {
    pb.CUBE_OWNER_UNSPECIFIED: "centre",
    pb.CUBE_OWNER_CENTRE: "centre",
    pb.CUBE_OWNER_PLAYER: "player",
    pb.CUBE_OWNER_OPPONENT: "opponent",
}
RESIGNATIONS = {rpb.OUTCOME_SINGLE: 1, rpb.OUTCOME_GAMMON: 2, rpb.OUTCOME_BACKGAMMON: 3}
SIDES = {pb.SIDE_UNSPECIFIED: "player", pb.SIDE_PLAYER: "player", pb.SIDE_OPPONENT: "opponent"}
_MAX_CUBE = 1 << 15


class Expired(Exception):
    """The job's deadline passed, or its caller went away: the search stops here."""


@dataclass(eq=False)
class Job:
    deadline: float | None  # time.monotonic(); None: no deadline
    cancelled: bool = False

    def remaining(self) -> float | None:
        if self.cancelled:
            raise Expired("cancelled")
        if self.deadline is None:
            return None
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise Expired("deadline exceeded")
        return left


class BatchedEvaluator:
    """An ``Evaluator`` for one worker thread: every call goes through the service's batcher, or the
    batcher of the model's own nets for a rule set (:meth:`for_rules`, with the same job)."""

    def __init__(
        self,
        batcher: MicroBatcher,
        loop: asyncio.AbstractEventLoop,
        variants: Mapping[str, MicroBatcher] | None = None,
        parent: BatchedEvaluator | None = None,
        race_table_points: int = 6,
        direct: Any = None,
    ) -> None:
        self.batcher = batcher
        #: the model itself (its evaluator for this rule set) where searches evaluate in their own thread
        self.direct = direct
        #: the model's (:func:`~pulvezar.eval.evaluator.exact_races`): where searches stop
        self.race_table_points: int = parent.race_table_points if parent is not None else race_table_points
        self.loop = loop
        self.variants = variants or {}
        self._parent = parent
        self._children: dict[str, BatchedEvaluator] = {}
        self._job: Job | None = None

    @property
    def job(self) -> Job | None:
        return self._parent.job if self._parent is not None else self._job

    @job.setter
    def job(self, job: Job | None) -> None:
        self._job = job

    def for_rules(self, rules: Rules) -> BatchedEvaluator:
        """The evaluator for games under ``rules``: through the batcher of the model's nets for them."""
        root = self._parent or self
        batcher = root.variants.get(rules.name)
        if batcher is None:
            return root
        child = root._children.get(rules.name)
        if child is None:
            direct = root.direct.for_rules(rules) if root.direct is not None else None
            child = BatchedEvaluator(batcher, root.loop, parent=root, direct=direct)
            root._children[rules.name] = child
        return child

    def evaluate_plays(self, parents: Boards, index: npt.NDArray[np.intp], after: Boards) -> Probs:
        """:meth:`evaluate_boards` of ``after``; on the model itself, each play's first layer updated from
        its parent's (the same bits: :func:`pulvezar.eval.evaluator.evaluate_plays`)."""
        if self.direct is None:
            return self.evaluate_boards(after)
        if self.job is not None:
            self.job.remaining()  # Expired: past the deadline or cancelled
        result: Probs = self.direct.evaluate_plays(parents, index, after)
        return result

    def evaluate_boards(self, boards: Boards) -> Probs:
        if len(boards) == 0:
            return np.zeros((0, 5))
        remaining = self.job.remaining() if self.job is not None else None
        boards = np.ascontiguousarray(boards, dtype=np.uint8).reshape(-1, 50)
        if self.direct is not None:
            result: Probs = self.direct.evaluate_boards(boards)
            return result
        future = asyncio.run_coroutine_threadsafe(self.batcher.submit(boards), self.loop)
        try:
            return future.result(timeout=remaining)
        except concurrent.futures.TimeoutError:
            future.cancel()  # the batcher skips the job
            raise Expired("deadline exceeded") from None


class Analyst:
    """Runs library calls ``fn(evaluator)`` in worker threads (see the module notes)."""

    def __init__(
        self,
        batcher: MicroBatcher,
        workers: int,
        queue: int,
        variants: Mapping[str, MicroBatcher] | None = None,
        race_table_points: int = 6,
        direct: Any = None,
    ) -> None:
        self.batcher = batcher
        self.race_table_points = race_table_points
        self.direct = direct  # the model, where searches evaluate on it in their own threads (CPUs)
        self.variants = dict(variants or {})
        self.queue = queue
        self._heavy = concurrent.futures.ThreadPoolExecutor(workers, thread_name_prefix="analysis")
        self._light = concurrent.futures.ThreadPoolExecutor(LIGHT_WORKERS, thread_name_prefix="analysis-0ply")
        self._local = threading.local()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()
        self._heavy_jobs = 0
        self._jobs: set[Job] = set()

    def _evaluator(self) -> BatchedEvaluator:
        ev: BatchedEvaluator | None = getattr(self._local, "evaluator", None)
        if ev is None:
            assert self._loop is not None
            ev = self._local.evaluator = BatchedEvaluator(
                self.batcher, self._loop, self.variants, race_table_points=self.race_table_points,
                direct=self.direct,
            )  # fmt: skip
        return ev

    def _call(self, job: Job, fn: Callable[[BatchedEvaluator], T]) -> T:
        job.remaining()  # it may have waited past its deadline
        ev = self._evaluator()
        ev.job = job
        try:
            return fn(ev)
        finally:
            ev.job = None

    def _finished(self, heavy: bool, job: Job) -> None:
        with self._lock:
            self._jobs.discard(job)
            if heavy:
                self._heavy_jobs -= 1

    async def run(
        self, fn: Callable[[BatchedEvaluator], T], *, heavy: bool, context: grpc.aio.ServicerContext[Any, Any]
    ) -> T:
        """``fn(evaluator)`` in a worker thread, within the RPC's deadline."""
        self._loop = asyncio.get_running_loop()
        remaining = context.time_remaining()
        job = Job(None if remaining is None else time.monotonic() + remaining)
        with self._lock:
            if heavy and self._heavy_jobs >= self.queue:
                raise RpcAbort(
                    grpc.StatusCode.RESOURCE_EXHAUSTED,
                    f"the evaluator is busy ({self.queue} searches waiting or running)",
                )
            if heavy:
                self._heavy_jobs += 1
            self._jobs.add(job)
        pool = self._heavy if heavy else self._light
        try:
            future = pool.submit(self._call, job, fn)
        except RuntimeError:  # shut down
            self._finished(heavy, job)
            raise RpcAbort(grpc.StatusCode.UNAVAILABLE, "the evaluator is shutting down") from None
        future.add_done_callback(lambda _: self._finished(heavy, job))
        try:
            return await asyncio.wait_for(asyncio.wrap_future(future), remaining)
        except (TimeoutError, Expired):
            job.cancelled = True
            raise RpcAbort(grpc.StatusCode.DEADLINE_EXCEEDED, "deadline exceeded during the search") from None
        except QueueFull as e:
            raise RpcAbort(grpc.StatusCode.RESOURCE_EXHAUSTED, str(e)) from None
        except (BatcherStopped, concurrent.futures.CancelledError) as e:
            raise RpcAbort(grpc.StatusCode.UNAVAILABLE, str(e) or "the evaluator is shutting down") from None
        except asyncio.CancelledError:
            job.cancelled = True  # the caller went away
            raise

    def stop(self) -> None:
        """Cancel what waits and stop the running searches at their next evaluation."""
        with self._lock:
            for job in self._jobs:
                job.cancelled = True
        for pool in (self._heavy, self._light):
            pool.shutdown(wait=False, cancel_futures=True)


# ---- requests -> library ------------------------------------------------------------


def level(value: int, field: str = "level") -> str | None:
    if value == pb.LEVEL_UNSPECIFIED:
        return None
    if value not in STRENGTHS:
        raise BadArgument(field, f"unknown level {value}")
    return STRENGTHS[value]


def depth(ply: int | None, lv: str | None) -> int:
    """The search depth a ply or level asks for."""
    from pulvezar.search import STRENGTHS as LIBRARY_STRENGTHS

    if ply is not None:
        return ply
    return LIBRARY_STRENGTHS[lv].ply if lv is not None else 0


_STATE_FIELDS = {"cube": "cube_value", "cube_owner": "cube_owner", "crawford": "crawford"}


def cube_state(msg: pb.CubeContext, position: Position, rules: Rules, field: str = "cube") -> CubeState:
    """The library's :class:`CubeState` of a ``CubeContext``; each error names its field."""
    from pulvezar.met import MatchEquity

    if rules.variant != "international":
        raise BadArgument(field, "Tavla is played without a cube")
    value = msg.cube_value or 1
    if value > _MAX_CUBE or value & (value - 1):
        raise BadArgument(
            f"{field}.cube_value", f"the cube is a power of two from 1 to {_MAX_CUBE}, got {msg.cube_value}"
        )
    if msg.cube_owner not in OWNERS:
        raise BadArgument(f"{field}.cube_owner", f"unknown cube owner {msg.cube_owner}")
    owner = OWNERS[msg.cube_owner]
    n = msg.match_length
    if n:
        top = MatchEquity.kazaross_xg2().length
        if n > top:
            raise BadArgument(f"{field}.match_length", f"matches go up to {top} points, got {n}")
        for name in ("score", "opponent_score"):
            got = getattr(msg, name)
            if got >= n:
                reason = f"a score lies in 0..{n - 1} in a {n}-point match, got {got}"
                raise BadArgument(f"{field}.{name}", reason)
        for name in ("jacoby", "beaver"):
            if getattr(msg, name):
                raise BadArgument(f"{field}.{name}", f"{name} is a money option (match_length 0)")
    else:
        for name in ("score", "opponent_score", "crawford"):
            if getattr(msg, name):
                raise BadArgument(f"{field}.{name}", f"a money game (match_length 0) has no {name}")
    try:
        return CubeState(
            position,
            cube_value=value,
            cube_owner=owner,  # type: ignore[arg-type]
            match_length=n,
            score=(msg.score, msg.opponent_score),
            crawford=msg.crawford,
            jacoby=msg.jacoby,
            beaver=msg.beaver,
            rules=rules,
        )
    except PulvezarError as e:
        sub = _STATE_FIELDS.get(e.field or "", e.field or "")
        raise BadArgument(f"{field}.{sub}" if sub else field, str(e)) from None


def check_ply(value: int | None, top: int, field: str = "ply") -> None:
    if value is not None and value > top:
        raise BadArgument(field, f"at most {top} plies, got {value}")


def not_over(position: Position, rules: Rules, what: str, field: str = "position") -> None:
    if rules.game_result(position) is not None:
        raise BadArgument(field, f"the game is over: {what}")
