"""Settings of the gateway, from ``PULVEZAR_GATEWAY_*`` environment variables.

API keys are a JSON object, secret -> limits, e.g.::

    PULVEZAR_GATEWAY_API_KEYS='{"s3cret": {"name": "web", "rate_per_s": 20, "burst": 40}}'
"""

from __future__ import annotations

from pydantic import BaseModel, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class ApiKey(BaseModel):
    """One client's limits. ``name`` appears in logs and metrics (never the secret)."""

    name: str = "client"
    rate_per_s: float = Field(10.0, gt=0, description="token bucket refill, requests per second")
    burst: int = Field(20, ge=1, description="token bucket size: requests allowed at once")
    daily_jobs: int = Field(200, ge=0, description="rollout and batch jobs per UTC day")
    daily_trials: int = Field(5_000_000, ge=0, description="rollout trials per UTC day (all jobs)")
    max_job_core_s: float = Field(
        200_000.0,
        gt=0,
        description="the most a job may cost, in core-seconds as its kind estimates it (about 55 core-hours)",
    )
    daily_core_s: float = Field(
        1_000_000.0, ge=0, description="core-seconds of jobs per UTC day (all kinds; about 280 core-hours)"
    )
    max_running_jobs: int = Field(100, ge=1, description="unfinished jobs at once (every kind)")
    max_queued_trials: int = Field(
        2_000_000, ge=1, description="trials of unfinished rollout and batch jobs at once"
    )
    operator: bool = Field(
        False, description="may see the platform's own jobs (daily puzzles, ...): GET /v1/jobs?scope=platform"
    )
    share: int = Field(
        1, ge=1, le=100, description="fair-share weight: chunks per turn when keys compete for workers"
    )


class GatewaySettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="PULVEZAR_GATEWAY_", populate_by_name=True)

    host: str = "0.0.0.0"
    port: int = Field(8080, ge=0, le=65535, description="HTTP port; 0 picks a free one")
    log_level: str = "INFO"
    grace_period_s: float = Field(5.0, ge=0, description="in-flight requests get this long on SIGTERM")

    # deployment (services/gateway/admin.py): the admin port, what the HTTP port shows, the gRPC token
    metrics_port: int = Field(
        -1, ge=-1, le=65535, description="admin port: /metrics and /livez from a thread; 0 = any, -1 = off"
    )
    public_metrics: bool = Field(True, description="/metrics on the HTTP port too (false in production)")
    public_docs: bool = Field(True, description="/docs, /redoc and /openapi.json (false in production)")
    heartbeat_s: float = Field(1.0, gt=0, description="how often the event loop proves it runs")
    stale_after_s: float = Field(10.0, gt=0, description="/livez answers 503 when the loop is this late")
    grpc_token: SecretStr | None = Field(
        None, validation_alias="PULVEZAR_GRPC_TOKEN", description="sent to the Rules and Evaluator services"
    )

    # upstream services
    rules_address: str = "127.0.0.1:50051"
    evaluator_address: str = "127.0.0.1:50052"
    grpc_timeout_s: float = Field(10.0, gt=0, description="deadline of each gRPC call")
    ready_timeout_s: float = Field(1.0, gt=0, description="deadline of each health check of /readyz")

    # job store (rollouts); without it the rollout endpoints answer 503
    redis_url: str | None = None

    # clients
    api_keys: dict[str, ApiKey] = Field(default_factory=dict, description="secret -> limits")
    cors_origins: list[str] = Field(default_factory=list, description='browser origins, e.g. ["*"]')

    # request limits
    max_body_bytes: int = Field(256 * 1024, ge=1, description="JSON request bodies")
    max_upload_bytes: int = Field(4 * 1024 * 1024, ge=1, description="match file uploads")
    max_positions: int = Field(256, ge=1, description="positions per evaluate request")
    max_hint_ply: int = Field(
        2, ge=0, le=3, description="deepest hint search (cube decisions and resignations: at most 2)"
    )
    sse_poll_s: float = Field(0.5, gt=0, description="/events reads a job or game at most this often")
    sse_fallback_poll_s: float = Field(
        10.0, gt=0, description="/events reads a job or game this often without a notification"
    )
    sse_max_streams_per_key: int = Field(8, ge=1, description="event streams open at once per API key")
    sse_max_lifetime_s: float = Field(
        600.0, gt=0, description="an event stream ends after this long (the client reconnects)"
    )
    sse_keepalive_s: float = Field(15.0, gt=0, description="comment lines that keep idle streams open")
    trainer_ply: int = Field(
        2,
        ge=0,
        le=2,
        description="the search depth of the Play API trainer's verdicts (2: the master engine)",
    )
