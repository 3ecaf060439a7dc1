"""A job kind that lives outside ``services/jobs/kinds``: each word of the request, upper-cased, one chunk
per word.  ``PULVEZAR_JOB_KINDS=echo_kind`` (this folder on ``PYTHONPATH``) adds it to the registry of the
gateway and the workers; ``tests/services/test_extra_kinds.py`` runs it with no edit anywhere else.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, Field

from services.jobs.kind import JobKind, JobRequest


class EchoRequest(JobRequest):
    words: list[str] = Field(min_length=1, max_length=16, description="the words to echo")


class EchoReport(BaseModel):
    echoed: list[str | None] = Field(description="each word upper-cased; null: not yet")


class Echo(JobKind):
    name = "echo"
    route = "echoes"
    summary = "each word upper-cased, one chunk per word (a test's kind)"
    Request = EchoRequest
    Report = EchoReport

    @classmethod
    def example(cls) -> dict[str, Any]:
        return {"words": ["gammon", "cube"]}

    def plan(self, request: Any) -> tuple[dict[str, Any], list[Any]]:
        return {"words": request.words}, [[i] for i in range(len(request.words))]  # a chunk is a list

    @classmethod
    def compute(cls, spec: Mapping[str, Any], chunk: Any, evaluator: Any) -> dict[str, Any]:
        return {"word": str(spec["words"][chunk[0]]).upper()}

    @classmethod
    def report(cls, spec: Mapping[str, Any], records: Sequence[Mapping[str, Any] | None]) -> dict[str, Any]:
        return {"echoed": [r["word"] if r is not None and "error" not in r else None for r in records]}

    @classmethod
    def chunk_cost(cls, spec: Mapping[str, Any], chunk: Any) -> float:
        return 0.001


KIND = Echo
