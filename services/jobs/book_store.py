"""The state of opening-book jobs (:class:`BookStore`): submission, the durable store's copy, reading.

The keys and the durable store's entries are described in :mod:`services.jobs.book`, whose
:class:`~services.jobs.book.BookJobs` adds the work (the driver's steps) to this class.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from pulvezar.book.generate import BookSettings, engine_info
from pulvezar.book.model import Book, BookError, roll_name
from pulvezar.eval.evaluator import Evaluator, default_evaluator
from services.jobs.errors import text
from services.jobs.kinds.batch import BatchRollouts
from services.jobs.kinds.rollout import Rollouts

logger = logging.getLogger("pulvezar.services.rollout.book")

#: a book job's states, and those it ends in
STATES = ("searching", "rolling out", "replying", "done", "failed")
TERMINAL = ("done", "failed")
#: seconds a driver's lease lasts unless renewed (:meth:`services.jobs.book.BookJobs.run`)
LEASE_S = 60
#: estimated core-seconds of one position's search by ply, and the plays a search values (an opening
#: roll has about 15 legal plays, a reply about 20); bench/job_costs.py checks them
SEARCH_SECONDS = {0: 0.001, 1: 0.02, 2: 0.3, 3: 5.0}
PLAYS_PER_SEARCH = 20


def book_cost(settings: BookSettings) -> float:
    """The estimated core-seconds of a book job: per roll its candidates' search, their rollouts
    (:func:`~services.jobs.rollout_items.item_cost`) and the searches of the 21 replies to the best play
    (to every candidate with ``replies_to="all"``)."""
    from services.jobs.rollout_items import item_cost

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


def book_key(book_id: str, part: str) -> str:
    return f"book:{book_id}:{part}"


def _str(data: bytes | str) -> str:
    return data.decode() if isinstance(data, bytes) else data


class BookStore:
    """The state of opening-book jobs on the Redis of ``store`` (the rollout kind's store: its Redis,
    broker and durable store; a book's rollouts are a :class:`~services.jobs.kinds.batch.BatchRollouts`
    job).

    ``evaluator`` (default: the shipped net, loaded on first use) is the driver's, for the searches;
    the workers must use the same net (their default) for the book to be one engine's.
    """

    def __init__(self, store: Rollouts, evaluator: Evaluator | Callable[[], Evaluator] | None = None) -> None:
        self.store = store
        self.batches = BatchRollouts(
            store.redis, app=store.app, settings=store.settings, records=store.records
        )
        self.redis = store.redis
        self._evaluator = evaluator
        self._lock = threading.Lock()
        self._recorded: set[str] = set()  # jobs known to have their row in the durable store

    @property
    def records(self) -> Any:
        """The durable store's jobs (the job store's :class:`~services.store.jobs.JobRecords`), or None."""
        return getattr(self.store, "records", None)

    # ---- the evaluator and the settings ------------------------------------------------
    def evaluator(self) -> Evaluator:
        with self._lock:
            ev = self._evaluator
            if ev is None:
                ev = default_evaluator()
            elif callable(ev) and not hasattr(ev, "evaluate_boards"):
                ev = ev()
            self._evaluator = ev
            return ev  # type: ignore[return-value]

    def engine(self) -> dict[str, Any]:
        return engine_info(self.evaluator())

    def settings_of(self, book_id: str) -> BookSettings:
        spec = self.spec(book_id)
        return BookSettings.from_json(spec["rules"], spec["settings"])

    @staticmethod
    def job_id(settings: BookSettings, engine: dict[str, Any], owner: str | None = None) -> str:
        """The id of the job of these settings and this engine (a digest of both) for ``owner`` (None:
        the platform's): each owner has its own job of the same settings."""
        key: dict[str, Any] = {
            "settings": settings.to_json(),
            "rules": settings.rules_json(),
            "engine": engine,
        }
        if owner is not None:
            key["owner"] = owner
        raw = json.dumps(key, sort_keys=True)
        return "book-" + hashlib.sha256(raw.encode()).hexdigest()[:24]

    # ---- submission -------------------------------------------------------------------
    def submit(
        self,
        settings: BookSettings,
        priority: str = "batch",
        owner: str | None = None,
        admit: Callable[[float], None] | None = None,
    ) -> str:
        """Create ``owner``'s job of ``settings`` (or find it: same settings and owner, same id) and return
        its id (None: the platform's, as the command line submits).

        The rollouts are cut into the store's chunks: ``settings.chunk_size`` must be the store's
        (:class:`BookError`, field ``chunk_size``).  A failed job is made ready to continue.  With
        the durable store the job is accepted once its row is there
        (:class:`~services.store.db.StoreUnavailable` when the database cannot be reached).  ``admit``:
        called with the job's estimated core-seconds (:func:`book_cost`) before anything is recorded
        (a job found again is charged again: its work may be resumed).  Its batch rollout job has the
        same owner (:meth:`services.jobs.book.BookJobs.advance`).
        """
        if settings.chunk_size != self.store.settings.chunk_size:
            raise BookError(
                f"the rollout workers use chunks of {self.store.settings.chunk_size} trials, "
                f"not {settings.chunk_size}",
                field="chunk_size",
            )
        if admit is not None:
            admit(book_cost(settings))
        engine = self.engine()
        book_id = self.job_id(settings, engine, owner)
        spec = {
            "id": book_id,
            "owner": owner,
            "rules": settings.rules_json(),
            "settings": settings.to_json(),
            "engine": engine,
            "priority": priority,
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        ttl = self.store.settings.job_ttl_s
        if self.records is not None and not self._create_row(book_id, spec, owner, priority):
            self.spec(book_id)  # recorded before: Redis gets it back from the database if it lost it
        if not self.redis.set(book_key(book_id, "spec"), json.dumps(spec), nx=True, ex=ttl):
            self._retry_if_failed(book_id)
        return book_id

    def _create_row(
        self, book_id: str, spec: dict[str, Any], owner: str | None, priority: str | None
    ) -> bool:
        """The job's row in the durable store, unless it has one; whether it was created now."""
        from sqlalchemy.exc import IntegrityError

        records = self.records
        if records.get(book_id) is not None:
            self._recorded.add(book_id)
            return False
        try:
            records.create(book_id, "book", spec, owner=owner, priority=priority)
        except IntegrityError:  # another submitter was first (same settings, same job)
            self._recorded.add(book_id)
            return False
        self._recorded.add(book_id)
        return True

    def _ensure_row(self, book_id: str) -> None:
        """A job that Redis holds but the durable store does not (it was submitted without one) gets
        its row before its first step is recorded there."""
        if book_id not in self._recorded:
            spec = self.spec(book_id)
            self._create_row(book_id, spec, spec.get("owner"), spec.get("priority"))

    def _retry_if_failed(self, book_id: str) -> None:
        if self.redis.get(book_key(book_id, "error")) is None:
            return
        rollout = text(self.redis.get(book_key(book_id, "rollout")))
        drop_rollout = False
        if rollout is not None:
            try:
                state = self.store.status(rollout)["state"]
            except LookupError:
                state = "gone"
            drop_rollout = state in ("failed", "cancelled", "gone")
        if self.records is not None:  # running again, in the system of record first
            self._ensure_row(book_id)
            if drop_rollout:
                self.records.put_blob(book_id, "rollout", b"")  # none: the rollouts are submitted again
            self.records.reopen(book_id, [])
        if drop_rollout:
            self.redis.delete(book_key(book_id, "rollout"))
        self.redis.delete(book_key(book_id, "error"))

    # ---- the durable store ------------------------------------------------------------
    def rehydrate(self, book_id: str) -> bool:
        """Write a job that Redis lost back to Redis from the durable store: its spec, the finished
        steps, the book or the error (never over what Redis has); False when the store has no such job."""
        records = self.records
        if records is None:
            return False
        row = records.get(book_id)
        if row is None or row.kind != "book":
            return False
        ttl = self.store.settings.job_ttl_s
        pipe = self.redis.pipeline(transaction=True)
        for name in records.blob_names(book_id):
            data = records.blob(book_id, name)
            if data is None:
                continue
            part, _, roll = name.partition(":")
            if part in ("search", "replies") and roll:
                pipe.hsetnx(book_key(book_id, part), roll, _str(data))
            elif part == "valued":
                for roll, valued in json.loads(data).items():
                    pipe.hsetnx(book_key(book_id, "valued"), roll, json.dumps(valued))
            elif part in ("rollout", "book") and data:
                pipe.set(book_key(book_id, part), _str(data), nx=True, ex=ttl)
        if row.state == "failed":
            pipe.set(book_key(book_id, "error"), row.error or "failed", nx=True, ex=ttl)
        for part in ("search", "valued", "replies"):
            pipe.expire(book_key(book_id, part), ttl)
        pipe.set(book_key(book_id, "spec"), json.dumps(row.spec), nx=True, ex=ttl)  # last: the job is there
        pipe.execute()
        self._recorded.add(book_id)
        logger.info("book job %s restored from the durable store (%s)", book_id, row.state)
        return True

    def _record(self, book_id: str, name: str, data: str, state: str = "running") -> None:
        """A finished step into the durable store (before Redis has it): the blob ``name``, the job's
        state.  :class:`~services.store.db.StoreUnavailable` when the database cannot be reached."""
        records = self.records
        if records is None:
            return
        self._ensure_row(book_id)
        records.put_blob(book_id, name, data.encode())
        records.set_state(book_id, state)

    def _fail(self, book_id: str, error: str) -> None:
        self.redis.set(book_key(book_id, "error"), error, ex=self.store.settings.job_ttl_s)
        if self.records is not None:
            try:
                self._ensure_row(book_id)
                self.records.set_state(book_id, "failed", error)
            except Exception:
                logger.warning("book job %s: its failure is not in the durable store", book_id, exc_info=True)

    # ---- reading ----------------------------------------------------------------------
    def spec(self, book_id: str) -> dict[str, Any]:
        """The job's spec (LookupError: no such job); a job that Redis lost is restored from the
        durable store first (:meth:`rehydrate`)."""
        raw = text(self.redis.get(book_key(book_id, "spec")))
        if raw is None and self.rehydrate(book_id):
            raw = text(self.redis.get(book_key(book_id, "spec")))
        if raw is None:
            raise LookupError(book_id)
        spec: dict[str, Any] = json.loads(raw)
        return spec

    def _hash(self, book_id: str, part: str) -> dict[str, Any]:
        raw = self.redis.hgetall(book_key(book_id, part))
        return {text(k) or "": json.loads(text(v) or "null") for k, v in raw.items()}

    def book(self, book_id: str) -> Book | None:
        """The finished book, or None."""
        raw = text(self.redis.get(book_key(book_id, "book")))
        lost = raw is None and self.records is not None and not self.redis.exists(book_key(book_id, "spec"))
        if lost and self.rehydrate(book_id):  # Redis lost the job: the book is in the durable store
            raw = text(self.redis.get(book_key(book_id, "book")))
        return None if raw is None else Book.from_json(json.loads(raw))

    def heal(self, book_id: str) -> bool:
        """Parts that Redis lost while it kept the job (a failover loses the newest writes, not the
        spec) written back from the durable store (:meth:`rehydrate` adds only what is missing); whether
        something was missing."""
        records = self.records
        if records is None:
            return False
        pipe = self.redis.pipeline(transaction=False)
        checked = []
        for name in records.blob_names(book_id):
            part, _, roll = name.partition(":")
            if part in ("search", "replies") and roll:
                pipe.hexists(book_key(book_id, part), roll)
            elif part in ("valued", "rollout", "book"):
                pipe.exists(book_key(book_id, part))
            else:
                continue
            checked.append(name)
        missing = [name for name, there in zip(checked, pipe.execute(), strict=True) if not there]
        if missing == ["rollout"] and not records.blob(book_id, "rollout"):
            missing = []  # dropped on purpose: the rollouts are submitted again
        if not missing:
            row = records.get(book_id)
            failed = row is not None and row.state == "failed"
            if not (failed and not self.redis.exists(book_key(book_id, "error"))):
                return False
        return self.rehydrate(book_id)

    def state(self, book_id: str) -> str:
        self.spec(book_id)
        for attempt in (0, 1):
            if self.redis.exists(book_key(book_id, "book")):
                return "done"
            if self.redis.exists(book_key(book_id, "error")):
                return "failed"
            if attempt == 0 and not self.heal(book_id):  # Redis may have lost the newest parts
                break
        settings = self.settings_of(book_id)
        names = [roll_name(r) for r in settings.roll_list]
        searched = self._hash(book_id, "search")
        if any(n not in searched for n in names) or not self.redis.exists(book_key(book_id, "rollout")):
            return "searching"
        if len(self._hash(book_id, "valued")) < len(names):
            return "rolling out"
        return "replying"

    def status(self, book_id: str) -> dict[str, Any]:
        """``{"id", "state", "rules", "settings", "engine", "created", "error", "rolls_total",
        "rolls_searched", "rollout_job", "trials_done", "trials_total", "rolls_replied",
        "progress" (0..1: searches 10%, rollouts 80%, replies 10%), "eta_s" (the rollouts'),
        "driver" (a driver holds the job now)}``."""
        spec = self.spec(book_id)
        settings = self.settings_of(book_id)
        total = len(settings.roll_list)
        state = self.state(book_id)
        searched = len(self._hash(book_id, "search"))
        replied = len(self._hash(book_id, "replies"))
        rollout = text(self.redis.get(book_key(book_id, "rollout")))
        trials_done, trials_total, eta = 0, 0, None
        if rollout is not None:
            try:
                st = self.store.status(rollout)
                trials_done, trials_total, eta = st["trials_done"], st["trials_total"], st["eta_s"]
            except LookupError:
                pass
        if state in ("replying", "done"):
            trials_done = trials_total = max(trials_total, 1)
        roll_frac = trials_done / trials_total if trials_total else 0.0
        progress = (
            1.0 if state == "done" else 0.1 * searched / total + 0.8 * roll_frac + 0.1 * replied / total
        )
        return {
            "id": book_id,
            "state": state,
            "rules": spec["rules"],
            "settings": spec["settings"],
            "engine": spec["engine"],
            "created": spec["created"],
            "error": text(self.redis.get(book_key(book_id, "error"))),
            "rolls_total": total,
            "rolls_searched": searched,
            "rollout_job": rollout,
            "trials_done": trials_done,
            "trials_total": trials_total,
            "rolls_replied": replied,
            "progress": round(min(progress, 1.0), 4),
            "eta_s": eta,
            "driver": bool(self.redis.exists(book_key(book_id, "driver"))),
        }

    # ---- the work ---------------------------------------------------------------------
    def _touch(self, book_id: str) -> None:
        ttl = self.store.settings.job_ttl_s
        for part in ("spec", "search", "rollout", "valued", "replies"):
            self.redis.expire(book_key(book_id, part), ttl)
