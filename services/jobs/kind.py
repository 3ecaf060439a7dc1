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

A kind names its types, ``class MyKind(JobKind[MyRequest, MyChunk, MyRecord, MyReport])`` (the checked
request, a chunk's JSON value, a finished chunk's record and the report's fields; ``Any`` each where
left out), and mypy --strict checks its hooks against them.

A module of :mod:`services.jobs.kinds` that sets ``KIND = MyKind`` is found by the registry
(:func:`services.jobs.kinds.kinds`): the workers run its chunks with one generic task
(:data:`~services.jobs.broker.KIND_CHUNK_TASK`, arguments ``[kind, job_id, n]``), the gateway mounts
``POST /v1/{route}``, ``GET /v1/{route}``, ``GET|DELETE /v1/{route}/{id}``, ``.../result`` and
``.../events``, and the reconciler keeps its durable copy.  Keys, under ``{name}:{id}:``: ``spec`` (with
``chunks``, the list of chunk values) and :class:`~services.jobs.chunked.ChunkedJobs`' own.  A chunk that
fails after its retries is recorded as ``{"error": ...}``; the job then ends ``failed`` with the other
chunks' results kept (a kind with ``fail_fast`` fails at once).

Optional hooks, for kinds that need them: ``Extension`` and :meth:`JobKind.extension` (more work for a
job, appended to its chunk list: :meth:`JobKind.extend`), ``namespace`` (Redis keys under a name other
than the kind's), ``own_routes`` (the kind's routes are written by hand, to keep a wire format older than
the route factory), :meth:`JobKind.trials_of` (trials counted in the workers' metrics) and
:meth:`JobKind.example` (a small request, which the test over every kind submits), and
:meth:`JobKind.next_chunks` (a job in stages: once its last chunk is recorded the worker appends the next
stage, planned from the records, through :meth:`JobKind.next_stage`).  For kinds with
uploads and per-chunk follow-up (match analyses, books, daily runs): :meth:`JobKind.uploads` (files kept
with the job: ``{name}:{id}:file:{m}`` in Redis and blob ``file:{m}`` in the durable store, read back
with :meth:`JobKind.file`), :meth:`JobKind.run_chunk` (the worker's computation through the store, which
reads the uploads; :meth:`JobKind.compute` by default), :meth:`JobKind.chunk_done` (after a chunk's
record is written: e.g. a match's finalisation once its last game is in), :meth:`JobKind.duplicate` and
:meth:`JobKind.failure` (a kind's own record of a redelivered or failed chunk), and
:meth:`JobKind.resume_stopped` (a cancelled or failed job runs again, its finished chunks kept).
"""

from __future__ import annotations

import base64
import binascii
import json
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, Generic, Literal, cast

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from redis.exceptions import WatchError
from typing_extensions import TypeVar  # a type parameter's default (PEP 696; typing's from 3.13)

from services.jobs.broker import KIND_CHUNK_TASK
from services.jobs.chunked import ChunkedJobs, timing
from services.jobs.errors import InvalidJob, JobStateError, text
from services.jobs.provenance import job_provenance
from services.jobs.states import STOPPED, JobState


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


M = TypeVar("M", bound=BaseModel)

#: a kind's type parameters (each ``Any`` where a kind leaves them out: ``JobKind`` alone is any kind)
#: the checked request (the kind's ``Request``)
RequestT = TypeVar("RequestT", bound=JobRequest, default=Any)
#: one chunk, a JSON value as the spec's ``chunks`` hold it (e.g. ``list[int]``)
ChunkT = TypeVar("ChunkT", default=Any)
#: a finished chunk's record, JSON (e.g. a ``TypedDict``); a failed chunk's is :meth:`JobKind.failure`'s
RecordT = TypeVar("RecordT", bound=Mapping[str, Any], default=Any)
#: the ``Report`` fields, JSON
ReportT = TypeVar("ReportT", bound=Mapping[str, Any], default=Any)


def checked(model: type[M], body: BaseModel | Mapping[str, Any]) -> M:
    """``body`` as ``model``: an instance of it is returned as it is (validated at the edge once); a dict,
    or another model through its dump, is validated."""
    if isinstance(body, model):
        return body
    data = body.model_dump() if isinstance(body, BaseModel) else body
    if not isinstance(data, Mapping):
        raise InvalidJob("request", f"an object is required, got {type(data).__name__}")
    try:
        return model.model_validate(dict(data))
    except ValidationError as e:
        err = e.errors()[0]
        message = str(err.get("msg", "invalid")).removeprefix("Value error, ")
        raise InvalidJob(field_of(err.get("loc", ())), message) from None


def _func(method: Any) -> Any:
    """The function under a bound class method (to tell whether a kind overrides one)."""
    return getattr(method, "__func__", method)


class JobKind(ChunkedJobs, Generic[RequestT, ChunkT, RecordT, ReportT]):
    """A chunked job kind whose spec holds its chunks; subclass it in a module of
    :mod:`services.jobs.kinds`, naming its types: ``JobKind[Request, Chunk, Record, Report]`` (the
    checked request, a chunk's JSON value, a finished chunk's record and the report's fields), so that
    its :meth:`plan`, :meth:`compute`, :meth:`report` and :meth:`run_chunk` are typed by its own types.
    The records that :meth:`report` and :meth:`progress` get are JSON read back: they may be a failed
    chunk's (``"error"`` in it)."""

    #: the kind's name: its Redis namespace, the durable store's ``kind`` (16 characters at most)
    name: ClassVar[str]
    #: the path of its REST resource under ``/v1`` (e.g. ``evaluations``)
    route: ClassVar[str]
    #: one line for the API's documentation
    summary: ClassVar[str]
    #: what a client sends (the gateway's request body); a class attribute (``ClassVar`` cannot name a
    #: type parameter)
    Request: type[RequestT]
    #: the kind's part of the status (``report`` in the job's JSON)
    Report: ClassVar[type[BaseModel]]
    #: the most chunks a job may have
    max_chunks: ClassVar[int] = 10_000
    #: what :meth:`extend` takes (None: the kind's jobs cannot be extended)
    Extension: ClassVar[type[BaseModel] | None] = None
    #: a chunk that fails after its retries fails the job at once (else once the other chunks end)
    fail_fast: ClassVar[bool] = False
    #: the gateway's route factory leaves this kind out: its routes are written by hand
    own_routes: ClassVar[bool] = False
    #: the spec names the job's owner (``owner``): the workers act in its name without the durable store
    #: (e.g. a match analysis's archive of positions)
    keeps_owner: ClassVar[bool] = False
    #: the field that the 422 of a job over the chunk cap (:meth:`chunk_limit`) names on submission and on
    #: :meth:`extend` (a rollout's ``trials`` and ``more_trials``: what makes its chunks)
    chunk_cap_field: ClassVar[str] = "request"
    extension_cap_field: ClassVar[str] = "request"

    task = KIND_CHUNK_TASK

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "name" in cls.__dict__:
            if len(cls.name) > 16:
                raise TypeError(f"a kind's name has at most 16 characters: {cls.name!r}")
            cls.namespace = cls.__dict__.get("namespace", cls.name)
            cls.kinds = cls.__dict__.get("kinds", (cls.name,))
            cls.noun = cls.__dict__.get("noun", cls.name)

    # ---- what a kind provides ----------------------------------------------
    def plan(self, request: RequestT) -> tuple[dict[str, Any], list[ChunkT]]:
        """``(fields, chunks)``: what the spec keeps of the checked request, and the chunks (JSON); a
        ``priority`` among the fields is the job's (else the request's)."""
        raise NotImplementedError

    @classmethod
    def compute(cls, spec: Mapping[str, Any], chunk: ChunkT, evaluator: Any) -> RecordT:
        """Chunk ``chunk``'s record (JSON); the runner adds its timings."""
        raise NotImplementedError

    @classmethod
    def report(cls, spec: Mapping[str, Any], records: Sequence[RecordT | None]) -> ReportT:
        """The ``Report`` fields from the records so far (None: the chunk is not finished)."""
        raise NotImplementedError

    @classmethod
    def work(cls, spec: Mapping[str, Any], chunk: ChunkT) -> float:
        """How much work a chunk is, for progress and the ETA (1 each unless a kind says otherwise)."""
        return 1.0

    @classmethod
    def chunk_cost(cls, spec: Mapping[str, Any], chunk: ChunkT) -> float:
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

    @classmethod
    def example(cls) -> dict[str, Any]:
        """A small request of this kind (a few seconds of work): the test over every kind submits it."""
        raise NotImplementedError(f"{cls.__name__} gives no example request")

    @classmethod
    def trials_of(cls, record: RecordT) -> int:
        """The trials a finished chunk's record holds, for the workers' trial counter (0: none)."""
        return 0

    @classmethod
    def log_fields(cls, spec: Mapping[str, Any], chunk: ChunkT) -> dict[str, Any]:
        """What the worker's "chunk started" log line says of a chunk besides its number (nothing)."""
        return {}

    def extension(self, spec: Mapping[str, Any], extension: Any) -> tuple[list[ChunkT], float]:
        """``(chunks, cost)``: the chunks that ``extension`` (an ``Extension``) adds to the job of ``spec``
        (its ``chunks`` the current list), and their estimated core-seconds; :class:`InvalidJob` naming the
        field when it cannot be done."""
        raise NotImplementedError(f"{type(self).__name__} jobs cannot be extended")

    def next_chunks(self, spec: Mapping[str, Any], records: Sequence[RecordT]) -> list[ChunkT]:
        """The next stage's chunks of a job whose every chunk so far is finished (``records``, in order,
        none failed), planned from them: a kind whose stages depend on the one before (a book's rollouts
        on its searches) says; none by default (the job is done).  It must be a pure function of the
        spec and the records (whether there is one; its cut may follow the settings): the state asks it
        too (a job with a stage to come is not done)."""
        return []

    def new_id(self, request: RequestT, owner: str | None) -> str:
        """The id of a new job of the checked ``request`` (random unless a kind derives it)."""
        return secrets.token_hex(12)

    def progress(self, spec: Mapping[str, Any], records: Sequence[RecordT | None], state: str) -> float:
        """0..1: the work of the finished chunks over all (:meth:`work`); a kind in stages says how its
        stages weigh (the chunks so far are not all of its work, and progress must never go back)."""
        sizes = [self.work(spec, c) for c in spec["chunks"]]
        done = sum(s for s, r in zip(sizes, records, strict=True) if r is not None)
        return done / sum(sizes) if sizes else 0.0

    def chunk_limit(self) -> int:
        """The most chunks a job may have (:attr:`max_chunks` unless the kind's settings say)."""
        return self.max_chunks

    def admit(self, request: RequestT, owner: str | None) -> None:
        """Checks that need the stores, before anything is recorded (:class:`InvalidJob` naming the
        field); none by default."""

    def accepted(self, request: RequestT, owner: str | None, job_id: str) -> None:
        """What a kind records once its job is accepted (e.g. for a player); nothing by default."""

    # ---- uploads and the worker's hooks (optional) ------------------------------
    def uploads(self, request: RequestT) -> list[bytes]:
        """The files kept with a job of the checked ``request`` (file ``m``: :meth:`file`); none by
        default.  They are written before the spec, so a visible spec has its files."""
        return []

    @classmethod
    def upload_count(cls, spec: Mapping[str, Any]) -> int:
        """How many files a job of ``spec`` keeps (0 by default)."""
        return 0

    @classmethod
    def file_key(cls, job_id: str, m: int) -> str:
        return cls.key(job_id, f"file:{m}")

    def file(self, job_id: str, m: int) -> bytes:
        """File ``m`` of the job: Redis (base64), else the durable store's blob ``file:{m}`` (the
        reconciler drops an ended job's files from Redis)."""
        raw = text(self.redis.get(self.file_key(job_id, m)))
        if raw is not None:
            try:
                return base64.b64decode(raw, validate=True)
            except binascii.Error:
                raise self.not_found(job_id) from None
        kept = self.records.blob(job_id, f"file:{m}")
        if kept is None:
            raise self.not_found(job_id)
        return bytes(kept)

    def write_files(
        self, pipe: Any, job_id: str, files: Sequence[bytes] | Mapping[int, bytes], only_missing: bool = False
    ) -> None:
        """Queue on ``pipe`` the writes of the job's files to Redis (``only_missing``: ``SET NX``)."""
        numbered = files.items() if isinstance(files, Mapping) else enumerate(files)
        for m, data in numbered:
            encoded = base64.b64encode(data).decode()
            pipe.set(self.file_key(job_id, m), encoded, ex=self.settings.job_ttl_s, nx=only_missing)

    def job_keys(self, job_id: str, spec: Mapping[str, Any]) -> list[str]:
        return [self.file_key(job_id, m) for m in range(self.upload_count(spec))]

    def stored_files(self, job_id: str, spec: Mapping[str, Any]) -> list[bytes]:
        """The job's files from the durable store (for a job that Redis lost or dropped them of)."""
        return [self.records.blob(job_id, f"file:{m}") or b"" for m in range(self.upload_count(spec))]

    def run_chunk(self, spec: Mapping[str, Any], chunk: ChunkT, evaluator: Any) -> RecordT:
        """What the worker computes for a chunk, through this store (which can read the job's uploads):
        :meth:`compute` unless the kind says otherwise."""
        return self.compute(spec, chunk, evaluator)

    def chunk_done(
        self, job_id: str, n: int, spec: Mapping[str, Any], chunk: ChunkT, record: RecordT
    ) -> None:
        """On the worker, after chunk ``n``'s record is written (and stored durably): a kind's follow-up
        (e.g. finalising a match once its last game is in); nothing by default.  Its failure is logged,
        never the chunk's."""

    @classmethod
    def duplicate(cls, r: Any, job_id: str, n: int, ttl: int) -> None:
        """On the worker, for a chunk whose record exists already (a redelivery): what a kind makes sure
        of besides the record, its keys expiring in ``ttl`` seconds (nothing by default)."""

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
        if len(chunks) > self.chunk_limit():
            raise InvalidJob(
                self.chunk_cap_field, f"the job would have {len(chunks)} chunks, at most {self.chunk_limit()}"
            )
        job_id = self.new_id(request, owner)
        priority = fields.pop("priority", None) or request.priority  # a plan may choose it
        spec = {"id": job_id, "kind": self.name, "priority": priority, "created": time.time(), **fields}
        spec["chunks"] = chunks
        if self.keeps_owner:
            spec["owner"] = owner
        if admit is not None:
            admit(self.cost(spec))
        files = self.uploads(request)
        self.records.create(
            job_id,
            self.name,
            spec,
            owner=owner,
            priority=priority,
            chunk_list=cast("list[Any]", chunks),  # JSON lists (the store's annotation says of ints)
            created=spec["created"],
            blobs={f"file:{m}": data for m, data in enumerate(files)},
        )
        pipe = self.redis.pipeline(transaction=True)
        self.write_files(pipe, job_id, files)
        pipe.set(self.spec_key(job_id), json.dumps(spec), ex=self.settings.job_ttl_s)
        pipe.execute()
        self.enqueue(job_id, priority, range(len(chunks)), owner=owner)
        self.accepted(request, owner, job_id)
        return job_id

    def extend(
        self, job_id: str, body: BaseModel | Mapping[str, Any], admit: Callable[[float], None] | None = None
    ) -> int:
        """More work for a job (``body``: the kind's ``Extension``): the chunks of :meth:`extension` are
        appended to its chunk list (the durable store's too) and queued; how many.  A finished job runs
        again; a cancelled or failed one cannot be extended (:class:`JobStateError`).  ``admit``: called
        with their estimated core-seconds before anything changes."""
        if self.Extension is None:
            raise JobStateError(f"{self.noun} jobs cannot be extended")
        extension = checked(self.Extension, body)
        if not self.redis.exists(self.spec_key(job_id)):
            self.rehydrate(job_id)  # Redis lost it: back first, so that the new chunks follow the old
        if self.redis.exists(self.cancel_key(job_id)) or self.redis.exists(self.error_key(job_id)):
            raise JobStateError(f"job {job_id} was cancelled or failed; it cannot be extended")
        admitted = False

        def more(spec: dict[str, Any]) -> list[ChunkT]:
            nonlocal admitted
            new, cost = self.extension(spec, extension)
            if len(spec["chunks"]) + len(new) > self.chunk_limit():
                raise InvalidJob(
                    self.extension_cap_field, f"the job would have more than {self.chunk_limit()} chunks"
                )
            if admit is not None and not admitted:
                admit(cost)
                admitted = True
            return new

        return self._append(job_id, more, missing=lambda: self.not_found(job_id))

    def _append(
        self,
        job_id: str,
        more: Callable[[dict[str, Any]], list[ChunkT] | None],
        missing: Callable[[], Exception] | None = None,
    ) -> int:
        """Append ``more(spec)``'s chunks to a job's chunk list under ``WATCH`` (again if another process
        changed the spec meanwhile), reopen the durable chunk list and queue them; how many (0: none, or
        no spec and no ``missing`` error to raise)."""
        key = self.spec_key(job_id)
        with self.redis.pipeline(transaction=True) as pipe:
            while True:  # optimistic: again if another extend or stage changed the spec meanwhile
                try:
                    pipe.watch(key)
                    raw = pipe.get(key)
                    if raw is None:
                        if missing is not None:
                            raise missing()
                        return 0
                    spec = self.stored_spec(pipe, job_id, text(raw) or "null")
                    old = len(spec["chunks"])
                    new = more(spec)
                    if not new:
                        return 0
                    spec["chunks"] = spec["chunks"] + new
                    pipe.multi()
                    pipe.set(key, json.dumps(spec), ex=self.settings.job_ttl_s)
                    pipe.execute()
                    break
                except WatchError:
                    continue
        self.records.reopen(job_id, spec["chunks"])  # the longer chunk list is accepted once it is stored
        self.enqueue(job_id, spec["priority"], range(old, old + len(new)))
        return len(new)

    def next_stage(self, job_id: str) -> int:
        """Append and queue the next stage of a job whose last chunk is recorded (:meth:`next_chunks`,
        through the ``WATCH``ed spec as :meth:`extend`, the durable chunk list reopened); how many chunks
        (0: a chunk is unfinished or failed, the job is stopped, or there is no next stage).  The worker
        calls it after each chunk; two workers that finish the last two chunks at once append it once."""
        if _func(type(self).next_chunks) is _func(JobKind.next_chunks):
            return 0
        if self.redis.exists(self.cancel_key(job_id)) or self.redis.exists(self.error_key(job_id)):
            return 0

        def more(spec: dict[str, Any]) -> list[ChunkT] | None:
            old = len(spec["chunks"])
            found = self.records_of(job_id, list(range(old)))
            if len(found) < old or any("error" in r for r in found.values()):
                return None
            return self.next_chunks(spec, cast("list[RecordT]", [found[n] for n in range(old)]))

        return self._append(job_id, more)

    def resume(self, job_id: str) -> int:
        """As :meth:`ChunkedJobs.resume`; a job whose last chunks are in but whose next stage was never
        appended (its worker died between the two) gets it now."""
        return super().resume(job_id) or self.next_stage(job_id)

    def rehydrate(self, job_id: str) -> int:
        return super().rehydrate(job_id) or self.next_stage(job_id)

    def task_args(self) -> list[Any]:
        return [self.name]

    def spec(self, job_id: str) -> dict[str, Any]:
        """The job's spec (with ``chunks``): from Redis, else the durable store's row."""
        raw = text(self.redis.get(self.spec_key(job_id)))
        if raw is not None:
            return self.stored_spec(self.redis, job_id, raw)
        row = self.row(job_id)
        if row is None:
            raise self.not_found(job_id)
        return self.spec_of(row)

    @classmethod
    def stored_spec(cls, r: Any, job_id: str, raw: str) -> dict[str, Any]:
        """The spec that Redis holds as ``raw`` (JSON), as the kind reads it: a kind whose older jobs kept
        their chunks elsewhere (``r``: the client or pipeline to read them with) puts them in."""
        spec: dict[str, Any] = json.loads(raw)
        return spec

    @staticmethod
    def spec_of(row: Any) -> dict[str, Any]:
        """A durable row's spec, its chunks the row's chunk list (an extended job's is longer)."""
        spec = dict(row.spec)
        if row.chunk_list is not None:
            spec["chunks"] = [list(c) if isinstance(c, list | tuple) else c for c in row.chunk_list]
        return spec

    def restore(self, job_id: str, row: Any) -> None:
        pipe = self.redis.pipeline(transaction=True)
        self.write_files(pipe, job_id, self.stored_files(job_id, self.spec_of(row)))
        pipe.set(self.spec_key(job_id), json.dumps(self.spec_of(row)), ex=self.settings.job_ttl_s)
        self.write_once(pipe, job_id, self.records.chunks(job_id))
        pipe.execute()

    # ---- reading ----------------------------------------------------------------
    def chunk_count(self, job_id: str, spec: Mapping[str, Any]) -> int:
        return len(spec["chunks"])

    def gather(self, job_id: str) -> tuple[dict[str, Any], list[RecordT | None]]:
        """The spec and every chunk's record (None: not finished), from Redis or the durable store (JSON
        as the kind wrote it: :meth:`run_chunk`'s record, or a failed chunk's)."""
        spec = self.spec(job_id)
        numbers = list(range(len(spec["chunks"])))
        if self.redis.exists(self.spec_key(job_id)):
            found = self.records_of(job_id, numbers)
        else:
            found = self.records.chunks(job_id)
        return spec, cast("list[RecordT | None]", [found.get(n) for n in numbers])

    def _counts(self, records: Sequence[Mapping[str, Any] | None]) -> tuple[int, int]:
        failed = sum(1 for r in records if r is not None and "error" in r)
        return sum(1 for r in records if r is not None) - failed, failed

    def _state(
        self, job_id: str, spec: Mapping[str, Any], records: Sequence[RecordT | None]
    ) -> tuple[JobState, str | None]:
        """The state from the records; a job whose chunks are all finished but which has a next stage
        (:meth:`next_chunks`) is running, not done."""
        state, error = self.state_of(job_id, *self._counts(records), len(records))
        if state == JobState.DONE and _func(type(self).next_chunks) is not _func(JobKind.next_chunks):
            finished = [r for r in records if r is not None]
            if self.next_chunks(spec, finished):
                return JobState.RUNNING, None
        return state, error

    def state(self, job_id: str) -> tuple[JobState, str | None]:
        spec, records = self.gather(job_id)
        return self._state(job_id, spec, records)

    def status(self, job_id: str) -> dict[str, Any]:
        """State, progress, ETA, the engine of the chunks finished so far (``provenance``, and ``engines``
        where their nets differ: :func:`~services.jobs.provenance.job_provenance`) and their ``report``."""
        spec, records = self.gather(job_id)
        done, failed = self._counts(records)
        state, error = self._state(job_id, spec, records)
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
            "progress": self.progress(spec, records, state),
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
        spec = cls.stored_spec(r, job_id, text(raw) or "null")
        chunks = spec.get("chunks", [])
        return (spec, chunks[n]) if 0 <= n < len(chunks) else None

    @classmethod
    def write_record(cls, r: Any, job_id: str, n: int, record: Mapping[str, Any], ttl: int) -> bool:
        """Chunk ``n``'s record, once (``SET NX``): True when this one was the first."""
        return bool(r.set(cls.chunk_key(job_id, n), json.dumps(record), nx=True, ex=ttl))

    @classmethod
    def failure(cls, n: int, error: Exception, chunk: ChunkT | None = None) -> dict[str, Any]:
        """The record of chunk ``n`` (``chunk``: its value) that failed after its retries."""
        return {"error": f"chunk {n} failed: {error!r}"[:500], "failed": time.time()}

    # ---- resuming a stopped job ------------------------------------------------------
    def resume_stopped(self, job_id: str) -> int:
        """Continue a cancelled or failed job: its failed chunks are forgotten and every chunk without a
        record is queued again (the finished ones are kept; the fixed chunks give the same bits); how
        many.  The job's files come back to Redis from the durable store.  :class:`JobStateError` for a
        job that is queued, running or done."""
        spec = self.spec(job_id)
        chunks = spec["chunks"]
        numbers = list(range(len(chunks)))
        records = self.records_of(job_id, numbers)
        failed = [n for n, r in records.items() if "error" in r]
        state = self.state(job_id)[0]
        if state not in STOPPED:
            raise JobStateError(f"job {job_id} is {state}: only a cancelled or failed job can be resumed")
        pipe = self.redis.pipeline(transaction=True)
        pipe.delete(
            self.cancel_key(job_id), self.error_key(job_id), *(self.chunk_key(job_id, n) for n in failed)
        )
        self.forget(pipe, job_id, failed)
        pipe.execute()
        todo = [n for n in numbers if n not in records or n in failed]
        files = dict(enumerate(self.stored_files(job_id, spec)))
        pipe = self.redis.pipeline(transaction=False)
        self.write_files(pipe, job_id, files, only_missing=True)
        pipe.execute()
        self.records.forget_chunks(job_id, failed)
        self.records.reopen(job_id, chunks)
        self.enqueue(job_id, spec["priority"], todo, owner=self.owner(job_id) or spec.get("owner"))
        return len(todo)

    def forget(self, pipe: Any, job_id: str, numbers: Sequence[int]) -> None:
        """Queue on ``pipe`` what a kind removes besides the records of chunks that run again (nothing)."""
