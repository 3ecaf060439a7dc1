"""The Celery application of the rollout workers (broker: Redis).

Priorities are two queues, :data:`~services.jobs.settings.INTERACTIVE_QUEUE` and
:data:`~services.jobs.settings.BATCH_QUEUE`, which every worker consumes in that order
(kombu's ``queue_order_strategy="priority"``: a worker's BRPOP lists the interactive queue first,
so a free worker takes interactive chunks while any are waiting).  With ``acks_late``, a prefetch of
one and one task per chunk, an interactive job waits at most for the chunks already running.

The platform's own long tasks (the daily puzzles) go to a third queue,
:data:`~services.jobs.settings.BACKGROUND_QUEUE`, which a worker of its own consumes
(``--queues rollouts.background``; ``make run``, compose and k8s start one): a client's chunk never
waits behind a task that runs for minutes.

Reliability: a chunk is acknowledged after it ran (``task_acks_late``); when a pool process dies
mid-chunk the chunk is re-queued at once (``task_reject_on_worker_lost``); when the whole worker
dies, Redis redelivers its unacknowledged chunk after ``visibility_timeout_s``.  Chunks are
idempotent (see :mod:`services.rollout.tasks`), so redelivery costs time, never correctness.

``celery -A services.rollout.celery_app worker -Q rollouts.interactive,rollouts.batch`` works;
``python -m services.rollout.worker`` adds JSON logs and multiprocess Prometheus metrics.

Health: every worker started from this app (either way) writes a heartbeat file,
``PULVEZAR_ROLLOUT_HEARTBEAT_FILE`` (default ``$TMPDIR/pulvezar-rollout.heartbeat``), every
:data:`HEARTBEAT_INTERVAL_S` seconds from its main process's event loop, the loop that also takes
chunks from Redis; it removes the file when it stops.  The file is fresh while that loop runs, whatever
the pool processes are busy with.  ``docker/healthcheck.py`` (the image's HEALTHCHECK and the k8s
probes) and ``deploy/local/run.py`` check its age instead of a ``celery inspect ping``, which costs a
Celery start-up (seconds of CPU on a busy worker) and a broadcast round trip through Redis per probe.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from celery import Celery, bootsteps
from celery.schedules import crontab

from services.common.jsonlog import log
from services.jobs.broker import DAILY_TASK, RECONCILE_TASK, configure
from services.jobs.settings import BACKGROUND_QUEUE, BATCH_QUEUE, INTERACTIVE_QUEUE, RolloutSettings

#: the daily puzzles for today and tomorrow (UTC), every six hours (idempotent: existing ones are skipped)
DAILY_SCHEDULE = {"minute": "5", "hour": "*/6"}
HEARTBEAT_ENV = "PULVEZAR_ROLLOUT_HEARTBEAT_FILE"
HEARTBEAT_INTERVAL_S = 5.0


def heartbeat_path() -> Path:
    """Where this worker writes its heartbeat (the health checks read the same variable)."""
    return Path(os.environ.get(HEARTBEAT_ENV) or Path(tempfile.gettempdir()) / "pulvezar-rollout.heartbeat")


class Heartbeat(bootsteps.StartStopStep):
    """Writes ``{"ts", "node", "pid"}`` to :func:`heartbeat_path` every few seconds (atomically: a
    reader never sees a half-written file).  The worker's timer runs in the main process's event loop,
    so a worker whose loop is stuck stops beating."""

    requires = ("celery.worker.components:Timer",)

    def __init__(self, worker: Any, **kwargs: Any) -> None:
        super().__init__(worker, **kwargs)
        self.path = heartbeat_path()
        self.tref: Any = None

    def start(self, worker: Any) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.unlink(missing_ok=True)  # a file left by an earlier worker says nothing about this one
        self.tref = worker.timer.call_repeatedly(HEARTBEAT_INTERVAL_S, self.beat, (worker,), priority=10)
        worker.timer.call_after(0.1, self.beat, (worker,))  # first beat once the event loop runs

    def beat(self, worker: Any) -> None:
        record = {
            "ts": time.time(),
            "node": worker.hostname,
            "pid": os.getpid(),
            "host": socket.gethostname(),
        }
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}")
        try:
            tmp.write_text(json.dumps(record))
            os.replace(tmp, self.path)
        except OSError:  # a full or read-only disk: the health check will say so
            pass

    def stop(self, worker: Any) -> None:
        if self.tref is not None:
            self.tref.cancel()
            self.tref = None
        self.path.unlink(missing_ok=True)


#: held while a scheduler tick runs in the main process, and by a fork of that process (a new pool process)
#: for the time of the fork: a tick must not be halfway through when the pool forks, or the child inherits
#: its locks held (kombu's and functools' ``cached_property`` locks, taken by ``send_task``) by a thread that
#: the child does not have, and deadlocks the first time it sends a chunk itself
_TICKING = threading.Lock()


def _after_fork_in_child() -> None:
    global _TICKING
    _TICKING = threading.Lock()  # the child's copy was held by the forking thread: start it fresh


os.register_at_fork(
    before=lambda: _TICKING.acquire(),
    after_in_parent=lambda: _TICKING.release(),
    after_in_child=_after_fork_in_child,
)


class SchedulerTick(bootsteps.StartStopStep):
    """A worker that consumes the chunk queues registers its slots with the fair scheduler and feeds it
    every ``tick_s`` seconds (:mod:`services.jobs.scheduler`), from a thread of the main process (a Redis
    that hangs never stalls the event loop).  The tick also hands expired leases' chunks out again.

    A tick and a fork of the main process (the pool starting or replacing a process) exclude each other
    (:data:`_TICKING`)."""

    requires = ("celery.worker.components:Timer",)

    def __init__(self, worker: Any, **kwargs: Any) -> None:
        super().__init__(worker, **kwargs)
        self.stopping = threading.Event()
        self.thread: threading.Thread | None = None
        self.scheduler: Any = None

    def start(self, worker: Any) -> None:
        consumed = set(worker.app.amqp.queues.consume_from or worker.app.amqp.queues)
        if not consumed & {INTERACTIVE_QUEUE, BATCH_QUEUE}:
            return  # a background-only worker takes no chunks
        from services.common.redis_url import connect
        from services.jobs.scheduler import FairScheduler

        s = RolloutSettings()
        client = connect(s.redis_url, socket_timeout=5, socket_connect_timeout=5)
        self.scheduler = FairScheduler(client, worker.app, s.lease_s)
        self.thread = threading.Thread(
            target=self.loop,
            args=(worker.hostname, int(worker.concurrency), s),
            name="scheduler-tick",
            daemon=True,
        )
        self.thread.start()

    def loop(self, node: str, slots: int, s: RolloutSettings) -> None:
        logger = logging.getLogger("pulvezar.services.rollout")
        failing = False
        while not self.stopping.is_set():
            with _TICKING:  # its log lines too: a fork must not find stderr's lock held either
                try:
                    self.scheduler.register(node, slots, s.worker_ttl_s)
                    self.scheduler.feed()
                    if failing:
                        log(logger, logging.INFO, "scheduler tick recovered", node=node)
                    failing = False
                except Exception as e:  # Redis is away: try again at the next tick (said once a streak)
                    if not failing:
                        log(logger, logging.WARNING, "scheduler tick failed", node=node, error=repr(e))
                    failing = True
            self.stopping.wait(s.tick_s)

    def stop(self, worker: Any) -> None:
        self.stopping.set()
        if self.thread is not None:
            self.thread.join(10)
            with contextlib.suppress(Exception):
                self.scheduler.unregister(worker.hostname)
            self.thread = None


def make_app(settings: RolloutSettings | None = None) -> Celery:
    s = settings or RolloutSettings()
    celery = Celery("pulvezar-rollout")
    configure(celery, s)  # the broker's side, shared with the job stores' senders
    celery.conf.update(
        worker_hijack_root_logger=False,
        worker_send_task_events=False,
        # a new pool process may take long to come up on a loaded machine (Celery's default, 4 s, kills
        # and replaces it meanwhile, again and again)
        worker_proc_alive_timeout=s.proc_alive_timeout_s,
        include=[
            "services.rollout.tasks",
            "services.rollout.kind_tasks",
            "services.rollout.daily_tasks",
            "services.rollout.reconcile",
        ],
    )
    from services.store.settings import StoreSettings

    store = StoreSettings()
    celery.conf.beat_schedule = {  # `celery beat` or a worker with -B
        "daily-puzzles": {
            "task": DAILY_TASK,
            "schedule": crontab(**DAILY_SCHEDULE),
            "options": {"queue": BACKGROUND_QUEUE},
        }
    }
    if store.url:  # the durable store and Redis brought into agreement (services/rollout/reconcile.py)
        celery.conf.beat_schedule["reconcile"] = {
            "task": RECONCILE_TASK,
            "schedule": store.reconcile_interval_s,
            "options": {"queue": BACKGROUND_QUEUE, "expires": store.reconcile_interval_s},
        }
    celery.steps["worker"].add(Heartbeat)
    celery.steps["worker"].add(SchedulerTick)
    return celery


app = make_app()
