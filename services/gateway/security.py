"""API keys (``X-API-Key``), per-key token-bucket rate limits, per-key daily job/trial quotas and
cost-based admission (core-seconds per job and per UTC day).

Every job has an owner: the key that submitted it, or the platform (:data:`PLATFORM`: jobs queued by
the services or the command line, the durable store's ``NULL`` owner).  Another key gets 404 for a job,
as for a job that does not exist; an operator key sees the platform's jobs too, never another key's; a
job whose owner is not known (recorded neither in Redis, this process nor the durable store) is denied.

Each job's cost is estimated in core-seconds by its store once it is planned and before anything is
recorded (:class:`Admission`); an estimate over the key's ``max_job_core_s`` is a 422, one that would take
the day's spending over ``daily_core_s`` a 429 until midnight UTC, both carrying ``estimate_core_s`` and
``limit_core_s`` (:class:`CostProblem`).  The charge is the estimate (not the measured cost), refunded
when the submission fails.  What a request computes at once (a hint, a cube decision, a bot's move) is
metered instead (:mod:`services.common.metering`): its calls to the engine's services are refused with the
same 429 once the day's core-seconds are spent, and their wall time is charged after the request.

With a Redis (``PULVEZAR_GATEWAY_REDIS_URL``, the job store's) the buckets, quotas and job owners live
there, so all gateway replicas share them: each check is one atomic Lua script using Redis's clock; keys
are stored by a hash of the secret, never the secret.  Without Redis they are in memory, per
process.  Should Redis fail mid-request, the check falls back to the process's own state (logged), never
to a 500.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from fastapi import Depends, Request
from fastapi.security import APIKeyHeader

from services.common.metering import open_meter
from services.common.owners import owner_of
from services.common.redis_url import connect as connect_redis
from services.gateway.problems import ProblemError, retry_after
from services.gateway.settings import ApiKey
from services.jobs.errors import text

T = TypeVar("T")

logger = logging.getLogger("pulvezar.gateway")

HEADER = "X-API-Key"
api_key_header = APIKeyHeader(name=HEADER, auto_error=False, description="the client's API key")


@dataclass(slots=True)
class TokenBucket:
    """``burst`` tokens, refilled at ``rate`` per second; each request takes one."""

    rate: float
    burst: float
    tokens: float = -1.0
    stamp: float = field(default_factory=time.monotonic)

    def take(self, now: float | None = None) -> float:
        """0 when a token was taken, else the seconds until one is there."""
        now = time.monotonic() if now is None else now
        if self.tokens < 0:
            self.tokens = self.burst
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return 0.0
        return (1.0 - self.tokens) / self.rate


@dataclass(slots=True)
class Usage:
    day: str
    jobs: int = 0
    trials: int = 0
    core_s: float = 0.0


#: the owner of the platform's own jobs (daily puzzles, books and batches queued by the services or the
#: command line): the durable store records it as a ``NULL`` owner; no key's digest (:func:`owner_of`)
#: can be this word
PLATFORM = "platform"


class CostProblem(ProblemError):
    """A refusal on cost: the problem document carries ``estimate_core_s`` and ``limit_core_s`` (and, for
    the daily budget, ``used_core_s``) as extension members (:func:`services.gateway.routers.usage.install`
    renders them)."""

    def __init__(self, status: int, detail: str, extra: dict[str, float], **kwargs: Any) -> None:
        super().__init__(status, detail, **kwargs)
        self.extra = extra


def _seconds_to_midnight(now: datetime) -> float:
    tomorrow = (now + timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)
    return (tomorrow - now).total_seconds()


_BUCKET = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1e6
local rate, burst = tonumber(ARGV[1]), tonumber(ARGV[2])
local v = redis.call('HMGET', KEYS[1], 'tokens', 'stamp')
local tokens = tonumber(v[1]) or burst
local stamp = tonumber(v[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - stamp) * rate)
local wait = 0
if tokens >= 1 then tokens = tokens - 1 else wait = (1 - tokens) / rate end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'stamp', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(1000 * (burst / rate + 60)))
return tostring(wait)
"""

# ARGV: jobs, trials, max jobs, max trials, core-seconds, max core-seconds (a day's); the used amounts
# come back as strings (a Lua number would be cut to an integer)
_CHARGE = """
local jobs = tonumber(redis.call('HGET', KEYS[1], 'jobs') or '0')
local trials = tonumber(redis.call('HGET', KEYS[1], 'trials') or '0')
local core = tonumber(redis.call('HGET', KEYS[1], 'core_s') or '0')
local dj, dt, dc = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[5])
if jobs + dj > tonumber(ARGV[3]) or trials + dt > tonumber(ARGV[4]) or core + dc > tonumber(ARGV[6]) then
  return {0, jobs, trials, tostring(core)}
end
redis.call('HINCRBY', KEYS[1], 'jobs', dj)
redis.call('HINCRBY', KEYS[1], 'trials', dt)
redis.call('HINCRBYFLOAT', KEYS[1], 'core_s', dc)
redis.call('EXPIRE', KEYS[1], 172800)
return {1, jobs + dj, trials + dt, tostring(core + dc)}
"""

_REFUND = """
local jobs = math.max(0, tonumber(redis.call('HGET', KEYS[1], 'jobs') or '0') - tonumber(ARGV[1]))
local trials = math.max(0, tonumber(redis.call('HGET', KEYS[1], 'trials') or '0') - tonumber(ARGV[2]))
local core = math.max(0, tonumber(redis.call('HGET', KEYS[1], 'core_s') or '0') - tonumber(ARGV[3]))
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('HSET', KEYS[1], 'jobs', jobs, 'trials', trials, 'core_s', tostring(core))
end
return 1
"""


OWNER_TTL_S = 8 * 24 * 3600  # longer than any job is kept (the job store's JOB_TTL_S: 7 days)


class SharedLimits:
    """Token buckets and daily usage in Redis, shared by every gateway replica."""

    def __init__(self, client: Any, prefix: str = "pulvezar:limits") -> None:
        self.client = client
        self.prefix = prefix
        self._bucket = client.register_script(_BUCKET)
        self._charge = client.register_script(_CHARGE)
        self._refund = client.register_script(_REFUND)

    @classmethod
    def from_url(cls, url: str) -> SharedLimits:
        return cls(connect_redis(url, socket_timeout=1.0, socket_connect_timeout=1.0))

    def _key(self, secret: str, what: str) -> str:
        digest = hashlib.sha256(secret.encode()).hexdigest()[:24]
        return f"{self.prefix}:{digest}:{what}"

    def take(self, secret: str, rate: float, burst: float) -> float:
        return float(self._bucket(keys=[self._key(secret, "bucket")], args=[rate, burst]))

    def charge(self, secret: str, day: str, used: Usage, limits: ApiKey) -> tuple[bool, Usage]:
        """Add ``used`` (jobs, trials, core-seconds) to the day's usage unless it would pass ``limits``;
        whether it did, and the usage before (refused) or after (charged)."""
        args: list[int | str] = [used.jobs, used.trials, limits.daily_jobs, limits.daily_trials]
        args += [repr(float(used.core_s)), repr(float(limits.daily_core_s))]
        ok, jobs, trials, core = self._charge(keys=[self._key(secret, f"quota:{day}")], args=args)
        return bool(ok), Usage(day, int(jobs), int(trials), float(text(core) or 0))

    def refund(self, secret: str, day: str, jobs: int, trials: int, core_s: float = 0.0) -> None:
        self._refund(keys=[self._key(secret, f"quota:{day}")], args=[jobs, trials, repr(float(core_s))])

    def spend(self, secret: str, day: str, core_s: float) -> None:
        """Add measured core-seconds to the day's usage (no limit: the work is done)."""
        key = self._key(secret, f"quota:{day}")
        with self.client.pipeline(transaction=True) as p:
            p.hincrbyfloat(key, "core_s", repr(float(core_s)))
            p.expire(key, 172800)
            p.execute()

    def usage(self, secret: str, day: str) -> Usage:
        jobs, trials, core = self.client.hmget(self._key(secret, f"quota:{day}"), "jobs", "trials", "core_s")
        return Usage(day, int(jobs or 0), int(trials or 0), float(text(core) or 0))

    def claim(self, job_id: str, owner: str) -> None:
        self.client.set(f"{self.prefix}:owner:{job_id}", owner, ex=OWNER_TTL_S)

    def owner(self, job_id: str) -> str | None:
        value = self.client.get(f"{self.prefix}:owner:{job_id}")
        return value.decode() if isinstance(value, bytes) else value


class Guard:
    """Checks keys, limits rates and counts quotas, for one app (in ``shared`` Redis state when given)."""

    def __init__(self, keys: dict[str, ApiKey], shared: SharedLimits | None = None) -> None:
        self.keys = dict(keys)
        self.shared = shared
        self._buckets: dict[str, TokenBucket] = {}
        self._usage: dict[str, Usage] = {}
        self._owners: dict[str, str] = {}
        self._lock = threading.Lock()

    def claim(self, job_id: str, secret: str) -> None:
        """Record ``secret``'s key as the owner of the job it just submitted."""
        owner = owner_of(secret)
        with self._lock:
            self._owners[job_id] = owner
        if self.shared is not None:
            try:
                self.shared.claim(job_id, owner)
            except Exception:
                self._shared_failed("job owners")

    def owns(
        self,
        job_id: str,
        secret: str,
        durable_owner: Callable[[str], str | None] | None = None,
        operator: bool = False,
    ) -> bool:
        """Whether ``secret``'s key may see the job: it submitted it, or the job is the platform's
        (:data:`PLATFORM`) and the key an ``operator``.  A job with no owner recorded anywhere is denied."""
        owner: str | None = None
        if self.shared is not None:
            try:
                owner = self.shared.owner(job_id)
            except Exception:
                self._shared_failed("job owners")
        if owner is None:
            with self._lock:
                owner = self._owners.get(job_id)
        if owner is None and durable_owner is not None:
            owner = durable_owner(job_id)
        if owner is None:
            return False
        if owner == PLATFORM:
            return operator
        return hmac.compare_digest(owner, owner_of(secret))

    def _shared_failed(self, what: str) -> None:
        logger.warning(
            "shared limits unavailable for %s; using this process's own state", what, exc_info=True
        )

    def identify(self, secret: str | None) -> tuple[str, ApiKey]:
        """The key of ``secret`` (compared in constant time), or 401."""
        if not secret:
            raise ProblemError(
                401,
                f"send an API key in the {HEADER} header",
                kind="unauthorized",
                errors=[(HEADER, "missing")],
                headers={"WWW-Authenticate": f'ApiKey header="{HEADER}"'},
            )
        found: tuple[str, ApiKey] | None = None
        given = secret.encode()
        for candidate, limits in self.keys.items():
            if hmac.compare_digest(candidate.encode(), given):
                found = (candidate, limits)
        if found is None:
            raise ProblemError(
                401,
                "the API key is not valid",
                kind="unauthorized",
                errors=[(HEADER, "unknown key")],
                headers={"WWW-Authenticate": f'ApiKey header="{HEADER}"'},
            )
        return found

    def throttle(self, secret: str, limits: ApiKey) -> None:
        """Take a token of the key's bucket, or 429 with ``Retry-After``."""
        wait: float | None = None
        if self.shared is not None:
            try:
                wait = self.shared.take(secret, limits.rate_per_s, limits.burst)
            except Exception:
                self._shared_failed("rate limits")
        if wait is None:
            with self._lock:
                bucket = self._buckets.get(secret)
                if bucket is None or bucket.rate != limits.rate_per_s or bucket.burst != limits.burst:
                    bucket = self._buckets[secret] = TokenBucket(limits.rate_per_s, limits.burst)
                wait = bucket.take()
        if wait > 0:
            raise ProblemError(
                429,
                f"rate limit of {limits.rate_per_s:g} requests/s (burst {limits.burst}) exceeded",
                kind="rate-limited",
                headers=retry_after(wait),
            )

    def charge(self, secret: str, limits: ApiKey, jobs: int, trials: int, core_s: float = 0.0) -> None:
        """Count ``jobs``, ``trials`` and ``core_s`` (a job's estimated cost) against today's quota (UTC):
        a 422 for a job over the key's ``max_job_core_s``, a 429 until midnight over a daily limit."""
        if core_s > limits.max_job_core_s:
            raise CostProblem(
                422,
                f"the job would cost about {core_s:.0f} core-seconds, at most {limits.max_job_core_s:g} "
                "per job: ask for fewer trials, a lower ply or fewer positions",
                {"estimate_core_s": round(core_s, 3), "limit_core_s": float(limits.max_job_core_s)},
                kind="job-too-costly",
                title="Job too costly",
                errors=[
                    ("request", f"estimated {core_s:.0f} core-seconds, at most {limits.max_job_core_s:g}")
                ],
            )
        now = datetime.now(UTC)
        today = now.date().isoformat()
        asked = Usage(today, jobs, trials, core_s)
        if self.shared is not None:
            try:
                ok, used = self.shared.charge(secret, today, asked, limits)
            except Exception:
                self._shared_failed("quotas")
            else:
                if ok:
                    return
                raise _over_quota(limits, asked, used, now)
        with self._lock:
            usage = self._today(secret, today)
            if not _over(limits, asked, usage):
                usage.jobs += jobs
                usage.trials += trials
                usage.core_s += core_s
                return
            used = Usage(today, usage.jobs, usage.trials, usage.core_s)
        raise _over_quota(limits, asked, used, now)

    def refund(self, secret: str, jobs: int, trials: int, core_s: float = 0.0) -> None:
        """Give back a charge whose job could not be submitted."""
        if self.shared is not None:
            try:
                self.shared.refund(secret, datetime.now(UTC).date().isoformat(), jobs, trials, core_s)
                return
            except Exception:
                self._shared_failed("quotas")
        with self._lock:
            usage = self._usage.get(secret)
            if usage is not None:
                usage.jobs = max(0, usage.jobs - jobs)
                usage.trials = max(0, usage.trials - trials)
                usage.core_s = max(0.0, usage.core_s - core_s)

    def _today(self, secret: str, today: str) -> Usage:
        """This process's usage of the key today (a new day starts at nothing); the caller holds the lock."""
        usage = self._usage.get(secret)
        if usage is None or usage.day != today:
            usage = self._usage[secret] = Usage(today)
        return usage

    def spend(self, secret: str, core_s: float) -> None:
        """Charge the measured core-seconds of a request's synchronous work to today's usage (UTC)."""
        today = datetime.now(UTC).date().isoformat()
        if self.shared is not None:
            try:
                self.shared.spend(secret, today, core_s)
                return
            except Exception:
                self._shared_failed("quotas")
        with self._lock:
            usage = self._today(secret, today)
            usage.core_s += core_s

    def may_spend(self, secret: str, limits: ApiKey) -> None:
        """429 until midnight UTC when the key's core-seconds of today are spent (a request's engine calls
        ask this before the first: :mod:`services.common.metering`)."""
        used = self.usage(secret)
        if used.core_s >= limits.daily_core_s:
            now = datetime.now(UTC)
            raise _over_quota(limits, Usage(used.day), used, now, what="this request")

    def usage(self, secret: str) -> Usage:
        today = datetime.now(UTC).date().isoformat()
        if self.shared is not None:
            try:
                return self.shared.usage(secret, today)
            except Exception:
                self._shared_failed("quotas")
        with self._lock:
            u = self._usage.get(secret)
            if u is None or u.day != today:
                return Usage(today)
            return Usage(u.day, u.jobs, u.trials, u.core_s)


def _over(limits: ApiKey, asked: Usage, used: Usage) -> list[str]:
    """The daily limits that ``asked`` on top of ``used`` would pass, in words."""
    over = []
    if used.jobs + asked.jobs > limits.daily_jobs:
        over.append(f"{limits.daily_jobs} jobs")
    if used.trials + asked.trials > limits.daily_trials:
        over.append(f"{limits.daily_trials} trials")
    if used.core_s + asked.core_s > limits.daily_core_s:
        over.append(f"{limits.daily_core_s:g} core-seconds")
    return over


def _over_quota(
    limits: ApiKey, asked: Usage, used: Usage, now: datetime, what: str = "this job"
) -> CostProblem:
    over = " and ".join(_over(limits, asked, used)) or "the key's limits"
    return CostProblem(
        429,
        f"daily quota of {over} exceeded (used today: {used.jobs} jobs, {used.trials} trials, "
        f"{used.core_s:.0f} core-seconds; {what}: about {asked.core_s:.0f} core-seconds)",
        {
            "estimate_core_s": round(asked.core_s, 3),
            "limit_core_s": float(limits.daily_core_s),
            "used_core_s": round(used.core_s, 3),
        },
        kind="quota-exceeded",
        headers=retry_after(_seconds_to_midnight(now)),
    )


def seconds_to_reset(now: datetime | None = None) -> float:
    """Seconds until the daily quotas start again (midnight UTC)."""
    return _seconds_to_midnight(now or datetime.now(UTC))


class Admission:
    """One submission's charge, made by its store with the job's estimated cost once the job is planned
    and before anything is recorded (``admit(core_s)``: 422 or 429 refuse it); :meth:`refund` gives it
    back when the submission fails after all."""

    def __init__(self, client: Client, jobs: int, trials: int) -> None:
        self.client = client
        self.jobs = jobs
        self.trials = trials
        self.charged: float | None = None

    def __call__(self, core_s: float) -> None:
        if self.charged is not None:  # charged once, whatever the store calls
            return
        self.client.charge(self.jobs, self.trials, core_s)
        self.charged = core_s

    def refund(self) -> None:
        if self.charged is not None:
            self.client.refund(self.jobs, self.trials, self.charged)
            self.charged = None


@dataclass(frozen=True, slots=True)
class Client:
    """The caller of a request, once its key is known and a rate token taken."""

    secret: str
    limits: ApiKey
    guard: Guard

    @property
    def name(self) -> str:
        return self.limits.name

    def charge(self, jobs: int, trials: int, core_s: float = 0.0) -> None:
        self.guard.charge(self.secret, self.limits, jobs, trials, core_s)

    def refund(self, jobs: int, trials: int, core_s: float = 0.0) -> None:
        self.guard.refund(self.secret, jobs, trials, core_s)

    @property
    def owner(self) -> str:
        """How the durable store records this key as a job's owner (a digest, never the secret)."""
        return owner_of(self.secret)

    def claim(self, job_id: str) -> None:
        """This key owns the job it just submitted."""
        self.guard.claim(job_id, self.secret)

    async def spend(self, jobs: int, trials: int, call: Callable[[Admission], Awaitable[T]]) -> T:
        """Charge the quota for ``call``: ``call(admit)`` makes the store call ``admit`` with the job's
        estimated cost before it records anything (422 or 429 over the limits); refunded if ``call``
        fails.  A call that never admits is charged nothing (the store did not plan a job)."""
        admission = Admission(self, jobs, trials)
        try:
            out = await call(admission)
        except BaseException:
            admission.refund()
            raise
        if admission.charged is None:
            logger.error("a job was submitted without its cost: no admission by the store")
        return out

    def admit(self, backlog: tuple[int, int], trials: int) -> None:
        """429 when one more job of ``trials`` would take the key over its limits on unfinished jobs
        and queued trials (``backlog``: what it has unfinished now)."""
        jobs, queued = backlog
        limits = self.limits
        if jobs + 1 > limits.max_running_jobs:
            raise ProblemError(
                429,
                f"{jobs} unfinished jobs: at most {limits.max_running_jobs} at once; wait for some to end",
                kind="too-many-jobs",
                headers={"Retry-After": "10"},
            )
        if trials and queued + trials > limits.max_queued_trials:
            raise ProblemError(
                429,
                f"{queued} trials queued and {trials} more: at most {limits.max_queued_trials} at once",
                kind="too-many-trials",
                headers={"Retry-After": "10"},
            )

    async def submit(
        self,
        trials: int,
        call: Callable[[Admission], Awaitable[str]],
        backlog: Callable[[str], tuple[int, int]] | None = None,
    ) -> str:
        """Check the key's limits on unfinished work (``backlog(owner)``: its unfinished jobs and
        queued trials), charge one job, ``trials`` and its cost (``call(admit)``: the store calls ``admit``
        with its estimate, :meth:`spend`), submit with ``call`` and own the new job; its id.
        Two submissions at once may both pass the limits' check (they are a fair-use bound, not a bill)."""
        if backlog is not None:
            try:
                have = await asyncio.to_thread(backlog, self.owner)
            except Exception as e:  # the store is down: the submission itself answers 503
                logger.warning("backlog unknown: %r", e)
            else:
                self.admit(have, trials)
        job_id = await self.spend(1, trials, call)
        await asyncio.to_thread(self.claim, job_id)
        return job_id

    def check(self, job_id: str, durable_owner: Callable[[str], str | None] | None = None) -> None:
        """404 (as for a job that does not exist) unless this key may see the job (:meth:`Guard.owns`);
        ``durable_owner`` answers where Redis and this process know no owner (the durable store's
        record, :data:`PLATFORM` for its ``NULL`` owner)."""
        if not self.guard.owns(job_id, self.secret, durable_owner, self.limits.operator):
            raise ProblemError(
                404, f"no job {job_id!r}", kind="not-found", errors=[("job_id", "unknown job")]
            )


async def client(request: Request, secret: str | None = Depends(api_key_header)) -> AsyncIterator[Client]:
    """The dependency of every ``/v1`` route: 401 without a valid key, 429 over the key's rate; the
    request's engine calls are metered (:mod:`services.common.metering`) and charged when it ends."""
    guard: Guard = request.app.state.guard
    key, limits = guard.identify(secret)
    request.state.client = limits.name
    try:  # in a thread: with the quotas in Redis, a slow Redis must not stall the event loop
        await asyncio.to_thread(guard.throttle, key, limits)
    except ProblemError:
        request.app.state.metrics.rate_limited.labels(limits.name).inc()
        raise
    meter = open_meter(lambda: guard.may_spend(key, limits))
    try:
        yield Client(key, limits, guard)
    finally:
        if meter.calls:
            request.app.state.metrics.engine_seconds.labels(limits.name).inc(meter.core_s)
            await asyncio.to_thread(guard.spend, key, meter.core_s)
