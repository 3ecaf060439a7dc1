"""The daily puzzles task: compute each (date, rule set, kind) once and store it write-once in Redis.

:data:`~services.rollout.celery_app.DAILY_TASK` (``pulvezar.daily.produce``) takes an ISO date, or none
for today and tomorrow (UTC), and produces every puzzle of
:func:`pulvezar.archive.daily.daily_kinds` that is not in Redis yet: the daily position for
international backgammon and for Tavla (basic rules) and the daily cube decision.  Each goes to
``daily:<date>:<rules>:<kind>`` with ``SET NX`` (:mod:`services.common.archive_store`), and first to
the durable store's ``daily_puzzles`` when one is configured (:class:`services.store.archive.DailyRecords`,
insert-once, the system of record: Redis then holds a copy), so a puzzle never changes once served; a
worker holds ``...:lock`` (``SET NX EX``) while it computes one, so two
workers do not compute the same puzzle at once.  Running the task again is cheap (existing puzzles are
skipped): the beat schedule (``celery_app``: every six hours, on the batch queue) runs it for today and
tomorrow, so tomorrow's puzzles exist before midnight.

The puzzles use the worker's evaluator (:func:`services.rollout.tasks.evaluator`) and
:class:`pulvezar.archive.daily.DailySettings`, overridden by ``PULVEZAR_DAILY_*`` variables
(:class:`DailyTaskSettings`).  With ``PULVEZAR_DAILY_ON_START=1`` a worker sends the task for today once
when it is ready (``make run`` sets it), so a fresh platform has today's puzzles without waiting for
the schedule.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import socket
import time
from typing import Any

from celery.signals import worker_ready
from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from pulvezar.archive.daily import DailySettings, daily_kinds, daily_puzzle
from pulvezar.archive.similar import check_date
from pulvezar.eval.evaluator import Evaluator
from services.common import archive_store
from services.common.jsonlog import log
from services.jobs.broker import DAILY_TASK
from services.jobs.settings import BACKGROUND_QUEUE
from services.rollout.celery_app import app

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
    lock_s: int = Field(3600, ge=10, description="a worker computing a puzzle holds its lock this long")
    on_start: bool = Field(False, description="a worker that starts sends the task once (make run does)")

    def library(self) -> DailySettings:
        return DailySettings(
            **self.model_dump(exclude={"lock_s", "on_start"}),
        )


def dates_for(date: str | None, now: dt.datetime | None = None) -> list[str]:
    """The dates to produce: the given one, or today and tomorrow (UTC)."""
    if date is not None:
        return [check_date(date)]
    today = (now or dt.datetime.now(dt.UTC)).date()
    return [today.isoformat(), (today + dt.timedelta(days=1)).isoformat()]


def produce_one(
    redis: Any,
    date: str,
    rules: str,
    kind: str,
    evaluator: Evaluator,
    settings: DailyTaskSettings,
    daily: Any = None,
) -> str:
    """Produce one puzzle unless it exists: ``"exists"``, ``"busy"`` (another worker), ``"stored"``.

    ``daily``: the durable store's :class:`services.store.archive.DailyRecords`, the system of record
    when there is one (Redis then holds a copy of what it stored)."""
    key = archive_store.daily_key(date, rules, kind)
    if daily is not None:
        known = daily.get(date, rules, kind)
        cached = redis.get(key)
        if known is not None:
            if cached is None:
                archive_store.store_daily(redis, date, rules, kind, json.dumps(known))
            return "exists"
        if cached is not None:  # made before the store was there: the store keeps what was served
            daily.put(date, rules, kind, cached if isinstance(cached, str) else cached.decode())
            return "exists"
    elif redis.exists(key):
        return "exists"
    lock = f"{key}:lock"
    me = f"{socket.gethostname()}:{os.getpid()}:{time.time()}"
    if not redis.set(lock, me, nx=True, ex=settings.lock_s):
        return "busy"
    try:
        t0 = time.perf_counter()
        puzzle = daily_puzzle(date, rules, kind, evaluator, settings.library())  # type: ignore[arg-type]
        text = puzzle.to_json()
        if daily is not None:
            stored = daily.put(date, rules, kind, text)
            served = daily.get(date, rules, kind)  # the one stored first, if another worker won
            archive_store.store_daily(redis, date, rules, kind, json.dumps(served) if served else text)
        else:
            stored = archive_store.store_daily(redis, date, rules, kind, text)
        log(
            logger,
            logging.INFO,
            "daily puzzle",
            date=date,
            rules=rules,
            kind=kind,
            stored=stored,
            seconds=round(time.perf_counter() - t0, 2),
            fallback=puzzle.selection["fallback"],
        )
        return "stored" if stored else "exists"
    finally:
        raw = redis.get(lock)
        if raw is not None and (raw.decode() if isinstance(raw, bytes) else raw) == me:
            redis.delete(lock)


def produce(
    redis: Any,
    evaluator: Evaluator,
    date: str | None = None,
    settings: DailyTaskSettings | None = None,
    daily: Any = None,
) -> dict[str, str]:
    """Every puzzle of the dates (see :func:`dates_for`): ``{"<date>:<rules>:<kind>": outcome}``."""
    s = settings or DailyTaskSettings()
    out: dict[str, str] = {}
    for d in dates_for(date):
        for rules, kind in daily_kinds():
            out[f"{d}:{rules}:{kind}"] = produce_one(redis, d, rules, kind, evaluator, s, daily)
    return out


def daily_records() -> Any:
    """The durable store's daily puzzles (``PULVEZAR_DATABASE_URL``), or None."""
    from services.store.settings import StoreSettings

    url = StoreSettings().url
    if not url:
        return None
    from services.store.archive import DailyRecords

    return DailyRecords(url)


@app.task(name=DAILY_TASK)
def produce_daily(date: str | None = None) -> dict[str, str]:
    """The Celery task: :func:`produce` with the worker's Redis and evaluator.  With the durable store
    each run is also a job of kind ``daily`` (no owner: the platform's own work) with its outcomes."""
    from services.rollout import tasks

    daily = daily_records()
    if daily is None:
        return produce(tasks.redis_client(), tasks.evaluator(), date)
    from services.store.jobs import JobRecords

    jobs = JobRecords(daily.url)
    job_id = f"daily-{int(time.time() * 1000)}-{os.getpid()}"
    jobs.create(job_id, "daily", {"dates": dates_for(date), "settings": DailyTaskSettings().model_dump()})
    try:
        out = produce(tasks.redis_client(), tasks.evaluator(), date, daily=daily)
    except Exception as e:
        jobs.set_state(job_id, "failed", error=f"{type(e).__name__}: {e}")
        raise
    jobs.add_chunks(job_id, {0: out})
    jobs.set_state(job_id, "done")
    return out


@worker_ready.connect
def _on_start(sender: Any = None, **_: Any) -> None:
    if DailyTaskSettings().on_start:  # today only: the schedule makes tomorrow's in time
        today = dates_for(None)[0]
        produce_daily.apply_async(args=[today], queue=BACKGROUND_QUEUE)
        log(logger, logging.INFO, "daily puzzles requested at start", date=today)
