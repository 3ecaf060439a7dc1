"""The daily puzzles' tasks: each (date, rule set, kind) computed once and stored write-once in the durable
store.

:data:`~services.rollout.celery_app.DAILY_TASK` (``pulvezar.daily.produce``) takes an ISO date, or none
for today and tomorrow (UTC), and submits the platform's run of each date: a job of kind ``daily``
(:class:`services.jobs.kinds.daily.DailyRuns`, no owner, id ``daily-<date>``) whose chunks are the puzzles
of :func:`pulvezar.archive.daily.daily_kinds` not stored yet (the daily position for international
backgammon and for Tavla, the daily cube decision).  The workers run those chunks as any kind's, each
storing its puzzle in the durable store's ``daily_puzzles`` (:class:`services.store.archive.DailyRecords`,
insert-once), so a puzzle never changes once served.  Submitting again is idempotent (the date's job, or
none once its puzzles are stored), so no lock is needed: the beat schedule (``celery_app``: every six
hours, on the background queue) sends the task for today and tomorrow, so tomorrow's puzzles exist
before midnight; the reconciler brings back a run that Redis lost, as any job.

The puzzles use the worker's evaluator and :class:`pulvezar.archive.daily.DailySettings`, overridden by
``PULVEZAR_DAILY_*`` variables (:class:`DailyTaskSettings`, read where the task runs and kept in the job's
spec).  With ``PULVEZAR_DAILY_ON_START=1`` a worker sends the task for today once when it is ready
(``make run`` sets it), so a fresh platform has today's puzzles without waiting for the schedule.

**Rechecks.**  :data:`~services.jobs.broker.DAILY_RECHECK_TASK` (``pulvezar.daily.recheck``, background
queue) walks the stored puzzles and, for each made by another net than the worker's, judges its answer
again with the worker's net (:func:`pulvezar.archive.daily.recheck`: the puzzle's own rollout settings
and seed) and stores the :class:`~pulvezar.archive.daily.Recheck` beside it, write-once per net, in the
durable store's ``daily_rechecks``; the Redis key ``daily:<date>:<rules>:<kind>:recheck:<sha16>:lock``
keeps two workers off the same one.  The puzzle itself never changes.  Running it again is cheap
(rechecked puzzles and those of the worker's own net are skipped), so with ``PULVEZAR_DAILY_ON_START=1``
a worker also sends it once when it is ready (``PULVEZAR_DAILY_RECHECK_ON_START=0`` turns that off): a
worker with a new net rechecks the archive in the background.  From the command line:
``python -m services.rollout.daily_tasks --recheck [--date D]`` (in this process, with the worker's settings).
Rechecks stay a plain task, not a kind: their work is known only by walking the archive at run time (a
net's rechecks are keyed by the net, not by a date), it is cheap when nothing is left, and a recheck's
insert-once row is its own record; a lock per puzzle and net is all they need.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import logging
import os
import socket
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from celery.signals import worker_ready
from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from pulvezar.archive.daily import DailySettings, daily_kinds, recheck
from pulvezar.archive.similar import check_date
from pulvezar.eval.evaluator import Evaluator
from services.common.jsonlog import log
from services.jobs.broker import DAILY_RECHECK_TASK, DAILY_TASK
from services.jobs.kinds.daily import DailyParams, DailyRuns
from services.jobs.settings import BACKGROUND_QUEUE
from services.rollout.celery_app import app

if TYPE_CHECKING:
    from services.store.archive import DailyRecords

logger = logging.getLogger("pulvezar.services.rollout.daily")


class DailyTaskSettings(BaseSettings):
    """``PULVEZAR_DAILY_<NAME>``: the work per puzzle (defaults: :class:`DailySettings`)."""

    model_config = SettingsConfigDict(env_prefix="PULVEZAR_DAILY_")

    games: int = Field(DailySettings.games, ge=1)
    trials: int = Field(DailySettings.trials, ge=1)
    truncate: int | None = Field(DailySettings.truncate, ge=0)
    cube_trials: int = Field(DailySettings.cube_trials, ge=1)
    cube_truncate: int | None = Field(DailySettings.cube_truncate, ge=0)
    max_screened: int = Field(DailySettings.max_screened, ge=1)
    max_rollouts: int = Field(DailySettings.max_rollouts, ge=1)
    screen_ply: int = Field(DailySettings.screen_ply, ge=0, le=3)
    cube_screen_ply: int = Field(DailySettings.cube_screen_ply, ge=0, le=2)
    lock_s: int = Field(3600, ge=10, description="a worker rechecking a puzzle holds its lock this long")
    on_start: bool = Field(False, description="a worker that starts sends the task once (make run does)")
    recheck_on_start: bool = Field(True, description="with on_start: the recheck task is sent too")

    def params(self) -> DailyParams:
        """The work per puzzle, as the ``daily`` kind's request has it."""
        return DailyParams(**self.model_dump(exclude={"lock_s", "on_start", "recheck_on_start"}))

    def library(self) -> DailySettings:
        return DailySettings(**self.params().model_dump())


def dates_for(date: str | None, now: dt.datetime | None = None) -> list[str]:
    """The dates to produce: the given one, or today and tomorrow (UTC)."""
    if date is not None:
        return [check_date(date)]
    today = (now or dt.datetime.now(dt.UTC)).date()
    return [today.isoformat(), (today + dt.timedelta(days=1)).isoformat()]


@contextlib.contextmanager
def _held(redis: Any, lock: str, seconds: int) -> Iterator[bool]:
    """Hold ``lock`` (``SET NX EX``: the worker's name) while the block runs, and free it after if still
    ours; the block gets ``False`` when another worker holds it."""
    me = f"{socket.gethostname()}:{os.getpid()}:{time.time()}"
    if not redis.set(lock, me, nx=True, ex=seconds):
        yield False
        return
    try:
        yield True
    finally:
        raw = redis.get(lock)
        if raw is not None and (raw.decode() if isinstance(raw, bytes) else raw) == me:
            redis.delete(lock)


def recheck_lock(date: str, rules: str, kind: str, model_sha256: str) -> str:
    """The Redis key a worker holds while it rechecks a puzzle with the net of ``model_sha256``."""
    return f"daily:{date}:{rules}:{kind}:recheck:{model_sha256[:16]}:lock"


def daily_runs(redis: Any) -> DailyRuns:
    """The ``daily`` kind's store with the worker's Redis, broker, settings and durable store."""
    from services.rollout import tasks

    return DailyRuns(redis, app=app, settings=tasks.settings, records=tasks.records())


def submit(
    runs: DailyRuns, date: str | None = None, settings: DailyTaskSettings | None = None
) -> dict[str, str]:
    """The platform's run of each date (see :func:`dates_for`): ``{date: job id}``, ``"stored"`` for a date
    whose puzzles are all stored already (:meth:`~services.jobs.kinds.daily.DailyRuns.submit_daily`)."""
    params = (settings or DailyTaskSettings()).params()
    return {d: runs.submit_daily(d, params) or "stored" for d in dates_for(date)}


def produce_one(
    daily: DailyRecords, date: str, rules: str, kind: str, evaluator: Evaluator, settings: DailyTaskSettings
) -> str:
    """Produce one puzzle in this process unless it exists: ``"exists"`` or ``"stored"`` (the command
    line's way; the workers run the ``daily`` kind's chunks)."""
    if daily.get(date, rules, kind) is not None:
        return "exists"
    t0 = time.perf_counter()
    spec = {"date": date, "settings": settings.params().model_dump()}
    stored = daily.put(date, rules, kind, DailyRuns.puzzle_json(spec, [rules, kind], evaluator))
    log(logger, logging.INFO, "daily puzzle", date=date, rules=rules, kind=kind, stored=stored,
        seconds=round(time.perf_counter() - t0, 2))  # fmt: skip
    return "stored" if stored else "exists"


def produce(
    daily: DailyRecords,
    evaluator: Evaluator,
    date: str | None = None,
    settings: DailyTaskSettings | None = None,
) -> dict[str, str]:
    """Every puzzle of the dates in this process: ``{"<date>:<rules>:<kind>": outcome}``."""
    s = settings or DailyTaskSettings()
    out: dict[str, str] = {}
    for d in dates_for(date):
        for rules, kind in daily_kinds():
            out[f"{d}:{rules}:{kind}"] = produce_one(daily, d, rules, kind, evaluator, s)
    return out


def daily_records() -> DailyRecords:
    """The durable store's daily puzzles (``PULVEZAR_DATABASE_URL``, required)."""
    from services.store.archive import DailyRecords
    from services.store.settings import StoreSettings

    url = StoreSettings().url
    if not url:
        raise RuntimeError("the daily puzzles need the durable store: set PULVEZAR_DATABASE_URL")
    return DailyRecords(url)


@app.task(name=DAILY_TASK)
def produce_daily(date: str | None = None) -> dict[str, str]:
    """The Celery task (the beat's, every six hours): the platform's ``daily`` run of each date
    (:func:`submit`); the kind's chunks compute and store the puzzles."""
    from services.rollout import tasks

    out = submit(daily_runs(tasks.redis_client()), date)
    log(logger, logging.INFO, "daily runs", **out)
    return out


# ---- rechecks ---------------------------------------------------------------------------------------
def _worker_net(evaluator: Evaluator) -> str | None:
    from pulvezar.eval.provenance import engine_info

    return engine_info(evaluator).model_sha256


def recheck_one(
    redis: Any,
    daily: DailyRecords,
    date: str,
    rules: str,
    kind: str,
    evaluator: Evaluator,
    settings: DailyTaskSettings | None = None,
) -> str:
    """Recheck one stored puzzle with ``evaluator``'s net: ``"missing"`` (no puzzle), ``"same-net"`` (made
    by this net), ``"exists"`` (rechecked before), ``"busy"`` (another worker), ``"stored"``, or
    ``"unknown-net"`` (the evaluator names no net: nothing to key a recheck by)."""
    sha = _worker_net(evaluator)
    if sha is None:
        return "unknown-net"
    puzzle = daily.get(date, rules, kind)
    if puzzle is None:
        return "missing"
    if puzzle.get("settings", {}).get("model_sha256") == sha:
        return "same-net"
    if daily.get_recheck(date, rules, kind, sha) is not None:
        return "exists"
    lock = recheck_lock(date, rules, kind, sha)
    with _held(redis, lock, (settings or DailyTaskSettings()).lock_s) as mine:
        if not mine:
            return "busy"
        t0 = time.perf_counter()
        rc = recheck(puzzle, evaluator)
        stored = daily.put_recheck(date, rules, kind, sha, rc.agrees, rc.to_json())
        log(
            logger,
            logging.INFO,
            "daily puzzle rechecked",
            date=date,
            rules=rules,
            kind=kind,
            model=rc.model,
            agrees=rc.agrees,
            answer=rc.summary(),
            puzzle_answer=rc.puzzle_answer,
            stored=stored,
            seconds=round(time.perf_counter() - t0, 2),
        )
        return "stored" if stored else "exists"


def recheck_all(
    redis: Any,
    daily: DailyRecords,
    evaluator: Evaluator,
    date: str | None = None,
    settings: DailyTaskSettings | None = None,
) -> dict[str, str]:
    """:func:`recheck_one` for every stored puzzle (of ``date`` only, when given):
    ``{"<date>:<rules>:<kind>": outcome}``."""
    keys = set(daily.puzzle_keys())
    if date is not None:
        check_date(date)
        keys = {k for k in keys if k[0] == date}
    return {
        f"{d}:{r}:{k}": recheck_one(redis, daily, d, r, k, evaluator, settings) for d, r, k in sorted(keys)
    }


@app.task(name=DAILY_RECHECK_TASK)
def recheck_daily(date: str | None = None) -> dict[str, str]:
    """The Celery task: :func:`recheck_all` with the worker's Redis, evaluator and durable store."""
    from services.rollout import tasks

    out = recheck_all(tasks.redis_client(), daily_records(), tasks.evaluator(), date)
    counts: dict[str, int] = {}
    for outcome in out.values():
        counts[outcome] = counts.get(outcome, 0) + 1
    log(logger, logging.INFO, "daily rechecks", **counts)
    return out


@worker_ready.connect
def _on_start(sender: Any = None, **_: Any) -> None:
    s = DailyTaskSettings()
    if s.on_start:  # today only: the schedule makes tomorrow's in time
        today = dates_for(None)[0]
        produce_daily.apply_async(args=(today,), queue=BACKGROUND_QUEUE)
        log(logger, logging.INFO, "daily puzzles requested at start", date=today)
        if s.recheck_on_start:  # cheap when nothing is left: a new net's worker rechecks the archive
            recheck_daily.apply_async(queue=BACKGROUND_QUEUE)


def main(argv: list[str] | None = None) -> int:
    """``python -m services.rollout.daily_tasks [--recheck] [--date D]``: produce (or recheck) the daily
    puzzles in this process, with the worker's Redis, evaluator and durable store; prints the outcomes."""
    parser = argparse.ArgumentParser(prog="python -m services.rollout.daily_tasks", description=main.__doc__)
    parser.add_argument("--recheck", action="store_true", help="recheck the stored puzzles with this net")
    parser.add_argument("--date", help="YYYY-MM-DD (default: every stored puzzle; produce: today, tomorrow)")
    args = parser.parse_args(argv)
    from services.rollout import tasks

    ev, daily = tasks.evaluator(), daily_records()
    out = (
        recheck_all(tasks.redis_client(), daily, ev, args.date)
        if args.recheck
        else produce(daily, ev, args.date)
    )
    print(json.dumps(out, indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":  # the imported module's main: its tasks, not a second copy of them
    from services.rollout.daily_tasks import main as _main

    raise SystemExit(_main())
