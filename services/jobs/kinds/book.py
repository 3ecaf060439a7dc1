"""Opening-book generation as a job kind (``book``; routes ``/v1/opening-book/jobs``, written by hand).

The steps are those of :mod:`pulvezar.book.generate`, in three stages of chunks, each stage planned from
the records of the one before (:meth:`~services.jobs.kind.JobKind.next_chunks`, appended by the worker
that records a stage's last chunk):

1. ``["search", roll]``: the roll's candidates (:func:`~pulvezar.book.generate.search_candidates`);
2. ``["rollout", roll, plays, first, trials(, c0, c1)]``: the rollout chunks of each roll's candidates,
   the item and cut of the batch rollout kind (:func:`~services.jobs.rollout_items.normalise_item`,
   :meth:`~services.jobs.kinds.rollout.Rollouts.plan_item`, :meth:`Rollouts.compute`): the same bits as
   the batch rollout job that the book driver used to submit;
3. ``["replies", roll, best]``: the replies to the roll's best valued candidate
   (:func:`~pulvezar.book.generate.best_replies`).

The ``report`` is the assembled book once the replies are in.  The job id is a digest of the settings,
the engine and the owner (as before), so posting the same settings again finds the job (a failed one is
resumed).  Rows written by the older driver (step blobs ``search:{roll}``, ``valued``, ``replies:{roll}``,
``book``; no chunk list) stay readable: a finished one serves its ``book`` blob, an unfinished one is
restored as a kind job from its searches (:meth:`BookKind.restore`).
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, Field

from pulvezar.book.generate import (
    BookSettings,
    assemble,
    best_replies,
    engine_info,
    replies_of,
    search_candidates,
    value_candidates,
)
from pulvezar.book.model import Book, BookCandidate, BookError, BookRoll, parse_roll, roll_name
from pulvezar.rules.position import Position
from services.jobs.chunked import timing
from services.jobs.errors import InvalidJob
from services.jobs.kind import JobKind, JobRequest, checked
from services.jobs.kinds.rollout import Rollouts
from services.jobs.rollout_items import item_cost, normalise_item
from services.jobs.rollout_report import chunk_results
from services.jobs.states import JobState

__all__ = ["SEARCH_SECONDS", "BookKind", "BookRequest", "book_cost"]

#: estimated core-seconds of one position's search by ply, and the plays a search values (an opening
#: roll has about 15 legal plays, a reply about 20); bench/job_costs.py checks them
SEARCH_SECONDS = {0: 0.001, 1: 0.02, 2: 0.3, 3: 5.0}
PLAYS_PER_SEARCH = 20


def book_cost(settings: BookSettings) -> float:
    """The estimated core-seconds of a book job: per roll its candidates' search, their rollouts
    (:func:`~services.jobs.rollout_items.item_cost`) and the searches of the 21 replies to the best play
    (to every candidate with ``replies_to="all"``)."""
    item = {
        "ply": settings.rollout_ply,
        "variance_reduction": settings.variance_reduction,
        "truncate": settings.truncate,
        "plays": [None] * settings.candidates,
    }
    replied = settings.candidates if settings.replies_to == "all" else 1
    per_roll = (
        PLAYS_PER_SEARCH * SEARCH_SECONDS[settings.ply]
        + item_cost(item, settings.trials)
        + replied * 21 * PLAYS_PER_SEARCH * SEARCH_SECONDS[settings.reply_ply]
    )
    return per_roll * len(settings.roll_list)


class BookRequest(JobRequest):
    """A book's settings (the gateway's ``BookJobRequest`` and the priority)."""

    rules: Literal["international", "tavla"] = "international"
    rolls: Annotated[list[Annotated[str, Field(max_length=3)]], Field(min_length=1, max_length=21)] | None = (
        None
    )
    trials: int = Field(5184, ge=36, le=1_000_000)
    candidates: int = Field(5, ge=1, le=10)
    threshold: float = Field(0.16, ge=0, le=1)
    ply: int = Field(3, ge=0, le=3)
    reply_ply: int = Field(3, ge=0, le=3)
    rollout_ply: int = Field(0, ge=0, le=2)
    truncate: int | None = Field(None, ge=1, le=1000)
    seed: int = Field(1, ge=0, lt=2**63)


class BookReport(BaseModel):
    """The kind's part of the status: the book once it is assembled."""

    book: dict[str, Any] | None = Field(description="the book (the shipped books' format), once done")


def _without_seconds(step: Mapping[str, Any]) -> dict[str, Any]:
    """A step's result without its wall time (the runner records the chunk's own)."""
    return {k: v for k, v in step.items() if k != "seconds"}


def _stage(chunk: Any) -> str:
    return str(chunk[0])


#: a chunk, by stage: ``["search", roll]``, ``["rollout", roll, plays, first, trials(, c0, c1)]`` (the
#: rollout kind's chunk of the roll's candidates) or ``["replies", roll, best candidate]``
BookChunk = list[Any]


class BookKind(JobKind[BookRequest, BookChunk, dict[str, Any], dict[str, Any]]):
    """Opening-book generation in three stages of chunks (searches, rollouts, replies)."""

    name = "book"
    route = "opening-book/jobs"
    summary = "an opening book generated on the workers"
    namespace = "bookjob"  # the older driver's keys (book:{id}:...) are not read: they expire
    noun = "book"
    own_routes = True
    fail_fast = True  # a failed step fails the book at once (as the driver's did)
    Request = BookRequest
    Report: ClassVar[type[BaseModel]] = BookReport

    _engine: ClassVar[dict[str, Any] | None] = None
    _engine_lock = threading.Lock()

    # ---- the settings and the engine ----------------------------------------------------------
    def book_settings(self, request: BookRequest) -> BookSettings:
        """The library's settings of a checked request (:class:`InvalidJob` naming the field)."""
        try:
            rolls = None
            if request.rolls is not None:
                rolls = tuple(parse_roll(r, f"rolls[{i}]") for i, r in enumerate(request.rolls))
            return BookSettings.from_args(request, rolls=rolls, chunk_size=self.settings.chunk_size)
        except BookError as e:
            raise InvalidJob(e.field or "request", str(e)) from None

    @staticmethod
    def settings_of(spec: Mapping[str, Any]) -> BookSettings:
        return BookSettings.from_json(spec["rules"], spec["settings"])

    @classmethod
    def engine(cls) -> dict[str, Any]:
        """The engine that the book names (the default net's, as the workers use; loaded once)."""
        with cls._engine_lock:
            if cls._engine is None:
                from pulvezar.eval.evaluator import default_evaluator

                cls._engine = engine_info(default_evaluator())
            return cls._engine

    @staticmethod
    def digest(settings: BookSettings, engine: Mapping[str, Any], owner: str | None) -> str:
        """The id of ``owner``'s job of these settings and this engine (None: the platform's)."""
        key: dict[str, Any] = {
            "settings": settings.to_json(),
            "rules": settings.rules_json(),
            "engine": engine,
        }
        if owner is not None:
            key["owner"] = owner
        return "book-" + hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:24]

    def new_id(self, request: BookRequest, owner: str | None) -> str:
        return self.digest(self.book_settings(request), self.engine(), owner)

    # ---- planning -----------------------------------------------------------------------------
    def plan(self, request: BookRequest) -> tuple[dict[str, Any], list[BookChunk]]:
        settings = self.book_settings(request)
        fields = {
            "rules": settings.rules_json(),
            "settings": settings.to_json(),
            "engine": self.engine(),
            "generated": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        return fields, [["search", roll_name(r)] for r in settings.roll_list]

    def submit(self, body: Any, owner: str | None = None, admit: Any = None) -> str:
        """As :meth:`JobKind.submit`, but the same settings of the same owner find the job they made
        (charged again: its work may be resumed; a failed or cancelled one runs again)."""
        request = checked(self.Request, body)
        job_id = self.new_id(request, owner)
        row = None if self.redis.exists(self.spec_key(job_id)) else self.row(job_id)
        if row is None and not self.redis.exists(self.spec_key(job_id)):
            return super().submit(body, owner=owner, admit=admit)
        if admit is not None:
            admit(book_cost(self.book_settings(request)))
        if row is not None and row.state != JobState.DONE:  # Redis lost it (or the older driver kept it)
            self.rehydrate(job_id)
        if self.state(job_id)[0] in (JobState.FAILED, JobState.CANCELLED):
            self.resume_stopped(job_id)
        return job_id

    @classmethod
    def cost(cls, spec: Mapping[str, Any]) -> float:
        return book_cost(cls.settings_of(spec))

    @classmethod
    def chunk_cost(cls, spec: Mapping[str, Any], chunk: BookChunk) -> float:
        settings = cls.settings_of(spec)
        if _stage(chunk) == "search":
            return PLAYS_PER_SEARCH * SEARCH_SECONDS[settings.ply]
        if _stage(chunk) == "replies":
            return 21 * PLAYS_PER_SEARCH * SEARCH_SECONDS[settings.reply_ply]
        return Rollouts.chunk_cost({"items": [cls.item(spec, chunk[1], chunk[2])]}, [0, *chunk[3:]])

    @classmethod
    def work(cls, spec: Mapping[str, Any], chunk: BookChunk) -> float:
        return 1.0 if _stage(chunk) != "rollout" else float(chunk[4])

    @classmethod
    def example(cls) -> dict[str, Any]:
        return {"rolls": ["31"], "trials": 36, "ply": 0, "candidates": 2, "threshold": 0.5, "truncate": 2,
                "reply_ply": 0}  # fmt: skip

    # ---- the stages -----------------------------------------------------------------------------
    @classmethod
    def item(cls, spec: Mapping[str, Any], roll: str, plays: Sequence[str]) -> dict[str, Any]:
        """The rollout item of a roll's candidates: the batch rollout job's item of it, as the driver
        submitted it (the start position, the dice, the candidates' plays, the book's options)."""
        s = cls.settings_of(spec)
        params = {
            "position_id": Position.start().position_id,
            "dice": [int(roll[0]), int(roll[1])],
            "plays": list(plays),
            "label": roll,
            "trials": s.trials,
            "seed": s.seed,
            "variance_reduction": s.variance_reduction,
            "luck": s.luck,
            "truncate": s.truncate,
            "rules": s.rules_json(),
            "ply": s.rollout_ply,
            "prune": s.prune,
        }
        return dict(normalise_item(params))

    def next_chunks(self, spec: Mapping[str, Any], records: Sequence[Mapping[str, Any]]) -> list[BookChunk]:
        stages = {_stage(c) for c in spec["chunks"]}
        if "replies" in stages:
            return []
        if "rollout" not in stages:  # the searches are in: the rollouts of every roll's candidates
            planner = Rollouts(self.redis, app=self.app, settings=self.settings, records=self.records)
            out: list[BookChunk] = []
            for chunk, record in zip(spec["chunks"], records, strict=True):
                roll, plays = chunk[1], [c["play"] for c in record["search"]["candidates"]]
                item = self.item(spec, roll, plays)
                size = self.settings_of(spec).chunk_size
                out += [
                    ["rollout", roll, plays, *c[1:]]
                    for c in planner.plan_item(0, item, 0, item["trials"], size)
                ]
            return out
        valued = self.valued(spec, records)
        return [["replies", roll, candidates[0]] for roll, candidates in valued.items()]

    @classmethod
    def valued(cls, spec: Mapping[str, Any], records: Sequence[Mapping[str, Any] | None]) -> dict[str, Any]:
        """Each roll's valued candidates, best first (JSON), once its searches and rollouts are in."""
        searched: dict[str, Any] = {}
        rollouts: dict[str, list[Mapping[str, Any]]] = {}
        plays: dict[str, list[str]] = {}
        for chunk, record in zip(spec["chunks"], records, strict=True):
            if record is None or "error" in record:
                continue
            if _stage(chunk) == "search":
                searched[chunk[1]] = record["search"]
            elif _stage(chunk) == "rollout":
                rollouts.setdefault(chunk[1], []).append(record)
                plays[chunk[1]] = chunk[2]
        out: dict[str, Any] = {}
        for roll, search in searched.items():
            results = (
                chunk_results(cls.item(spec, roll, plays[roll]), rollouts[roll]) if roll in plays else []
            )
            if results:
                out[roll] = [dict(c.__dict__) for c in value_candidates(search["candidates"], results)]
        return out

    @classmethod
    def compute(cls, spec: Mapping[str, Any], chunk: BookChunk, evaluator: Any) -> dict[str, Any]:
        settings = cls.settings_of(spec)
        if _stage(chunk) == "search":
            roll = (int(chunk[1][0]), int(chunk[1][1]))
            return {"search": _without_seconds(search_candidates(settings, roll, evaluator))}
        if _stage(chunk) == "replies":
            best = BookCandidate(**chunk[2])
            return {"replies": _without_seconds(best_replies(settings, best, evaluator))}
        item = cls.item(spec, chunk[1], chunk[2])
        return Rollouts.compute({"items": [item]}, [0, *chunk[3:]], evaluator)

    @classmethod
    def trials_of(cls, record: Mapping[str, Any]) -> int:
        return int(record.get("trials", 0)) if "first" in record else 0

    @classmethod
    def log_fields(cls, spec: Mapping[str, Any], chunk: BookChunk) -> dict[str, Any]:
        return {"stage": chunk[0], "roll": chunk[1]}

    # ---- the report and the status -------------------------------------------------------------
    @classmethod
    def book(cls, spec: Mapping[str, Any], records: Sequence[Mapping[str, Any] | None]) -> Book | None:
        """The assembled book once every roll's replies are in (else None)."""
        settings = cls.settings_of(spec)
        replies = {
            c[1]: r["replies"]
            for c, r in zip(spec["chunks"], records, strict=True)
            if _stage(c) == "replies" and r is not None and "error" not in r
        }
        names = [roll_name(r) for r in settings.roll_list]
        if any(n not in replies for n in names):
            return None
        valued = cls.valued(spec, records)
        rolls = [
            BookRoll(n, r, tuple(BookCandidate(**c) for c in valued[n]), replies_of(replies[n]))
            for n, r in zip(names, settings.roll_list, strict=True)
        ]
        return assemble(settings, spec["engine"], spec["generated"], rolls)

    @classmethod
    def report(cls, spec: Mapping[str, Any], records: Sequence[Mapping[str, Any] | None]) -> dict[str, Any]:
        book = cls.book(spec, records)
        return {"book": book.to_json() if book is not None else None}

    def progress(
        self, spec: Mapping[str, Any], records: Sequence[Mapping[str, Any] | None], state: str
    ) -> float:
        """Searches 10%, rollouts 80%, replies 10% (as the book's status says)."""
        return float(self._view(spec, records, state)["progress"])

    def book_status(self, job_id: str) -> dict[str, Any]:
        """The job as :class:`~services.jobs.book_models.BookStatus` has it, and ``book`` once done
        (:class:`~services.jobs.errors.JobNotFound` for no such job)."""
        legacy = self._legacy_done(job_id)
        if legacy is not None:
            return legacy
        spec, records = self.gather(job_id)
        state, error = self._state(job_id, spec, records)
        out = {"id": job_id, **self._view(spec, records, state)}
        if error is None:
            error = next((str(r["error"]) for r in records if r is not None and "error" in r), None)
        if state == JobState.CANCELLED:
            error = error or "cancelled"
        out["error"] = error
        if out["state"] == "done":
            book = self.book(spec, records)
            out["book"] = book.to_json() if book is not None else None
        return out

    def _view(
        self, spec: Mapping[str, Any], records: Sequence[Mapping[str, Any] | None], state: str
    ) -> dict[str, Any]:
        """The status's fields from the spec, the records and the job's state (all but id, error, book)."""
        settings = self.settings_of(spec)
        total = len(settings.roll_list)
        pairs = list(zip(spec["chunks"], records, strict=True))
        searched = sum(1 for c, r in pairs if _stage(c) == "search" and r is not None and "error" not in r)
        replied = sum(1 for c, r in pairs if _stage(c) == "replies" and r is not None and "error" not in r)
        rolled = [(c, r) for c, r in pairs if _stage(c) == "rollout"]
        ranges: dict[tuple[str, int], list[bool]] = {}
        for c, r in rolled:
            ranges.setdefault((c[1], c[3]), []).append(r is not None and "error" not in r)
        trials_of = {(c[1], c[3]): c[4] for c, _r in rolled}
        trials_total = sum(trials_of.values())
        trials_done = sum(trials_of[k] for k, done in ranges.items() if all(done))
        stages = {_stage(c) for c in spec["chunks"]}
        done_rolled = [r for _c, r in rolled if r is not None and "error" not in r]
        work_done = sum(float(c[4]) for c, r in rolled if r is not None and "error" not in r)
        eta, _elapsed = timing(
            done_rolled, work_done, sum(float(c[4]) for c, _r in rolled) - work_done, state
        )
        if state == JobState.DONE:
            name = "done"
        elif state in (JobState.FAILED, JobState.CANCELLED):
            name = "failed"
        elif "replies" in stages:
            name = "replying"
        elif "rollout" in stages:
            name = "rolling out"
        else:
            name = "searching"
        if name in ("replying", "done"):
            trials_done = trials_total = max(trials_total, 1)
        roll_frac = trials_done / trials_total if trials_total else 0.0
        progress = 1.0 if name == "done" else 0.1 * searched / total + 0.8 * roll_frac + 0.1 * replied / total
        return {
            "state": name,
            "rules": spec["rules"],
            "settings": spec["settings"],
            "engine": spec["engine"],
            "created": spec["generated"],
            "error": None,
            "rolls_total": total,
            "rolls_searched": searched,
            "rollout_job": None,
            "trials_done": trials_done,
            "trials_total": trials_total,
            "rolls_replied": replied,
            "progress": round(min(progress, 1.0), 4),
            "eta_s": eta if name == "rolling out" else (0.0 if name in ("replying", "done") else None),
            "driver": False,
        }

    # ---- rows written by the older driver (step blobs, no chunk list) ---------------------------
    def _legacy_row(self, job_id: str) -> Any:
        """The durable row of an older driver's job (None: none, or a kind job)."""
        if self.redis.exists(self.spec_key(job_id)):
            return None
        row = self.row(job_id)
        return row if row is not None and row.chunk_list is None and "chunks" not in row.spec else None

    def _legacy_done(self, job_id: str) -> dict[str, Any] | None:
        """The status of a finished (or failed) older job, from its row and ``book`` blob."""
        row = self._legacy_row(job_id)
        if row is None or row.state not in (JobState.DONE, JobState.FAILED):
            return None
        spec = row.spec
        total = len(self.settings_of(spec).roll_list)
        names = self.records.blob_names(job_id)
        raw = self.records.blob(job_id, "book") if row.state == JobState.DONE else None
        done = raw is not None
        rollout = self.records.blob(job_id, "rollout")
        return {
            "id": job_id,
            "state": "done" if done else "failed",
            "rules": spec["rules"],
            "settings": spec["settings"],
            "engine": spec["engine"],
            "created": spec["created"],
            "error": None if done else (row.error or "failed"),
            "rolls_total": total,
            "rolls_searched": sum(1 for n in names if n.startswith("search:")),
            "rollout_job": rollout.decode() if rollout else None,
            "trials_done": 1 if done else 0,
            "trials_total": 1 if done else 0,
            "rolls_replied": sum(1 for n in names if n.startswith("replies:")),
            "progress": 1.0 if done else 0.0,
            "eta_s": 0.0 if done else None,
            "driver": False,
            **({"book": json.loads(raw)} if raw is not None else {}),
        }

    def spec_of(self, row: Any) -> dict[str, Any]:  # type: ignore[override]
        """A durable row's spec; an older driver's row as a kind job from its searches."""
        if row.chunk_list is not None or "chunks" in row.spec:
            return JobKind.spec_of(row)
        spec = dict(row.spec)
        settings = self.settings_of(spec)
        return {
            **spec,
            "kind": self.name,
            "created": time.time(),
            "generated": spec["created"],
            "chunks": [["search", roll_name(r)] for r in settings.roll_list],
        }

    def restore(self, job_id: str, row: Any) -> None:
        """A job that Redis lost, back from its row; an older driver's unfinished job becomes a kind job:
        its finished searches are its first chunks' records (the rollouts and replies run again, to the
        same bits)."""
        if row.chunk_list is not None or "chunks" in row.spec:
            return super().restore(job_id, row)
        spec = self.spec_of(row)
        found = {}
        for n, chunk in enumerate(spec["chunks"]):
            data = self.records.blob(job_id, f"search:{chunk[1]}")
            if data:
                now = time.time()
                record = {"search": _without_seconds(json.loads(data)), "started": now, "finished": now}
                found[n] = {**record, "seconds": 0.0}
        self.records.reopen(job_id, spec["chunks"])
        self.records.add_chunks(job_id, found)
        pipe = self.redis.pipeline(transaction=True)
        pipe.set(self.spec_key(job_id), json.dumps(spec), ex=self.settings.job_ttl_s)
        self.write_once(pipe, job_id, found)
        pipe.execute()


KIND = BookKind
