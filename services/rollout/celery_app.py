"""The Celery application of the rollout workers (broker: Redis).

Priorities are two queues, :data:`~services.rollout.settings.INTERACTIVE_QUEUE` and
:data:`~services.rollout.settings.BATCH_QUEUE`, which every worker consumes in that order
(kombu's ``queue_order_strategy="priority"``: a worker's BRPOP lists the interactive queue first,
so a free worker takes interactive chunks while any are waiting).  With ``acks_late``, a prefetch of
one and one task per chunk, an interactive job waits at most for the chunks already running.

Reliability: a chunk is acknowledged after it ran (``task_acks_late``); when a pool process dies
mid-chunk the chunk is re-queued at once (``task_reject_on_worker_lost``); when the whole worker
dies, Redis redelivers its unacknowledged chunk after ``visibility_timeout_s``.  Chunks are
idempotent (see :mod:`services.rollout.tasks`), so redelivery costs time, never correctness.

``celery -A services.rollout.celery_app worker -Q rollouts.interactive,rollouts.batch`` works;
``python -m services.rollout.worker`` adds JSON logs and multiprocess Prometheus metrics.
"""

from __future__ import annotations

from celery import Celery
from kombu import Exchange, Queue

from services.rollout.settings import BATCH_QUEUE, INTERACTIVE_QUEUE, RolloutSettings

CHUNK_TASK = "pulvezar.rollout.chunk"
QUEUE_ORDER = (INTERACTIVE_QUEUE, BATCH_QUEUE)  # highest priority first


def make_app(settings: RolloutSettings | None = None) -> Celery:
    s = settings or RolloutSettings()
    celery = Celery("pulvezar-rollout", broker=s.redis_url, backend=s.backend_url or s.redis_url)
    transport = {
        "queue_order_strategy": "priority",
        "visibility_timeout": s.visibility_timeout_s,
        "unacked_restore_interval": s.restore_interval_s,
        "unacked_restore_throttle": 1,
        "unacked_mutex_expire": 30,  # a worker killed while restoring blocks restores this long
    }
    celery.conf.update(
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_ignore_result=True,  # results live in the job's Redis keys, not in the backend
        # each queue with its own exchange and key: without them kombu binds both queues to the default
        # queue's key, and a redelivered chunk could be restored into both lists
        task_queues=tuple(Queue(q, Exchange(q, type="direct"), routing_key=q) for q in QUEUE_ORDER),
        task_default_queue=INTERACTIVE_QUEUE,
        task_default_exchange=INTERACTIVE_QUEUE,
        task_default_routing_key=INTERACTIVE_QUEUE,
        task_create_missing_queues=False,
        broker_transport_options=transport,
        broker_connection_retry_on_startup=True,
        worker_hijack_root_logger=False,
        worker_send_task_events=False,
        task_serializer="json",
        accept_content=["json"],
        include=["services.rollout.tasks"],
    )
    return celery


app = make_app()
