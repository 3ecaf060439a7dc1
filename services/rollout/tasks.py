"""The worker process's evaluator, Redis client and durable store, shared by every task of the process.

Every kind's chunks, the rollouts' included, run through the one chunk task of
:mod:`services.rollout.kind_tasks`; a rollout chunk's computation is
:func:`services.jobs.kinds.rollout.compute_chunk` (named here too: the golden tests pin it).
"""

from __future__ import annotations

import faulthandler
import logging
import os
import signal
import sys
import threading
from typing import Any

from celery.signals import beat_init, worker_init, worker_process_init, worker_process_shutdown, worker_ready

from pulvezar.eval.evaluator import Evaluator, screen_evaluator
from services.common.jsonlog import log
from services.common.redis_url import connect as connect_redis
from services.jobs.kinds.rollout import compute_chunk
from services.jobs.settings import RolloutSettings
from services.rollout.evaluators import LazyEvaluator, Route, make_evaluator

__all__ = ["compute_chunk", "evaluator", "records", "redis_client", "store_chunk"]

logger = logging.getLogger("pulvezar.services.rollout")
settings = RolloutSettings()
_redis: Any = None


_records: dict[str, Any] = {}


def records() -> Any:
    """The durable store's jobs (:class:`services.store.jobs.JobRecords`) at ``PULVEZAR_DATABASE_URL``
    (required: a worker does not start without it, :func:`_require_worker_store`)."""
    from services.store.db import required_url

    url = required_url("a rollout worker")
    if url not in _records:
        from services.store.jobs import JobRecords

        _records[url] = JobRecords(url)
    return _records[url]


def _require_store(process: str) -> None:
    from services.store.db import StoreRequired, required_url

    try:
        required_url(process)
    except StoreRequired as e:  # Celery logs and ignores a signal handler's other errors
        raise SystemExit(str(e)) from None


@worker_init.connect
def _require_worker_store(**_: Any) -> None:
    """A worker without the durable store does not start (docs/store.md, "The store is required")."""
    _require_store("a rollout worker")


@beat_init.connect
def _require_beat_store(**_: Any) -> None:
    """Nor does beat: the daily puzzles and the reconciler's passes land in the durable store."""
    _require_store("celery beat")


def store_chunk(job_id: str, n: int, record: dict[str, Any], complete: bool = True) -> None:
    """A finished chunk into the durable store, and (``complete``) the job's end when it was the last;
    a store that cannot be reached now is caught up by the reconciler (the record stays in Redis)."""
    durable = records()
    try:
        durable.add_chunks(job_id, {n: record})
        if complete:
            durable.complete_if_done(job_id)
    except Exception as e:
        log(logger, logging.WARNING, "chunk not stored durably yet", job=job_id, chunk=n, error=repr(e))


def redis_client() -> Any:
    global _redis
    if _redis is None:
        _redis = connect_redis(settings.redis_url)
    return _redis


def _make() -> tuple[Evaluator, Route]:
    """This process's evaluator, with the choice of path logged and exported as a metric."""
    from services.rollout import metrics

    ev, route = make_evaluator(settings)
    metrics.EVALUATOR_PROCESSES.labels(route.path, route.device or "local").set(1)
    log(
        logger,
        logging.INFO,
        f"evaluator chosen: {route.path} ({route.reason})",  # readable in Celery's plain text logs too
        path=route.path,
        reason=route.reason,
        service_device=route.device or None,
        model=route.model or None,
        pid=os.getpid(),
    )
    return ev, route


_evaluator = LazyEvaluator(_make)


def evaluator() -> Evaluator:
    """The process's evaluator (made on first use: in process, or the Evaluator service)."""
    return _evaluator.get()[0]


def evaluator_route() -> Route:
    return _evaluator.get()[1]


@worker_process_init.connect
def _process_init(**_: Any) -> None:
    """A fresh pool process: its own Redis connection and torch threads; the evaluator is chosen (and
    the model loaded) in the background, so the choice shows in the start-up log."""
    global _redis
    # stacks on demand (services.rollout.worker); Celery has put a logging proxy in place of sys.stderr
    if sys.__stderr__ is not None:
        faulthandler.register(signal.SIGUSR2, file=sys.__stderr__, all_threads=True)
    _redis = None
    _records.clear()
    _evaluator.reset()  # nothing made in the parent process crosses the fork
    if settings.torch_threads:
        import torch

        torch.set_num_threads(settings.torch_threads)
    threading.Thread(target=_warm, name="evaluator-warm", daemon=True).start()


def _warm() -> None:
    try:
        _evaluator.get()
        screen_evaluator()  # the screened luck's net, local on every route
    except Exception as e:  # the first chunk tries again and reports it
        log(logger, logging.WARNING, "evaluator not ready", error=repr(e), pid=os.getpid())


@worker_process_shutdown.connect
def _process_shutdown(pid: int | None = None, **_: Any) -> None:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(pid or os.getpid())  # type: ignore[no-untyped-call]


@worker_ready.connect
def _ready(sender: Any = None, **_: Any) -> None:
    log(
        logger,
        logging.INFO,
        "worker ready",
        hostname=getattr(sender, "hostname", None),
        pid=os.getpid(),
        metrics_port=int(os.environ.get("PULVEZAR_ROLLOUT_BOUND_METRICS_PORT", "-1")),
    )
