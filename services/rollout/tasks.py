"""The rollout chunk task: one task computes one chunk of one rollout job and writes it to Redis once
(through the one chunk runner, :mod:`services.rollout.runner`); the worker process's evaluator and
durable store, shared by every task of the process.
"""

from __future__ import annotations

import faulthandler
import json
import logging
import os
import signal
import sys
import threading
from typing import Any

import numpy as np
from celery import Task
from celery.signals import worker_process_init, worker_process_shutdown, worker_ready

from pulvezar.eval.evaluator import Evaluator, screen_evaluator
from pulvezar.rollouts import rollout, rollout_cube, rollout_plays
from pulvezar.search.hint import searcher
from services.common.jsonlog import log
from services.common.redis_url import connect as connect_redis
from services.jobs.broker import CHUNK_TASK
from services.jobs.rollout import JobStore
from services.jobs.rollout_items import Item
from services.jobs.rollout_report import encode_values
from services.jobs.settings import RolloutSettings
from services.jobs.states import JobState
from services.rollout import runner
from services.rollout.celery_app import app
from services.rollout.evaluators import LazyEvaluator, Route, make_evaluator
from services.rollout.runner import ChunkKind

logger = logging.getLogger("pulvezar.services.rollout")
settings = RolloutSettings()
_redis: Any = None


_records: Any = None


def records() -> Any:
    """The durable store's jobs (:class:`services.store.jobs.JobRecords`), or None without one."""
    global _records
    if _records is None:
        from services.store.settings import StoreSettings

        url = StoreSettings().url
        if url is None:
            return None
        from services.store.jobs import JobRecords

        _records = JobRecords(url)
    return _records


def store_chunk(job_id: str, n: int, record: dict[str, Any], complete: bool = True) -> None:
    """A finished chunk into the durable store, and (``complete``) the job's end when it was the last;
    a store that cannot be reached now is caught up by the reconciler (the record stays in Redis)."""
    durable = records()
    if durable is None:
        return
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


def compute_chunk(
    item: Item, first: int, trials: int, ev: Evaluator, candidates: tuple[int, int] | None = None
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any] | None]:
    """Values of trials ``first .. first + trials - 1`` of ``item``: shape (candidates or 1, trials, 5),
    and, for a cubeful item, the cubeful equities, shape (candidates or 1, trials).  ``candidates``:
    only candidate plays ``c0 .. c1 - 1`` (a chunk cut by candidates).

    A cube item's chunk holds its branches in the first axis: no double, then double/take where
    the player on roll may double (:func:`~pulvezar.rollouts.rollout_cube`).

    A deeper than 0-ply chunk starts with an empty search cache (:func:`~pulvezar.search.hint.searcher`
    of ``ev``): the net's last bits depend on the batch a board is evaluated in, so values cached by
    another chunk would make a chunk's numbers depend on what its process ran before.  Its search prunes
    the replies as the item says (:attr:`~services.jobs.rollout_items.Item.prune`).
    """
    opts = item.options(ev)
    if item.ply > 0:
        searcher(ev, item.rules, item.prune).cache.clear()
    if item.kind == "cube":
        cr = rollout_cube(
            item.cube_state(), trials=trials, first_trial=first, seed=item.seed, ply=item.ply,
            variance_reduction=item.variance_reduction, truncate=item.truncate, evaluator=ev, luck=item.luck,
            prune=item.prune,
        )  # fmt: skip
        results = [cr.no_double] + ([cr.double_take] if cr.double_take is not None else [])
    elif item.plays is None:
        results = [rollout(item.position, trials=trials, first_trial=first, **opts)]
    else:
        assert item.dice is not None
        plays = list(item.plays) if candidates is None else list(item.plays)[candidates[0] : candidates[1]]
        results = rollout_plays(item.position, item.dice, plays, trials=trials, first_trial=first, **opts)
    values = np.stack([r.values for r in results])
    if results[0].cubeful is None:
        return values, None
    return values, np.stack([r.cubeful for r in results if r.cubeful is not None])


def _load(r: Any, job_id: str, n: int) -> tuple[dict[str, Any], Any] | None:
    raw_spec, raw_chunk = r.get(JobStore.spec_key(job_id)), r.lindex(JobStore.chunks_key(job_id), n)
    if raw_spec is None or raw_chunk is None:
        return None
    return json.loads(raw_spec), json.loads(raw_chunk)


def _compute(spec: dict[str, Any], chunk: Any, ev: Evaluator) -> dict[str, Any]:
    index, first, trials, *cut = chunk
    candidates = (cut[0], cut[1]) if cut else None
    values, cubeful = compute_chunk(Item.of(spec["items"][index]), first, trials, ev, candidates)
    return {
        "item": index,
        "first": first,
        "trials": trials,
        **({"candidates": list(candidates)} if candidates else {}),
        **encode_values(values),
        **({"cubeful": encode_values(cubeful)} if cubeful is not None else {}),
    }


def _write(r: Any, job_id: str, n: int, record: dict[str, Any]) -> bool:
    return bool(r.set(JobStore.chunk_key(job_id, n), json.dumps(record), nx=True, ex=settings.job_ttl_s))


def _failed(r: Any, job_id: str, n: int, spec: dict[str, Any], chunk: Any, e: Exception) -> None:
    r.set(JobStore.error_key(job_id), f"chunk {n} failed: {e!r}", nx=True, ex=settings.job_ttl_s)
    durable = records()
    if durable is not None:
        try:
            durable.set_state(job_id, JobState.FAILED, f"chunk {n} failed: {e!r}")
        except Exception:
            log(logger, logging.WARNING, "job failure not stored durably yet", job=job_id)


def _finished(job_id: str, n: int, spec: dict[str, Any], chunk: Any, record: dict[str, Any]) -> None:
    from services.rollout import metrics

    store_chunk(job_id, n, record)
    metrics.CHUNK_SECONDS.labels(spec["priority"]).observe(record["seconds"])
    metrics.TRIALS.labels(spec["priority"]).inc(record["trials"])


def _kind() -> ChunkKind:
    from services.rollout import metrics

    return ChunkKind(
        name="rollout",
        store=JobStore,
        logger=logger,
        counter=metrics.CHUNKS,
        load=_load,
        compute=_compute,
        write=_write,
        failed=_failed,
        finished=_finished,
        started_fields=lambda spec, chunk: {"first": chunk[1], "trials": chunk[2]},
    )


@app.task(name=CHUNK_TASK, bind=True)
def run_chunk(self: Task, job_id: str, n: int) -> str:
    """Compute chunk ``n`` of job ``job_id``; returns what happened (done, duplicate, cancelled, ...)."""
    return runner.run(self, _kind(), job_id, n, redis_client(), evaluator, settings)


@worker_process_init.connect
def _process_init(**_: Any) -> None:
    """A fresh pool process: its own Redis connection and torch threads; the evaluator is chosen (and
    the model loaded) in the background, so the choice shows in the start-up log."""
    global _redis, _records
    # stacks on demand (services.rollout.worker); Celery has put a logging proxy in place of sys.stderr
    faulthandler.register(signal.SIGUSR2, file=sys.__stderr__, all_threads=True)
    _redis = _records = None
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

        multiprocess.mark_process_dead(pid or os.getpid())


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
