"""``python -m services.rollout.worker [--concurrency N] [--metrics-port M] [--queues ...]``.

A Celery worker (prefork pool) on the rollout queues, interactive first (``--queues
rollouts.background``: the worker of the platform's own long tasks, daily puzzles and book drivers),
with JSON logs on stderr and the Prometheus metrics of all its pool processes on one port.  Settings come from
``PULVEZAR_ROLLOUT_*`` (command-line flags win); see :mod:`services.jobs.settings`.

``SIGUSR2`` to the worker's processes prints every thread's Python stack to stderr (:mod:`faulthandler`;
SIGUSR1 is Celery's and billiard's): ``kill -USR2 -<pgid>`` shows where a stuck chunk waits.
"""

from __future__ import annotations

import argparse
import atexit
import faulthandler
import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path

from services.common import jsonlog
from services.common.redis_url import connect as connect_redis
from services.common.settings import cli_overrides
from services.jobs.settings import BATCH_QUEUE, INTERACTIVE_QUEUE, RolloutSettings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m services.rollout.worker", description=__doc__)
    parser.add_argument("--concurrency", type=int, help="pool processes; env PULVEZAR_ROLLOUT_CONCURRENCY")
    parser.add_argument("--metrics-port", type=int, help="Prometheus port (0: any free port, -1: off)")
    parser.add_argument("--metrics-host")
    parser.add_argument("--redis-url")
    parser.add_argument("--queues", default=f"{INTERACTIVE_QUEUE},{BATCH_QUEUE}", help="in priority order")
    parser.add_argument("--hostname", default=None, help="Celery node name (default rollout@<host>:<pid>)")
    parser.add_argument("--pool", default="prefork", choices=("prefork", "solo"))
    args = parser.parse_args(argv)
    from services.store.db import StoreRequired, required_url

    try:
        required_url("a rollout worker")  # docs/store.md, "The store is required"
    except StoreRequired as e:
        parser.exit(1, f"{e}\n")
    overrides = cli_overrides(
        concurrency=args.concurrency,
        metrics_port=args.metrics_port,
        metrics_host=args.metrics_host,
        redis_url=args.redis_url,
    )
    settings = RolloutSettings(**overrides)
    # the pool processes and the Celery app read the settings from the environment
    for name, value in overrides.items():
        os.environ[f"PULVEZAR_ROLLOUT_{name.upper()}"] = str(value)
    jsonlog.configure("rollout", settings.log_level)
    faulthandler.register(signal.SIGUSR2, all_threads=True)  # the pool processes register again

    # multiprocess metrics: the directory must be set before prometheus_client is imported
    if settings.metrics_dir is None:
        metrics_dir = Path(tempfile.mkdtemp(prefix="pulvezar-rollout-metrics-"))
        atexit.register(shutil.rmtree, metrics_dir, ignore_errors=True)
    else:
        metrics_dir = Path(settings.metrics_dir)
    metrics_dir.mkdir(parents=True, exist_ok=True)
    for stale in metrics_dir.glob("*.db"):
        stale.unlink()
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(metrics_dir)

    from services.rollout import metrics

    port = metrics.serve(settings.metrics_port, settings.metrics_host, connect_redis(settings.redis_url))
    os.environ["PULVEZAR_ROLLOUT_BOUND_METRICS_PORT"] = str(-1 if port is None else port)

    # torch imported once here, before the pool forks: a pool process then starts in milliseconds instead
    # of importing it (seconds; on a loaded machine longer than Celery waits for a new process to come up,
    # which then kills and replaces it, again and again).  Nothing runs on torch in this process, so no
    # thread pool crosses the fork.
    import torch  # noqa: F401

    from services.rollout import tasks  # noqa: F401  (registers the task and the signal handlers)
    from services.rollout.celery_app import app

    hostname = args.hostname or f"rollout@%h:{os.getpid()}"
    app.worker_main(
        [
            "worker",
            "--queues",
            args.queues,
            "--pool",
            args.pool,
            "--concurrency",
            str(settings.concurrency),
            "--loglevel",
            settings.log_level,
            "--hostname",
            hostname,
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
        ]
    )
    return 0  # type: ignore[unreachable]  # (typed NoReturn; kept should it ever return)


if __name__ == "__main__":
    sys.exit(main())
