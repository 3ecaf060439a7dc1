"""API keys (``X-API-Key``), per-key token-bucket rate limits and per-key daily job/trial quotas.

Jobs belong to the key that submitted them: another key gets 404 for them, as for a job that does not
exist.  With a Redis (``PULVEZAR_GATEWAY_REDIS_URL``, the job store's) the buckets, quotas and job owners
live there, so all gateway replicas share them: each check is one atomic Lua script using Redis's clock;
keys are stored by a hash of the secret, never the secret.  Without Redis they are in memory, per
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
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from fastapi import Depends, Request
from fastapi.security import APIKeyHeader

from services.common.owners import owner_of
from services.common.redis_url import connect as connect_redis
from services.gateway.problems import ProblemError, retry_after
from services.gateway.settings import ApiKey

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

_CHARGE = """
local jobs = tonumber(redis.call('HGET', KEYS[1], 'jobs') or '0')
local trials = tonumber(redis.call('HGET', KEYS[1], 'trials') or '0')
local dj, dt = tonumber(ARGV[1]), tonumber(ARGV[2])
if jobs + dj > tonumber(ARGV[3]) or trials + dt > tonumber(ARGV[4]) then return {0, jobs, trials} end
redis.call('HINCRBY', KEYS[1], 'jobs', dj)
redis.call('HINCRBY', KEYS[1], 'trials', dt)
redis.call('EXPIRE', KEYS[1], 172800)
return {1, jobs + dj, trials + dt}
"""

_REFUND = """
local jobs = math.max(0, tonumber(redis.call('HGET', KEYS[1], 'jobs') or '0') - tonumber(ARGV[1]))
local trials = math.max(0, tonumber(redis.call('HGET', KEYS[1], 'trials') or '0') - tonumber(ARGV[2]))
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], 'jobs', jobs, 'trials', trials) end
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

    def charge(
        self, secret: str, day: str, jobs: int, trials: int, max_jobs: int, max_trials: int
    ) -> tuple[bool, int, int]:
        ok, used_jobs, used_trials = self._charge(
            keys=[self._key(secret, f"quota:{day}")], args=[jobs, trials, max_jobs, max_trials]
        )
        return bool(ok), int(used_jobs), int(used_trials)

    def refund(self, secret: str, day: str, jobs: int, trials: int) -> None:
        self._refund(keys=[self._key(secret, f"quota:{day}")], args=[jobs, trials])

    def usage(self, secret: str, day: str) -> tuple[int, int]:
        jobs, trials = self.client.hmget(self._key(secret, f"quota:{day}"), "jobs", "trials")
        return int(jobs or 0), int(trials or 0)

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
        self, job_id: str, secret: str, durable_owner: Callable[[str], str | None] | None = None
    ) -> bool:
        """Whether ``secret``'s key may see the job: it submitted it, or no owner is recorded (a job
        queued by another client of the store, e.g. the command line)."""
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
        return owner is None or hmac.compare_digest(owner, owner_of(secret))

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

    def charge(self, secret: str, limits: ApiKey, jobs: int, trials: int) -> None:
        """Count ``jobs`` and ``trials`` against today's quota (UTC), or 429 until midnight."""
        now = datetime.now(UTC)
        today = now.date().isoformat()
        if self.shared is not None:
            try:
                ok, *used_shared = self.shared.charge(
                    secret, today, jobs, trials, limits.daily_jobs, limits.daily_trials
                )
            except Exception:
                self._shared_failed("quotas")
            else:
                if ok:
                    return
                over = []
                if used_shared[0] + jobs > limits.daily_jobs:
                    over.append(f"{limits.daily_jobs} jobs")
                if used_shared[1] + trials > limits.daily_trials:
                    over.append(f"{limits.daily_trials} trials")
                raise ProblemError(
                    429,
                    f"daily quota of {' and '.join(over)} exceeded "
                    f"(used today: {used_shared[0]} jobs, {used_shared[1]} trials)",
                    kind="quota-exceeded",
                    headers=retry_after(_seconds_to_midnight(now)),
                )
        with self._lock:
            usage = self._usage.get(secret)
            if usage is None or usage.day != today:
                usage = self._usage[secret] = Usage(today)
            over = []
            if usage.jobs + jobs > limits.daily_jobs:
                over.append(f"{limits.daily_jobs} jobs")
            if usage.trials + trials > limits.daily_trials:
                over.append(f"{limits.daily_trials} trials")
            if not over:
                usage.jobs += jobs
                usage.trials += trials
                return
            used = (usage.jobs, usage.trials)
        raise ProblemError(
            429,
            f"daily quota of {' and '.join(over)} exceeded (used today: {used[0]} jobs, {used[1]} trials)",
            kind="quota-exceeded",
            headers=retry_after(_seconds_to_midnight(now)),
        )

    def refund(self, secret: str, jobs: int, trials: int) -> None:
        """Give back a charge whose job could not be submitted."""
        if self.shared is not None:
            try:
                self.shared.refund(secret, datetime.now(UTC).date().isoformat(), jobs, trials)
                return
            except Exception:
                self._shared_failed("quotas")
        with self._lock:
            usage = self._usage.get(secret)
            if usage is not None:
                usage.jobs = max(0, usage.jobs - jobs)
                usage.trials = max(0, usage.trials - trials)

    def usage(self, secret: str) -> Usage:
        today = datetime.now(UTC).date().isoformat()
        if self.shared is not None:
            try:
                return Usage(today, *self.shared.usage(secret, today))
            except Exception:
                self._shared_failed("quotas")
        with self._lock:
            u = self._usage.get(secret)
            today = datetime.now(UTC).date().isoformat()
            return Usage(today) if u is None or u.day != today else Usage(u.day, u.jobs, u.trials)


@dataclass(frozen=True, slots=True)
class Client:
    """The caller of a request, once its key is known and a rate token taken."""

    secret: str
    limits: ApiKey
    guard: Guard

    @property
    def name(self) -> str:
        return self.limits.name

    def charge(self, jobs: int, trials: int) -> None:
        self.guard.charge(self.secret, self.limits, jobs, trials)

    def refund(self, jobs: int, trials: int) -> None:
        self.guard.refund(self.secret, jobs, trials)

    @property
    def owner(self) -> str:
        """How the durable store records this key as a job's owner (a digest, never the secret)."""
        return owner_of(self.secret)

    def claim(self, job_id: str) -> None:
        """This key owns the job it just submitted."""
        self.guard.claim(job_id, self.secret)

    async def spend(self, jobs: int, trials: int, call: Callable[[], Awaitable[T]]) -> T:
        """Charge the quota for ``call`` (429 over it), refunded if ``call`` fails."""
        self.charge(jobs, trials)
        try:
            return await call()
        except BaseException:
            self.refund(jobs, trials)
            raise

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
        call: Callable[[], Awaitable[str]],
        backlog: Callable[[str], tuple[int, int]] | None = None,
    ) -> str:
        """Check the key's limits on unfinished work (``backlog(owner)``: its unfinished jobs and
        queued trials), charge one job and ``trials``, submit with ``call`` and own the new job; its id.
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
        """404 (as for a job that does not exist) unless this key may see the job; ``durable_owner``
        answers where Redis and this process know no owner (the durable store's record)."""
        if not self.guard.owns(job_id, self.secret, durable_owner):
            raise ProblemError(
                404, f"no job {job_id!r}", kind="not-found", errors=[("job_id", "unknown job")]
            )


async def client(request: Request, secret: str | None = Depends(api_key_header)) -> Client:
    """The dependency of every ``/v1`` route: 401 without a valid key, 429 over the key's rate."""
    guard: Guard = request.app.state.guard
    key, limits = guard.identify(secret)
    request.state.client = limits.name
    try:
        guard.throttle(key, limits)
    except ProblemError:
        request.app.state.metrics.rate_limited.labels(limits.name).inc()
        raise
    return Client(key, limits, guard)
