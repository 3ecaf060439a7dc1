"""Event streams against a real gateway (uvicorn subprocess) on a real Redis: a cap per key (429 over it),
a maximum lifetime, and progress by notification, not by polling (Redis's command count while a stream is
idle, and a fallback poll far longer than the test's wait)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import httpx
import pytest
import redis
from procutil import run_coroutine, wait_until

pytest.importorskip("sqlalchemy")

from services.jobs.kinds.rollout import Rollouts

if TYPE_CHECKING:
    from conftest import GatewayProcess

KEY = "streams-key"
MAX_STREAMS = 2
LIFETIME_S = 7.0
START = "4HPwATDgc/ABMA"


@pytest.fixture(scope="module")
def gateway(
    gateway_process: type[GatewayProcess], redis_server: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    from services.store.db import upgrade

    url = f"sqlite:///{tmp_path_factory.mktemp('streams') / 'store.db'}"
    upgrade(url)
    env = {
        "PULVEZAR_DATABASE_URL": url,
        "PULVEZAR_GATEWAY_REDIS_URL": redis_server,
        "PULVEZAR_ROLLOUT_REDIS_URL": redis_server,
        "PULVEZAR_GATEWAY_API_KEYS": json.dumps(
            {KEY: {"name": "streams", "rate_per_s": 1000, "burst": 1000}}
        ),
        "PULVEZAR_GATEWAY_SSE_MAX_STREAMS_PER_KEY": str(MAX_STREAMS),
        "PULVEZAR_GATEWAY_SSE_MAX_LIFETIME_S": str(LIFETIME_S),
        "PULVEZAR_GATEWAY_SSE_FALLBACK_POLL_S": "300",  # only a notification wakes a stream within a test
    }
    gw = gateway_process(env, key=KEY)
    yield gw.base
    gw.stop()


@pytest.fixture
def job(gateway: str) -> str:
    """A rollout job that stays queued (no worker runs here)."""
    r = httpx.post(
        f"{gateway}/v1/rollouts",
        json={"position": START, "trials": 72, "truncate": 2},
        headers={"X-API-Key": KEY},
        timeout=30,
    )
    assert r.status_code == 202, r.text
    return str(r.json()["id"])


def events(lines: Iterator[str], deadline: float) -> Iterator[tuple[str, Any]]:
    """``(event name, data)`` of an event stream's lines, and ``("comment", text)`` of its comments."""
    name = None
    for line in lines:
        assert time.monotonic() < deadline, "the stream ran past the test's deadline"
        if line.startswith(":"):
            yield "comment", line[1:].strip()
        elif line.startswith("event: "):
            name = line[len("event: ") :]
        elif line.startswith("data: ") and name is not None:
            yield name, json.loads(line[len("data: ") :])
            name = None


def commands(client: redis.Redis) -> int:
    return int(client.info("stats")["total_commands_processed"])


def test_progress_comes_by_notification_and_the_stream_ends_with_its_lifetime(
    gateway: str, job: str, redis_server: str
) -> None:
    r = redis.Redis.from_url(redis_server)
    url = f"{gateway}/v1/rollouts/{job}/events"
    opened = time.monotonic()
    with httpx.stream("GET", url, headers={"X-API-Key": KEY}, timeout=LIFETIME_S * 6) as resp:
        assert resp.status_code == 200
        seen = events(resp.iter_lines(), opened + LIFETIME_S * 6)
        name, first = next(seen)
        assert name == "progress" and first["state"] == "queued"
        before = commands(r)
        time.sleep(3.0)  # idle: the stream must not read the job (the old 2 Hz polling read it 6 times)
        idle = commands(r) - before - 1  # less this INFO
        assert idle <= 2, f"{idle} Redis commands while the stream was idle"
        r.set(Rollouts.started_key(job), str(time.time()), nx=True)  # as a worker does when it starts
        name, running = next(seen)
        assert name == "progress" and running["state"] == "running"
        assert time.monotonic() - opened < LIFETIME_S  # woken, not polled (the fallback poll is 300 s)
        rest = list(seen)  # then the stream ends by itself, the job still running
        assert rest and rest[-1][0] == "comment" and "reconnect" in rest[-1][1]
    assert time.monotonic() - opened < LIFETIME_S * 3


def test_streams_per_key_are_capped(gateway: str, job: str) -> None:
    url = f"{gateway}/v1/rollouts/{job}/events"
    clients = [httpx.Client(headers={"X-API-Key": KEY}, timeout=30) for _ in range(MAX_STREAMS + 1)]
    try:
        held = [c.stream("GET", url) for c in clients[:MAX_STREAMS]]
        for h in held:
            assert h.__enter__().status_code == 200
        with clients[MAX_STREAMS].stream("GET", url) as over:
            assert over.status_code == 429
            over.read()
        assert over.json()["errors"][0]["field"] == "streams" and "Retry-After" in over.headers
        held[0].__exit__(None, None, None)  # one closed: its slot comes back

        def again() -> bool:
            with clients[MAX_STREAMS].stream("GET", url) as r:
                return r.status_code == 200

        wait_until(again, 15, "a stream slot given back", every=0.2)
        held[1].__exit__(None, None, None)
    finally:
        for c in clients:
            c.close()


def test_a_stored_game_event_wakes_its_streams(redis_server: str, tmp_path: Any) -> None:
    """A game's events stored (``GameRecords.save``) wake the streams of that game on every replica
    (a PUBLISH that each gateway's listener hears), long before the fallback poll."""
    from services.gateway.settings import GatewaySettings
    from services.gateway.sse import Streams
    from services.store.db import upgrade
    from services.store.games import GameRecords

    url = f"sqlite:///{tmp_path / 'games.db'}"
    upgrade(url)
    games = GameRecords(url)
    games.create("g1", "k", {}, {}, "playing")

    async def one_wake(pace: Any) -> Any:
        await pace.wait()
        yield b"woken"

    async def scenario() -> float:
        streams = Streams(GatewaySettings(redis_url=redis_server, sse_fallback_poll_s=300, sse_poll_s=0.01))
        try:
            response = await streams.open("k", "game:g1", one_wake)
            await asyncio.sleep(1.0)  # the listener subscribes
            stored = games.get("k", "g1")
            assert stored is not None
            t0 = time.monotonic()
            await asyncio.to_thread(games.save, stored, {"n": 1}, {}, "playing", [{"type": "roll"}])
            async for _ in response.body_iterator:
                pass
            return time.monotonic() - t0
        finally:
            streams.close()

    assert run_coroutine(asyncio.wait_for(scenario(), 60)) < 30  # not the 300 s fallback


def test_a_stopping_gateway_ends_its_streams_at_once(
    gateway_process: type[GatewayProcess], redis_server: str, tmp_path: Any
) -> None:
    """SIGTERM ends every open stream with a comment saying to reconnect (another replica takes it up),
    so the gateway exits long before its grace period; before, uvicorn waited the grace period out on the
    open stream."""
    import signal

    from services.store.db import upgrade

    grace_s = 90.0
    url = f"sqlite:///{tmp_path / 'store.db'}"
    upgrade(url)
    env = {
        "PULVEZAR_DATABASE_URL": url,
        "PULVEZAR_GATEWAY_REDIS_URL": redis_server,
        "PULVEZAR_ROLLOUT_REDIS_URL": redis_server,
        "PULVEZAR_GATEWAY_API_KEYS": json.dumps(
            {KEY: {"name": "streams", "rate_per_s": 1000, "burst": 1000}}
        ),
        "PULVEZAR_GATEWAY_GRACE_PERIOD_S": str(grace_s),
        "PULVEZAR_GATEWAY_SSE_FALLBACK_POLL_S": "300",
    }
    gw = gateway_process(env, key=KEY)
    try:
        r = gw.http.post("/v1/rollouts", json={"position": START, "trials": 72, "truncate": 2})
        assert r.status_code == 202, r.text
        opened = time.monotonic()
        with httpx.stream(
            "GET",
            f"{gw.base}/v1/rollouts/{r.json()['id']}/events",
            headers={"X-API-Key": KEY},
            timeout=grace_s * 2,
        ) as resp:
            assert resp.status_code == 200
            seen = events(resp.iter_lines(), opened + grace_s * 2)
            assert next(seen)[0] == "progress"
            stopped = time.monotonic()
            gw.svc.proc.send_signal(signal.SIGTERM)
            rest = list(seen)
        assert rest and rest[-1][0] == "comment" and "stopping" in rest[-1][1], rest
        assert gw.svc.proc.wait(timeout=grace_s) == 0
        assert time.monotonic() - stopped < grace_s / 3, "the gateway waited on its open stream"
    finally:
        if gw.svc.proc.poll() is None:
            gw.svc.proc.kill()
