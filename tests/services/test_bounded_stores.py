"""Bounded stores (issue 40), through the reconciler on a real Redis and a SQLite store: retention runs,
an ended analysis's uploaded files leave Redis (its results still read them), Redis has a ``maxmemory``
with ``noeviction`` wherever the platform starts one, and its memory is exported for an alert."""

from __future__ import annotations

import base64
import importlib.util
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
import yaml
from procutil import free_port, wait_until

pytest.importorskip("sqlalchemy")

from services.jobs.kinds.analysis import Analyses
from services.jobs.kinds.rollout import Rollouts
from services.jobs.settings import RolloutSettings
from services.rollout.celery_app import make_app
from services.rollout.reconcile import reconcile
from services.store import db
from services.store.db import session
from services.store.games import GameRecords
from services.store.jobs import JobRecords
from services.store.models import GameRow

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def platform(redis_server: str, tmp_path: Path) -> Iterator[Rollouts]:
    """A job store on the module's Redis (emptied) and a fresh SQLite store."""
    url = f"sqlite:///{tmp_path / 'store.db'}"
    db.upgrade(url)
    client = redis.Redis.from_url(redis_server, decode_responses=True)
    client.flushdb()
    settings = RolloutSettings(redis_url=redis_server)
    yield Rollouts(client, app=make_app(settings), settings=settings, records=JobRecords(url))
    client.close()


def test_the_reconciler_expires_games(platform: Rollouts) -> None:
    """``GameRecords.expire`` runs on every pass: an old finished game of no player goes."""
    assert platform.records is not None
    games = GameRecords(platform.records.url)
    games.create("old", "k1", {}, {}, "finished", events=[{"type": "end"}])
    games.create("new", "k1", {}, {}, "finished")
    with session(platform.records.url) as s:
        s.get(GameRow, "old").updated_at = time.time() - 91 * 86_400  # type: ignore[union-attr]
    counts = reconcile(platform)
    assert counts["expired_games"] == 1
    assert games.get("k1", "old") is None and games.events("old") == [] and games.get("k1", "new")


def test_an_ended_analysis_leaves_its_files_in_the_store_only(platform: Rollouts) -> None:
    records = platform.records
    assert records is not None
    data = b"; a match file\n 1 point match\n"
    for job_id in ("ended", "running"):
        records.create(job_id, "analysis", {"matches": [{}]}, owner="k1", blobs={"file:0": data})
        platform.redis.set(Analyses.file_key(job_id, 0), base64.b64encode(data).decode(), ex=3600)
    records.set_state("ended", "done")

    counts = reconcile(platform)

    assert counts["files_dropped"] == 1
    assert not platform.redis.exists(Analyses.file_key("ended", 0))
    assert platform.redis.exists(Analyses.file_key("running", 0))  # its chunks still read it
    analyses = Analyses(platform.redis, app=platform.app, settings=platform.settings, records=records)
    assert analyses.file("ended", 0) == data  # the results read the durable copy
    assert reconcile(platform)["files_dropped"] == 0


def run_py() -> Any:
    spec = importlib.util.spec_from_file_location("pulvezar_run", ROOT / "deploy" / "local" / "run.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def config(client: redis.Redis, name: str) -> str:
    return str(client.config_get(name)[name])


def test_make_runs_redis_has_maxmemory_and_noeviction(redis_binary: str, tmp_path: Path) -> None:
    """The embedded Redis of ``make run`` starts with a memory limit (noeviction, never dropping accepted
    work) and the keyspace events that wake the event streams."""
    run = run_py()
    port = free_port()
    cmd = run.redis_command(redis_binary, "127.0.0.1", port, tmp_path, run.REDIS_MAXMEMORY)
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    client = redis.Redis(port=port, decode_responses=True)
    try:
        wait_until(lambda: _pings(client), 10, "redis-server")
        assert int(config(client, "maxmemory")) == 512 * 1024 * 1024
        assert config(client, "maxmemory-policy") == "noeviction"
        assert {"K", "$"} <= set(config(client, "notify-keyspace-events"))
        from prometheus_client import CollectorRegistry

        from services.common.redis_memory import RedisMemoryCollector

        registry = CollectorRegistry()
        registry.register(RedisMemoryCollector(f"redis://127.0.0.1:{port}/0"))
        ratio = registry.get_sample_value("pulvezar_redis_memory_used_ratio")
        assert ratio is not None and 0 < ratio < 0.1
        assert registry.get_sample_value("pulvezar_redis_memory_max_bytes") == 512 * 1024 * 1024
    finally:
        proc.terminate()
        proc.wait(10)


def _pings(client: redis.Redis) -> bool:
    try:
        return bool(client.ping())
    except redis.exceptions.ConnectionError:
        return False


def test_an_unbounded_redis_reads_as_full(redis_server: str) -> None:
    """Without ``maxmemory`` the ratio is 1: the alert fires on a Redis that would grow without a bound."""
    from prometheus_client import CollectorRegistry

    from services.common.redis_memory import RedisMemoryCollector

    registry = CollectorRegistry()
    registry.register(RedisMemoryCollector(redis_server))
    assert registry.get_sample_value("pulvezar_redis_memory_used_ratio") == 1.0
    assert registry.get_sample_value("pulvezar_redis_up") == 1.0


def size(text: str) -> int:
    units = {"kb": 1000, "k": 1000, "mb": 1000**2, "m": 1000**2, "gb": 1000**3, "g": 1000**3}
    units |= {"kib": 1024, "mib": 1024**2, "gib": 1024**3}
    low = text.lower()
    for unit in sorted(units, key=len, reverse=True):
        if low.endswith(unit):
            return int(float(low[: -len(unit)]) * units[unit])
    return int(low)


@pytest.mark.parametrize("name", ["compose.yaml", "compose.sentinel.yaml"])
def test_compose_redis_has_maxmemory_below_its_limit(name: str) -> None:
    services = yaml.safe_load((ROOT / "deploy" / name).read_text())["services"]
    redises = {
        n: s
        for n, s in services.items()
        if isinstance(s.get("command"), list) and s["command"][0] == "redis-server"
    }
    assert redises
    for svc_name, svc in redises.items():
        flags: dict[str, list[str]] = {}
        for word in svc["command"][1:]:
            if word.startswith("--"):
                flags[word] = []
                last = word
            else:
                flags[last].append(word)
        assert flags.get("--maxmemory-policy") == ["noeviction"], svc_name
        assert size(flags["--maxmemory"][0]) < size(svc["mem_limit"]), svc_name
