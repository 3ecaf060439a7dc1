"""Opening-book generation fanned out over the rollout workers (:class:`BookJobs`).

The steps are those of :mod:`pulvezar.book.generate`; the rollouts, which are nearly all of the
work, run as one batch rollout job (:class:`~services.jobs.kinds.batch.BatchRollouts`; one item per
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

The job's owner (``jobs.owner``, and ``owner`` in its spec) is the API key that submitted it (None: the
platform's, e.g. the command line below); its batch rollout job has the same owner, so only that key
(an operator key for the platform's) may read either: another key gets 404.

The job id is a digest of the settings, the engine and the owner, so the owner submitting the same
settings again finds the same job: it continues it (a failed job is retried from its last finished
step); another key submitting them gets a job of its own.

Command (one command regenerates a shipped book on the platform's workers)::

    python -m services.jobs.book --rules tavla --out data/book/tavla.json
        [--trials 5184] [--candidates 5] [--threshold 0.16] [--ply 3] [--reply-ply 3] [...]
"""

from __future__ import annotations

import argparse
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
    replies_of,
    search_candidates,
    value_candidates,
    write_book,
)
from pulvezar.book.model import BookCandidate, BookError, BookRoll, roll_name
from pulvezar.rules.position import Position
from services.common.redis_url import connect as connect_redis
from services.jobs.book_store import LEASE_S, STATES, TERMINAL, BookStore, book_key
from services.jobs.broker import BOOK_TASK
from services.jobs.errors import text
from services.jobs.kinds.rollout import Rollouts
from services.jobs.settings import BACKGROUND_QUEUE
from services.store.db import StoreUnavailable

logger = logging.getLogger("pulvezar.services.rollout.book")


def _candidate_json(c: BookCandidate) -> dict[str, Any]:
    return dict(c.__dict__)


class BookJobs(BookStore):
    """Opening-book jobs (:class:`~services.jobs.book_store.BookStore`) and their work: :meth:`advance`
    does the next step, :meth:`run` drives a job to its end under the driver lease.

    ``evaluator`` (default: the shipped net, loaded on first use) is the driver's, for the searches;
    the workers must use the same net (their default) for the book to be one engine's.
    """

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
                self.redis.hset(book_key(book_id, "search"), roll_name(todo[0]), data)
                self._touch(book_id)
                return self.state(book_id)
            rollout = text(self.redis.get(book_key(book_id, "rollout")))
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
                    self.redis.hset(book_key(book_id, "replies"), n, data)
                    self._touch(book_id)
                    return self.state(book_id)
            rolls = [
                BookRoll(n, r, tuple(BookCandidate(**c) for c in valued[n]), replies_of(replies[n]))
                for n, r in names.items()
            ]
            spec = self.spec(book_id)
            book = json.dumps(assemble(settings, spec["engine"], spec["created"], rolls).to_json())
            self._record(book_id, "book", book, state="done")
            self.redis.set(book_key(book_id, "book"), book, ex=ttl)
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
            "prune": settings.prune,  # the trials' search at rollout_ply >= 1 (0-ply items ignore it)
        }
        spec = self.spec(book_id)
        body = {"positions": positions, "defaults": defaults, "priority": spec.get("priority", "batch")}
        job = self.batches.submit(body, owner=spec.get("owner"))
        if not self.redis.set(book_key(book_id, "rollout"), job, nx=True, ex=self.store.settings.job_ttl_s):
            self.store.cancel(job)  # another driver submitted first
            return
        try:
            self._record(book_id, "rollout", job)
        except StoreUnavailable:  # not recorded: submitted again once the database is back
            self.redis.delete(book_key(book_id, "rollout"))
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
            pipe.hset(book_key(book_id, "valued"), n, json.dumps(candidates))
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
        lease = book_key(book_id, "driver")
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
        if state in TERMINAL or self.redis.exists(book_key(book_id, "driver")):
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

    from services.jobs.settings import RolloutSettings

    rs = RolloutSettings(**({"redis_url": args.redis_url} if args.redis_url else {}))
    store = Rollouts(connect_redis(rs.redis_url, decode_responses=True), settings=rs)
    try:
        settings = BookSettings.from_args(args, chunk_size=rs.chunk_size)
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
