"""Opening-book generation fanned out over the rollout workers (:class:`BookJobs`).

The steps are those of :mod:`pulvezar.book.generate`; the rollouts, which are nearly all of the
work, run as one batch rollout job of the :class:`~services.rollout.jobs.JobStore` (one item per
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

The job id is a digest of the settings and the engine, so submitting the same settings again
finds the same job: it continues it (a failed job is retried from its last finished step).

Command (one command regenerates a shipped book on the platform's workers)::

    python -m services.rollout.book_jobs --rules tavla --out data/book/tavla.json
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
from services.rollout.jobs import JobStore, text

logger = logging.getLogger("pulvezar.services.rollout.book")

STATES = ("searching", "rolling out", "replying", "done", "failed")
TERMINAL = ("done", "failed")
LEASE_S = 60


def _key(book_id: str, part: str) -> str:
    return f"book:{book_id}:{part}"


def _candidate_json(c: BookCandidate) -> dict[str, Any]:
    return dict(c.__dict__)


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
    def submit(self, settings: BookSettings, priority: str = "batch") -> str:
        """Create the job of ``settings`` (or find it: same settings, same id) and return its id.

        The rollouts are cut into the store's chunks: ``settings.chunk_size`` must be the store's
        (:class:`BookError`, field ``chunk_size``).  A failed job is made ready to continue.
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
        if not self.redis.set(_key(book_id, "spec"), json.dumps(spec), nx=True, ex=ttl):
            self._retry_if_failed(book_id)
        return book_id

    def _retry_if_failed(self, book_id: str) -> None:
        if self.redis.get(_key(book_id, "error")) is None:
            return
        rollout = text(self.redis.get(_key(book_id, "rollout")))
        if rollout is not None:
            try:
                state = self.store.status(rollout)["state"]
            except LookupError:
                state = "gone"
            if state in ("failed", "cancelled", "gone"):
                self.redis.delete(_key(book_id, "rollout"))
        self.redis.delete(_key(book_id, "error"))

    # ---- reading ----------------------------------------------------------------------
    def spec(self, book_id: str) -> dict[str, Any]:
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
        While the rollouts run it returns ``"rolling out"`` at once."""
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
                data = search_candidates(settings, todo[0], self.evaluator())
                self.redis.hset(_key(book_id, "search"), roll_name(todo[0]), json.dumps(data))
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
                    data = best_replies(settings, best, self.evaluator(), tick)
                    self.redis.hset(_key(book_id, "replies"), n, json.dumps(data))
                    self._touch(book_id)
                    return self.state(book_id)
            rolls = [
                BookRoll(n, r, tuple(BookCandidate(**c) for c in valued[n]), replies_of(replies[n]))
                for n, r in names.items()
            ]
            spec = self.spec(book_id)
            book = assemble(settings, spec["engine"], spec["created"], rolls)
            self.redis.set(_key(book_id, "book"), json.dumps(book.to_json()), ex=ttl)
            self._touch(book_id)
            return "done"
        except Exception as e:
            self.redis.set(_key(book_id, "error"), f"{type(e).__name__}: {e}", ex=ttl)
            logger.exception("book job %s failed", book_id)
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
            "truncate": settings.truncate,
            "rules": settings.rules_json(),
            "ply": settings.rollout_ply,
        }
        spec = self.spec(book_id)
        job = self.store.submit_batch(positions, priority=spec.get("priority", "batch"), defaults=defaults)
        if not self.redis.set(_key(book_id, "rollout"), job, nx=True, ex=self.store.settings.job_ttl_s):
            self.store.cancel(job)  # another driver submitted first

    def _collect(self, book_id: str, rollout: str, settings: BookSettings, searched: dict[str, Any]) -> str:
        st = self.store.status(rollout)
        if st["state"] in ("failed", "cancelled"):
            raise RuntimeError(f"the rollout job {rollout} {st['state']}: {st.get('error')}")
        if st["state"] != "done":
            return "rolling out"
        results = self.store.rollout_results(rollout)
        pipe = self.redis.pipeline(transaction=True)
        for r, res in zip(settings.roll_list, results, strict=True):
            n = roll_name(r)
            valued = value_candidates(searched[n]["candidates"], res)
            pipe.hset(_key(book_id, "valued"), n, json.dumps([_candidate_json(c) for c in valued]))
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
        (a job that another live driver holds is left to it: returns its state at once)."""
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
                state = self.advance(book_id, tick)
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


def _main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m services.rollout.book_jobs",
        description="Generate an opening book on the rollout workers (resumable: run it again to continue).",
    )
    BookSettings.add_arguments(ap, chunk_size=False)  # the workers' chunk size is the store's
    ap.add_argument("--out", required=True)
    ap.add_argument("--redis-url", default=None, help="default: PULVEZAR_ROLLOUT_REDIS_URL")
    args = ap.parse_args(argv)
    import redis

    from services.rollout.celery_app import make_app
    from services.rollout.settings import RolloutSettings

    rs = RolloutSettings(**({"redis_url": args.redis_url} if args.redis_url else {}))
    store = JobStore(redis.Redis.from_url(rs.redis_url, decode_responses=True), app=make_app(rs), settings=rs)
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
