"""Concurrent retries with one ``Idempotency-Key`` against a real gateway (uvicorn subprocess, SQLite
store): the key is claimed inside the write's transaction, so only one of them takes effect and every
other one is answered with its answer."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING

import httpx
import pytest

pytest.importorskip("sqlalchemy")

if TYPE_CHECKING:
    from conftest import GatewayProcess

KEY = "race-key"
AT_ONCE = 8


@pytest.fixture(scope="module")
def gateway(gateway_process: type[GatewayProcess], tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from services.store.db import upgrade

    url = f"sqlite:///{tmp_path_factory.mktemp('idempotency') / 'store.db'}"
    upgrade(url)
    env = {
        "PULVEZAR_DATABASE_URL": url,
        "PULVEZAR_GATEWAY_API_KEYS": json.dumps({KEY: {"name": "race", "rate_per_s": 1000, "burst": 1000}}),
    }
    gw = gateway_process(env, key=KEY)
    yield gw.base
    gw.stop()


def at_once(base: str, path: str, body: dict[str, object], key: str) -> list[httpx.Response]:
    """``AT_ONCE`` POSTs of ``body`` with one Idempotency-Key, sent together (each its own connection)."""
    barrier = threading.Barrier(AT_ONCE)
    out: list[httpx.Response] = []

    def send() -> None:
        with httpx.Client(base_url=base, headers={"X-API-Key": KEY}, timeout=60) as c:
            barrier.wait()
            out.append(c.post(path, json=body, headers={"Idempotency-Key": key}))

    threads = [threading.Thread(target=send) for _ in range(AT_ONCE)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(90)
    return out


def test_concurrent_retries_make_one_player(gateway: str) -> None:
    for attempt in range(3):  # three rounds: each must make exactly one player
        name = f"racer-{attempt}"
        answers = at_once(gateway, "/v1/players", {"name": name}, f"make-{name}")
        assert [r.status_code for r in answers] == [201] * AT_ONCE, [r.text for r in answers]
        assert len({r.json()["id"] for r in answers}) == 1
        assert sum(r.headers.get("Idempotent-Replayed") == "true" for r in answers) == AT_ONCE - 1
        listed = httpx.get(f"{gateway}/v1/players", headers={"X-API-Key": KEY}, params={"limit": 200}).json()
        assert [p["name"] for p in listed["players"]].count(name) == 1


def test_the_key_with_another_body_is_refused_even_in_a_race(gateway: str) -> None:
    first = at_once(gateway, "/v1/players", {"name": "one"}, "shared-key")
    assert {r.status_code for r in first} == {201}
    again = httpx.post(
        f"{gateway}/v1/players",
        json={"name": "two"},
        headers={"X-API-Key": KEY, "Idempotency-Key": "shared-key"},
    )
    assert again.status_code == 422 and again.json()["errors"][0]["field"] == "Idempotency-Key"
