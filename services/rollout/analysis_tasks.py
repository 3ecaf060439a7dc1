"""The analysis chunk task: one task analyses one game of one match of a job, and writes it once.

Like the rollout chunks (:mod:`services.rollout.tasks`): ``acks_late`` and reject-on-worker-lost
come from the app's configuration, the task goes to the queue of its job's priority, the result goes
to ``analysis:{id}:chunk:{n}`` with ``SET NX``, then to the job's progress hash
(:func:`~services.jobs.analysis.record_chunk`; a task whose key exists returns at once, so a
redelivered game changes nothing), and the cancel key is read before the work and, while it runs,
before every evaluator call (at most every 0.2 s).  Everything a chunk needs is in Redis (the job's
spec and the match file), so any worker, restarted or not, can run it.  After its game the task
writes the match's summary if that was the match's last game (:meth:`AnalysisStore.finalise_match`).

A game is analysed with a fresh search cache (a new evaluator wrapper per chunk): the net's last bits
depend on the batch a board is evaluated in, so values cached by another chunk would make a game's
numbers depend on what its process ran before.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import logging
import time
from collections import OrderedDict
from typing import Any

from celery import Task

from pulvezar.eval.evaluator import Evaluator
from services.common.jsonlog import log
from services.jobs import analysis as aj
from services.rollout import runner
from services.rollout import tasks as rollout_tasks
from services.rollout.celery_app import app
from services.rollout.runner import ChunkKind

logger = logging.getLogger("pulvezar.services.analysis")
settings = rollout_tasks.settings
_RECORDS: OrderedDict[tuple[str, int], Any] = OrderedDict()  # the last few parsed matches of this process
_MAX_RECORDS = 4


def match_record(r: Any, job_id: str, m: int, fmt: str) -> Any:
    """Match ``m`` of the job, parsed once per process (its games are usually analysed one after
    another by the same workers)."""
    key = (job_id, m)
    record = _RECORDS.get(key)
    if record is None:
        raw = r.get(aj.file_key(job_id, m))
        if raw is None:
            raise LookupError(f"the file of match {m} of job {job_id} is gone")
        record = aj.read_record(base64.b64decode(raw), fmt)
        _RECORDS[key] = record
        while len(_RECORDS) > _MAX_RECORDS:
            _RECORDS.popitem(last=False)
    else:
        _RECORDS.move_to_end(key)
    return record


def _load(r: Any, job_id: str, n: int) -> tuple[dict[str, Any], Any] | None:
    raw_spec = r.get(aj.spec_key(job_id))
    if raw_spec is None:
        return None
    spec = json.loads(raw_spec)
    return spec, spec["chunks"][n]


def _compute(spec: dict[str, Any], chunk: Any, ev: Evaluator) -> dict[str, Any]:
    from pulvezar.analysis.match import AnalysisSettings, analyse_game, engine_info

    m, g = chunk
    record = match_record(rollout_tasks.redis_client(), spec["id"], m, spec["matches"][m]["format"])
    analysis = analyse_game(record, g, AnalysisSettings.from_json(spec["settings"]), evaluator=ev)
    # the engine that analysed is the worker's evaluator, not the cancel-checking wrapper around it
    result = dataclasses.replace(analysis, engine=engine_info(rollout_tasks.evaluator())).to_json()
    return {"match": m, "game": g, "analysis": result}


def _write(r: Any, job_id: str, n: int, record: dict[str, Any]) -> bool:
    return aj.record_chunk(r, job_id, n, record, settings.job_ttl_s)


def _failed(r: Any, job_id: str, n: int, spec: dict[str, Any], chunk: Any, e: Exception) -> None:
    m, g = chunk
    failed = {"match": m, "game": g, "error": repr(e)[:500], "failed": time.time()}
    if aj.record_chunk(r, job_id, n, failed, settings.job_ttl_s):
        rollout_tasks.store_chunk(job_id, n, failed, complete=False)
        _sync(r, job_id)


def _finished(job_id: str, n: int, spec: dict[str, Any], chunk: Any, record: dict[str, Any]) -> None:
    from services.rollout import metrics

    m, g = chunk
    rollout_tasks.store_chunk(job_id, n, record, complete=False)
    metrics.ANALYSIS_GAME_SECONDS.labels(spec["level"]).observe(record["seconds"])
    metrics.ANALYSIS_ACTIONS.labels(spec["level"]).inc(spec["matches"][m]["actions"][g])
    r = rollout_tasks.redis_client()
    try:  # the match's summary (and its archive entries) if this was its last game; status() also does it
        store = aj.AnalysisStore(r, app=app, settings=settings, records=rollout_tasks.records())
        store.finalise_match(job_id, m, spec)
    except Exception:
        logger.exception("match summary failed", extra={"fields": {"job": job_id, "match": m}})
    _sync(r, job_id)


def _kind() -> ChunkKind:
    from services.rollout import metrics

    def _repair(r: Any, job_id: str, n: int) -> None:
        aj.repair_progress(r, job_id, n, settings.job_ttl_s)

    return ChunkKind(
        name="analysis",
        store=aj.AnalysisStore,
        logger=logger,
        counter=metrics.ANALYSIS_GAMES,
        load=_load,
        compute=_compute,
        write=_write,
        failed=_failed,
        finished=_finished,
        duplicate=_repair,
        started_fields=lambda spec, chunk: {
            "match": chunk[0],
            "game": chunk[1],
            "analysis_level": spec["level"],
        },
    )


# acks_late and reject_on_worker_lost are the app's defaults too; said here because the task relies on them
@app.task(name=aj.ANALYSIS_TASK, bind=True, acks_late=True, reject_on_worker_lost=True)
def analyse_game_chunk(self: Task[Any, Any], job_id: str, n: int) -> str:
    """Analyse chunk ``n`` (one game) of analysis job ``job_id``; returns what happened."""
    r = rollout_tasks.redis_client()
    return runner.run(self, _kind(), job_id, n, r, rollout_tasks.evaluator, settings)


def _sync(r: Any, job_id: str) -> None:
    """The job's end state into the durable store once its last game is in (best effort: else the
    reconciler does it)."""
    durable = rollout_tasks.records()
    if durable is None:
        return
    try:
        aj.AnalysisStore(r, app=app, settings=settings, records=durable).sync(job_id)
    except Exception as e:
        log(logger, logging.WARNING, "analysis state not stored durably yet", job=job_id, error=repr(e))
