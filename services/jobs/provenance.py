"""Which engine made a job's results (issue 41): the ``Engine`` model every response that carries an
evaluation names, and how a job's chunk records name theirs.

Every chunk record a worker writes carries ``"engine"``, the library's
:meth:`~pulvezar.eval.provenance.EngineInfo.to_json` of the evaluator the chunk ran on (a remote one:
the name and SHA-256 the Evaluator service reported).  A job's chunks may run on workers with
different nets (a rolling update); the job does not claim one net then: :func:`job_engine` checks that
the finished chunks agree (same SHA-256 and version) and gives their engine, else None with each
distinct engine listed (a report's ``engines``).  Chunks written before records named their engine
count as an unknown engine.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Mapping
from typing import Annotated, Any, NotRequired, TypedDict

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "Engine",
    "EnginesField",
    "Provenance",
    "ProvenanceField",
    "chunk_engine",
    "engine_of",
    "job_engine",
    "job_provenance",
]


class Engine(BaseModel):
    """Which engine made a result: pulvezar's version and the net, by name and model-file SHA-256
    (``GET /v1/models`` lists the nets); null where a stored result does not say."""

    model_config = ConfigDict(extra="forbid")

    model: str | None = Field(description='the net\'s name, e.g. "pulvezar-v4"; null: unknown')
    model_sha256: str | None = Field(description="SHA-256 of the net's model file; null: unknown")
    version: str = Field(description="pulvezar's version")


#: a job report's ``provenance``: the engine its finished chunks agree on (:func:`job_engine`)
ProvenanceField = Annotated[
    Engine | None,
    Field(
        description="the engine and net of the finished chunks (GET /v1/models); null before the first "
        "chunk, or when chunks were computed by different nets (then `engines` lists them)"
    ),
]
#: a job report's ``engines``: present only when its finished chunks' nets differ
EnginesField = Annotated[
    list[Engine] | None,
    Field(description="only when the finished chunks' nets differ: each engine that computed some"),
]


class Provenance(TypedDict):
    """A report's provenance fields, as :func:`job_provenance` gives them (:class:`Engine` dumps)."""

    provenance: dict[str, Any] | None
    engines: NotRequired[list[dict[str, Any]]]


def engine_of(data: Mapping[str, Any] | None) -> Engine:
    """The :class:`Engine` of a stored result's ``engine`` JSON (a book's, an analysis's, a chunk's:
    any shape :meth:`pulvezar.eval.provenance.EngineInfo.from_json` reads)."""
    from pulvezar.eval.provenance import EngineInfo

    e = EngineInfo.from_json(dict(data) if data else None)
    return Engine(model=e.model, model_sha256=e.model_sha256, version=e.version)


def chunk_engine(evaluator: Any) -> dict[str, Any]:
    """The ``engine`` of a chunk record: the worker process's evaluator (not a wrapper around it). A
    client of the Evaluator service that has not learnt the service's model yet (it evaluated only
    through a rule set's view) asks the service for it."""
    from pulvezar.eval.provenance import engine_info
    from services.common.remote_evaluator import GrpcEvaluator

    if isinstance(evaluator, GrpcEvaluator) and not evaluator.model:
        with contextlib.suppress(Exception):  # the chunk's numbers stand; its net is then unknown
            evaluator.info(5.0)
    return engine_info(evaluator).to_json()


def job_engine(records: Iterable[Mapping[str, Any] | None]) -> tuple[Engine | None, list[Engine]]:
    """The engine of a job's finished chunk ``records`` (None: not finished; a failed chunk's record,
    without values, does not count): ``(engine, [engine])`` when they agree (same net SHA-256 and
    version), ``(None, [each distinct engine])`` when they do not, ``(None, [])`` before any."""
    seen: dict[tuple[str | None, str], Engine] = {}
    for rec in records:
        if rec is None or "error" in rec:
            continue
        e = engine_of(rec.get("engine"))
        seen.setdefault((e.model_sha256, e.version), e)
    engines = list(seen.values())
    return (engines[0] if len(engines) == 1 else None), engines


def job_provenance(records: Iterable[Mapping[str, Any] | None]) -> Provenance:
    """A report's ``provenance`` (the agreed engine, or null) and, where the chunks' nets differ,
    ``engines`` (each one): see :func:`job_engine`."""
    engine, engines = job_engine(records)
    out: Provenance = {"provenance": engine.model_dump() if engine is not None else None}
    if len(engines) > 1:
        out["engines"] = [e.model_dump() for e in engines]
    return out
