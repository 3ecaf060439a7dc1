"""The analysis chunk task of the jobs queued before match analyses were a job kind
(:data:`~services.jobs.broker.ANALYSIS_TASK`, arguments ``[job_id, n]``): a compatibility layer that runs
the chunk as the one kind chunk task does (:func:`services.rollout.kind_tasks.chunk_kind` of
:class:`~services.jobs.kinds.analysis.Analyses`), so that games queued by an older gateway still run.
New jobs send :data:`~services.jobs.broker.KIND_CHUNK_TASK` with ``["analysis", job_id, n]``.
"""

from __future__ import annotations

from typing import Any

from celery import Task

from services.jobs.broker import ANALYSIS_TASK
from services.jobs.kinds.analysis import Analyses
from services.rollout import runner
from services.rollout import tasks as rollout_tasks
from services.rollout.celery_app import app
from services.rollout.kind_tasks import chunk_kind

settings = rollout_tasks.settings


# acks_late and reject_on_worker_lost are the app's defaults too; said here because the task relies on them
@app.task(name=ANALYSIS_TASK, bind=True, acks_late=True, reject_on_worker_lost=True)
def analyse_game_chunk(self: Task[Any, Any], job_id: str, n: int) -> str:
    """Analyse chunk ``n`` (one game) of analysis job ``job_id``; returns what happened."""
    steps = chunk_kind(Analyses)
    return runner.run(self, steps, job_id, n, rollout_tasks.redis_client(), rollout_tasks.evaluator, settings)
