"""Settings of the job store and the rollout workers, from ``PULVEZAR_ROLLOUT_*`` environment variables
(the names keep the prefix they always had: deployments set them), and the queues of the job priorities."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from pulvezar.rollouts.chunks import DEFAULT_CHUNK_SIZE, check_chunk_size

#: Queues, highest priority first: a worker drains ``rollouts.interactive`` before it takes
#: anything from ``rollouts.batch`` (kombu's ``queue_order_strategy="priority"``).
INTERACTIVE_QUEUE = "rollouts.interactive"
BATCH_QUEUE = "rollouts.batch"
QUEUES = {"interactive": INTERACTIVE_QUEUE, "batch": BATCH_QUEUE}
#: The platform's own long tasks (daily puzzles, opening-book drivers), consumed by a worker of their own
#: (``--queues rollouts.background``), so that a client's job never waits behind them.
BACKGROUND_QUEUE = "rollouts.background"


class RolloutSettings(BaseSettings):
    """Read from ``PULVEZAR_ROLLOUT_<NAME>`` (e.g. ``PULVEZAR_ROLLOUT_REDIS_URL``).  A request's limits
    (trials per position, positions per batch, truncation) are not settings: :mod:`services.common.schemas`
    sets them once, for the gateway and the jobs."""

    model_config = SettingsConfigDict(env_prefix="PULVEZAR_ROLLOUT_")

    redis_url: str = Field("redis://localhost:6379/0", description="Celery broker and the job store")
    backend_url: str | None = Field(None, description="Celery result backend; default: redis_url")
    evaluator: str = Field(
        "inprocess", description="inprocess (the net in the worker) or grpc://host:port (the Evaluator)"
    )
    evaluator_mode: Literal["auto", "service", "inprocess"] = Field(
        "auto",
        description="with grpc://: auto = the service when it has an accelerator or another model, "
        "else in process; service = always the service; inprocess = never",
    )
    evaluator_probe_timeout_s: float = Field(
        60.0, gt=0, description="auto: how long a worker waits for the service's ModelInfo"
    )
    model_path: Path | None = Field(None, description="model file for inprocess; default: the shipped net")
    device: Literal["auto", "cpu", "cuda"] = Field(
        "auto", description="inprocess: auto = CUDA when torch sees a GPU; bits differ between CPU and GPU"
    )
    chunk_size: int = Field(DEFAULT_CHUNK_SIZE, description="trials per chunk task (a multiple of 36)")
    proc_alive_timeout_s: float = Field(
        60.0, gt=0, description="how long a new pool process may take to come up before Celery replaces it"
    )
    chunk_seconds: float = Field(
        3.0,
        gt=0,
        description="a chunk holds as many candidate plays and trials as fit this long on one core "
        "(estimated; the unit of fairness between keys)",
    )
    max_chunks: int = Field(100_000, ge=1, description="chunk tasks of one job")
    job_ttl_s: int = Field(
        7 * 24 * 3600, ge=60, description="a job's Redis keys expire this long after its last write"
    )
    visibility_timeout_s: float = Field(
        3600,
        gt=0,
        description="an unacknowledged chunk is redelivered after this long (longer than a chunk!)",
    )
    lease_s: float = Field(
        30.0,
        gt=0,
        description="a sent chunk whose worker stops renewing its lease runs again this long after",
    )
    tick_s: float = Field(1.0, gt=0, description="how often each worker registers its slots and feeds")
    worker_ttl_s: float = Field(10.0, gt=0, description="a worker not heard of this long has no slots")
    restore_interval_s: float = Field(10, gt=0, description="how often workers look for such chunks")
    max_retries: int = Field(2, ge=0, description="retries of a chunk that raised an error")
    concurrency: int = Field(1, ge=1, description="worker processes (prefork pool)")
    torch_threads: int = Field(1, ge=0, description="torch threads per worker process; 0 = torch's default")
    metrics_host: str = "0.0.0.0"
    metrics_port: int = Field(9103, ge=-1, le=65535, description="Prometheus /metrics; 0 = any, -1 = off")
    metrics_dir: Path | None = Field(
        None, description="prometheus multiprocess dir; default: a fresh temp dir"
    )
    log_level: str = "INFO"
    eval_delay_ms: float = Field(0.0, ge=0, description="testing only: extra time per evaluator call")
    eval_hold_path: Path | None = Field(
        None,
        description="testing only: while this file exists, evaluator calls wait (each waiting process "
        "touches '<path>.<pid>'), so a test can kill a process provably inside a chunk",
    )

    @field_validator("chunk_size")
    @classmethod
    def _chunk(cls, v: int) -> int:
        return check_chunk_size(v)

    @field_validator("evaluator")
    @classmethod
    def _evaluator(cls, v: str) -> str:
        if v != "inprocess" and not (v.startswith("grpc://") and len(v) > len("grpc://")):
            raise ValueError(f"evaluator is 'inprocess' or 'grpc://host:port', got {v!r}")
        return v
