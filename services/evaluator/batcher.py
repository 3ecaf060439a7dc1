"""Micro-batching: concurrent requests share one ``evaluate_boards`` call.

Requests wait in a bounded asyncio queue. The collector takes the first one,
then whatever arrives within ``max_wait_s`` up to ``max_batch_size`` boards, and
runs one evaluation for the lot in a worker thread, so the event loop stays
free; while it runs, the next batch fills up. A failed evaluation fails every
request of its batch. A full queue is refused at once (:class:`QueueFull`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
from prometheus_client import Counter, Gauge, Histogram

Boards = npt.NDArray[np.uint8]
Probs = npt.NDArray[np.float64]

_SIZES = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096)
BATCH_BOARDS = Histogram("pulvezar_evaluator_batch_size", "boards per evaluation batch", buckets=_SIZES)
BATCH_REQUESTS = Histogram(
    "pulvezar_evaluator_batch_requests", "requests per evaluation batch", buckets=_SIZES
)
QUEUE_WAIT = Histogram(
    "pulvezar_evaluator_queue_wait_seconds",
    "time from enqueue to the start of the request's batch",
    buckets=(0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1),
)
BATCH_SECONDS = Histogram(
    "pulvezar_evaluator_batch_seconds",
    "time of one evaluate_boards call",
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5),
)
QUEUE_DEPTH = Gauge("pulvezar_evaluator_queue_depth", "requests waiting for a batch")
REJECTED = Counter("pulvezar_evaluator_rejected", "requests refused because the queue was full")
FAILED = Counter("pulvezar_evaluator_failed_batches", "evaluation batches that raised")


class QueueFull(Exception):
    """The request queue is full; the caller should back off (RESOURCE_EXHAUSTED)."""


class BatcherStopped(Exception):
    """The batcher was stopped before the request was evaluated."""


@dataclass(eq=False)
class _Job:
    boards: Boards
    future: asyncio.Future[Probs]
    enqueued: float = field(default_factory=time.monotonic)


class MicroBatcher:
    """Batches ``submit`` calls into calls of ``evaluate`` (``(N, 50)`` boards -> ``(N, 5)``)."""

    def __init__(
        self,
        evaluate: Callable[[Boards], Probs],
        *,
        max_batch_size: int = 1024,
        max_wait_s: float = 0.002,
        queue_size: int = 1024,
    ) -> None:
        self._evaluate = evaluate
        self.max_batch_size = max_batch_size
        self.max_wait_s = max_wait_s
        self._queue: asyncio.Queue[_Job] = asyncio.Queue(queue_size)
        self._carry: _Job | None = None
        self._executor = ThreadPoolExecutor(1, thread_name_prefix="evaluator")
        self._task: asyncio.Task[None] | None = None
        self._running: list[_Job] = []

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="micro-batcher")

    async def submit(self, boards: Boards) -> Probs:
        """Queue ``boards`` for the next batch and wait for their probabilities."""
        if self._task is None or self._task.done():
            raise BatcherStopped("the evaluator is not running")
        job = _Job(boards, asyncio.get_running_loop().create_future())
        try:
            self._queue.put_nowait(job)
        except asyncio.QueueFull:
            REJECTED.inc()
            raise QueueFull(f"the evaluator queue is full ({self._queue.maxsize} requests)") from None
        QUEUE_DEPTH.set(self._queue.qsize())
        return await job.future  # cancelling the caller cancels the job; the batcher skips it

    async def stop(self) -> None:
        """Stop collecting, fail what still waits, and let the running evaluation end."""
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        pending = [*self._running, *([self._carry] if self._carry else [])]
        while not self._queue.empty():
            pending.append(self._queue.get_nowait())
        for job in pending:
            if not job.future.done():
                job.future.set_exception(BatcherStopped("the evaluator is shutting down"))
        self._executor.shutdown(wait=True)

    async def _collect(self) -> list[_Job]:
        first, self._carry = self._carry, None
        if first is None:
            first = await self._queue.get()
        batch, size = [first], len(first.boards)
        loop = asyncio.get_running_loop()
        until = loop.time() + self.max_wait_s
        while size < self.max_batch_size:
            try:
                job = self._queue.get_nowait()
            except asyncio.QueueEmpty:
                left = until - loop.time()
                if left <= 0:
                    break
                try:
                    job = await asyncio.wait_for(self._queue.get(), left)
                except TimeoutError:
                    break
            if size + len(job.boards) > self.max_batch_size:
                self._carry = job  # starts the next batch
                break
            batch.append(job)
            size += len(job.boards)
        QUEUE_DEPTH.set(self._queue.qsize())
        return batch

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            batch = self._running = [job for job in await self._collect() if not job.future.done()]
            if not batch:
                continue
            now = time.monotonic()
            for job in batch:
                QUEUE_WAIT.observe(now - job.enqueued)
            boards = batch[0].boards if len(batch) == 1 else np.concatenate([j.boards for j in batch])
            BATCH_BOARDS.observe(len(boards))
            BATCH_REQUESTS.observe(len(batch))
            try:
                with BATCH_SECONDS.time():
                    probs = await loop.run_in_executor(self._executor, self._evaluate, boards)
                if probs.shape != (len(boards), 5):
                    raise RuntimeError(f"the evaluator returned shape {probs.shape} for {len(boards)} boards")
            except Exception as e:
                FAILED.inc()
                for job in batch:
                    if not job.future.done():
                        job.future.set_exception(e)
                continue
            offset = 0
            for job in batch:
                n = len(job.boards)
                if not job.future.done():
                    job.future.set_result(probs[offset : offset + n])
                offset += n
