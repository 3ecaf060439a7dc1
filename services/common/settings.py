"""Settings every gRPC service shares; each service subclasses with its own environment prefix."""

from __future__ import annotations

from typing import Any

from pydantic import Field
from pydantic_settings import BaseSettings


class ServiceSettings(BaseSettings):
    """Read from ``PULVEZAR_<SERVICE>_<NAME>`` (e.g. ``PULVEZAR_RULES_PORT``)."""

    host: str = "0.0.0.0"
    port: int = Field(50051, ge=0, le=65535, description="gRPC port; 0 picks a free one")
    metrics_port: int = Field(9101, ge=-1, le=65535, description="Prometheus /metrics; 0 = any, -1 = off")
    grace_period_s: float = Field(5.0, ge=0, description="in-flight RPCs get this long on SIGTERM")
    log_level: str = "INFO"


def cli_overrides(**values: Any) -> dict[str, Any]:
    """Command-line values that were given (``None`` means: keep the environment's)."""
    return {k: v for k, v in values.items() if v is not None}
