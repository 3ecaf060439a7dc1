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
    accepts a command and never answers (a real socket), the keyed request waits, and the gateway's other
    requests are answered meanwhile (the check runs in a thread, not on the event loop). Then the silent
    Redis hangs up and the keyed request is answered on the process's own limits."""
    import socket
    import threading

    from services.common.redis_url import connect

    silent = socket.create_server(("127.0.0.1", 0))
    asked, conns = threading.Event(), []

    def serve() -> None:  # accept, read the command, never answer
        while True:
            try:
                conn, _ = silent.accept()
            except OSError:
                return  # closed
            conns.append(conn)
            try:
                if conn.recv(1):
                    asked.set()
            except OSError:
                pass

    threading.Thread(target=serve, daemon=True).start()
    settings = GatewaySettings(redis_url=redis_server, api_keys=KEYS)  # type: ignore[arg-type]
    try:
        with TestClient(create_app(settings)) as c:
            url = f"redis://127.0.0.1:{silent.getsockname()[1]}/0"
            c.app.state.guard.shared = SharedLimits(
                connect(url, socket_timeout=8.0, socket_connect_timeout=8.0)
            )
            answered: list[int] = []
            keyed = threading.Thread(
                target=lambda: answered.append(
                    c.get("/v1/match-equity", params={"length": 3}, headers={"X-API-Key": QUOTA}).status_code
                )
            )
            keyed.start()
            assert asked.wait(30), "the keyed request's rate check reached the silent Redis"
            assert c.get("/healthz").status_code == 200
            assert keyed.is_alive(), "the health check waited behind the Redis call"
            silent.close()  # hang up: the keyed request's check fails over to the process's own state
            for conn in conns:
                conn.close()
            keyed.join(30)
            assert not keyed.is_alive() and answered == [200]
    finally:
        silent.close()
