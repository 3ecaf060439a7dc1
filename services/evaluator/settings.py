"""Settings of the Evaluator service, from ``PULVEZAR_EVALUATOR_*`` environment variables."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import SettingsConfigDict

from services.common.settings import ServiceSettings


class EvaluatorSettings(ServiceSettings):
    model_config = SettingsConfigDict(env_prefix="PULVEZAR_EVALUATOR_")

    port: int = Field(50052, ge=0, le=65535)
    metrics_port: int = Field(9102, ge=-1, le=65535)
    model_path: Path | None = Field(None, description="default: PULVEZAR_MODEL, else the shipped net")
    device: Literal["auto", "cpu", "cuda"] = "auto"  # auto: CUDA when torch sees a GPU
    max_batch_size: int = Field(1024, ge=1, description="boards per forward pass")
    max_wait_ms: float = Field(2.0, ge=0, description="how long a batch waits for more requests")
    queue_size: int = Field(1024, ge=1, description="waiting requests before RESOURCE_EXHAUSTED")
    max_positions: int = Field(4096, ge=1, description="positions per Evaluate request")
    max_packed_boards: int = Field(
        65536, ge=1, le=80000, description="boards per EvaluatePacked request (50 bytes each; 4 MB a message)"
    )
    analysis_workers: int = Field(
        2, ge=1, description="hints, cube decisions and resignations at ply >= 1 computed at once (threads)"
    )
    analysis_queue: int = Field(
        64, ge=1, description="heavy analyses waiting or running before RESOURCE_EXHAUSTED"
    )
    max_hint_ply: int = Field(3, ge=0, le=3, description="deepest hint search")
    batch_delay_ms: float = Field(0.0, ge=0, description="testing only: a slow model (extra time per batch)")
