"""Settings of the Rules service, from ``PULVEZAR_RULES_*`` environment variables."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import SettingsConfigDict

from services.common.settings import ServiceSettings


class RulesSettings(ServiceSettings):
    model_config = SettingsConfigDict(env_prefix="PULVEZAR_RULES_")

    port: int = Field(50051, ge=0, le=65535)
    metrics_port: int = Field(9101, ge=-1, le=65535)
