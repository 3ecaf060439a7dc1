"""Settings every gRPC service shares; each service subclasses with its own environment prefix."""

from __future__ import annotations

from typing import Any

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from services.common.grpc_auth import GRPC_TOKEN_ENV


class ServiceSettings(BaseSettings):
    """Read from ``PULVEZAR_<SERVICE>_<NAME>`` (e.g. ``PULVEZAR_RULES_PORT``); the gRPC token is every
    service's ``PULVEZAR_GRPC_TOKEN``."""

    model_config = SettingsConfigDict(populate_by_name=True)

    host: str = "0.0.0.0"
    port: int = Field(50051, ge=0, le=65535, description="gRPC port; 0 picks a free one")
    metrics_port: int = Field(9101, ge=-1, le=65535, description="Prometheus /metrics; 0 = any, -1 = off")
    grace_period_s: float = Field(5.0, ge=0, description="in-flight RPCs get this long on SIGTERM")
    log_level: str = "INFO"
    grpc_token: SecretStr | None = Field(
        None,
        validation_alias=GRPC_TOKEN_ENV,
        description="calls must carry `authorization: Bearer <token>` (health checks excepted); unset: open",
    )


def cli_overrides(**values: Any) -> dict[str, Any]:
    """Command-line values that were given (``None`` means: keep the environment's)."""
    return {k: v for k, v in values.items() if v is not None}
