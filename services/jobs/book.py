"""Opening-book generation fanned out over the rollout workers (:class:`BookJobs`).

The steps are those of :mod:`pulvezar.book.generate`; the rollouts, which are nearly all of the
work, run as one batch rollout job of the :class:`~services.jobs.rollout.JobStore` (one item per
opening roll, its candidates rolled out with the same dice, chunked over the Celery workers of the
``batch`` queue).  The N-ply searches (the candidates, and the replies to the best plays) are done
by the *driver*, the process that calls :meth:`BookJobs.advance` (:meth:`BookJobs.run` in a loop):
the command below, or the ``pulvezar.book.drive`` task on a worker (:mod:`services.rollout.book_tasks`,
which the gateway queues).

State lives in Redis, so a job survives its driver: every finished step is written as it is done,
and a driver that starts on a job continues where the last one stopped.  Keys (all expire
``job_ttl_s`` after the last write):

``book:{id}:spec``     JSON: the settings (:meth:`BookSettings.to_json` and rules), engine, created
``book:{id}:search``   hash: roll -> the candidates of its search (:func:`search_candidates`)
``book:{id}:rollout``  the id of the batch rollout job of all rolls
``book:{id}:valued``   hash: roll -> the valued candidates (after the rollout job is done)
``book:{id}:replies``  hash: roll -> the replies to its best play (:func:`best_replies`)
``book:{id}:book``     JSON: the finished book
``book:{id}:error``    why the job failed
``book:{id}:driver``   a lease: a driver is working on the job (renewed while it works)

With the durable store (the job store's ``records``, :class:`services.store.jobs.JobRecords`) the
database is the system of record and Redis the working copy.  A job is a ``jobs`` row of kind
``book`` (its spec as above; state ``queued`` when accepted, ``running`` from its first finished
step, ``done`` with the book, ``failed`` with the error); every finished step is written there
**before** Redis, as a ``job_blobs`` entry of the job:

``search:{roll}``      the roll's search (as in ``book:{id}:search``)
``rollout``            the id of the batch rollout job (itself a durable ``batch`` job, chunk by chunk)
``valued``             JSON: roll -> the valued candidates, all rolls at once
``replies:{roll}``     the replies to the roll's best play
``book``               the finished book (what ``GET /v1/opening-book/jobs/{id}`` serves)

A job that Redis lost (restarted empty, or its keys expired) is written back to Redis from the
database when it is next read (:meth:`BookJobs.rehydrate`), so its status and book are served as
before and a driver continues from the last step the database holds: the same steps with the same
settings and seeds give the same book.  A database that cannot be reached
(:class:`~services.store.db.StoreUnavailable`) does not fail a job: the step is not recorded (nor
written to Redis), :meth:`BookJobs.advance` raises, and the driver tries again later.

The job's owner (``jobs.owner``) is the API key that first submitted its settings: the job lists of
that key (``GET /v1/jobs``) show it.  The same settings are the same job, so another key that submits
them gets that job (it continues it, or serves the finished book) without owning it: a book is shared,
as the shipped ones are, and any key may read a book job by its id.

The job id is a digest of the settings and the engine, so submitting the same settings again
finds the same job: it continues it (a failed job is retried from its last finished step).

Command (one command regenerates a shipped book on the platform's workers)::

    python -m services.jobs.book --rules tavla --out data/book/tavla.json
        [--trials 5184] [--candidates 5] [--threshold 0.16] [--ply 3] [--reply-ply 3] [...]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import secrets
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from pulvezar.book.generate import (
    BookSettings,
    assemble,
    best_replies,
    engine_info,
    replies_of,
    search_candidates,
    value_candidates,
    write_book,
)
from pulvezar.book.model import Book, BookCandidate, BookError, BookRoll, roll_name
from pulvezar.eval.evaluator import Evaluator, default_evaluator
from pulvezar.rules.position import Position
from services.jobs.broker import BOOK_TASK
from services.jobs.errors import text
from services.jobs.rollout import JobStore
from services.jobs.settings import BACKGROUND_QUEUE
from services.store.db import StoreUnavailable

logger = logging.getLogger("pulvezar.services.rollout.book")

STATES = ("searching", "rolling out", "replying", "done", "failed")
TERMINAL = ("done", "failed")
LEASE_S = 60


def _key(book_id: str, part: str) -> str:
    return f"book:{book_id}:{part}"


def _candidate_json(c: BookCandidate) -> dict[str, Any]:
    return dict(c.__dict__)


def _str(data: bytes | str) -> str:
    return data.decode() if isinstance(data, bytes) else data


class BookJobs:
    """Opening-book jobs on the Redis of ``store`` (a :class:`JobStore`), rolled out by its workers.

    ``evaluator`` (default: the shipped net, loaded on first use) is the driver's, for the searches;
    the workers must use the same net (their default) for the book to be one engine's.
    """

    def __init__(self, store: JobStore, evaluator: Evaluator | Callable[[], Evaluator] | None = None) -> None:
        self.store = store
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
    def job_id(settings: BookSettings, engine: dict[str, Any]) -> str:
        """The id of the job of these settings and this engine (a digest of both)."""
        raw = json.dumps({"settings": settings.to_json(), "rules": settings.rules_json(), "engine": engine},
                         sort_keys=True)  # fmt: skip
        return "book-" + hashlib.sha256(raw.encode()).hexdigest()[:24]

    # ---- submission -------------------------------------------------------------------
    def submit(self, settings: BookSettings, priority: str = "batch", owner: str | None = None) -> str:
        """Create the job of ``settings`` (or find it: same settings, same id) and return its id.

        The rollouts are cut into the store's chunks: ``settings.chunk_size`` must be the store's
        (:class:`BookError`, field ``chunk_size``).  A failed job is made ready to continue.  With
        the durable store the job is accepted once its row is there (``owner``: the first submitter's;
        :class:`~services.store.db.StoreUnavailable` when the database cannot be reached).
        """
        if settings.chunk_size != self.store.chunk_size:
            raise BookError(
                f"the rollout workers use chunks of {self.store.chunk_size} trials, "
                f"not {settings.chunk_size}",
                field="chunk_size",
            )
        engine = self.engine()
        book_id = self.job_id(settings, engine)
        spec = {
            "id": book_id,
            "rules": settings.rules_json(),
            "settings": settings.to_json(),
            "engine": engine,
            "priority": priority,
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        ttl = self.store.settings.job_ttl_s
        if self.records is not None and not self._create_row(book_id, spec, owner, priority):
            self.spec(book_id)  # recorded before: Redis gets it back from the database if it lost it
        if not self.redis.set(_key(book_id, "spec"), json.dumps(spec), nx=True, ex=ttl):
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
            self._create_row(book_id, spec, None, spec.get("priority"))

    def _retry_if_failed(self, book_id: str) -> None:
        if self.redis.get(_key(book_id, "error")) is None:
            return
        rollout = text(self.redis.get(_key(book_id, "rollout")))
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
            self.redis.delete(_key(book_id, "rollout"))
        self.redis.delete(_key(book_id, "error"))

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
                pipe.hsetnx(_key(book_id, part), roll, _str(data))
            elif part == "valued":
                for roll, valued in json.loads(data).items():
                    pipe.hsetnx(_key(book_id, "valued"), roll, json.dumps(valued))
            elif part in ("rollout", "book") and data:
                pipe.set(_key(book_id, part), _str(data), nx=True, ex=ttl)
        if row.state == "failed":
            pipe.set(_key(book_id, "error"), row.error or "failed", nx=True, ex=ttl)
        for part in ("search", "valued", "replies"):
            pipe.expire(_key(book_id, part), ttl)
        pipe.set(_key(book_id, "spec"), json.dumps(row.spec), nx=True, ex=ttl)  # last: the job is there
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
        self.redis.set(_key(book_id, "error"), error, ex=self.store.settings.job_ttl_s)
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
        raw = text(self.redis.get(_key(book_id, "spec")))
        if raw is None and self.rehydrate(book_id):
            raw = text(self.redis.get(_key(book_id, "spec")))
        if raw is None:
            raise LookupError(book_id)
        spec: dict[str, Any] = json.loads(raw)
        return spec

    def _hash(self, book_id: str, part: str) -> dict[str, Any]:
        raw = self.redis.hgetall(_key(book_id, part))
        return {text(k) or "": json.loads(text(v) or "null") for k, v in raw.items()}

    def book(self, book_id: str) -> Book | None:
        """The finished book, or None."""
        raw = text(self.redis.get(_key(book_id, "book")))
        lost = raw is None and self.records is not None and not self.redis.exists(_key(book_id, "spec"))
        if lost and self.rehydrate(book_id):  # Redis lost the job: the book is in the durable store
            raw = text(self.redis.get(_key(book_id, "book")))
        return None if raw is None else Book.from_json(json.loads(raw))

    def state(self, book_id: str) -> str:
        self.spec(book_id)
        if self.redis.exists(_key(book_id, "book")):
            return "done"
        if self.redis.exists(_key(book_id, "error")):
            return "failed"
        settings = self.settings_of(book_id)
        names = [roll_name(r) for r in settings.roll_list]
        searched = self._hash(book_id, "search")
        if any(n not in searched for n in names) or not self.redis.exists(_key(book_id, "rollout")):
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
        rollout = text(self.redis.get(_key(book_id, "rollout")))
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
            "error": text(self.redis.get(_key(book_id, "error"))),
            "rolls_total": total,
            "rolls_searched": searched,
            "rollout_job": rollout,
            "trials_done": trials_done,
            "trials_total": trials_total,
            "rolls_replied": replied,
            "progress": round(min(progress, 1.0), 4),
            "eta_s": eta,
            "driver": bool(self.redis.exists(_key(book_id, "driver"))),
        }

    # ---- the work ---------------------------------------------------------------------
    def _touch(self, book_id: str) -> None:
        ttl = self.store.settings.job_ttl_s
        for part in ("spec", "search", "rollout", "valued", "replies"):
            self.redis.expire(_key(book_id, part), ttl)

    def advance(self, book_id: str, tick: Callable[[], None] | None = None) -> str:
        """Do the next step of the job (one search, the submission of the rollouts, the valuing of
        the finished rollouts, one roll's replies, or the assembly); returns the state after it.
        While the rollouts run it returns ``"rolling out"`` at once.  Each step is recorded in the
        durable store before Redis; a database that cannot be reached raises
        :class:`~services.store.db.StoreUnavailable` (the step is not recorded, the job goes on later)."""
        state = self.state(book_id)
        if state in TERMINAL:
            return state
        settings = self.settings_of(book_id)
        names = {roll_name(r): r for r in settings.roll_list}
        ttl = self.store.settings.job_ttl_s
        try:
            searched = self._hash(book_id, "search")
            todo = [r for n, r in names.items() if n not in searched]
            if todo:
                data = json.dumps(search_candidates(settings, todo[0], self.evaluator()))
                self._record(book_id, f"search:{roll_name(todo[0])}", data)
                self.redis.hset(_key(book_id, "search"), roll_name(todo[0]), data)
                self._touch(book_id)
                return self.state(book_id)
            rollout = text(self.redis.get(_key(book_id, "rollout")))
            if rollout is None:
                self._submit_rollouts(book_id, settings, searched)
                return self.state(book_id)
            valued = self._hash(book_id, "valued")
            if len(valued) < len(names):
                return self._collect(book_id, rollout, settings, searched)
            replies = self._hash(book_id, "replies")
            for n in names:
                best = BookCandidate(**valued[n][0])
                if n not in replies or replies[n]["position_id"] != best.position_id:
                    data = json.dumps(best_replies(settings, best, self.evaluator(), tick))
                    self._record(book_id, f"replies:{n}", data)
                    self.redis.hset(_key(book_id, "replies"), n, data)
                    self._touch(book_id)
                    return self.state(book_id)
            rolls = [
                BookRoll(n, r, tuple(BookCandidate(**c) for c in valued[n]), replies_of(replies[n]))
                for n, r in names.items()
            ]
            spec = self.spec(book_id)
            book = json.dumps(assemble(settings, spec["engine"], spec["created"], rolls).to_json())
            self._record(book_id, "book", book, state="done")
            self.redis.set(_key(book_id, "book"), book, ex=ttl)
            self._touch(book_id)
            return "done"
        except StoreUnavailable:
            raise
        except Exception as e:
            logger.exception("book job %s failed", book_id)
            self._fail(book_id, f"{type(e).__name__}: {e}")
            return "failed"

    def _submit_rollouts(self, book_id: str, settings: BookSettings, searched: dict[str, Any]) -> None:
        positions = [
            {
                "position_id": Position.start().position_id,
                "dice": [r[0], r[1]],
                "plays": [c["play"] for c in searched[roll_name(r)]["candidates"]],
                "label": roll_name(r),
            }
            for r in settings.roll_list
        ]
        defaults = {
            "trials": settings.trials,
            "seed": settings.seed,
            "variance_reduction": settings.variance_reduction,
            "luck": settings.luck,
            "truncate": settings.truncate,
            "rules": settings.rules_json(),
            "ply": settings.rollout_ply,
        }
        spec = self.spec(book_id)
        job = self.store.submit_batch(positions, priority=spec.get("priority", "batch"), defaults=defaults)
        if not self.redis.set(_key(book_id, "rollout"), job, nx=True, ex=self.store.settings.job_ttl_s):
            self.store.cancel(job)  # another driver submitted first
            return
        try:
            self._record(book_id, "rollout", job)
        except StoreUnavailable:  # not recorded: submitted again once the database is back
            self.redis.delete(_key(book_id, "rollout"))
            try:
                self.store.cancel(job)
            except Exception:
                logger.warning("book job %s: rollout job %s left running", book_id, job, exc_info=True)
            raise

    def _collect(self, book_id: str, rollout: str, settings: BookSettings, searched: dict[str, Any]) -> str:
        st = self.store.status(rollout)
        if st["state"] in ("failed", "cancelled"):
            raise RuntimeError(f"the rollout job {rollout} {st['state']}: {st.get('error')}")
        if st["state"] != "done":
            return "rolling out"
        results = self.store.rollout_results(rollout)
        valued = {
            roll_name(r): [
                _candidate_json(c) for c in value_candidates(searched[roll_name(r)]["candidates"], res)
            ]
            for r, res in zip(settings.roll_list, results, strict=True)
        }
        self._record(book_id, "valued", json.dumps(valued))
        pipe = self.redis.pipeline(transaction=True)
        for n, candidates in valued.items():
            pipe.hset(_key(book_id, "valued"), n, json.dumps(candidates))
        pipe.execute()
        self._touch(book_id)
        return self.state(book_id)

    # ---- drivers --------------------------------------------------------------------------
    def run(
        self,
        book_id: str,
        poll_s: float = 1.0,
        progress: Callable[[dict[str, Any]], None] | None = None,
        stop: threading.Event | None = None,
    ) -> str:
        """Advance the job until it is done or failed (or ``stop`` is set), holding the driver lease
        (a job that another live driver holds is left to it: returns its state at once).  A durable
        store that cannot be reached stops it too (the state it had; run it again later)."""
        token = secrets.token_hex(8)
        lease = _key(book_id, "driver")
        if not self.redis.set(lease, token, nx=True, ex=LEASE_S):
            return self.state(book_id)

        def tick() -> None:
            self.redis.set(lease, token, xx=True, ex=LEASE_S)

        try:
            state = self.state(book_id)
            while state not in TERMINAL and not (stop is not None and stop.is_set()):
                before = state
                try:
                    state = self.advance(book_id, tick)
                except StoreUnavailable:
                    logger.warning("book job %s: the durable store is unavailable; later", book_id)
                    return state
                tick()
                if progress is not None:
                    progress(self.status(book_id))
                if state == "rolling out" and before == "rolling out":
                    time.sleep(poll_s)
            return state
        finally:
            if text(self.redis.get(lease)) == token:
                self.redis.delete(lease)

    def ensure_driver(self, book_id: str, poll_s: float = 0.5) -> bool:
        """Start a driver thread for the job unless it is finished or another driver holds it;
        True when one was started."""
        state = self.state(book_id)
        if state in TERMINAL or self.redis.exists(_key(book_id, "driver")):
            return False
        t = threading.Thread(target=self.run, args=(book_id, poll_s), name=f"book-{book_id}", daemon=True)
        t.start()
        return True


SCHEDULED_TTL_S = 120


def scheduled_key(book_id: str) -> str:
    return f"book:{book_id}:scheduled"


def schedule(jobs: BookJobs, book_id: str, countdown: float = 0.0) -> bool:
    """Queue a driver for ``book_id`` unless one is queued already; True when one was queued.

    Sent through the job store's Celery app (its broker is the store's Redis, whichever process calls).
    """
    if not jobs.redis.set(scheduled_key(book_id), "1", nx=True, ex=SCHEDULED_TTL_S):
        return False
    jobs.store.app.send_task(BOOK_TASK, args=(book_id,), countdown=countdown, queue=BACKGROUND_QUEUE)
    return True


def _main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m services.jobs.book",
        description="Generate an opening book on the rollout workers (resumable: run it again to continue).",
    )
    BookSettings.add_arguments(ap, chunk_size=False)  # the workers' chunk size is the store's
    ap.add_argument("--out", required=True)
    ap.add_argument("--redis-url", default=None, help="default: PULVEZAR_ROLLOUT_REDIS_URL")
    args = ap.parse_args(argv)
    import redis

    from services.jobs.settings import RolloutSettings

    rs = RolloutSettings(**({"redis_url": args.redis_url} if args.redis_url else {}))
    store = JobStore(redis.Redis.from_url(rs.redis_url, decode_responses=True), settings=rs)
    try:
        settings = BookSettings.from_args(args, chunk_size=store.chunk_size)
        jobs = BookJobs(store)
        book_id = jobs.submit(settings)
    except BookError as e:
        print(f"error: {e.field}: {e}", file=sys.stderr)
        return 2
    print(f"book job {book_id}", file=sys.stderr)

    def show(st: dict[str, Any]) -> None:
        print(
            f"{time.strftime('%H:%M:%S')} {st['state']}: "
            f"searched {st['rolls_searched']}/{st['rolls_total']}, "
            f"trials {st['trials_done']}/{st['trials_total']}, "
            f"replies {st['rolls_replied']}/{st['rolls_total']}, "
            f"{100 * st['progress']:.1f}%, eta {st['eta_s']}",
            file=sys.stderr,
            flush=True,
        )

    while True:
        state = jobs.run(book_id, poll_s=2.0, progress=show)
        if state in TERMINAL:
            break
        time.sleep(5)  # another driver holds the job: wait for it
    if state == "failed":
        print(f"failed: {jobs.status(book_id)['error']}", file=sys.stderr)
        return 1
    book = jobs.book(book_id)
    assert book is not None
    write_book(book, args.out)
    print(f"wrote {args.out}: {len(book.rolls)} rolls")
    return 0


__all__ = ["STATES", "TERMINAL", "BookJobs"]

if __name__ == "__main__":
    sys.exit(_main())
