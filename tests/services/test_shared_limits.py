"""Rate limits and quotas shared through Redis by several gateway replicas (a real redis-server)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from services.gateway.app import create_app
from services.gateway.problems import ProblemError
from services.gateway.security import PLATFORM, Guard, SharedLimits
from services.gateway.settings import ApiKey, GatewaySettings

TIGHT = "tight-secret"
QUOTA = "quota-secret"
KEYS = {
    TIGHT: {"name": "tight", "rate_per_s": 0.01, "burst": 4},
    QUOTA: {"name": "quota", "rate_per_s": 1000, "burst": 1000, "daily_jobs": 3, "daily_trials": 10_000},
}


@pytest.fixture()
def replicas(redis_server: str) -> Iterator[tuple[TestClient, TestClient]]:
    import redis

    redis.Redis.from_url(redis_server).flushdb()
    settings = GatewaySettings(redis_url=redis_server, api_keys=KEYS)  # type: ignore[arg-type]
    with TestClient(create_app(settings)) as a, TestClient(create_app(settings)) as b:
        yield a, b


def test_two_replicas_share_one_bucket(replicas: tuple[TestClient, TestClient]) -> None:
    a, b = replicas
    codes = [
        c.get("/v1/match-equity", params={"length": 3}, headers={"X-API-Key": TIGHT}).status_code
        for c in (a, b, a, b, a, b)
    ]
    # burst 4 over both replicas together (each alone would allow 4)
    assert codes[:4] == [200] * 4 and codes[4:] == [429, 429]


def test_quota_is_counted_across_replicas(redis_server: str) -> None:
    import redis

    redis.Redis.from_url(redis_server).flushdb()
    limits = ApiKey(name="quota", rate_per_s=1000, burst=1000, daily_jobs=3, daily_trials=10_000)
    one = Guard({QUOTA: limits}, SharedLimits.from_url(redis_server))
    two = Guard({QUOTA: limits}, SharedLimits.from_url(redis_server))
    one.charge(QUOTA, limits, 1, 4000)
    two.charge(QUOTA, limits, 1, 4000)
    with pytest.raises(ProblemError) as over:
        one.charge(QUOTA, limits, 1, 4000)  # 12,000 trials > 10,000
    assert over.value.status == 429 and over.value.kind == "quota-exceeded"
    assert two.usage(QUOTA).jobs == 2 and two.usage(QUOTA).trials == 8000
    one.refund(QUOTA, 1, 4000)
    assert two.usage(QUOTA).trials == 4000
    two.charge(QUOTA, limits, 1, 6000)  # fits again after the refund
    assert one.usage(QUOTA).jobs == 2 and one.usage(QUOTA).trials == 10_000
    # the secret itself is never stored
    keys = [k.decode() for k in redis.Redis.from_url(redis_server).keys("*")]
    assert keys and not any(QUOTA in k for k in keys)


def test_redis_gone_falls_back_to_process_limits() -> None:
    limits = ApiKey(name="tight", rate_per_s=0.01, burst=2)
    guard = Guard({TIGHT: limits}, SharedLimits.from_url("redis://127.0.0.1:9/0"))  # nothing listens there
    guard.throttle(TIGHT, limits)
    guard.throttle(TIGHT, limits)
    with pytest.raises(ProblemError) as over:
        guard.throttle(TIGHT, limits)
    assert over.value.status == 429


def test_job_owners_are_shared_and_hashed(redis_server: str) -> None:
    import redis

    redis.Redis.from_url(redis_server).flushdb()
    limits = {QUOTA: ApiKey(name="quota"), TIGHT: ApiKey(name="tight")}
    one = Guard(limits, SharedLimits.from_url(redis_server))
    two = Guard(limits, SharedLimits.from_url(redis_server))
    one.claim("job-1", QUOTA)
    assert two.owns("job-1", QUOTA) and not two.owns("job-1", TIGHT)  # another replica knows the owner
    # issue 40: no owner recorded is refused; the platform's jobs are for operator keys only
    assert not two.owns("job-from-the-command-line", TIGHT)
    platform = lambda _job: PLATFORM  # noqa: E731  # the durable store's NULL owner
    assert not two.owns("daily-job", TIGHT, platform) and two.owns(
        "daily-job", TIGHT, platform, operator=True
    )
    assert not two.owns("job-1", TIGHT, platform, operator=True)  # an operator never sees another key's
    stored = [
        v.decode()
        for v in redis.Redis.from_url(redis_server).mget(
            [k for k in redis.Redis.from_url(redis_server).keys("*owner*")]
        )
    ]
    assert stored and not any(QUOTA in v for v in stored)
    alone = Guard(limits)  # without Redis: this process's own record
    alone.claim("job-2", TIGHT)
    assert alone.owns("job-2", TIGHT) and not alone.owns("job-2", QUOTA)


def test_a_redis_that_does_not_answer_never_stalls_the_event_loop(redis_server: str) -> None:
    """The key's rate check is a Redis call where the replicas share the limits: against a Redis that
    accepts and never answers (a real socket; the client's 1 s timeout, then the process's own state),
    a keyed request waits, but the gateway's other requests are answered meanwhile (the check runs in a
    thread, not on the event loop)."""
    import socket
    import threading
    import time

    silent = socket.create_server(("127.0.0.1", 0))  # accepts (the kernel's backlog), never answers
    settings = GatewaySettings(redis_url=redis_server, api_keys=KEYS)  # type: ignore[arg-type]
    try:
        with TestClient(create_app(settings)) as c:
            c.app.state.guard.shared = SharedLimits.from_url(f"redis://127.0.0.1:{silent.getsockname()[1]}/0")
            done: dict[str, float] = {}

            def keyed() -> None:
                r = c.get("/v1/match-equity", params={"length": 3}, headers={"X-API-Key": QUOTA})
                assert r.status_code == 200, r.text  # after the timeout, on the process's own limits
                done["keyed"] = time.monotonic()

            t = threading.Thread(target=keyed)
            t.start()
            time.sleep(0.2)  # the keyed request is waiting on the silent Redis now
            assert c.get("/healthz").status_code == 200
            done["health"] = time.monotonic()
            t.join(30)
            assert not t.is_alive()
            assert done["health"] < done["keyed"], "the health check waited behind the Redis call"
    finally:
        silent.close()
