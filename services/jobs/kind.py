"""A job kind in one file: :class:`JobKind`, the chunked job whose spec holds its own chunk list.

A kind says five things and inherits the rest (submission, Redis and the durable store, state, ETA,
cancel, delete, restore, the worker's steps, the REST routes):

- ``Request``: the pydantic model of what a client sends; it is the gateway's request body too, and a
  :class:`pydantic.ValidationError` becomes :class:`~services.jobs.errors.InvalidJob` naming the field
  (``positions[3]``);
- :meth:`JobKind.plan`: the checked request cut into chunks (JSON values), plus what the spec keeps;
- :meth:`JobKind.compute`: one chunk's record, from the spec, the chunk and the worker's evaluator; it
  must not depend on what the process ran before (the same chunk gives the same bits on any worker);
- ``Report`` and :meth:`JobKind.report`: the kind's part of the status, from the finished chunks' records;
- :meth:`JobKind.chunk_cost`: a chunk's estimated core-seconds; their sum is what admission charges the
  job before it is accepted (:meth:`JobKind.estimate`; :mod:`services.gateway.security`).

A module of :mod:`services.jobs.kinds` that sets ``KIND = MyKind`` is found by the registry
(:func:`services.jobs.kinds.kinds`): the workers run its chunks with one generic task
(:data:`~services.jobs.broker.KIND_CHUNK_TASK`, arguments ``[kind, job_id, n]``), the gateway mounts
``POST /v1/{route}``, ``GET /v1/{route}``, ``GET|DELETE /v1/{route}/{id}``, ``.../result`` and
``.../events``, and the reconciler keeps its durable copy.  Keys, under ``{name}:{id}:``: ``spec`` (with
``chunks``, the list of chunk values) and :class:`~services.jobs.chunked.ChunkedJobs`' own.  A chunk that
fails after its retries is recorded as ``{"error": ...}``; the job then ends ``failed`` with the other
chunks' results kept.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from services.jobs.broker import KIND_CHUNK_TASK
from services.jobs.chunked import ChunkedJobs, timing
from services.jobs.errors import InvalidJob, text
from services.jobs.provenance import job_provenance
from services.jobs.states import JobState


class JobRequest(BaseModel):
    """The fields every kind's request has; a kind's ``Request`` subclasses it."""

    model_config = ConfigDict(extra="forbid")

    priority: Literal["interactive", "batch"] = Field(
        "batch", description="the queue: interactive jobs go before batch ones"
    )


def field_of(loc: Sequence[int | str]) -> str:
    """A pydantic error location as the API names fields: ``("positions", 3, "id")`` is
    ``positions[3].id``."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "request"


def checked(model: type[JobRequest], body: JobRequest | Mapping[str, Any]) -> JobRequest:
    """``body`` as ``model`` (a dict is validated; an instance is validated again through its dump)."""
    data = body.model_dump() if isinstance(body, BaseModel) else body
    if not isinstance(data, Mapping):
        raise InvalidJob("request", f"an object is required, got {type(data).__name__}")
    try:
        return model.model_validate(dict(data))
    except ValidationError as e:
        err = e.errors()[0]
        message = str(err.get("msg", "invalid")).removeprefix("Value error, ")
        raise InvalidJob(field_of(err.get("loc", ())), message) from None


class JobKind(ChunkedJobs):
    """A chunked job kind whose spec holds its chunks; subclass it in a module of
    :mod:`services.jobs.kinds`."""

    #: the kind's name: its Redis namespace, the durable store's ``kind`` (16 characters at most)
    name: ClassVar[str]
    #: the path of its REST resource under ``/v1`` (e.g. ``evaluations``)
    route: ClassVar[str]
    #: one line for the API's documentation
    summary: ClassVar[str]
    #: what a client sends (the gateway's request body)
    Request: ClassVar[type[JobRequest]]
    #: the kind's part of the status (``report`` in the job's JSON)
    Report: ClassVar[type[BaseModel]]
    #: the most chunks a job may have
    max_chunks: ClassVar[int] = 10_000

    task = KIND_CHUNK_TASK

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "name" in cls.__dict__:
            if len(cls.name) > 16:
                raise TypeError(f"a kind's name has at most 16 characters: {cls.name!r}")
            cls.namespace = cls.name
            cls.kinds = (cls.name,)
            cls.noun = cls.__dict__.get("noun", cls.name)

    # ---- what a kind provides ----------------------------------------------
    def plan(self, request: Any) -> tuple[dict[str, Any], list[Any]]:
        """``(fields, chunks)``: what the spec keeps of the checked request, and the chunks (JSON)."""
        raise NotImplementedError

    @classmethod
    def compute(cls, spec: Mapping[str, Any], chunk: Any, evaluator: Any) -> dict[str, Any]:
        """Chunk ``chunk``'s record (JSON); the runner adds its timings."""
        raise NotImplementedError

    @classmethod
    def report(cls, spec: Mapping[str, Any], records: Sequence[Mapping[str, Any] | None]) -> dict[str, Any]:
        """The ``Report`` fields from the records so far (None: the chunk is not finished)."""
        raise NotImplementedError

    @classmethod
    def work(cls, spec: Mapping[str, Any], chunk: Any) -> float:
        """How much work a chunk is, for progress and the ETA (1 each unless a kind says otherwise)."""
        return 1.0

    @classmethod
    def chunk_cost(cls, spec: Mapping[str, Any], chunk: Any) -> float:
        """A chunk's estimated core-seconds on a worker; every kind says (admission charges the sum)."""
        raise NotImplementedError(f"{cls.__name__} does not estimate its chunks' cost")

    @classmethod
    def cost(cls, spec: Mapping[str, Any]) -> float:
        """The estimated core-seconds of a planned job (its spec, with ``chunks``)."""
        return sum(cls.chunk_cost(spec, c) for c in spec["chunks"])

    def estimate(self, body: JobRequest | Mapping[str, Any]) -> float:
        """What :meth:`submit` of ``body`` would be charged, in core-seconds (nothing recorded)."""
        fields, chunks = self.plan(checked(self.Request, body))
        return self.cost({**fields, "chunks": chunks})

    def admit(self, request: Any, owner: str | None) -> None:
        """Checks that need the stores, before anything is recorded (:class:`InvalidJob` naming the
        field); none by default."""

    def accepted(self, request: Any, owner: str | None, job_id: str) -> None:
        """What a kind records once its job is accepted (e.g. for a player); nothing by default."""

    # ---- submission -----------------------------------------------------------
    def submit(
        self,
        body: JobRequest | Mapping[str, Any],
        owner: str | None = None,
        admit: Callable[[float], None] | None = None,
    ) -> str:
        """Check ``body``, cut it into chunks, record the job (the durable store first: accepted once
        it is there) and queue its chunks; the job's id.  ``admit``: called with the job's estimated
        core-seconds (:meth:`cost`) before anything is recorded.  Raises :class:`InvalidJob`."""
        request = checked(self.Request, body)
        self.admit(request, owner)
        fields, chunks = self.plan(request)
        if not chunks:
            raise InvalidJob("request", "the job has nothing to do")
        if len(chunks) > self.max_chunks:
            raise InvalidJob("request", f"the job would have {len(chunks)} chunks, at most {self.max_chunks}")
        job_id = secrets.token_hex(12)
        priority = request.priority
        spec = {"id": job_id, "kind": self.name, "priority": priority, "created": time.time(), **fields}
        spec["chunks"] = chunks
        if admit is not None:
            admit(self.cost(spec))
        if self.records is not None:
            self.records.create(
                job_id,
                self.name,
                spec,
                owner=owner,
                priority=priority,
                chunk_list=chunks,
                created=spec["created"],
            )
        self.redis.set(self.spec_key(job_id), json.dumps(spec), ex=self.settings.job_ttl_s)
        self.enqueue(job_id, priority, range(len(chunks)), owner=owner)
        self.accepted(request, owner, job_id)
        return job_id

    def task_args(self) -> list[Any]:
        return [self.name]

    def restore(self, job_id: str, row: Any) -> None:
        pipe = self.redis.pipeline(transaction=True)
        pipe.set(self.spec_key(job_id), json.dumps(dict(row.spec)), ex=self.settings.job_ttl_s)
        self.write_once(pipe, job_id, self.records.chunks(job_id))
        pipe.execute()

    # ---- reading ----------------------------------------------------------------
    def chunk_count(self, job_id: str, spec: Mapping[str, Any]) -> int:
        return len(spec["chunks"])

    def gather(self, job_id: str) -> tuple[dict[str, Any], list[dict[str, Any] | None]]:
        """The spec and every chunk's record (None: not finished), from Redis or the durable store."""
        spec = self.spec(job_id)
        numbers = list(range(len(spec["chunks"])))
        if self.redis.exists(self.spec_key(job_id)):
            found = self.records_of(job_id, numbers)
        else:
            found = self.records.chunks(job_id) if self.records is not None else {}
        return spec, [found.get(n) for n in numbers]

    def _counts(self, records: Sequence[Mapping[str, Any] | None]) -> tuple[int, int]:
        failed = sum(1 for r in records if r is not None and "error" in r)
        return sum(1 for r in records if r is not None) - failed, failed

    def state(self, job_id: str) -> tuple[str, str | None]:
        _spec, records = self.gather(job_id)
        return self.state_of(job_id, *self._counts(records), len(records))

    def status(self, job_id: str) -> dict[str, Any]:
        """State, progress, ETA, the engine of the chunks finished so far (``provenance``, and ``engines``
        where their nets differ: :func:`~services.jobs.provenance.job_provenance`) and their ``report``."""
        spec, records = self.gather(job_id)
        done, failed = self._counts(records)
        state, error = self.state_of(job_id, done, failed, len(records))
        if error is None and failed:
            error = next(str(r["error"]) for r in records if r is not None and "error" in r)
        sizes = [self.work(spec, c) for c in spec["chunks"]]
        finished = [r for r in records if r is not None and "error" not in r]
        work_done = sum(s for s, r in zip(sizes, records, strict=True) if r is not None)
        eta, elapsed = timing(finished, work_done, sum(sizes) - work_done, state)
        return {
            "id": job_id,
            "kind": self.name,
            "priority": spec["priority"],
            "state": state,
            "error": error,
            "chunks_done": done + failed,
            "chunks_total": len(records),
            "progress": work_done / sum(sizes) if sizes else 0.0,
            "eta_s": eta,
            "elapsed_s": elapsed,
            "created": spec["created"],
            **job_provenance(records),
            "report": self.report(spec, records),
        }

    def result(self, job_id: str) -> dict[str, Any] | None:
        """The status of a job that is done; None otherwise (queued, running, failed or cancelled)."""
        status = self.status(job_id)
        return status if status["state"] == JobState.DONE else None

    # ---- the worker's side (services.rollout.kind_tasks) ---------------------------
    @classmethod
    def load(cls, r: Any, job_id: str, n: int) -> tuple[dict[str, Any], Any] | None:
        """The spec and chunk ``n`` from Redis, or None when the job is not there."""
        raw = r.get(cls.spec_key(job_id))
        if raw is None:
            return None
        spec: dict[str, Any] = json.loads(text(raw) or "null")
        chunks = spec.get("chunks", [])
        return (spec, chunks[n]) if 0 <= n < len(chunks) else None

    @classmethod
    def write_record(cls, r: Any, job_id: str, n: int, record: Mapping[str, Any], ttl: int) -> bool:
        """Chunk ``n``'s record, once (``SET NX``): True when this one was the first."""
        return bool(r.set(cls.chunk_key(job_id, n), json.dumps(record), nx=True, ex=ttl))

    @classmethod
    def failure(cls, n: int, error: Exception) -> dict[str, Any]:
        """The record of a chunk that failed after its retries."""
        return {"error": f"chunk {n} failed: {error!r}"[:500], "failed": time.time()}
