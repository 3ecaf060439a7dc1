"""Redis Sentinel: a worker and a job store reach Redis through ``redis+sentinel://``, the primary is killed
mid-job, the sentinels promote the replica, and the job finishes with the library's numbers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

redis = pytest.importorskip("redis")
pytest.importorskip("celery")

from procutil import torch_threads, wait_until  # noqa: E402
from rollout_workers import Worker, scheduler_state  # noqa: E402
from sentinel_redis import SentinelRedis  # noqa: E402
from shared_platform import small_model  # noqa: E402

from pulvezar import Position  # noqa: E402
from pulvezar.eval.evaluator import NetEvaluator  # noqa: E402
from pulvezar.rollouts.chunks import rollout_chunked  # noqa: E402
from services.common.redis_url import celery_broker, connect, parse_sentinel  # noqa: E402
from services.jobs.kinds.rollout import Rollouts  # noqa: E402
from services.jobs.settings import RolloutSettings  # noqa: E402
from services.rollout.celery_app import make_app  # noqa: E402
from services.store.jobs import JobRecords  # noqa: E402

START = "4HPwATDgc/ABMA"
CHUNK = 72


def test_sentinel_urls_are_parsed_and_given_to_celery() -> None:
    s = parse_sentinel("redis+sentinel://:pw@a:1,b:2/prim/3")
    assert s.sentinels == (("a", 1), ("b", 2)) and s.master == "prim" and s.db == 3 and s.password == "pw"
    url, options = celery_broker("redis+sentinel://a:1,b:2/prim")
    assert url == "sentinel://a:1/0;sentinel://b:2/0" and options == {"master_name": "prim"}
    assert celery_broker("redis://h:6379/0") == ("redis://h:6379/0", {})
    for bad in ("redis+sentinel://a:1", "redis+sentinel://a/prim", "redis://a:1/x"):
        with pytest.raises(ValueError):
            parse_sentinel(bad)


def diagnosis(sentinel: SentinelRedis, client: Any, worker: Worker) -> str:
    """What a failure message needs: failovers, roles, the scheduler's keys and the worker's last logs."""
    keys = scheduler_state(client)
    logs = worker.tail()
    return (
        f"failovers {sentinel.failovers()}, roles {sentinel.roles()}, primary port {sentinel.primary_port()}"
        f" (ports {sentinel.ports}), scheduler {keys}, worker alive {worker.proc.poll() is None},"
        f" worker logs {logs}"
    )


@pytest.fixture
def sentinel(redis_binary: str, tmp_path: Path) -> Iterator[SentinelRedis]:
    group = SentinelRedis(redis_binary, tmp_path)
    try:
        yield group
    finally:
        group.close()


def test_a_job_survives_the_primarys_loss_through_sentinel(
    sentinel: SentinelRedis, tmp_path: Path, module_database: str
) -> None:
    model = small_model(tmp_path / "small.pt")
    env = {
        "PULVEZAR_ROLLOUT_REDIS_URL": sentinel.url,
        "PULVEZAR_ROLLOUT_MODEL_PATH": str(model),
        "PULVEZAR_ROLLOUT_DEVICE": "cpu",
        "PULVEZAR_ROLLOUT_CHUNK_SIZE": str(CHUNK),
        "PULVEZAR_ROLLOUT_EVAL_DELAY_MS": "60",
        "PULVEZAR_ROLLOUT_TORCH_THREADS": "1",
        "PULVEZAR_ROLLOUT_LEASE_S": "3",
        "PULVEZAR_ROLLOUT_TICK_S": "0.25",
        "PULVEZAR_ROLLOUT_METRICS_DIR": str(tmp_path / "metrics"),
    }
    settings = RolloutSettings(redis_url=sentinel.url, chunk_size=CHUNK, lease_s=3)
    client = connect(sentinel.url, decode_responses=True, socket_timeout=5, socket_connect_timeout=5)
    assert client.ping()
    store = Rollouts(client, app=make_app(settings), settings=settings, records=JobRecords(module_database))
    worker = Worker(env, "sentinel", metrics_port=-1).ready()
    try:
        opts = {"seed": 51, "truncate": 6}
        job = store.submit({"position": START, "trials": 8 * CHUNK, **opts})
        try:
            wait_until(lambda: store.status(job)["chunks_done"] >= 2, 60, "two chunks", every=0.05)
        except AssertionError as e:
            raise AssertionError(f"{e}; {diagnosis(sentinel, client, worker)}") from None
        assert sentinel.failovers() == 0, (
            f"a failover before the primary's loss: {diagnosis(sentinel, client, worker)}"
        )
        took = sentinel.kill_primary()
        assert took < 20
        with torch_threads(1):
            want = rollout_chunked(
                Position.from_position_id(START),
                8 * CHUNK,
                chunk_size=CHUNK,
                evaluator=NetEvaluator.load(model, device="cpu"),
                **opts,
            )

        def done() -> bool:
            try:
                return bool(store.status(job)["state"] == "done")
            except redis.exceptions.ConnectionError:  # a moment while the client finds the new primary
                return False

        try:
            wait_until(done, 90, "the job to finish on the new primary", every=0.2)
        except AssertionError as e:
            raise AssertionError(f"{e}; {diagnosis(sentinel, client, worker)}") from None
        np.testing.assert_array_equal(store.rollout_results(job)[0][0].values, want.values)
        assert sentinel.primary_port() == sentinel.ports["replica"]
    finally:
        worker.kill()
