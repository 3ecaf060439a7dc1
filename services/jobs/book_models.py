"""The typed status of an opening-book job: what :meth:`~services.jobs.kinds.book.BookKind.book_status`
returns, field by field (the gateway's ``BookJob`` extends :class:`BookStatus` with its link and the book).

The settings, rules and engine are the library's JSON (:class:`pulvezar.book.generate.BookSettings`,
``engine_info``) and stay objects here.  Other keys are forbidden.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["BookState", "BookStatus"]

BookState = Literal["searching", "rolling out", "replying", "done", "failed"]


class BookStatus(BaseModel):
    """A book job's state and progress."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="the job's id (a digest of its settings and engine)")
    state: BookState = Field(description="searching, rolling out, replying, done or failed")
    rules: dict[str, Any] = Field(description="the rule set: variant, hit_and_stop, must_bear_off")
    settings: dict[str, Any] = Field(description="the generation's settings (trials, candidates, plies, ...)")
    engine: dict[str, Any] = Field(description="the engine that searches: version and model checksum")
    created: str = Field(description="when the job was created (UTC, ISO 8601)")
    error: str | None = Field(description="why it failed")
    rolls_total: int = Field(description="opening rolls of the book")
    rolls_searched: int = Field(description="rolls whose candidates are searched")
    rollout_job: str | None = Field(
        description="jobs made before books were a job kind: their batch rollout job "
        "(GET /v1/batch-rollouts/{id}); null since (the rollouts are the book job's own chunks)"
    )
    trials_done: int = Field(description="the rollout job's trials done")
    trials_total: int = Field(description="the rollout job's trials")
    rolls_replied: int = Field(description="rolls whose best replies are searched")
    progress: float = Field(description="0..1: searches 10%, rollouts 80%, replies 10%")
    eta_s: float | None = Field(description="the rollouts' seconds left, if known")
    driver: bool = Field(description="always false since books are a job kind (the workers run its chunks)")
