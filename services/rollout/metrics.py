"""Prometheus metrics of the rollout workers (multiprocess mode: one /metrics for all pool processes).

``python -m services.rollout.worker`` sets ``PROMETHEUS_MULTIPROC_DIR`` before this module is
imported, so that the pool processes write their samples to files there and the main process
serves them all; the queue depths are read from Redis when /metrics is scraped.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, start_http_server
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector

from services.jobs.settings import QUEUES

CHUNK_SECONDS = Histogram(
    "pulvezar_rollout_chunk_seconds",
    "Time to compute one rollout chunk, by job priority",
    ["priority"],
    buckets=(0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 60, 120, 300),
)
CHUNKS = Counter(
    "pulvezar_rollout_chunks",
    "Chunk tasks handled, by outcome (done, duplicate, cancelled, gone, retried, failed)",
    ["outcome"],
)
TRIALS = Counter("pulvezar_rollout_trials", "Rollout trials computed, by job priority", ["priority"])

EVALUATOR_PROCESSES = Gauge(
    "pulvezar_rollout_evaluator_processes",
    "Live worker processes by where they evaluate (path: inprocess or service; device: the service's)",
    ["path", "device"],
    multiprocess_mode="livesum",
)

# match analysis jobs (the analysis kind, services/jobs/kinds/analysis.py): one chunk = one game
ANALYSIS_GAME_SECONDS = Histogram(
    "pulvezar_analysis_game_seconds",
    "Time to analyse one game of a match (one analysis chunk), by analysis level",
    ["level"],
    buckets=(0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 60, 120, 300, 600, 1800),
)
ANALYSIS_GAMES = Counter(
    "pulvezar_analysis_games",
    "Analysis chunk tasks (games) handled, by outcome (done, duplicate, cancelled, gone, retried, failed)",
    ["outcome"],
)
ANALYSIS_ACTIONS = Counter(
    "pulvezar_analysis_actions", "Recorded actions of the games analysed, by analysis level", ["level"]
)

# the kinds of services/jobs/kinds (services/rollout/kind_tasks.py): one generic chunk task
KIND_CHUNKS = Counter(
    "pulvezar_job_chunks",
    "Chunk tasks of the registered job kinds handled, by kind and outcome (done, duplicate, ...)",
    ["kind", "outcome"],
)
KIND_CHUNK_SECONDS = Histogram(
    "pulvezar_job_chunk_seconds",
    "Time to compute one chunk of a registered job kind, by kind",
    ["kind"],
    buckets=(0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 60, 120, 300),
)


class QueueDepth(Collector):
    """``pulvezar_rollout_queue_depth{queue}``: chunks waiting in each queue, read at scrape time."""

    def __init__(self, redis_client: Any) -> None:
        self.redis = redis_client

    def collect(self) -> Iterator[Metric]:
        g = GaugeMetricFamily(
            "pulvezar_rollout_queue_depth", "Chunk tasks waiting in Redis", labels=["queue"]
        )
        for queue in QUEUES.values():
            try:
                depth = float(self.redis.llen(queue))
            except Exception:  # Redis down: report nothing rather than fail the scrape
                continue
            g.add_metric([queue], depth)
        yield g
        pending = GaugeMetricFamily(
            "pulvezar_rollout_pending_chunks",
            "Chunks pending in the fair scheduler, not sent yet (what autoscaling reads)",
            labels=["priority"],
        )
        try:
            from services.jobs.scheduler import FairScheduler

            for prio, n in FairScheduler(self.redis, None).backlog().items():
                pending.add_metric([prio], float(n))
        except Exception:  # Redis down: report nothing rather than fail the scrape
            pass
        yield pending


def serve(port: int, host: str, redis_client: Any) -> int | None:
    """Serve /metrics of all pool processes (and the queue depths); returns the bound port or None."""
    if port < 0:
        return None
    registry = CollectorRegistry()
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    registry.register(QueueDepth(redis_client))
    server, _thread = start_http_server(port, addr=host, registry=registry)
    return int(server.server_port)
