"""The broker side of every job kind: task names, queues and a bare Celery client that sends by name.

A job store sends its chunk tasks by *name* through :func:`client` (a Celery app that knows the
broker and the queues, and no task), so the gateway never imports the workers' code.  The workers'
app (:mod:`services.rollout.celery_app`) is configured by the same :func:`configure` and registers the
tasks under these names; a name here without a task there is caught by ``tests/services``.
"""

from __future__ import annotations

from typing import Any

from services.jobs.settings import BACKGROUND_QUEUE, BATCH_QUEUE, INTERACTIVE_QUEUE, RolloutSettings

KIND_CHUNK_TASK = "pulvezar.jobs.chunk"  # a chunk of any kind of services.jobs.kinds ([kind, id, n])
BOOK_TASK = "pulvezar.book.drive"  # one release: the older book driver (books are a kind; kind_tasks)
DAILY_TASK = "pulvezar.daily.produce"  # the daily puzzles
DAILY_RECHECK_TASK = "pulvezar.daily.recheck"  # the stored daily puzzles judged again by the worker's net
RECONCILE_TASK = "pulvezar.store.reconcile"  # the durable store and Redis brought into agreement
QUEUE_ORDER = (INTERACTIVE_QUEUE, BATCH_QUEUE, BACKGROUND_QUEUE)  # highest priority first


def configure(celery: Any, s: RolloutSettings) -> None:
    """The broker's configuration, the same for the senders and the workers: each queue with its own
    exchange and key (without them kombu binds every queue to the default queue's key, and a
    redelivered chunk could be restored into two lists), priority order, late acknowledgement."""
    from kombu import Exchange, Queue

    from services.common.redis_url import celery_broker

    broker, sentinel = celery_broker(s.redis_url)
    backend, backend_sentinel = celery_broker(s.backend_url or s.redis_url)
    transport = {
        **sentinel,
        "queue_order_strategy": "priority",
        "visibility_timeout": s.visibility_timeout_s,
        "unacked_restore_interval": s.restore_interval_s,
        "unacked_restore_throttle": 1,
        "unacked_mutex_expire": 30,  # a worker killed while restoring blocks restores this long
    }
    celery.conf.update(
        broker_url=broker,
        result_backend=backend,
        result_backend_transport_options=backend_sentinel,
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_ignore_result=True,  # results live in the job's Redis keys, not in the backend
        task_queues=tuple(Queue(q, Exchange(q, type="direct"), routing_key=q) for q in QUEUE_ORDER),
        task_default_queue=INTERACTIVE_QUEUE,
        task_default_exchange=INTERACTIVE_QUEUE,
        task_default_routing_key=INTERACTIVE_QUEUE,
        task_create_missing_queues=False,
        broker_transport_options=transport,
        broker_connection_retry_on_startup=True,
        task_serializer="json",
        accept_content=["json"],
    )


def client(settings: RolloutSettings | None = None) -> Any:
    """A Celery app that only sends tasks (by name) to the workers' broker."""
    from celery import Celery

    s = settings or RolloutSettings()
    celery = Celery("pulvezar-jobs")
    configure(celery, s)  # the broker and backend too (plain Redis or Sentinel)
    return celery
