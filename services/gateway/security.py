"""API keys (``X-API-Key``), per-key token-bucket rate limits and per-key daily job/trial quotas.

All state is in memory, per gateway process: several replicas each allow a key its full rate and quota.
"""

from __future__ import annotations

import hmac
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from fastapi import Depends, Request
from fastapi.security import APIKeyHeader

from services.gateway.problems import ProblemError, retry_after
from services.gateway.settings import ApiKey

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


class Guard:
    """Checks keys, limits rates and counts quotas, for one app."""

    def __init__(self, keys: dict[str, ApiKey]) -> None:
        self.keys = dict(keys)
        self._buckets: dict[str, TokenBucket] = {}
        self._usage: dict[str, Usage] = {}
        self._lock = threading.Lock()

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
        with self._lock:
            usage = self._usage.get(secret)
            if usage is not None:
                usage.jobs = max(0, usage.jobs - jobs)
                usage.trials = max(0, usage.trials - trials)

    def usage(self, secret: str) -> Usage:
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
